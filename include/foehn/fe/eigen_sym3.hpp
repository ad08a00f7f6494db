#pragma once
// Eigen-decomposition of a real symmetric 3x3 matrix A = V diag(λ) Vᵀ, two ways:
//   eigen_sym3_jacobi    cyclic Jacobi rotations: iterative, accurate to a few ulp of |A|,
//                        a data-dependent number of sweeps (typically 4-6 in double).
//   eigen_sym3_analytic  closed form (trigonometric solution of the characteristic cubic) with
//                        a robust eigenvector construction: fixed cost, absolute accuracy of a
//                        few ulp of |A| (small eigenvalues of a badly conditioned A lose
//                        relative accuracy, as with any method that shifts by trace/3).
// Both return the eigenvalues sorted ascending, λ0 <= λ1 <= λ2, and V with orthonormal columns,
// column k the eigenvector of λk, oriented so that det V = +1 (a rotation). For a repeated
// eigenvalue any orthonormal basis of its eigenspace is returned.
//
// Only the 6 independent entries are stored (Sym3), which keeps the register footprint small.

#include <cmath>

#include "foehn/fe/small_matrix.hpp"

namespace foehn::fe {

template <typename T = double>
struct Sym3 {
  T xx, yy, zz, xy, xz, yz;

  FOEHN_HD constexpr Mat<3, 3, T> to_mat() const {
    return Mat<3, 3, T>{{{xx, xy, xz}, {xy, yy, yz}, {xz, yz, zz}}};
  }
  // The symmetric part of m (off-diagonals averaged).
  FOEHN_HD static constexpr Sym3 from_mat(const Mat<3, 3, T>& m) {
    return Sym3{m.a[0][0],
                m.a[1][1],
                m.a[2][2],
                T(0.5) * (m.a[0][1] + m.a[1][0]),
                T(0.5) * (m.a[0][2] + m.a[2][0]),
                T(0.5) * (m.a[1][2] + m.a[2][1])};
  }
};

template <typename T = double>
struct EigenSym3 {
  Vec<3, T> values;      // ascending
  Mat<3, 3, T> vectors;  // column k belongs to values[k]
};

namespace detail {

// 0 * x is 0 for finite x and NaN for inf/NaN, so the sum is 0 exactly when all are finite.
template <typename T>
FOEHN_HD bool all_finite(const Sym3<T>& a) {
  const T z = T(0);
  return z * a.xx + z * a.yy + z * a.zz + z * a.xy + z * a.xz + z * a.yz == z;
}

template <typename T>
FOEHN_HD T max_abs_entry(const Sym3<T>& a) {
  return std::fmax(std::fmax(std::fmax(std::fabs(a.xx), std::fabs(a.yy)), std::fabs(a.zz)),
                   std::fmax(std::fmax(std::fabs(a.xy), std::fabs(a.xz)), std::fabs(a.yz)));
}

// cos(π x). On the device cospi needs no Payne-Hanek argument reduction, whose slow path
// (taken only for huge arguments, never here) would give every caller a local-memory stack
// frame; the host has no cospi in C++20 and uses cos(π x).
template <typename T>
FOEHN_HD T cos_pi(T x) {
#if defined(__CUDA_ARCH__)
  return ::cospi(x);
#else
  return std::cos(T(3.14159265358979323846264338327950288) * x);
#endif
}

// Compare-and-swap of eigenpairs I < J (compile-time column indices: stays in registers).
template <int I, int J, typename T>
FOEHN_HD void eigen_order_pair(EigenSym3<T>& e) {
  const bool swap = e.values.v[J] < e.values.v[I];
  const T li = e.values.v[I];
  const T lj = e.values.v[J];
  e.values.v[I] = swap ? lj : li;
  e.values.v[J] = swap ? li : lj;
  FOEHN_UNROLL
  for (int r = 0; r < 3; ++r) {
    const T vi = e.vectors.a[r][I];
    const T vj = e.vectors.a[r][J];
    e.vectors.a[r][I] = swap ? vj : vi;
    e.vectors.a[r][J] = swap ? vi : vj;
  }
}

// Sort ascending (3-element sorting network) and make det V = +1 by flipping column 2.
template <typename T>
FOEHN_HD void eigen_sort_and_orient(EigenSym3<T>& e) {
  eigen_order_pair<0, 1>(e);
  eigen_order_pair<1, 2>(e);
  eigen_order_pair<0, 1>(e);
  if (determinant(e.vectors) < T(0)) {
    FOEHN_UNROLL
    for (int r = 0; r < 3; ++r) e.vectors.a[r][2] = -e.vectors.a[r][2];
  }
}

// One Jacobi rotation in the (P,Q) plane annihilating a_pq; R is the third index.
//   theta = (a_qq - a_pp) / (2 a_pq),  t = sign(theta) / (|theta| + sqrt(theta^2 + 1)),
//   c = 1/sqrt(t^2 + 1), s = t c;  a_pp -= t a_pq, a_qq += t a_pq, a_pq = 0,
//   (a_rp, a_rq) <- (c a_rp - s a_rq, s a_rp + c a_rq), same for the columns p, q of V.
template <int P, int Q, typename T>
FOEHN_HD void jacobi_rotate(T& app, T& aqq, T& apq, T& arp, T& arq, Mat<3, 3, T>& v) {
  if (apq == T(0)) return;
  const T theta = (aqq - app) / (T(2) * apq);
  const T abs_theta = std::fabs(theta);
  // For huge theta, theta^2 would overflow; t ~ 1/(2 theta) there.
  T t = abs_theta > T(1e150) ? T(0.5) / abs_theta
                             : T(1) / (abs_theta + std::sqrt(abs_theta * abs_theta + T(1)));
  if (theta < T(0)) t = -t;
  const T c = T(1) / std::sqrt(t * t + T(1));
  const T s = t * c;
  app -= t * apq;
  aqq += t * apq;
  apq = T(0);
  const T rp = arp;
  const T rq = arq;
  arp = c * rp - s * rq;
  arq = s * rp + c * rq;
  FOEHN_UNROLL
  for (int k = 0; k < 3; ++k) {
    const T vp = v.a[k][P];
    const T vq = v.a[k][Q];
    v.a[k][P] = c * vp - s * vq;
    v.a[k][Q] = s * vp + c * vq;
  }
}

// Unit vector orthogonal to the rows of (A - λI), which has rank 2 when λ is a simple
// eigenvalue: the largest of the three row cross products is the best conditioned.
template <typename T>
FOEHN_HD Vec<3, T> eigenvector_rank2(const Sym3<T>& a, T lambda) {
  const Vec<3, T> r0{{a.xx - lambda, a.xy, a.xz}};
  const Vec<3, T> r1{{a.xy, a.yy - lambda, a.yz}};
  const Vec<3, T> r2{{a.xz, a.yz, a.zz - lambda}};
  const Vec<3, T> c01 = cross(r0, r1);
  const Vec<3, T> c02 = cross(r0, r2);
  const Vec<3, T> c12 = cross(r1, r2);
  const T d01 = norm2(c01);
  const T d02 = norm2(c02);
  const T d12 = norm2(c12);
  Vec<3, T> best = c01;
  T dmax = d01;
  if (d02 > dmax) {
    dmax = d02;
    best = c02;
  }
  if (d12 > dmax) {
    dmax = d12;
    best = c12;
  }
  if (!(dmax > T(0))) return Vec<3, T>{{T(1), T(0), T(0)}};  // A = λI: any vector
  return (T(1) / std::sqrt(dmax)) * best;
}

// Unit vectors u, v completing w (unit) to a right-handed orthonormal basis (u, v, w).
template <typename T>
FOEHN_HD void orthogonal_complement(const Vec<3, T>& w, Vec<3, T>& u, Vec<3, T>& v) {
  if (std::fabs(w.v[0]) > std::fabs(w.v[1])) {
    const T inv = T(1) / std::sqrt(w.v[0] * w.v[0] + w.v[2] * w.v[2]);
    u = Vec<3, T>{{-w.v[2] * inv, T(0), w.v[0] * inv}};
  } else {
    const T inv = T(1) / std::sqrt(w.v[1] * w.v[1] + w.v[2] * w.v[2]);
    u = Vec<3, T>{{T(0), w.v[2] * inv, -w.v[1] * inv}};
  }
  v = cross(w, u);
}

// The two remaining eigenpairs once the eigenvector w is known. Restricted to span{u, v} = w⊥,
// A is the symmetric 2x2 [[uᵀAu, uᵀAv], [uᵀAv, vᵀAv]], which one Jacobi rotation diagonalises
// exactly. Working with A itself, not A - λI with an approximate λ, keeps the two vectors
// accurate to eps |A| / gap even when their eigenvalues are close (the trigonometric λ of a
// close pair is only accurate to about eps |A|² / gap). For a double eigenvalue any rotation
// is right, and the 2x2 is already diagonal up to rounding.
template <typename T>
FOEHN_HD void eigenpairs_in_complement(const Sym3<T>& a, const Vec<3, T>& w, Vec<3, T>& e_p, T& l_p,
                                       Vec<3, T>& e_q, T& l_q) {
  Vec<3, T> u{};
  Vec<3, T> v{};
  orthogonal_complement(w, u, v);
  const Mat<3, 3, T> am = a.to_mat();
  const Vec<3, T> au = am * u;
  const Vec<3, T> av = am * v;
  T m00 = dot(u, au);
  T m11 = dot(v, av);
  T m01 = dot(u, av);
  Mat<3, 3, T> uv{};  // columns u, v (third unused): lets jacobi_rotate do the update
  uv.set_col(0, u);
  uv.set_col(1, v);
  T unused_p = T(0), unused_q = T(0);
  jacobi_rotate<0, 1>(m00, m11, m01, unused_p, unused_q, uv);
  e_p = uv.col(0);
  l_p = m00;
  e_q = uv.col(1);
  l_q = m11;
}

}  // namespace detail

// Cyclic Jacobi: sweeps over the pairs (0,1), (0,2), (1,2) until the off-diagonal part is
// negligible, off(A)^2 <= eps^2 |A|_F^2. Returns false if A has non-finite entries, or if that
// takes more than max_sweeps sweeps (`out` then holds the current estimate).
template <typename T>
FOEHN_HD bool eigen_sym3_jacobi(const Sym3<T>& a, EigenSym3<T>& out, int max_sweeps = 32) {
  out.vectors = Mat<3, 3, T>::identity();
  out.values = Vec<3, T>{{a.xx, a.yy, a.zz}};
  if (!detail::all_finite(a)) return false;
  const T scale = detail::max_abs_entry(a);
  if (scale == T(0)) return true;
  // Work on A / max|a_ij| so that squares neither overflow nor underflow.
  const T inv = T(1) / scale;
  T d0 = a.xx * inv, d1 = a.yy * inv, d2 = a.zz * inv;
  T o01 = a.xy * inv, o02 = a.xz * inv, o12 = a.yz * inv;
  Mat<3, 3, T> v = Mat<3, 3, T>::identity();
  const T eps = machine_epsilon<T>();
  bool converged = false;
  for (int sweep = 0; sweep <= max_sweeps; ++sweep) {
    const T off = o01 * o01 + o02 * o02 + o12 * o12;
    const T diag = d0 * d0 + d1 * d1 + d2 * d2;
    if (off <= eps * eps * (diag + T(2) * off)) {
      converged = true;
      break;
    }
    if (sweep == max_sweeps) break;
    // For (p,q) = (0,1) the third index is 2: a_rp = a_20 = o02, a_rq = a_21 = o12, etc.
    detail::jacobi_rotate<0, 1>(d0, d1, o01, o02, o12, v);
    detail::jacobi_rotate<0, 2>(d0, d2, o02, o01, o12, v);
    detail::jacobi_rotate<1, 2>(d1, d2, o12, o01, o02, v);
  }
  out.values = Vec<3, T>{{d0 * scale, d1 * scale, d2 * scale}};
  out.vectors = v;
  detail::eigen_sort_and_orient(out);
  return converged;
}

// Closed form. A is scaled by its largest entry (no overflow/underflow), shifted by
// q = trace/3 and normalised: B = (A - qI)/p with p = sqrt(|A - qI|_F^2 / 6). The eigenvalues
// of B are 2cos(φ + 2πk/3) with φ = acos(det(B)/2)/3, so
//     λ2 = q + 2p cos φ,  λ0 = q + 2p cos(φ + 2π/3)  (λ1 = 3q - λ0 - λ2).
// Only the eigenvalue farther from the middle one (λ2 if det(B) >= 0, else λ0) is used: it is
// insensitive to the rounding of acos near ±1 (cos is flat there), and A - λI has rank 2, so
// its eigenvector is the best-conditioned cross product of two rows. The other two eigenpairs
// come from the 2x2 restriction of A to the plane orthogonal to it (one Jacobi rotation).
// The basis is orthonormal by construction, also for λλμ and λλλ.
// Returns false only for non-finite input (inf or NaN entries).
template <typename T>
FOEHN_HD bool eigen_sym3_analytic(const Sym3<T>& a_in, EigenSym3<T>& out) {
  out.vectors = Mat<3, 3, T>::identity();
  out.values = Vec<3, T>{{a_in.xx, a_in.yy, a_in.zz}};
  if (!detail::all_finite(a_in)) return false;
  const T scale = detail::max_abs_entry(a_in);
  if (scale == T(0)) return true;
  const T inv = T(1) / scale;
  const Sym3<T> a{a_in.xx * inv, a_in.yy * inv, a_in.zz * inv,
                  a_in.xy * inv, a_in.xz * inv, a_in.yz * inv};
  const T off = a.xy * a.xy + a.xz * a.xz + a.yz * a.yz;
  if (off == T(0)) {
    out.values = Vec<3, T>{{a.xx, a.yy, a.zz}};
  } else {
    const T q = (a.xx + a.yy + a.zz) / T(3);
    const T b00 = a.xx - q, b11 = a.yy - q, b22 = a.zz - q;
    const T p = std::sqrt((b00 * b00 + b11 * b11 + b22 * b22 + T(2) * off) / T(6));
    // det(A - qI) by cofactors of the first row, then / p^3.
    const T c00 = b11 * b22 - a.yz * a.yz;
    const T c01 = a.xy * b22 - a.yz * a.xz;
    const T c02 = a.xy * a.yz - b11 * a.xz;
    T half_det = (b00 * c00 - a.xy * c01 + a.xz * c02) / (T(2) * p * p * p);
    half_det = std::fmin(std::fmax(half_det, T(-1)), T(1));
    // φ/π in [0, 1/3]; cos through cos_pi, see there.
    const T phi_pi = std::acos(half_det) / T(3.14159265358979323846264338327950288 * 3);
    const T beta2 = T(2) * detail::cos_pi(phi_pi);
    const T beta0 = T(2) * detail::cos_pi(phi_pi + T(2) / T(3));
    const T l0 = q + p * beta0, l2 = q + p * beta2;
    // The eigenvector of the separated eigenvalue first (λ2 if det(B) >= 0, else λ0), then the
    // other two in its orthogonal complement.
    const T l_sep = half_det >= T(0) ? l2 : l0;
    const Vec<3, T> e_sep = detail::eigenvector_rank2(a, l_sep);
    Vec<3, T> e_p{}, e_q{};
    T l_p = T(0), l_q = T(0);
    detail::eigenpairs_in_complement(a, e_sep, e_p, l_p, e_q, l_q);
    out.vectors.set_col(0, e_p);
    out.vectors.set_col(1, e_q);
    out.vectors.set_col(2, e_sep);
    // The separated eigenvalue as the Rayleigh quotient of its (accurate) eigenvector.
    const Mat<3, 3, T> am = a.to_mat();
    out.values = Vec<3, T>{{l_p, l_q, dot(e_sep, am * e_sep)}};
  }
  out.values *= scale;
  detail::eigen_sort_and_orient(out);
  return true;
}

// A from its decomposition: V diag(λ) Vᵀ (tests, and rebuilding a modified tensor).
template <typename T>
FOEHN_HD constexpr Sym3<T> eigen_compose(const EigenSym3<T>& e) {
  Mat<3, 3, T> m{};
  FOEHN_UNROLL
  for (int k = 0; k < 3; ++k) m += e.values.v[k] * outer(e.vectors.col(k), e.vectors.col(k));
  return Sym3<T>::from_mat(m);
}

}  // namespace foehn::fe
