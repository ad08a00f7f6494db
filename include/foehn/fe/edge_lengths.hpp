#pragma once
// Element length scales from the element metric, as used by the pressure-diffusion
// stabilisation (Fluidity-Atmosphere's get_edge_lengths).
//
// The metric of a tetrahedron is the symmetric positive definite M for which every one of its
// six edges e = x_j - x_i has unit length:  eᵀ M e = 1.  Written out, with the unknowns
// m = (Mxx, Myy, Mzz, Mxy, Mxz, Myz), each edge gives one row of a 6x6 system
//     [ex^2, ey^2, ez^2, 2 ex ey, 2 ex ez, 2 ey ez] · m = 1,
// solved with solve_gauss<6>. Why it is SPD: the tet is the affine image x = F ξ + x0 of the
// regular tetrahedron of unit edge, whose six edge equations have the unique solution I; so
// Fᵀ M F = I, i.e. M = (F Fᵀ)^-1. The eigen-decomposition M = Σ λ_k a_k a_kᵀ then gives the
// length scales
//     h_k = 1 / sqrt(λ_k)   along the axes a_k
// (the semi-axes of the ellipsoid {x : xᵀ M x = 1}). For a regular tet of edge h, M = I/h² and
// h_k = h (the constant is exactly 1); stretching the element by s along z multiplies the z
// length scale by s. The length-scale tensor Σ h_k² a_k a_kᵀ = M^-1 = F Fᵀ.
//
// A flat (or nearly flat) element makes the 6x6 system singular: edge_lengths returns false.

#include <cmath>

#include "foehn/fe/dense_solve.hpp"
#include "foehn/fe/eigen_sym3.hpp"
#include "foehn/fe/small_matrix.hpp"

namespace foehn::fe {

enum class EigenMethod : int { analytic = 0, jacobi = 1 };

template <typename T = double>
struct ElementLengthScales {
  Sym3<T> metric;     // M, eᵀ M e = 1 on every edge
  Vec<3, T> length;   // h_k = 1/sqrt(λ_k), λ ascending, so length[0] is the largest
  Mat<3, 3, T> axes;  // column k: unit direction of length[k] (det = +1)
};

// The local edge numbering of a tetrahedron: edge k joins nodes tet_edge_node(k, 0) and
// tet_edge_node(k, 1). (A function, not a table: device code cannot index a host constexpr
// array.)
FOEHN_HD constexpr int tet_edge_node(int edge, int end) {
  // edges (0,1) (0,2) (0,3) (1,2) (1,3) (2,3)
  return end == 0 ? (edge < 3 ? 0 : (edge < 5 ? 1 : 2))
                  : (edge < 3 ? edge + 1 : (edge == 3 ? 2 : 3));
}

// M from the node coordinates x(i, d). Returns false if the 6x6 system is singular (flat tet).
template <typename T>
FOEHN_HD bool element_metric(const Mat<4, 3, T>& x, Sym3<T>& metric,
                             T rel_tol = default_gauss_tol<T>()) {
  Mat<6, 6, T> a{};
  Vec<6, T> rhs{};
  FOEHN_UNROLL
  for (int k = 0; k < 6; ++k) {
    const int i = tet_edge_node(k, 0);
    const int j = tet_edge_node(k, 1);
    const T ex = x.a[j][0] - x.a[i][0];
    const T ey = x.a[j][1] - x.a[i][1];
    const T ez = x.a[j][2] - x.a[i][2];
    a.a[k][0] = ex * ex;
    a.a[k][1] = ey * ey;
    a.a[k][2] = ez * ez;
    a.a[k][3] = T(2) * ex * ey;
    a.a[k][4] = T(2) * ex * ez;
    a.a[k][5] = T(2) * ey * ez;
    rhs.v[k] = T(1);
  }
  Vec<6, T> m{};
  if (!solve_gauss(a, rhs, m, rel_tol)) return false;
  metric = Sym3<T>{m.v[0], m.v[1], m.v[2], m.v[3], m.v[4], m.v[5]};
  return true;
}

// Length scales and their directions. Returns false for a flat element, a failed eigen solve,
// or a metric that is not positive definite (which only rounding on an almost flat element
// can produce).
template <EigenMethod Method = EigenMethod::analytic, typename T>
FOEHN_HD bool edge_lengths(const Mat<4, 3, T>& x, ElementLengthScales<T>& out,
                           T rel_tol = default_gauss_tol<T>()) {
  if (!element_metric(x, out.metric, rel_tol)) return false;
  EigenSym3<T> e{};
  bool ok = false;
  if constexpr (Method == EigenMethod::jacobi) {
    ok = eigen_sym3_jacobi(out.metric, e);
  } else {
    ok = eigen_sym3_analytic(out.metric, e);
  }
  out.axes = e.vectors;
  FOEHN_UNROLL
  for (int k = 0; k < 3; ++k) {
    const T lambda = e.values.v[k];
    ok = ok && lambda > T(0);
    out.length.v[k] = lambda > T(0) ? T(1) / std::sqrt(lambda) : T(0);
  }
  return ok;
}

// Σ h_k² a_k a_kᵀ (= M^-1), the tensor form of the length scales.
template <typename T>
FOEHN_HD constexpr Mat<3, 3, T> length_scale_tensor(const ElementLengthScales<T>& s) {
  Mat<3, 3, T> t{};
  FOEHN_UNROLL
  for (int k = 0; k < 3; ++k) {
    const Vec<3, T> a = s.axes.col(k);
    t += (s.length.v[k] * s.length.v[k]) * outer(a, a);
  }
  return t;
}

}  // namespace foehn::fe
