#pragma once
// The built-in operators of the FE core as pointwise "integrands" (in the spirit of libCEED
// QFunctions / MFEM integrators): each says what one tetrahedron contributes, in terms of the
// element math of this folder; the assembly machinery (operator_interface.hpp says what it
// needs from an operator) gathers coordinates and scatters into the global matrix. Both
// backends call exactly the same `element` functions, so CPU and GPU differ only in summation
// order. A user's own operator is written the same way (docs/library_api.md).

#include <cstdint>

#include "foehn/fe/operator_interface.hpp"

namespace foehn::fe {

// M_ij = scale ∫ c N_i N_j ;  b_i = ∫ N_i f
struct MassOperator {
  static constexpr int block_rows = 1, block_cols = 1;
  static constexpr const char* name = "mass";
  using Rule = TetVertexEdge11;  // c N_i N_j with a P1 c: degree 3
  double scale = 1.0;
  FieldRef coefficient{};  // c, scalar P1 (optional)
  FieldRef source{};       // f, scalar P1 (optional)

  // Calls visit(member, name) for every scalar parameter (what the C ABI sets by name).
  template <class Visitor>
  void for_each_parameter(Visitor&& visit) {
    visit(scale, "scale");
  }

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

  // Calls visit(member, name) for every scalar parameter (what the C ABI sets by name).
  template <class Visitor>
  void for_each_parameter(Visitor&& visit) {
    visit(scale, "scale");
  }

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

  // Calls visit(member, name) for every scalar parameter (what the C ABI sets by name).
  template <class Visitor>
  void for_each_parameter(Visitor&& visit) {
    visit(scale, "scale");
  }

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

  // The tensor may come already evaluated at the quadrature points (seed pipeline, stage 3).
  static constexpr int quadrature_coefficient_components = 9;
  FOEHN_HD FieldRef quadrature_coefficient_field() const { return tensor; }
  template <class Ctx, class Result>
  FOEHN_HD void element_with_quadrature_coefficient(const Ctx& e, const double* k_at_quad,
                                                    Result& out) const {
    Array<Mat<3, 3>, Ctx::ngi> k;
    FOEHN_UNROLL
    for (int gi = 0; gi < Ctx::ngi; ++gi) {
      FOEHN_UNROLL
      for (int rc = 0; rc < 9; ++rc) k.v[gi].a[rc / 3][rc % 3] = k_at_quad[gi * 9 + rc];
    }
    out.a = scale * dshape_tensor_dshape(e.geometry, k);
    out.b = detail::load_vector(source.data, e);
  }
};

// The theta-scheme matrix of an advected and diffused tracer (theta', qv, qc, qr):
//   (1/dt) ∫ N_i N_j + theta [ ∫ N_i (u · ∇N_j) + ∫ ∇N_i · K ∇N_j ]
// With conservative_form, the advection term is integrated by parts, - ∫ (u · ∇N_i) N_j, with
// no boundary flux: the column sums of the transport then vanish (the N_i sum to 1), so the
// tracer's integral is conserved exactly whatever the discrete divergence of u — the right
// form for closed domains (walls everywhere); open boundaries need the advective form.
// With skew_symmetric, ±(1/2) ∫ (∇·u) N_i N_j is added (+ to the advective form, - to the
// conservative one; Temam's correction): the symmetric part of the advection matrix is then
// only the boundary flux (1/2) ∮ (u·n) N_i N_j, whatever the discrete divergence of u, so
// Crank-Nicolson transport cannot grow a tracer's L2 norm in the interior. Without it, the
// symmetric part -(1/2) ∫ (∇·u) N_i N_j feeds tracer variance wherever a projected P1
// velocity converges slightly, and nothing at theta = 1/2 removes it again.
struct AdvectionDiffusionOperator {
  static constexpr int block_rows = 1, block_cols = 1;
  static constexpr const char* name = "advection_diffusion";
  using Rule = TetStroud4;  // mass and advection terms: degree 2
  double inverse_dt = 1.0;
  double theta = 0.5;
  bool conservative_form = false;
  bool skew_symmetric = false;
  FieldRef velocity{};  // required
  FieldRef tensor{};    // optional (K = I)
  FieldRef source{};

  // Calls visit(member, name) for every scalar parameter (what the C ABI sets by name).
  template <class Visitor>
  void for_each_parameter(Visitor&& visit) {
    visit(inverse_dt, "inverse_dt");
    visit(theta, "theta");
    visit(conservative_form, "conservative_form");
    visit(skew_symmetric, "skew_symmetric");
  }

