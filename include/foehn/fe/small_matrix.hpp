#pragma once
// Small fixed-size vectors and matrices for element math. They are plain aggregates of
// C arrays so that, once every loop over their compile-time extents is unrolled, nvcc keeps
// them entirely in registers (one thread per element, no local memory). Nothing here
// allocates, throws or uses std:: containers, so every function compiles for host and device.
//
// Conventions used by the whole fe layer:
//   Vec<N,T>     v[i]                        numeric vector; v(i) == v[i], so a Vec<Ngi> of
//                                            values at quadrature points is also a "per-point"
//                                            provider q(gi) for the integrals.
//   Mat<M,N,T>   a(i,j), row-major a.a[i][j]
//   Array<V,N>   a[i] / a(i): N values of any type V (e.g. a tensor per quadrature point).

#include "foehn/runtime/host_device.hpp"

// Full unrolling of loops over compile-time extents. nvcc needs the hint in device code to keep
// the small arrays in registers; GCC (also as nvcc's host compiler) warns about an unknown
// `#pragma unroll` and peels such loops at -O2/-O3 anyway, so host code gets nothing.
#ifndef FOEHN_UNROLL
#if defined(__CUDA_ARCH__) || defined(__clang__)
#define FOEHN_UNROLL _Pragma("unroll")
#else
#define FOEHN_UNROLL
#endif
#endif

namespace foehn::fe {

template <int N, typename T = double>
struct Vec {
  static_assert(N > 0, "Vec needs a positive extent");
  T v[N];

  FOEHN_HD constexpr T& operator[](int i) { return v[i]; }
  FOEHN_HD constexpr const T& operator[](int i) const { return v[i]; }
  FOEHN_HD constexpr const T& operator()(int i) const { return v[i]; }
  static constexpr int size = N;

  FOEHN_HD static constexpr Vec zero() {
    Vec r{};
    return r;
  }
  FOEHN_HD static constexpr Vec filled(T value) {
    Vec r{};
    FOEHN_UNROLL
    for (int i = 0; i < N; ++i) r.v[i] = value;
    return r;
  }
};

template <int M, int N, typename T = double>
struct Mat {
  static_assert(M > 0 && N > 0, "Mat needs positive extents");
  T a[M][N];

  FOEHN_HD constexpr T& operator()(int i, int j) { return a[i][j]; }
  FOEHN_HD constexpr const T& operator()(int i, int j) const { return a[i][j]; }
  static constexpr int rows = M;
  static constexpr int cols = N;

  FOEHN_HD static constexpr Mat zero() {
    Mat r{};
    return r;
  }
  FOEHN_HD static constexpr Mat filled(T value) {
    Mat r{};
    FOEHN_UNROLL
    for (int i = 0; i < M; ++i) {
      FOEHN_UNROLL
      for (int j = 0; j < N; ++j) r.a[i][j] = value;
    }
    return r;
  }
  FOEHN_HD static constexpr Mat identity() requires(M == N) {
    Mat r{};
    FOEHN_UNROLL
    for (int i = 0; i < M; ++i) r.a[i][i] = T(1);
    return r;
  }
  FOEHN_HD constexpr Vec<N, T> row(int i) const {
    Vec<N, T> r{};
    FOEHN_UNROLL
    for (int j = 0; j < N; ++j) r.v[j] = a[i][j];
    return r;
  }
  FOEHN_HD constexpr Vec<M, T> col(int j) const {
    Vec<M, T> r{};
    FOEHN_UNROLL
    for (int i = 0; i < M; ++i) r.v[i] = a[i][j];
    return r;
  }
  FOEHN_HD constexpr void set_row(int i, const Vec<N, T>& r) {
    FOEHN_UNROLL
    for (int j = 0; j < N; ++j) a[i][j] = r.v[j];
  }
  FOEHN_HD constexpr void set_col(int j, const Vec<M, T>& c) {
    FOEHN_UNROLL
    for (int i = 0; i < M; ++i) a[i][j] = c.v[i];
  }
};

// N values of any (copyable) type: per-node tensors, per-quadrature-point vectors, ...
template <typename V, int N>
struct Array {
  static_assert(N > 0, "Array needs a positive extent");
  V v[N];

