#pragma once
// The pointwise mathematics of metric-based mesh adaptation, written once for the host and the
// device (FOEHN_HD), one node per call:
//
//   fit_quadratic        the gradient and Hessian of a nodal field at a node, from the least-
//                        squares quadratic through the node's patch: exact for a quadratic field
//                        wherever the patch has 9 points in general position (coefficients
//                        below 1e-9 of the patch's variation are taken as round-off: zero)
//   metric_from_hessian  M = V diag(clamp(scale |lambda|)) V^T: edge lengths between h_min and
//                        h_max, at most max_anisotropy between the longest and the shortest
//   intersect_metrics    the largest metric inside both (the finer of two fields' requests in
//                        every direction), by simultaneous reduction with symmetric
//                        eigen-decompositions only
//   lp_weight, lp_density  the L^p normalisation of a Hessian to a mesh complexity (Loseille
//                        and Alauzet's continuous mesh, d = 3)
//
// A metric M asks for edges e of unit length in it: |e|_M = sqrt(e^T M e) = 1, so an eigenvalue
// lambda of M asks for edges 1 / sqrt(lambda) long along its eigenvector. The eigen-solver is
// the cyclic Jacobi one (fe::eigen_sym3_jacobi): only +, *, / and sqrt, correctly rounded on
// both backends.
#include <cmath>

#include "foehn/fe/dense_solve.hpp"
#include "foehn/fe/eigen_sym3.hpp"

