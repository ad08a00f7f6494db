// Element metric and length scales (pressure-stabilisation edge_lengths).
// Derivation of the regular-tet constant: a regular tet of edge h has eᵀ (I/h²) e = 1 on all
// six edges and the solution is unique, so M = I/h² and every length scale is h (constant 1).

#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "fe_test_support.hpp"
#include "foehn/fe/edge_lengths.hpp"

namespace foehn::fe {
namespace {

using test::Mat33;
using test::Mat43;
using test::Vec3;

// Regular tetrahedron of edge h: alternate corners of a cube (edge 2 sqrt 2), scaled.
Mat43 regular_tet(double h) {
  const double s = h / (2.0 * std::sqrt(2.0));
  return Mat43{{{s, s, s}, {s, -s, -s}, {-s, s, -s}, {-s, -s, s}}};
}

template <EigenMethod M>
void check_regular_and_stretched() {
  std::mt19937_64 rng(51);
  for (double h : {1e-3, 1.0, 250.0}) {
    // Any orientation and position: the regular tet's metric is isotropic. (The shift is
    // proportional to h: edges computed from coordinates 1e6 times larger than h would lose
    // 6 digits to cancellation before the metric is even formed.)
    const Mat43 x = test::transform_nodes(regular_tet(h), test::random_rotation(rng),
                                          h * Vec3{{1e3, -2e3, 5e2}});
    ElementLengthScales<> s{};
    ASSERT_TRUE(edge_lengths<M>(x, s)) << h;
    for (int k = 0; k < 3; ++k) EXPECT_NEAR(s.length[k], h, 1e-10 * h) << h;
    // Stretched by factor st along z: the z length scale becomes st * h, the others stay h.
    for (double st : {0.1, 3.0, 40.0}) {
      Mat43 y = regular_tet(h);
      for (int i = 0; i < 4; ++i) y(i, 2) *= st;
      ASSERT_TRUE(edge_lengths<M>(y, s)) << h << " " << st;
      // length[] is descending; locate the z scale through the axes.
      int kz = 0;
      for (int k = 1; k < 3; ++k)
        if (std::fabs(s.axes(2, k)) > std::fabs(s.axes(2, kz))) kz = k;
      EXPECT_NEAR(std::fabs(s.axes(2, kz)), 1.0, 1e-10);
      EXPECT_NEAR(s.length[kz], st * h, 1e-10 * st * h);
      for (int k = 0; k < 3; ++k) {
        if (k != kz) {
          EXPECT_NEAR(s.length[k], h, 1e-10 * h);
        }
      }
      EXPECT_GE(s.length[0], s.length[1]);
      EXPECT_GE(s.length[1], s.length[2]);
    }
  }
}

TEST(FeEdgeLengths, RegularAndStretchedTetAnalytic) {
  check_regular_and_stretched<EigenMethod::analytic>();
}
TEST(FeEdgeLengths, RegularAndStretchedTetJacobi) {
  check_regular_and_stretched<EigenMethod::jacobi>();
}

TEST(FeEdgeLengths, MetricGivesUnitEdgesOnRandomTets) {
  std::mt19937_64 rng(52);
  for (int trial = 0; trial < 200; ++trial) {
    const Mat43 x = test::random_tet(rng, 50.0, 1e4);
    ElementLengthScales<> s{}, sj{};
    ASSERT_TRUE(edge_lengths(x, s));
    ASSERT_TRUE(edge_lengths<EigenMethod::jacobi>(x, sj));
    const Mat33 m = s.metric.to_mat();
    for (int k = 0; k < 6; ++k) {
      const Vec3 e = test::node(x, tet_edge_node(k, 1)) - test::node(x, tet_edge_node(k, 0));
      EXPECT_NEAR(bilinear(e, m, e), 1.0, 1e-10) << "edge " << k;
    }
    for (int k = 0; k < 3; ++k) EXPECT_NEAR(sj.length[k], s.length[k], 1e-10 * s.length[0]);
    // The length-scale tensor is M^-1, and the axes diagonalise M: a_kᵀ M a_k = 1/h_k².
    const Mat33 t = length_scale_tensor(s);
    EXPECT_LT(test::max_abs_diff(m * t, Mat33::identity()), 1e-9);
    for (int k = 0; k < 3; ++k) {
      const Vec3 a = s.axes.col(k);
      EXPECT_NEAR(bilinear(a, m, a) * s.length[k] * s.length[k], 1.0, 1e-10);
    }
  }
}

TEST(FeEdgeLengths, LengthsScaleWithTheElement) {
  std::mt19937_64 rng(53);
  const Mat43 x = test::random_tet(rng);
  ElementLengthScales<> s1{}, s2{};
  ASSERT_TRUE(edge_lengths(x, s1));
  ASSERT_TRUE(edge_lengths(1e3 * x, s2));
  for (int k = 0; k < 3; ++k) EXPECT_NEAR(s2.length[k], 1e3 * s1.length[k], 1e-9 * s2.length[k]);
}

TEST(FeEdgeLengths, FlatTetIsReported) {
  const Mat43 flat{{{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {1, 1, 0}}};
  ElementLengthScales<> s{};
  EXPECT_FALSE(edge_lengths(flat, s));
  EXPECT_FALSE(edge_lengths<EigenMethod::jacobi>(flat, s));
  const Mat43 collapsed{{{0, 0, 0}, {1, 0, 0}, {1, 0, 0}, {0, 0, 1}}};
  EXPECT_FALSE(edge_lengths(collapsed, s));
}

TEST(FeEdgeLengths, EdgeNumbering) {
  const int expected[6][2] = {{0, 1}, {0, 2}, {0, 3}, {1, 2}, {1, 3}, {2, 3}};
  for (int k = 0; k < 6; ++k) {
    EXPECT_EQ(tet_edge_node(k, 0), expected[k][0]);
    EXPECT_EQ(tet_edge_node(k, 1), expected[k][1]);
  }
}

}  // namespace
}  // namespace foehn::fe
