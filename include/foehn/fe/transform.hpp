#pragma once
// transform_to_physical: from reference to physical element.
//
// With node coordinates x(i, d) (row i = node i, as ele_val_vector returns them) and reference
// shape derivatives dn_ref(i, k) = dN_i/dxi_k at a point:
//     Jacobian      J(d, k)   = dx_d/dxi_k = sum_i x(i, d) dn_ref(i, k)          (J = xᵀ dn_ref)
//     inverse       J^-1      = adj(J) / det J
//     derivatives   dn(i, d)  = dN_i/dx_d  = sum_k dn_ref(i, k) J^-1(k, d)     (dn = dn_ref J^-1)
//     weights       detwei_gi = |det J_gi| w_gi      (so sum_gi detwei_gi = |T| for P1)
//
// Two paths, one result for P1 (the unit tests check that they agree):
//   * affine (AffineGeometry): J is constant on a straight-sided simplex, so J, det J, J^-1 and
//     dn are computed once per element; only detwei is per point. This is Fluidity's
//     "x_nonlinear .or. gi == 1" shortcut, without the branch. The integrals in integrals.hpp
//     exploit the constant dn (sum the point data first, contract with dn once).
//   * general (QuadGeometry): a Jacobian per point, for elements whose map or whose reference
//     derivatives vary with the point (P2, curved). det J_gi and detwei are computed by the
//     transform; dn_gi is formed when an integral asks for it (dshape(gi)) from the stored
//     coordinates and reference derivatives. Storing all Ngi x Loc x Dim derivatives would not
//     fit in registers (nvcc spilled 1.6 KB per thread for P1 with 11 points); recomputing
//     J_gi^-1 costs a few dozen flops per point. Prefer the affine path for P1 regardless.
//
// Status, not exceptions (this runs on the device):
//   ok        det J > 0
//   inverted  det J < 0 (node order is mirrored); the outputs are still valid, with |det J|
//   singular  |det J| <= tol * prod_k |J(:, k)|: the element is flat (Hadamard's bound makes the
//             test scale-free; for P1 the column norms are the edge lengths from node 0).
//             dn, J^-1 and detwei are set to zero so that nothing downstream turns into NaN
//             (in the general path: at the singular points).

#include "foehn/fe/quadrature.hpp"
#include "foehn/fe/shape_functions.hpp"
#include "foehn/fe/small_matrix.hpp"

namespace foehn::fe {

enum class TransformStatus : int { ok = 0, inverted = 1, singular = 2 };

// Worst of two statuses (singular > inverted > ok).
FOEHN_HD constexpr TransformStatus worst(TransformStatus a, TransformStatus b) {
  return static_cast<int>(a) >= static_cast<int>(b) ? a : b;
}

// Relative flatness below which a Jacobian counts as singular: |det J| / prod_k |J(:,k)|.
// A regular tetrahedron has 1/sqrt(2) ~ 0.71; 1e-12 only catches elements that are flat to
// rounding error.
inline constexpr double kSingularJacobianTol = 1e-12;

template <int Dim, int Loc, int Ngi, typename T = double>
struct AffineGeometry {
  static constexpr int dim = Dim;
  static constexpr int loc = Loc;
  static constexpr int ngi = Ngi;
  static constexpr bool constant_dshape = true;
  using value_type = T;
  Mat<Dim, Dim, T> jacobian;      // J(d, k) = dx_d/dxi_k
  Mat<Dim, Dim, T> jacobian_inv;  // J^-1(k, d) = dxi_k/dx_d
  T det_j;                        // signed det J
  Vec<Ngi, T> detwei;             // |det J| w_gi
  Mat<Loc, Dim, T> dn;            // dN_i/dx_d (the same at every point)

