#pragma once
// Helpers for the fe element-math tests: random elements and rotations, and references that are
// computed independently of the code under test (face normals, closed-form integrals).

#include <cmath>
#include <random>

#include "foehn/fe/small_matrix.hpp"

namespace foehn::fe::test {

using Mat43 = Mat<4, 3>;
using Mat33 = Mat<3, 3>;
using Vec3 = Vec<3>;

inline Vec3 node(const Mat43& x, int i) {
  return Vec3{{x(i, 0), x(i, 1), x(i, 2)}};
}

inline double triple(const Vec3& a, const Vec3& b, const Vec3& c) {
  return a[0] * (b[1] * c[2] - b[2] * c[1]) - a[1] * (b[0] * c[2] - b[2] * c[0]) +
         a[2] * (b[0] * c[1] - b[1] * c[0]);
}

// |T| from the scalar triple product of the edges from node 0.
inline double tet_volume(const Mat43& x) {
  const Vec3 x0 = node(x, 0);
  return std::fabs(triple(node(x, 1) - x0, node(x, 2) - x0, node(x, 3) - x0)) / 6.0;
}

// ∇λ_i of the barycentric coordinate of node i: the normal of the opposite face scaled so
// that λ_i rises from 0 on that face to 1 at node i.
inline Vec3 barycentric_gradient(const Mat43& x, int i) {
  const int a = (i + 1) % 4, b = (i + 2) % 4, c = (i + 3) % 4;
  const Vec3 xa = node(x, a);
  const Vec3 nrm = cross(node(x, b) - xa, node(x, c) - xa);
  return (1.0 / dot(node(x, i) - xa, nrm)) * nrm;
}

// A tetrahedron with random nodes in [-scale, scale]^3 + offset, positively oriented and not too
// flat (volume at least 2% of that of a regular tet with the same longest edge).
inline Mat43 random_tet(std::mt19937_64& rng, double scale = 1.0, double offset = 0.0) {
  std::uniform_real_distribution<double> u(-scale, scale);
  for (;;) {
    Mat43 x{};
    for (int i = 0; i < 4; ++i)
      for (int d = 0; d < 3; ++d) x(i, d) = offset + u(rng);
    double lmax = 0.0;
    for (int i = 0; i < 4; ++i)
      for (int j = i + 1; j < 4; ++j)
        lmax = std::fmax(lmax, std::sqrt(norm2(node(x, j) - node(x, i))));
    const double regular = lmax * lmax * lmax / (6.0 * std::sqrt(2.0));
    const Vec3 x0 = node(x, 0);
    const double signed6 = triple(node(x, 1) - x0, node(x, 2) - x0, node(x, 3) - x0);
    if (std::fabs(signed6) / 6.0 < 0.02 * regular) continue;
    if (signed6 < 0.0) {  // swap nodes 2 and 3 for positive orientation
      for (int d = 0; d < 3; ++d) std::swap(x(2, d), x(3, d));
    }
    return x;
  }
}

// A uniformly random rotation (unit quaternion from 4 Gaussians).
inline Mat33 random_rotation(std::mt19937_64& rng) {
  std::normal_distribution<double> g(0.0, 1.0);
  double q[4];
  double n = 0.0;
  for (double& v : q) {
    v = g(rng);
    n += v * v;
  }
  n = std::sqrt(n);
  const double w = q[0] / n, x = q[1] / n, y = q[2] / n, z = q[3] / n;
  return Mat33{{{1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)},
                {2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)},
                {2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)}}};
}

// Apply x -> R x + t to every node.
inline Mat43 transform_nodes(const Mat43& x, const Mat33& r, const Vec3& t) {
  Mat43 y{};
  for (int i = 0; i < 4; ++i) y.set_row(i, r * node(x, i) + t);
  return y;
}

// NaN if any entry is NaN (std::fmax would drop it).
template <int M, int N>
double max_abs(const Mat<M, N>& a) {
  double m = 0.0;
  for (int i = 0; i < M; ++i)
    for (int j = 0; j < N; ++j) {
      if (std::isnan(a(i, j))) return a(i, j);
      m = std::fmax(m, std::fabs(a(i, j)));
    }
  return m;
}

// NaN if any difference is NaN, so comparisons against a tolerance fail.
template <int M, int N>
double max_abs_diff(const Mat<M, N>& a, const Mat<M, N>& b) {
  return max_abs(a - b);
}
template <int N>
double max_abs_diff(const Vec<N>& a, const Vec<N>& b) {
  double m = 0.0;
  for (int i = 0; i < N; ++i) {
    const double d = std::fabs(a[i] - b[i]);
    if (std::isnan(d)) return d;
    m = std::fmax(m, d);
  }
  return m;
}
// A random symmetric positive definite tensor with eigenvalues in [lo, hi].
inline Mat33 random_spd(std::mt19937_64& rng, double lo, double hi) {
  std::uniform_real_distribution<double> u(lo, hi);
  const Mat33 q = random_rotation(rng);
  Mat33 d{};
  for (int k = 0; k < 3; ++k) d(k, k) = u(rng);
  return q * d * transpose(q);
}

}  // namespace foehn::fe::test