  FOEHN_HD constexpr V& operator[](int i) { return v[i]; }
  FOEHN_HD constexpr const V& operator[](int i) const { return v[i]; }
  FOEHN_HD constexpr const V& operator()(int i) const { return v[i]; }
  static constexpr int size = N;
};

// The same value at every quadrature point: a provider q(gi) for constant coefficients.
template <typename V>
struct Uniform {
  V value;
  FOEHN_HD constexpr const V& operator()(int) const { return value; }
};
template <typename V>
FOEHN_HD constexpr Uniform<V> uniform(const V& value) {
  return Uniform<V>{value};
}

// Unit roundoff-style machine epsilon without <limits> (std::numeric_limits is not callable from
// device code unless every consumer compiles with --expt-relaxed-constexpr).
template <typename T>
FOEHN_HD constexpr T machine_epsilon() {
  if constexpr (sizeof(T) == sizeof(float)) {
    return T(1.1920928955078125e-7);
  } else {
    return T(2.220446049250313080847e-16);
  }
}

// ---- Vec arithmetic ---------------------------------------------------------------------
template <int N, typename T>
FOEHN_HD constexpr Vec<N, T> operator+(const Vec<N, T>& x, const Vec<N, T>& y) {
  Vec<N, T> r{};
  FOEHN_UNROLL
  for (int i = 0; i < N; ++i) r.v[i] = x.v[i] + y.v[i];
  return r;
}
template <int N, typename T>
FOEHN_HD constexpr Vec<N, T> operator-(const Vec<N, T>& x, const Vec<N, T>& y) {
  Vec<N, T> r{};
  FOEHN_UNROLL
  for (int i = 0; i < N; ++i) r.v[i] = x.v[i] - y.v[i];
  return r;
}
template <int N, typename T>
FOEHN_HD constexpr Vec<N, T> operator-(const Vec<N, T>& x) {
  Vec<N, T> r{};
  FOEHN_UNROLL
  for (int i = 0; i < N; ++i) r.v[i] = -x.v[i];
  return r;
}
template <int N, typename T>
FOEHN_HD constexpr Vec<N, T> operator*(T s, const Vec<N, T>& x) {
  Vec<N, T> r{};
  FOEHN_UNROLL
  for (int i = 0; i < N; ++i) r.v[i] = s * x.v[i];
  return r;
}
template <int N, typename T>
FOEHN_HD constexpr Vec<N, T> operator*(const Vec<N, T>& x, T s) {
  return s * x;
}
template <int N, typename T>
FOEHN_HD constexpr Vec<N, T>& operator+=(Vec<N, T>& x, const Vec<N, T>& y) {
  FOEHN_UNROLL
  for (int i = 0; i < N; ++i) x.v[i] += y.v[i];
  return x;
}
template <int N, typename T>
FOEHN_HD constexpr Vec<N, T>& operator-=(Vec<N, T>& x, const Vec<N, T>& y) {
  FOEHN_UNROLL
  for (int i = 0; i < N; ++i) x.v[i] -= y.v[i];
  return x;
}
template <int N, typename T>
FOEHN_HD constexpr Vec<N, T>& operator*=(Vec<N, T>& x, T s) {
  FOEHN_UNROLL
  for (int i = 0; i < N; ++i) x.v[i] *= s;
  return x;
}
template <int N, typename T>
FOEHN_HD constexpr T dot(const Vec<N, T>& x, const Vec<N, T>& y) {
  T s = T(0);
  FOEHN_UNROLL
  for (int i = 0; i < N; ++i) s += x.v[i] * y.v[i];
  return s;
}
template <typename T>
FOEHN_HD constexpr Vec<3, T> cross(const Vec<3, T>& x, const Vec<3, T>& y) {
  return Vec<3, T>{{x.v[1] * y.v[2] - x.v[2] * y.v[1], x.v[2] * y.v[0] - x.v[0] * y.v[2],
                    x.v[0] * y.v[1] - x.v[1] * y.v[0]}};
}
template <int N, typename T>
FOEHN_HD constexpr T norm2(const Vec<N, T>& x) {  // squared Euclidean norm
  return dot(x, x);
}

// ---- Mat arithmetic ---------------------------------------------------------------------
template <int M, int N, typename T>
FOEHN_HD constexpr Mat<M, N, T> operator+(const Mat<M, N, T>& x, const Mat<M, N, T>& y) {
  Mat<M, N, T> r{};
  FOEHN_UNROLL
  for (int i = 0; i < M; ++i) {
    FOEHN_UNROLL
    for (int j = 0; j < N; ++j) r.a[i][j] = x.a[i][j] + y.a[i][j];
  }
  return r;
}
template <int M, int N, typename T>
FOEHN_HD constexpr Mat<M, N, T> operator-(const Mat<M, N, T>& x, const Mat<M, N, T>& y) {
  Mat<M, N, T> r{};
  FOEHN_UNROLL
  for (int i = 0; i < M; ++i) {
    FOEHN_UNROLL
    for (int j = 0; j < N; ++j) r.a[i][j] = x.a[i][j] - y.a[i][j];
  }
  return r;
}
template <int M, int N, typename T>
FOEHN_HD constexpr Mat<M, N, T> operator*(T s, const Mat<M, N, T>& x) {
  Mat<M, N, T> r{};
  FOEHN_UNROLL
  for (int i = 0; i < M; ++i) {
    FOEHN_UNROLL
    for (int j = 0; j < N; ++j) r.a[i][j] = s * x.a[i][j];
  }
  return r;
}
template <int M, int N, typename T>
FOEHN_HD constexpr Mat<M, N, T> operator*(const Mat<M, N, T>& x, T s) {
  return s * x;
}
template <int M, int N, typename T>
FOEHN_HD constexpr Mat<M, N, T>& operator+=(Mat<M, N, T>& x, const Mat<M, N, T>& y) {
  FOEHN_UNROLL
  for (int i = 0; i < M; ++i) {
    FOEHN_UNROLL
    for (int j = 0; j < N; ++j) x.a[i][j] += y.a[i][j];
  }
  return x;
}
template <int M, int N, typename T>
FOEHN_HD constexpr Mat<M, N, T>& operator-=(Mat<M, N, T>& x, const Mat<M, N, T>& y) {
  FOEHN_UNROLL
  for (int i = 0; i < M; ++i) {
    FOEHN_UNROLL
    for (int j = 0; j < N; ++j) x.a[i][j] -= y.a[i][j];
  }
  return x;
}
template <int M, int N, typename T>
FOEHN_HD constexpr Mat<M, N, T>& operator*=(Mat<M, N, T>& x, T s) {
  FOEHN_UNROLL
  for (int i = 0; i < M; ++i) {
    FOEHN_UNROLL
    for (int j = 0; j < N; ++j) x.a[i][j] *= s;
  }
  return x;
}
// Matrix-vector product A x.
template <int M, int N, typename T>
FOEHN_HD constexpr Vec<M, T> operator*(const Mat<M, N, T>& x, const Vec<N, T>& y) {
  Vec<M, T> r{};
  FOEHN_UNROLL
  for (int i = 0; i < M; ++i) {
    T s = T(0);
    FOEHN_UNROLL
    for (int j = 0; j < N; ++j) s += x.a[i][j] * y.v[j];
    r.v[i] = s;
  }
  return r;
}
// Matrix product A B.
template <int M, int K, int N, typename T>
FOEHN_HD constexpr Mat<M, N, T> operator*(const Mat<M, K, T>& x, const Mat<K, N, T>& y) {
  Mat<M, N, T> r{};
  FOEHN_UNROLL
  for (int i = 0; i < M; ++i) {
    FOEHN_UNROLL
    for (int j = 0; j < N; ++j) {
      T s = T(0);
      FOEHN_UNROLL
      for (int k = 0; k < K; ++k) s += x.a[i][k] * y.a[k][j];
      r.a[i][j] = s;
    }
  }
  return r;
}
// Aᵀ x without forming Aᵀ.
template <int M, int N, typename T>
FOEHN_HD constexpr Vec<N, T> transpose_times(const Mat<M, N, T>& x, const Vec<M, T>& y) {
  Vec<N, T> r{};
  FOEHN_UNROLL
  for (int j = 0; j < N; ++j) {
    T s = T(0);
    FOEHN_UNROLL
    for (int i = 0; i < M; ++i) s += x.a[i][j] * y.v[i];
    r.v[j] = s;
  }
  return r;
}
template <int M, int N, typename T>
FOEHN_HD constexpr Mat<N, M, T> transpose(const Mat<M, N, T>& x) {
  Mat<N, M, T> r{};
  FOEHN_UNROLL
  for (int i = 0; i < M; ++i) {
    FOEHN_UNROLL
    for (int j = 0; j < N; ++j) r.a[j][i] = x.a[i][j];
  }
  return r;
}
// Outer product x yᵀ.
template <int M, int N, typename T>
FOEHN_HD constexpr Mat<M, N, T> outer(const Vec<M, T>& x, const Vec<N, T>& y) {
  Mat<M, N, T> r{};
  FOEHN_UNROLL
  for (int i = 0; i < M; ++i) {
    FOEHN_UNROLL
    for (int j = 0; j < N; ++j) r.a[i][j] = x.v[i] * y.v[j];
  }
  return r;
}
// Bilinear form xᵀ A y.
template <int M, int N, typename T>
FOEHN_HD constexpr T bilinear(const Vec<M, T>& x, const Mat<M, N, T>& a, const Vec<N, T>& y) {
  return dot(x, a * y);
}
template <int N, typename T>
FOEHN_HD constexpr T trace(const Mat<N, N, T>& x) {
  T s = T(0);
  FOEHN_UNROLL
  for (int i = 0; i < N; ++i) s += x.a[i][i];
  return s;
}
// Frobenius norm squared.
template <int M, int N, typename T>
FOEHN_HD constexpr T frobenius2(const Mat<M, N, T>& x) {
  T s = T(0);
  FOEHN_UNROLL
  for (int i = 0; i < M; ++i) {
    FOEHN_UNROLL
    for (int j = 0; j < N; ++j) s += x.a[i][j] * x.a[i][j];
  }
  return s;
}

// ---- determinant and inverse (1x1, 2x2, 3x3: what a Jacobian needs) ----------------------
template <int N, typename T>
FOEHN_HD constexpr T determinant(const Mat<N, N, T>& x) {
  static_assert(N >= 1 && N <= 3, "determinant is provided for 1x1, 2x2 and 3x3");
  if constexpr (N == 1) {
    return x.a[0][0];
  } else if constexpr (N == 2) {
    return x.a[0][0] * x.a[1][1] - x.a[0][1] * x.a[1][0];
  } else {
    // Expansion along the first row (the cofactors are reused by adjugate()).
    return x.a[0][0] * (x.a[1][1] * x.a[2][2] - x.a[1][2] * x.a[2][1]) -
           x.a[0][1] * (x.a[1][0] * x.a[2][2] - x.a[1][2] * x.a[2][0]) +
           x.a[0][2] * (x.a[1][0] * x.a[2][1] - x.a[1][1] * x.a[2][0]);
  }
}
// adj(A), so that A adj(A) = det(A) I. Dividing by det(A) gives the inverse; keeping the two
// steps apart lets callers test det(A) before dividing.
template <int N, typename T>
FOEHN_HD constexpr Mat<N, N, T> adjugate(const Mat<N, N, T>& x) {
  static_assert(N >= 1 && N <= 3, "adjugate is provided for 1x1, 2x2 and 3x3");
  Mat<N, N, T> r{};
  if constexpr (N == 1) {
    r.a[0][0] = T(1);
  } else if constexpr (N == 2) {
    r.a[0][0] = x.a[1][1];
    r.a[0][1] = -x.a[0][1];
    r.a[1][0] = -x.a[1][0];
    r.a[1][1] = x.a[0][0];
  } else {
    r.a[0][0] = x.a[1][1] * x.a[2][2] - x.a[1][2] * x.a[2][1];
    r.a[0][1] = x.a[0][2] * x.a[2][1] - x.a[0][1] * x.a[2][2];
    r.a[0][2] = x.a[0][1] * x.a[1][2] - x.a[0][2] * x.a[1][1];
    r.a[1][0] = x.a[1][2] * x.a[2][0] - x.a[1][0] * x.a[2][2];
    r.a[1][1] = x.a[0][0] * x.a[2][2] - x.a[0][2] * x.a[2][0];
    r.a[1][2] = x.a[0][2] * x.a[1][0] - x.a[0][0] * x.a[1][2];
    r.a[2][0] = x.a[1][0] * x.a[2][1] - x.a[1][1] * x.a[2][0];
    r.a[2][1] = x.a[0][1] * x.a[2][0] - x.a[0][0] * x.a[2][1];
    r.a[2][2] = x.a[0][0] * x.a[1][1] - x.a[0][1] * x.a[1][0];
  }
  return r;
}
// Inverse through the adjugate. Returns false (and leaves `inv` untouched) when det(A) == 0;
// callers that need a tolerance (near-singular Jacobians) test the determinant themselves.
template <int N, typename T>
FOEHN_HD constexpr bool inverse(const Mat<N, N, T>& x, Mat<N, N, T>& inv, T* det_out = nullptr) {
  const T det = determinant(x);
  if (det_out != nullptr) *det_out = det;
  if (det == T(0)) return false;
  inv = (T(1) / det) * adjugate(x);
  return true;
}

}  // namespace foehn::fe