  FOEHN_HD constexpr const Mat<Loc, Dim, T>& dshape(int) const { return dn; }
};

// Sum of detwei: the element volume (exact for P1 with any rule).
template <class Geometry>
FOEHN_HD constexpr auto element_measure(const Geometry& g) {
  auto s = g.detwei.v[0];
  FOEHN_UNROLL
  for (int gi = 1; gi < Geometry::ngi; ++gi) s += g.detwei.v[gi];
  return s;
}

namespace detail {

// J = xᵀ dn_ref.
template <int Dim, int Loc, typename T>
FOEHN_HD constexpr Mat<Dim, Dim, T> jacobian_of(const Mat<Loc, Dim, T>& x,
                                                const Mat<Loc, Dim, T>& dn_ref) {
  Mat<Dim, Dim, T> jac{};
  FOEHN_UNROLL
  for (int d = 0; d < Dim; ++d) {
    FOEHN_UNROLL
    for (int k = 0; k < Dim; ++k) {
      T s = T(0);
      FOEHN_UNROLL
      for (int i = 0; i < Loc; ++i) s += x.a[i][d] * dn_ref.a[i][k];
      jac.a[d][k] = s;
    }
  }
  return jac;
}

// Status of a Jacobian with determinant det (see the header comment).
template <int Dim, typename T>
FOEHN_HD constexpr TransformStatus jacobian_status(const Mat<Dim, Dim, T>& jac, T det, T tol) {
  // Hadamard: |det J| <= prod_k |J(:,k)|; compare squares to avoid Dim square roots.
  T bound2 = T(1);
  FOEHN_UNROLL
  for (int k = 0; k < Dim; ++k) {
    T c2 = T(0);
    FOEHN_UNROLL
    for (int d = 0; d < Dim; ++d) c2 += jac.a[d][k] * jac.a[d][k];
    bound2 *= c2;
  }
  if (!(det * det > tol * tol * bound2)) return TransformStatus::singular;  // also NaN
  return det < T(0) ? TransformStatus::inverted : TransformStatus::ok;
}

}  // namespace detail

// General-path geometry: what the transform stores, and dN/dx formed on demand.
template <int Dim, int Loc, int Ngi, typename T = double>
struct QuadGeometry {
  static constexpr int dim = Dim;
  static constexpr int loc = Loc;
  static constexpr int ngi = Ngi;
  static constexpr bool constant_dshape = false;
  using value_type = T;
  Mat<Loc, Dim, T> x;                   // node coordinates
  Array<Mat<Loc, Dim, T>, Ngi> dn_ref;  // dN_i/dxi_k at each point (constants for a fixed rule)
  Vec<Ngi, T> det_j;                    // signed det J at each point
  Vec<Ngi, T> inv_det;                  // 1/det J_gi, or 0 where J_gi is singular
  Vec<Ngi, T> detwei;                   // |det J_gi| w_gi (0 where singular)