namespace foehn::adapt {

using fe::EigenSym3;
using fe::Mat;
using fe::Sym3;
using fe::Vec;

template <typename T = double>
struct QuadraticFit {
  Vec<3, T> gradient;
  Sym3<T> hessian;
};

// The quadratic u(x_c + d) - u(x_c) = g.d + d^T H d / 2 closest in the least-squares sense to
// `count` patch points: point(j, d, r) writes the offset d[3] of point j from the centre node
// and its difference r = u_j - u_c. Each coordinate of the offsets is scaled by the patch's
// extent along it first, so the 9 x 9 normal equations depend neither on units nor on the
// aspect ratio of flat cells. False when the patch does not determine a quadratic (fewer than 9
// points, flat along an axis, or all near one quadric surface through the centre).
template <typename T, class PointAt>
FOEHN_HD bool fit_quadratic(int count, const PointAt& point, QuadraticFit<T>& fit) {
  if (count < 9) return false;
  T extent[3] = {T(0), T(0), T(0)};
  for (int j = 0; j < count; ++j) {
    T d[3], r;
    point(j, d, r);
    FOEHN_UNROLL
    for (int c = 0; c < 3; ++c) extent[c] = std::fmax(extent[c], std::fabs(d[c]));
  }
  if (!(extent[0] > T(0) && extent[1] > T(0) && extent[2] > T(0))) return false;
  T variation = T(0);  // max |r|: the scale of the scaled coefficients
  Mat<9, 9, T> a = Mat<9, 9, T>::zero();
  Vec<9, T> b = Vec<9, T>::zero();
  for (int j = 0; j < count; ++j) {
    T d[3], r;
    point(j, d, r);
    variation = std::fmax(variation, std::fabs(r));
    const T x = d[0] / extent[0], y = d[1] / extent[1], z = d[2] / extent[2];
    const T basis[9] = {x,     y,     z,    T(0.5) * x * x, T(0.5) * y * y, T(0.5) * z * z,
                        x * y, x * z, y * z};
    FOEHN_UNROLL
    for (int p = 0; p < 9; ++p) {
      b.v[p] += basis[p] * r;
      FOEHN_UNROLL
      for (int q = 0; q < 9; ++q) a.a[p][q] += basis[p] * basis[q];
    }
  }
  Vec<9, T> c{};
  if (!fe::solve_gauss<9, T>(a, b, c)) return false;
  // On the scaled patch the basis is of order 1, so a coefficient below 1e-9 of the field's
  // variation is the solve's round-off (a linear field's Hessian comes out as 1e-20 or so, not
  // 0), which a normalisation to a complexity would otherwise blow up into refinement.
  const T negligible = T(1e-9) * variation;
  FOEHN_UNROLL
  for (int k = 0; k < 9; ++k)
    if (std::fabs(c.v[k]) <= negligible) c.v[k] = T(0);
  const T sx = extent[0], sy = extent[1], sz = extent[2];
  fit.gradient = Vec<3, T>{{c.v[0] / sx, c.v[1] / sy, c.v[2] / sz}};
  fit.hessian = Sym3<T>{c.v[3] / (sx * sx), c.v[4] / (sy * sy), c.v[5] / (sz * sz),
                        c.v[6] / (sx * sy), c.v[7] / (sx * sz), c.v[8] / (sy * sz)};
  return true;
}

// Bounds every metric satisfies: edges between h_min and h_max long, and the longest at most
// max_anisotropy times the shortest.
template <typename T = double>
struct MetricBounds {
  T h_min = T(0);
  T h_max = T(0);
  T max_anisotropy = T(1);
};

namespace detail {

// s m s for a symmetric s (a congruence: s^T m s).
template <typename T>
FOEHN_HD Mat<3, 3, T> congruence(const Mat<3, 3, T>& s, const Mat<3, 3, T>& m) {
  Mat<3, 3, T> out = Mat<3, 3, T>::zero();
  FOEHN_UNROLL
  for (int i = 0; i < 3; ++i) {
    FOEHN_UNROLL
    for (int j = 0; j < 3; ++j) {
      FOEHN_UNROLL
      for (int k = 0; k < 3; ++k) {
        FOEHN_UNROLL
        for (int l = 0; l < 3; ++l) out.a[i][j] += s.a[i][k] * m.a[k][l] * s.a[l][j];
      }
    }
  }
  return out;
}

}  // namespace detail

// M = V diag(lambda_k) V^T with lambda_k = scale |mu_k| for the eigenpairs (mu_k, v_k) of the
// Hessian, clamped to [1 / h_max^2, 1 / h_min^2], then raised to at least lambda_max /
// max_anisotropy^2. False for a Hessian that is not finite or bounds that are not ordered.
template <typename T>
FOEHN_HD bool metric_from_hessian(const Sym3<T>& hessian, T scale, const MetricBounds<T>& bounds,
                                  Sym3<T>& metric) {
  if (!(bounds.h_min > T(0) && bounds.h_max >= bounds.h_min && bounds.max_anisotropy >= T(1) &&
        scale >= T(0)))
    return false;
  EigenSym3<T> e{};
  if (!fe::eigen_sym3_jacobi(hessian, e)) return false;
  const T smallest = T(1) / (bounds.h_max * bounds.h_max);
  const T largest = T(1) / (bounds.h_min * bounds.h_min);
  Vec<3, T> lambda{};
  T top = T(0);
  FOEHN_UNROLL
  for (int k = 0; k < 3; ++k) {
    lambda.v[k] = std::fmin(std::fmax(scale * std::fabs(e.values.v[k]), smallest), largest);
    top = std::fmax(top, lambda.v[k]);
  }
  const T floor = top / (bounds.max_anisotropy * bounds.max_anisotropy);
  FOEHN_UNROLL
  for (int k = 0; k < 3; ++k) lambda.v[k] = std::fmax(lambda.v[k], floor);
  e.values = lambda;
  metric = fe::eigen_compose(e);
  return true;
}

// The intersection of two metrics (both positive definite): in the basis Q where Q^T a Q = I
// and Q^T b Q = diag(beta), the metric diag(max(1, beta_k)); back in space,
// a^(1/2) W diag(max(1, beta)) W^T a^(1/2) with a^(-1/2) b a^(-1/2) = W diag(beta) W^T.
// False when either is not positive definite.
template <typename T>
FOEHN_HD bool intersect_metrics(const Sym3<T>& a, const Sym3<T>& b, Sym3<T>& out) {
  EigenSym3<T> ea{};
  if (!fe::eigen_sym3_jacobi(a, ea)) return false;
  Vec<3, T> root{}, inverse_root{};
  FOEHN_UNROLL
  for (int k = 0; k < 3; ++k) {
    if (!(ea.values.v[k] > T(0))) return false;
    root.v[k] = std::sqrt(ea.values.v[k]);
    inverse_root.v[k] = T(1) / root.v[k];
  }
  // s = a^(-1/2) b a^(-1/2) with a^(-1/2) = V diag(inverse_root) V^T.
  const Sym3<T> a_inverse_root = fe::eigen_compose(EigenSym3<T>{inverse_root, ea.vectors});
  const Mat<3, 3, T> s = detail::congruence(a_inverse_root.to_mat(), b.to_mat());
  EigenSym3<T> es{};
  if (!fe::eigen_sym3_jacobi(Sym3<T>::from_mat(s), es)) return false;
  Vec<3, T> kept{};
  FOEHN_UNROLL
  for (int k = 0; k < 3; ++k) {
    if (!(es.values.v[k] > T(0))) return false;
    kept.v[k] = std::fmax(T(1), es.values.v[k]);
  }
  // out = a^(1/2) (W diag(kept) W^T) a^(1/2).
  const Mat<3, 3, T> middle = fe::eigen_compose(EigenSym3<T>{kept, es.vectors}).to_mat();
  const Mat<3, 3, T> m =
      detail::congruence(fe::eigen_compose(EigenSym3<T>{root, ea.vectors}).to_mat(), middle);
  out = Sym3<T>::from_mat(m);
  return true;
}

// The L^p normalisation (d = 3) of a Hessian H to complexity C: M = D w(H) |H| with
// w(H) = det|H|^(-1/(2p+3)) and D = (C / sum_i m_i det|H_i|^(p/(2p+3)))^(2/3), m_i the lumped
// volume of node i. p = infinity: w = 1, density det|H|^(1/2). `abs_determinant` is
// det|H| = |det H| (the product of the absolute eigenvalues); zero gives weight and density 0 (a
// linear field asks for nothing; the bounds then set h_max).
template <typename T>
FOEHN_HD T lp_weight(T abs_determinant, T p) {
  if (!(abs_determinant > T(0))) return T(0);
  if (std::isinf(p)) return T(1);
  return std::pow(abs_determinant, T(-1) / (T(2) * p + T(3)));
}

template <typename T>
FOEHN_HD T lp_density(T abs_determinant, T p) {
  if (!(abs_determinant > T(0))) return T(0);
  if (std::isinf(p)) return std::sqrt(abs_determinant);
  return std::pow(abs_determinant, p / (T(2) * p + T(3)));
}

}  // namespace foehn::adapt
