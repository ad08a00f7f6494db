#pragma once
// The operators of the FE core as pointwise "integrands" (in the spirit of libCEED
// QFunctions / MFEM integrators): each says what one tetrahedron contributes, in terms of the
// element math of this folder; the assembly machinery (CPU reference loop, CUDA kernels)
// does the gathering of coordinates and the scatter into the global matrix. Both backends
// call exactly the same `element` functions, so CPU and GPU differ only in summation order.
//
// Fields are P1 nodal arrays given as FieldRef (host memory for the CPU backend, device memory
// for the CUDA backend); an empty FieldRef means "absent" (a coefficient of 1, no right-hand
// side). Layouts: scalar f[node]; vector u[node * 3 + d]; tensor K[node * 9 + 3 r + c].
// Each operator lists its fields in for_each_field, so the backends can check sizes and
// values (NaN) before any kernel runs.
//
// Element matrices have (4 R) x (4 C) entries, row i*R + r (test node i, component r) and
// column j*C + c (trial node j, component c), for R x C blocks (see block_csr_matrix.hpp).

#include <cstdint>

#include "foehn/fe/element_math.hpp"

namespace foehn::fe {

// The published 11-point rule (vertices, edge midpoints, centroid), exact to degree 3: what the
// seed pipeline uses for every operator. The other backends use each operator's own `Rule`,
// the cheapest rule that integrates its integrand exactly (for P1 coefficients on an affine
// tet), so they compute the same matrix up to round-off with fewer points.
using DefaultRule = TetVertexEdge11;
using P1Geometry = AffineGeometry<3, 4, DefaultRule::ngi>;

template <class Rule>
struct ElementContextFor {
  using rule_type = Rule;
  static constexpr int ngi = Rule::ngi;
  Array<std::int32_t, 4> nodes;
  Mat<4, 3> x;                              // node coordinates
  AffineGeometry<3, 4, Rule::ngi> geometry;  // detwei, physical shape derivatives
  Mat<Rule::ngi, 4> n;                      // shape functions at the quadrature points
};
using ElementContext = ElementContextFor<DefaultRule>;

// A non-owning view of a nodal field: trivially copyable into a kernel's parameters.
struct FieldRef {
  const double* data = nullptr;
  std::int64_t size = 0;
};
inline FieldRef field_ref(const double* data, std::int64_t size) { return FieldRef{data, size}; }
template <class Container>
FieldRef field_ref(const Container& values) {
  return FieldRef{values.data(), static_cast<std::int64_t>(values.size())};
}

namespace detail {
// Value of an optional P1 scalar field at quadrature point gi (1 when absent).
template <int Ngi>
struct OptionalScalarAtQuad {
  const Mat<Ngi, 4>* n;
  Vec<4> nodal;
  bool present;
  FOEHN_HD double operator()(int gi) const { return present ? interpolate(*n, gi, nodal) : 1.0; }
};
template <class Ctx>
FOEHN_HD OptionalScalarAtQuad<Ctx::ngi> optional_scalar(const double* field, const Ctx& e) {
  OptionalScalarAtQuad<Ctx::ngi> q{&e.n, Vec<4>::zero(), field != nullptr};
  if (field) q.nodal = ele_val<4>(field, e.nodes);
  return q;
}
// Right-hand side ∫ N_i f for a P1 source (zero when absent).
template <class Ctx>
FOEHN_HD Vec<4> load_vector(const double* source, const Ctx& e) {
  if (!source) return Vec<4>::zero();
  const Vec<Ctx::ngi> f = ele_val_at_quad(e.n, ele_val<4>(source, e.nodes));
  return shape_rhs(e.n, e.geometry.detwei, f);
}
}  // namespace detail

// M_ij = scale ∫ c N_i N_j ;  b_i = ∫ N_i f
struct MassOperator {
  static constexpr int block_rows = 1, block_cols = 1;
  static constexpr const char* name = "mass";
  using Rule = TetVertexEdge11;  // c N_i N_j with a P1 c: degree 3
  double scale = 1.0;
  FieldRef coefficient{};  // c, scalar P1 (optional)
  FieldRef source{};       // f, scalar P1 (optional)

  // Calls visit(field, components per node, name, required) for every nodal field.
  template <class Visitor>
  void for_each_field(Visitor&& visit) const {
    visit(coefficient, 1, "coefficient", false);
    visit(source, 1, "source", false);
  }

