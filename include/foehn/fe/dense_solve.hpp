#pragma once
// Small dense linear solves, one per thread, in registers.
//
// solve_gauss<N>: Gaussian elimination with partial (row) pivoting on A x = b, N known at
// compile time (the stabilisation's edge_lengths uses N = 6).
//   for k = 0..N-1:
//     p = argmax_{r >= k} |a(r,k)|              pivot: the largest entry of column k
//     if |a(p,k)| <= rel_tol * max|A| : singular (returns false)
//     swap rows k and p of A and b
//     a(r,:) -= (a(r,k)/a(k,k)) a(k,:),  b(r) -= (a(r,k)/a(k,k)) b(k)   for r > k
//   back substitution x(k) = (b(k) - sum_{c>k} a(k,c) x(c)) / a(k,k)
//
// Why the swap looks odd: a row index chosen at run time into a register array would make
// nvcc put the array in local memory. The swap instead runs over the compile-time candidate
// rows and selects (r == p), so every access has a constant index and A stays in registers.
//
// The singularity test is relative to the largest entry of A, so it does not depend on units;
// the default (64 eps ~ 1.4e-14) flags matrices that are singular to rounding, not merely
// ill-conditioned ones (cond up to ~1e13 passes, with the accuracy that condition allows).

#include <cmath>

#include "foehn/fe/small_matrix.hpp"

namespace foehn::fe {

template <typename T>
FOEHN_HD constexpr T default_gauss_tol() {
  return T(64) * machine_epsilon<T>();
}

// Solves A X = B for M right-hand sides (the columns of B) with one factorisation.
template <int N, int M, typename T>
FOEHN_HD bool solve_gauss(Mat<N, N, T> a, Mat<N, M, T> b, Mat<N, M, T>& x,
                          T rel_tol = default_gauss_tol<T>()) {
  T amax = T(0);
  FOEHN_UNROLL
  for (int i = 0; i < N; ++i) {
    FOEHN_UNROLL
    for (int j = 0; j < N; ++j) amax = std::fmax(amax, std::fabs(a.a[i][j]));
  }
  if (!(amax > T(0))) return false;  // zero matrix; NaN entries fail a pivot test below
  const T tiny = rel_tol * amax;
  FOEHN_UNROLL
  for (int k = 0; k < N; ++k) {
    int p = k;
    T pmax = std::fabs(a.a[k][k]);
    FOEHN_UNROLL
    for (int r = k + 1; r < N; ++r) {
      const T v = std::fabs(a.a[r][k]);
      if (v > pmax) {
        pmax = v;
        p = r;
      }
    }
    if (!(pmax > tiny)) return false;  // singular to rel_tol, or NaN
    FOEHN_UNROLL
    for (int r = k + 1; r < N; ++r) {
      const bool swap = (r == p);
      FOEHN_UNROLL
      for (int c = k; c < N; ++c) {
        const T top = a.a[k][c];
        const T other = a.a[r][c];
        a.a[k][c] = swap ? other : top;
        a.a[r][c] = swap ? top : other;
      }
      FOEHN_UNROLL
      for (int c = 0; c < M; ++c) {
        const T top = b.a[k][c];
        const T other = b.a[r][c];
        b.a[k][c] = swap ? other : top;
        b.a[r][c] = swap ? top : other;
      }
    }
    const T inv_pivot = T(1) / a.a[k][k];
    FOEHN_UNROLL
    for (int r = k + 1; r < N; ++r) {
      const T f = a.a[r][k] * inv_pivot;
      FOEHN_UNROLL
      for (int c = k + 1; c < N; ++c) a.a[r][c] -= f * a.a[k][c];
      FOEHN_UNROLL
      for (int c = 0; c < M; ++c) b.a[r][c] -= f * b.a[k][c];
    }
  }
  FOEHN_UNROLL
  for (int k = N - 1; k >= 0; --k) {
    FOEHN_UNROLL
    for (int m = 0; m < M; ++m) {
      T s = b.a[k][m];
      FOEHN_UNROLL
      for (int c = k + 1; c < N; ++c) s -= a.a[k][c] * x.a[c][m];
      x.a[k][m] = s / a.a[k][k];
    }
  }
  return true;
}

// Solves A x = b: the single right-hand-side case of the above. A and b are taken by value
// (inlined, the copies cost nothing). Returns false, with x unspecified, when A is singular to
// rel_tol or contains NaN.
template <int N, typename T>
FOEHN_HD bool solve_gauss(const Mat<N, N, T>& a, const Vec<N, T>& b, Vec<N, T>& x,
                          T rel_tol = default_gauss_tol<T>()) {
  Mat<N, 1, T> bm{};
  Mat<N, 1, T> xm{};
  FOEHN_UNROLL
  for (int i = 0; i < N; ++i) bm.a[i][0] = b.v[i];
  const bool ok = solve_gauss<N, 1, T>(a, bm, xm, rel_tol);
  FOEHN_UNROLL
  for (int i = 0; i < N; ++i) x.v[i] = xm.a[i][0];
  return ok;
}

}  // namespace foehn::fe
