#pragma once
// P1 (linear Lagrange) shape functions on the reference tetrahedron (see quadrature.hpp):
//     N0 = 1 - xi - eta - zeta,  N1 = xi,  N2 = eta,  N3 = zeta
// i.e. the barycentric coordinates. Their reference gradients are constant:
//     dN0/dxi = (-1,-1,-1), dN1/dxi = (1,0,0), dN2/dxi = (0,1,0), dN3/dxi = (0,0,1).
//
// Tables at quadrature points use these layouts (shared with transform.hpp and integrals.hpp):
//     Mat<Ngi, Loc>            n(gi, i)       = N_i at point gi
//     Mat<Loc, Dim>            dn(i, k)       = dN_i/dxi_k    (one point; rows are nodes)
//     Array<Mat<Loc,Dim>, Ngi> dn[gi](i, k)   = the same at every point (general path)

#include "foehn/fe/small_matrix.hpp"

namespace foehn::fe {

inline constexpr int kP1TetLoc = 4;  // nodes of a P1 tetrahedron
inline constexpr int kDim3 = 3;

template <typename T = double>
FOEHN_HD constexpr Vec<4, T> p1_shape(const Vec<3, T>& xi) {
  return Vec<4, T>{{T(1) - xi.v[0] - xi.v[1] - xi.v[2], xi.v[0], xi.v[1], xi.v[2]}};
}

// dN_i/dxi_k, independent of the point.
template <typename T = double>
FOEHN_HD constexpr Mat<4, 3, T> p1_dshape_ref() {
  return Mat<4, 3, T>{
      {{T(-1), T(-1), T(-1)}, {T(1), T(0), T(0)}, {T(0), T(1), T(0)}, {T(0), T(0), T(1)}}};
}

// N_i at every point of a quadrature rule: n(gi, i).
template <class Rule, typename T = double>
FOEHN_HD constexpr Mat<Rule::ngi, 4, T> p1_shape_at_quad(const Rule& rule) {
  Mat<Rule::ngi, 4, T> n{};
  FOEHN_UNROLL
  for (int gi = 0; gi < Rule::ngi; ++gi) {
    const Vec<3, T> xi{{T(rule.point[gi][0]), T(rule.point[gi][1]), T(rule.point[gi][2])}};
    n.set_row(gi, p1_shape<T>(xi));
  }
  return n;
}

// The reference gradients at every point (all equal for P1). Input for the general,
// per-point transform path, which higher-order or curved elements would need.
template <int Ngi, typename T = double>
FOEHN_HD constexpr Array<Mat<4, 3, T>, Ngi> p1_dshape_ref_at_quad() {
  Array<Mat<4, 3, T>, Ngi> dn{};
  FOEHN_UNROLL
  for (int gi = 0; gi < Ngi; ++gi) dn.v[gi] = p1_dshape_ref<T>();
  return dn;
}

// The weights of a rule as a Vec<Ngi>.
template <class Rule, typename T = double>
FOEHN_HD constexpr Vec<Rule::ngi, T> quadrature_weights(const Rule& rule) {
  Vec<Rule::ngi, T> w{};
  FOEHN_UNROLL
  for (int gi = 0; gi < Rule::ngi; ++gi) w.v[gi] = T(rule.weight[gi]);
  return w;
}

// Physical position of every quadrature point: x(gi) = sum_i N_i(gi) x_i.
template <int Ngi, int Loc, int Dim, typename T>
FOEHN_HD constexpr Array<Vec<Dim, T>, Ngi> quad_positions(const Mat<Ngi, Loc, T>& n,
                                                          const Mat<Loc, Dim, T>& x) {
  Array<Vec<Dim, T>, Ngi> p{};
  FOEHN_UNROLL
  for (int gi = 0; gi < Ngi; ++gi) p.v[gi] = transpose_times(x, n.row(gi));
  return p;
}

}  // namespace foehn::fe