  template <class Ctx>
  FOEHN_HD void element(const Ctx& e, Mat<4, 4>& a, Vec<4>& b) const {
    a = scale * shape_shape(e.n, e.geometry.detwei, detail::optional_scalar(coefficient.data, e));
    b = detail::load_vector(source.data, e);
  }
};

// A_ij = scale ∫ N_i (u · ∇N_j)   (advection by a P1 velocity)
struct AdvectionOperator {
  static constexpr int block_rows = 1, block_cols = 1;
  static constexpr const char* name = "advection";
  using Rule = TetStroud4;  // N_i u · ∇N_j with a P1 u: degree 2
  double scale = 1.0;
  FieldRef velocity{};  // u, vector P1 (required)
  FieldRef source{};

  // Calls visit(field, components per node, name, required) for every nodal field.
  template <class Visitor>
  void for_each_field(Visitor&& visit) const {
    visit(velocity, 3, "velocity", true);
    visit(source, 1, "source", false);
  }

  template <class Ctx>
  FOEHN_HD void element(const Ctx& e, Mat<4, 4>& a, Vec<4>& b) const {
    const auto u = ele_val_at_quad(e.n, ele_val_vector<4, 3>(velocity.data, e.nodes));
    a = scale * shape_vector_dot_dshape(e.n, u, e.geometry);
    b = detail::load_vector(source.data, e);
  }
};

// K_ij = scale ∫ ∇N_i · K ∇N_j   (anisotropic diffusion; K = I when absent: the Laplacian)
struct DiffusionOperator {
  static constexpr int block_rows = 1, block_cols = 1;
  static constexpr const char* name = "diffusion";
  using Rule = TetStroud4;  // ∇N_i · K ∇N_j with a P1 K: degree 1; the load N_i f: degree 2
  double scale = 1.0;
  FieldRef tensor{};  // K, tensor P1 (optional)
  FieldRef source{};

  // Calls visit(field, components per node, name, required) for every nodal field.
  template <class Visitor>
  void for_each_field(Visitor&& visit) const {
    visit(tensor, 9, "tensor", false);
    visit(source, 1, "source", false);
  }

  template <class Ctx>
  FOEHN_HD void element(const Ctx& e, Mat<4, 4>& a, Vec<4>& b) const {
    if (tensor.data) {
      const auto k = ele_val_at_quad(e.n, ele_val_tensor<4>(tensor.data, e.nodes));
      a = scale * dshape_tensor_dshape(e.geometry, k);
    } else {
      a = scale * dshape_dot_dshape(e.geometry);
    }
    b = detail::load_vector(source.data, e);
  }
};

// The theta-scheme matrix of an advected and diffused tracer (theta', qv, qc, qr):
//   (1/dt) ∫ N_i N_j + theta [ ∫ N_i (u · ∇N_j) + ∫ ∇N_i · K ∇N_j ]
// With conservative_form, the advection term is integrated by parts, - ∫ (u · ∇N_i) N_j, with
// no boundary flux: the column sums of the transport then vanish (the N_i sum to 1), so the
// tracer's integral is conserved exactly whatever the discrete divergence of u — the right
// form for closed domains (walls everywhere); open boundaries need the advective form.
struct AdvectionDiffusionOperator {
  static constexpr int block_rows = 1, block_cols = 1;
  static constexpr const char* name = "advection_diffusion";
  using Rule = TetStroud4;  // mass and advection terms: degree 2
  double inverse_dt = 1.0;
  double theta = 0.5;
  bool conservative_form = false;
  FieldRef velocity{};  // required
  FieldRef tensor{};    // optional (K = I)
  FieldRef source{};

  // Calls visit(field, components per node, name, required) for every nodal field.
  template <class Visitor>
  void for_each_field(Visitor&& visit) const {
    visit(velocity, 3, "velocity", true);
    visit(tensor, 9, "tensor", false);
    visit(source, 1, "source", false);
  }

  template <class Ctx>
  FOEHN_HD void element(const Ctx& e, Mat<4, 4>& a, Vec<4>& b) const {
    const auto u = ele_val_at_quad(e.n, ele_val_vector<4, 3>(velocity.data, e.nodes));
    Mat<4, 4> transport = shape_vector_dot_dshape(e.n, u, e.geometry);
    if (conservative_form) transport = -1.0 * transpose(transport);
    if (tensor.data) {
      const auto k = ele_val_at_quad(e.n, ele_val_tensor<4>(tensor.data, e.nodes));
      transport += dshape_tensor_dshape(e.geometry, k);
    } else {
      transport += dshape_dot_dshape(e.geometry);
    }
    a = inverse_dt * shape_shape(e.n, e.geometry.detwei) + theta * transport;
    b = detail::load_vector(source.data, e);
  }
};

// Pressure-diffusion stabilisation: P_ij = scale ∫ ∇N_i · L ∇N_j with the element tensor
// L = sum_k h_k^2 v_k v_k^T from the element's metric (every edge has unit length in it):
// the 6x6 solve and the 3x3 symmetric eigen-decomposition of edge_lengths. The Jacobi eigen
// solver is used because it needs only +, *, / and sqrt, which are correctly rounded on both
// backends, so deterministic mode stays bitwise.
struct StabilisationOperator {
  static constexpr int block_rows = 1, block_cols = 1;
  static constexpr const char* name = "stabilisation";
  using Rule = TetCentroid1;  // constant integrand
  double scale = 1.0;