  FOEHN_HD constexpr Mat<Dim, Dim, T> jacobian(int gi) const {
    return detail::jacobian_of(x, dn_ref.v[gi]);
  }
  // J_gi^-1 = adj(J_gi) / det J_gi (zero at a singular point, even for NaN coordinates).
  FOEHN_HD constexpr Mat<Dim, Dim, T> jacobian_inv(int gi) const {
    if (inv_det.v[gi] == T(0)) return Mat<Dim, Dim, T>::zero();
    return inv_det.v[gi] * adjugate(jacobian(gi));
  }
  // dn(i, d) = dN_i/dx_d at point gi.
  FOEHN_HD constexpr Mat<Loc, Dim, T> dshape(int gi) const {
    return dn_ref.v[gi] * jacobian_inv(gi);
  }
};

// Affine path: one Jacobian per element. dn_ref are the (constant) reference derivatives,
// weight the rule's weights.
template <int Dim, int Loc, int Ngi, typename T>
FOEHN_HD constexpr TransformStatus transform_to_physical(const Mat<Loc, Dim, T>& x,
                                                         const Mat<Loc, Dim, T>& dn_ref,
                                                         const Vec<Ngi, T>& weight,
                                                         AffineGeometry<Dim, Loc, Ngi, T>& out,
                                                         T tol = T(kSingularJacobianTol)) {
  out.jacobian = detail::jacobian_of(x, dn_ref);
  out.det_j = determinant(out.jacobian);
  const TransformStatus status = detail::jacobian_status(out.jacobian, out.det_j, tol);
  const bool singular = status == TransformStatus::singular;
  const T inv_det = singular ? T(0) : T(1) / out.det_j;
  const T abs_det = singular ? T(0) : (out.det_j < T(0) ? -out.det_j : out.det_j);
  out.jacobian_inv = singular ? Mat<Dim, Dim, T>::zero() : inv_det * adjugate(out.jacobian);
  out.dn = dn_ref * out.jacobian_inv;
  FOEHN_UNROLL
  for (int gi = 0; gi < Ngi; ++gi) out.detwei.v[gi] = abs_det * weight.v[gi];
  return status;
}

// General path: det J at every point (the worst status over the points is returned); dn is
// formed per point by QuadGeometry::dshape. dn_ref[gi] are the reference derivatives at gi.
template <int Dim, int Loc, int Ngi, typename T>
FOEHN_HD constexpr TransformStatus transform_to_physical(const Mat<Loc, Dim, T>& x,
                                                         const Array<Mat<Loc, Dim, T>, Ngi>& dn_ref,
                                                         const Vec<Ngi, T>& weight,
                                                         QuadGeometry<Dim, Loc, Ngi, T>& out,
                                                         T tol = T(kSingularJacobianTol)) {
  out.x = x;
  out.dn_ref = dn_ref;
  TransformStatus status = TransformStatus::ok;
  FOEHN_UNROLL
  for (int gi = 0; gi < Ngi; ++gi) {
    const Mat<Dim, Dim, T> jac = detail::jacobian_of(x, dn_ref.v[gi]);
    const T det = determinant(jac);
    const TransformStatus s = detail::jacobian_status(jac, det, tol);
    status = worst(status, s);
    const bool singular = s == TransformStatus::singular;
    out.det_j.v[gi] = det;
    out.inv_det.v[gi] = singular ? T(0) : T(1) / det;
    out.detwei.v[gi] = singular ? T(0) : (det < T(0) ? -det : det) * weight.v[gi];
  }
  return status;
}

// P1 tetrahedron with a quadrature rule from quadrature.hpp: the output type picks the path.
//     AffineGeometry<3, 4, Rule::ngi> g;  transform_to_physical(x, rule, g);
template <class Rule, typename T>
FOEHN_HD constexpr TransformStatus transform_to_physical(const Mat<4, 3, T>& x, const Rule& rule,
                                                         AffineGeometry<3, 4, Rule::ngi, T>& out,
                                                         T tol = T(kSingularJacobianTol)) {
  return transform_to_physical(x, p1_dshape_ref<T>(), quadrature_weights<Rule, T>(rule), out, tol);
}
template <class Rule, typename T>
FOEHN_HD constexpr TransformStatus transform_to_physical(const Mat<4, 3, T>& x, const Rule& rule,
                                                         QuadGeometry<3, 4, Rule::ngi, T>& out,
                                                         T tol = T(kSingularJacobianTol)) {
  return transform_to_physical(x, p1_dshape_ref_at_quad<Rule::ngi, T>(),
                               quadrature_weights<Rule, T>(rule), out, tol);
}

// Signed volume of a P1 tetrahedron, det[x1-x0, x2-x0, x3-x0] / 6 (positive for the
// reference orientation).
template <typename T>
FOEHN_HD constexpr T tet_signed_volume(const Mat<4, 3, T>& x) {
  Mat<3, 3, T> e{};
  FOEHN_UNROLL
  for (int k = 0; k < 3; ++k) {
    FOEHN_UNROLL
    for (int d = 0; d < 3; ++d) e.a[d][k] = x.a[k + 1][d] - x.a[0][d];
  }
  return determinant(e) / T(6);
}

}  // namespace foehn::fe