  // Calls visit(field, components per node, name, required) for every nodal field.
  template <class Visitor>
  void for_each_field(Visitor&& visit) const {
    visit(velocity, 3, "velocity", true);
    visit(tensor, 9, "tensor", false);
    visit(source, 1, "source", false);
  }

  template <class Ctx>
  FOEHN_HD void element(const Ctx& e, Mat<4, 4>& a, Vec<4>& b) const {
    const Mat<4, 3> nodal_velocity = ele_val_vector<4, 3>(velocity.data, e.nodes);
    const auto u = ele_val_at_quad(e.n, nodal_velocity);
    Mat<4, 4> transport = shape_vector_dot_dshape(e.n, u, e.geometry);
    if (conservative_form) transport = -1.0 * transpose(transport);
    if (skew_symmetric) {
      // ∇·u of a P1 field on a tet: one value for the whole element.
      const Mat<4, 3> dn = e.geometry.dshape(0);
      double divergence = 0.0;
      FOEHN_UNROLL
      for (int i = 0; i < 4; ++i) {
        FOEHN_UNROLL
        for (int d = 0; d < 3; ++d) divergence += nodal_velocity.a[i][d] * dn.a[i][d];
      }
      const double half = conservative_form ? -0.5 : 0.5;
      transport += (half * divergence) * shape_shape(e.n, e.geometry.detwei);
    }
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

  // Calls visit(member, name) for every scalar parameter (what the C ABI sets by name).
  template <class Visitor>
  void for_each_parameter(Visitor&& visit) {
    visit(scale, "scale");
  }

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

  // Calls visit(member, name) for every scalar parameter (what the C ABI sets by name).
  template <class Visitor>
  void for_each_parameter(Visitor&& visit) {
    visit(scale, "scale");
  }

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

  // Calls visit(member, name) for every scalar parameter (what the C ABI sets by name).
  template <class Visitor>
  void for_each_parameter(Visitor&& visit) {
    visit(density_over_dt, "density_over_dt");
    visit(viscosity, "viscosity");
  }

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
    Mat<4, 4> scalar;  // (rho/dt) M + mu L (+ A)
    Mat<4, 3> dn;      // physical shape derivatives (constant on a P1 tet)
    double mu_volume;  // mu times the element volume
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
    FOEHN_HD void set_all(double value) {
      scalar = Mat<4, 4>::filled(value);
      dn = Mat<4, 3>::filled(value);
      mu_volume = value;
      b = Vec<12>::filled(value);
    }
    // Stored form for the deterministic gather: 29 doubles instead of the 144 entries.
    static constexpr int stored_doubles = 29;  // scalar (16), dn (12), mu_volume (1)
    FOEHN_HD void store(double* out) const {
      FOEHN_UNROLL
      for (int k = 0; k < 16; ++k) out[k] = scalar.a[k / 4][k % 4];
      FOEHN_UNROLL
      for (int k = 0; k < 12; ++k) out[16 + k] = dn.a[k / 3][k % 3];
      out[28] = mu_volume;
    }
    // entry(i, j, a, c) from the stored form.
    FOEHN_HD static double stored_entry(const double* stored, int i, int j, int a, int c) {
      return combine(stored[i * 4 + j], stored[28], stored[16 + i * 3 + c], stored[16 + j * 3 + a],
                     a == c);
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

  // The advecting velocity may come already evaluated at the quadrature points (seed, stage 3).
  static constexpr int quadrature_coefficient_components = 3;
  FOEHN_HD FieldRef quadrature_coefficient_field() const { return advecting_velocity; }
  template <class Ctx>
  FOEHN_HD void element_with_quadrature_coefficient(const Ctx& e, const double* w_at_quad,
                                                    CompactElement& out) const {
    MomentumOperator without_advection = *this;
    without_advection.advecting_velocity = FieldRef{};
    without_advection.element_compact(e, out);  // mass, viscous terms, body force
    Array<Vec<3>, Ctx::ngi> w;
    FOEHN_UNROLL
    for (int gi = 0; gi < Ctx::ngi; ++gi) {
      FOEHN_UNROLL
      for (int d = 0; d < 3; ++d) w.v[gi].v[d] = w_at_quad[gi * 3 + d];
    }
    out.scalar += shape_vector_dot_dshape(e.n, w, e.geometry);
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

}  // namespace foehn::fe