  template <class Visitor>
  void for_each_field(Visitor&&) const {}  // no nodal fields

  template <class Ctx>
  FOEHN_HD void element(const Ctx& e, Mat<4, 4>& a, Vec<4>& b) const {
    ElementLengthScales<double> lengths{};
    b = Vec<4>::zero();
    if (!edge_lengths<EigenMethod::jacobi>(e.x, lengths)) {
      a = Mat<4, 4>::zero();  // unreachable for a valid tet: the metric always exists
      return;
    }
    Mat<3, 3> l = Mat<3, 3>::zero();
    FOEHN_UNROLL
    for (int k = 0; k < 3; ++k) {
      const double h2 = lengths.length.v[k] * lengths.length.v[k];
      FOEHN_UNROLL
      for (int r = 0; r < 3; ++r) {
        FOEHN_UNROLL
        for (int c = 0; c < 3; ++c) l.a[r][c] += h2 * lengths.axes.a[r][k] * lengths.axes.a[c][k];
      }
    }
    a = scale * dshape_tensor_dshape(e.geometry, uniform(l));
  }
};

// D_{i,(j,d)} = ∫ N_i ∂N_j/∂x_d : pressure test functions x velocity components, so that
// (D u)_i = ∫ N_i ∇·u_h. Stored as 1 x 3 blocks.
struct DivergenceOperator {
  static constexpr int block_rows = 1, block_cols = 3;
  static constexpr const char* name = "divergence";
  using Rule = TetCentroid1;  // N_i ∂N_j/∂x: degree 1
  double scale = 1.0;

  template <class Visitor>
  void for_each_field(Visitor&&) const {}  // no nodal fields

  template <class Ctx>
  FOEHN_HD void element(const Ctx& e, Mat<4, 12>& a, Vec<4>& b) const {
    a = scale * divergence_block(shape_dshape(e.n, e.geometry));
    b = Vec<4>::zero();
  }
};

// The momentum matrix of a velocity u (3x3 BCSR), stress-divergence form:
//   (rho/dt) ∫ N_i N_j I + mu [ ∫ ∇N_i · ∇N_j I + (∫ ∂N_i/∂x_b ∂N_j/∂x_a)_ab ]
//   + ∫ N_i (w · ∇N_j) I            (advection by the P1 velocity w, if given)
// b_(i,a) = ∫ N_i f_a for a P1 vector body force f (e.g. buoyancy).
struct MomentumOperator {
  static constexpr int block_rows = 3, block_cols = 3;
  static constexpr const char* name = "momentum";
  using Rule = TetStroud4;  // mass and advection terms: degree 2
  double density_over_dt = 1.0;
  double viscosity = 1.0;
  FieldRef advecting_velocity{};  // w, vector P1 (optional)
  FieldRef body_force{};          // f, vector P1 (optional)

  // Calls visit(field, components per node, name, required) for every nodal field.
  template <class Visitor>
  void for_each_field(Visitor&& visit) const {
    visit(advecting_velocity, 3, "advecting_velocity", false);
    visit(body_force, 3, "body_force", false);
  }

  // The 12 x 12 element matrix has too many entries to live in registers (nvcc spills it),
  // so the kernels use this compact form and produce each entry when it is scattered:
  //   entry(i, j, a, b) = scalar(i, j) δ_ab + mu |T| ∂N_i/∂x_b ∂N_j/∂x_a
  struct CompactElement {
    Mat<4, 4> scalar;   // (rho/dt) M + mu L (+ A)
    Mat<4, 3> dn;       // physical shape derivatives (constant on a P1 tet)
    double mu_volume;   // mu times the element volume
    Vec<12> b;
    // One formula for every backend, so that all of them round alike.
    FOEHN_HD static double combine(double scalar_ij, double mu_volume, double dn_ic, double dn_ja,
                                   bool diagonal) {
      const double transpose = mu_volume * dn_ic * dn_ja;
      return diagonal ? scalar_ij + transpose : transpose;
    }
    FOEHN_HD double entry(int i, int j, int a, int c) const {
      return combine(scalar.a[i][j], mu_volume, dn.a[i][c], dn.a[j][a], a == c);
    }
    FOEHN_HD double rhs(int k) const { return b.v[k]; }
    // Stored form for the deterministic gather: 29 doubles instead of the 144 entries.
    static constexpr int stored_doubles = 29;  // scalar (16), dn (12), mu_volume (1)
    FOEHN_HD void store(double* out) const {
      FOEHN_UNROLL
      for (int k = 0; k < 16; ++k) out[k] = scalar.a[k / 4][k % 4];
      FOEHN_UNROLL
      for (int k = 0; k < 12; ++k) out[16 + k] = dn.a[k / 3][k % 3];
      out[28] = mu_volume;
    }
  };

