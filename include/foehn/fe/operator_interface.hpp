#pragma once
// What an operator is, for the assembly machinery (the CPU reference loop, the CUDA
// strategies, a user's own operators): the element context the machinery prepares, the
// element result it scatters, and the helpers integrands share. The built-in integrands are
// in operators.hpp; the list the library is built for is in operator_list.hpp.
//
// An operator is a trivially copyable struct (it is passed to kernels by value) that declares:
//   static constexpr int block_rows, block_cols;    R x C blocks per node pair (1x1, 1x3, 3x3)
//   static constexpr const char* name;              for error messages
//   using Rule = <a quadrature rule of quadrature.hpp>;
//   template <class Visitor> void for_each_field(Visitor&&) const;
//       visit(FieldRef, components per node, field name, required) for every nodal field, so
//       that the backends check sizes and values (NaN) before any kernel runs;
//   template <class Ctx> FOEHN_HD void element(const Ctx&, Mat<4R, 4C>& a, Vec<4R>& b) const;
// and optionally:
//   struct CompactElement + element_compact(ctx, CompactElement&)   (see HasCompactElement)
//       a smaller form of the element matrix for operators whose (4R) x (4C) entries do not
//       fit in registers; the machinery builds each entry when it scatters it;
//   quadrature_coefficient_*                                          (see
//   HasQuadratureCoefficient)
//       one coefficient a pipeline may evaluate at the quadrature points in a stage of its
//       own (the seed strategy does, as the published code did).
// Backends work only from these declarations, never from an operator's identity.
//
// Fields are P1 nodal arrays given as FieldRef (host memory for the CPU backend, device memory
// for the CUDA backend); an empty FieldRef means "absent". Layouts: scalar f[node]; vector
// u[node * 3 + d]; tensor K[node * 9 + 3 r + c]. Element matrices have (4 R) x (4 C) entries,
// row i*R + r (test node i, component r) and column j*C + c (trial node j, component c).

#include <concepts>
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
  Mat<4, 3> x;                               // node coordinates
  AffineGeometry<3, 4, Rule::ngi> geometry;  // detwei, physical shape derivatives
  Mat<Rule::ngi, 4> n;                       // shape functions at the quadrature points
};
using ElementContext = ElementContextFor<DefaultRule>;

// A non-owning view of a nodal field: trivially copyable into a kernel's parameters.
struct FieldRef {
  const double* data = nullptr;
  std::int64_t size = 0;
};
inline FieldRef field_ref(const double* data, std::int64_t size) {
  return FieldRef{data, size};
}
template <class Container>
FieldRef field_ref(const Container& values) {
  return FieldRef{values.data(), static_cast<std::int64_t>(values.size())};
}

// A copy of `op` whose every present nodal field is replaced by replace(field, components, name),
// which returns the FieldRef to use instead: how a backend moves an operator's fields to
// other memory (an upload to the GPU, a download to the host).
template <class Op, class Replace>
Op with_fields_replaced(const Op& op, Replace&& replace) {
  Op copy = op;
  copy.for_each_field([&](const FieldRef& field, int components, const char* name, bool) {
    // for_each_field hands out copy's own members, and copy is not const.
    if (field.data) const_cast<FieldRef&>(field) = replace(field, components, name);
  });
  return copy;
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

// What the assembly machinery computes per element: an operator's CompactElement when it has
// one, otherwise the dense element matrix and vector. Both answer entry(i, j, r, c) (block
// (i, j), entry (r, c)) and rhs(k) (k = i * R + r).
template <int R, int C>
struct DenseElement {
  Mat<4 * R, 4 * C> a;
  Vec<4 * R> b;
  FOEHN_HD double entry(int i, int j, int r, int c) const { return a.a[i * R + r][j * C + c]; }
  FOEHN_HD double rhs(int k) const { return b.v[k]; }
  FOEHN_HD void set_all(double value) {
    for (int i = 0; i < 4 * R; ++i) {
      for (int j = 0; j < 4 * C; ++j) a.a[i][j] = value;
      b.v[i] = value;
    }
  }
};

// A compact element form answers entry/rhs like DenseElement and can be stored in
// stored_doubles doubles (store) and rebuilt entry by entry from that storage (stored_entry,
// with the same arithmetic as entry, so every strategy rounds alike); set_all fills it with one
// value (NaN marks an element a kernel could not compute).
template <class Op>
concept HasCompactElement = requires(const typename Op::CompactElement& element,
                                     typename Op::CompactElement& writable, double* out,
                                     const double* stored) {
  { Op::CompactElement::stored_doubles } -> std::convertible_to<int>;
  { element.entry(0, 0, 0, 0) } -> std::convertible_to<double>;
  { element.rhs(0) } -> std::convertible_to<double>;
  element.store(out);
  { Op::CompactElement::stored_entry(stored, 0, 0, 0, 0) } -> std::convertible_to<double>;
  writable.set_all(0.0);
};

// An operator whose element can also be computed from one coefficient already evaluated at the
// quadrature points of DefaultRule (values[gi * components + c]): it names that field and
// provides element_with_quadrature_coefficient(ctx, values, result).
template <class Op>
concept HasQuadratureCoefficient = requires(const Op& op) {
  { Op::quadrature_coefficient_components } -> std::convertible_to<int>;
  { op.quadrature_coefficient_field() } -> std::convertible_to<FieldRef>;
};

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
FOEHN_HD bool prepare_element(const double* coordinates, const std::int32_t* tets, std::int64_t e,
                              ElementContextFor<Rule>& ctx) {
  ctx.nodes = ele_nodes<4>(tets, e);
  ctx.x = ele_val_vector<4, 3>(coordinates, ctx.nodes);
  constexpr Rule rule{};
  ctx.n = p1_shape_at_quad(rule);
  return transform_to_physical(ctx.x, rule, ctx.geometry) == TransformStatus::ok;
}

}  // namespace foehn::fe