  template <class Ctx>
  FOEHN_HD void element_compact(const Ctx& e, CompactElement& out) const {
    const Mat<4, 4> mass = shape_shape(e.n, e.geometry.detwei);
    out.scalar = density_over_dt * mass + viscosity * dshape_dot_dshape(e.geometry);
    if (advecting_velocity.data) {
      const auto w = ele_val_at_quad(e.n, ele_val_vector<4, 3>(advecting_velocity.data, e.nodes));
      out.scalar += shape_vector_dot_dshape(e.n, w, e.geometry);
    }
    out.dn = e.geometry.dn;
    out.mu_volume = viscosity * element_measure(e.geometry);
    out.b = Vec<12>::zero();
    if (body_force.data) {
      const Mat<4, 3> f = ele_val_vector<4, 3>(body_force.data, e.nodes);
      // ∫ N_i N_j f_j,a = (M f)_(i,a): the consistent load of a P1 force.
      FOEHN_UNROLL
      for (int i = 0; i < 4; ++i) {
        FOEHN_UNROLL
        for (int j = 0; j < 4; ++j) {
          FOEHN_UNROLL
          for (int d = 0; d < 3; ++d) out.b.v[i * 3 + d] += mass.a[i][j] * f.a[j][d];
        }
      }
    }
  }

  // The full matrix, for tests and host code (the same arithmetic as the compact form).
  template <class Ctx>
  FOEHN_HD void element(const Ctx& e, Mat<12, 12>& a, Vec<12>& b) const {
    CompactElement c;
    element_compact(e, c);
    FOEHN_UNROLL
    for (int i = 0; i < 4; ++i) {
      FOEHN_UNROLL
      for (int j = 0; j < 4; ++j) {
        FOEHN_UNROLL
        for (int r = 0; r < 3; ++r) {
          FOEHN_UNROLL
          for (int k = 0; k < 3; ++k) a.a[i * 3 + r][j * 3 + k] = c.entry(i, j, r, k);
        }
      }
    }
    b = c.b;
  }
};

// What the assembly machinery computes per element: an operator's CompactElement when it has
// one, otherwise the dense element matrix and vector. Both answer entry(i, j, r, c) (block
// (i, j), entry (r, c)) and rhs(k) (k = i * R + r).
template <int R, int C>
struct DenseElement {
  Mat<4 * R, 4 * C> a;
  Vec<4 * R> b;
  FOEHN_HD double entry(int i, int j, int r, int c) const { return a.a[i * R + r][j * C + c]; }
  FOEHN_HD double rhs(int k) const { return b.v[k]; }
};

template <class Op>
concept HasCompactElement = requires { typename Op::CompactElement; };

template <class Op>
struct ElementResultOf {
  using type = DenseElement<Op::block_rows, Op::block_cols>;
};
template <HasCompactElement Op>
struct ElementResultOf<Op> {
  using type = typename Op::CompactElement;
};
template <class Op>
using ElementResult = typename ElementResultOf<Op>::type;

template <class Op, class Ctx>
FOEHN_HD void compute_element(const Op& op, const Ctx& ctx, ElementResult<Op>& out) {
  if constexpr (HasCompactElement<Op>)
    op.element_compact(ctx, out);
  else
    op.element(ctx, out.a, out.b);
}

// Gathers coordinates and computes the geometry of tet `e`; false for a singular or inverted
// element (the mesh layer rejects those before assembly, so this is a guard).
template <class Rule>
FOEHN_HD bool prepare_element(const double* coordinates, const std::int32_t* tets,
                              std::int64_t e, ElementContextFor<Rule>& ctx) {
  ctx.nodes = ele_nodes<4>(tets, e);
  ctx.x = ele_val_vector<4, 3>(coordinates, ctx.nodes);
  constexpr Rule rule{};
  ctx.n = p1_shape_at_quad(rule);
  return transform_to_physical(ctx.x, rule, ctx.geometry) == TransformStatus::ok;
}

}  // namespace foehn::fe
