// P1 shape functions and transform_to_physical: against barycentric gradients from face
// normals and volumes from triple products, affine vs general path, degenerate elements.

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>

#include "fe_test_support.hpp"
#include "foehn/fe/quadrature.hpp"
#include "foehn/fe/shape_functions.hpp"
#include "foehn/fe/transform.hpp"

namespace foehn::fe {
namespace {

using test::Mat43;
using test::Vec3;

TEST(FeShapeFunctions, P1IsNodalAndAPartitionOfUnity) {
  const Vec3 corners[4] = {{{0, 0, 0}}, {{1, 0, 0}}, {{0, 1, 0}}, {{0, 0, 1}}};
  for (int j = 0; j < 4; ++j) {
    const Vec<4> n = p1_shape(corners[j]);
    for (int i = 0; i < 4; ++i) EXPECT_DOUBLE_EQ(n[i], i == j ? 1.0 : 0.0);
  }
  const Vec<4> n = p1_shape(Vec3{{0.1, 0.2, 0.3}});
  EXPECT_NEAR(n[0] + n[1] + n[2] + n[3], 1.0, 1e-15);
  const Mat<4, 3> dn = p1_dshape_ref();
  for (int k = 0; k < 3; ++k) EXPECT_DOUBLE_EQ(dn(0, k) + dn(1, k) + dn(2, k) + dn(3, k), 0.0);
  // Finite difference of p1_shape matches the reference derivatives (it is linear: exact).
  for (int k = 0; k < 3; ++k) {
    Vec3 xi{{0.1, 0.2, 0.3}};
    xi[k] += 0.25;
    const Vec<4> n2 = p1_shape(xi);
    for (int i = 0; i < 4; ++i) EXPECT_NEAR((n2[i] - n[i]) / 0.25, dn(i, k), 1e-14);
  }
}

TEST(FeShapeFunctions, ShapeTableRowsAreBarycentricCoordinatesOfThePoints) {
  constexpr TetKeast11 rule{};
  const Mat<11, 4> n = p1_shape_at_quad(rule);
  for (int gi = 0; gi < 11; ++gi) {
    EXPECT_DOUBLE_EQ(n(gi, 1), rule.point[gi][0]);
    EXPECT_DOUBLE_EQ(n(gi, 3), rule.point[gi][2]);
    EXPECT_NEAR(n(gi, 0) + n(gi, 1) + n(gi, 2) + n(gi, 3), 1.0, 1e-15);
  }
}

TEST(FeTransform, ReferenceTetIsTheIdentityMap) {
  const Mat43 x{{{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {0, 0, 1}}};
  constexpr TetStroud4 rule{};
  AffineGeometry<3, 4, 4> g{};
  ASSERT_EQ(transform_to_physical(x, rule, g), TransformStatus::ok);
  EXPECT_DOUBLE_EQ(g.det_j, 1.0);
  EXPECT_EQ(test::max_abs_diff(g.jacobian, Mat<3, 3>::identity()), 0.0);
  EXPECT_EQ(test::max_abs_diff(g.jacobian_inv, Mat<3, 3>::identity()), 0.0);
  EXPECT_EQ(test::max_abs_diff(g.dn, p1_dshape_ref()), 0.0);
  for (int gi = 0; gi < 4; ++gi) EXPECT_DOUBLE_EQ(g.detwei[gi], 1.0 / 24.0);
  EXPECT_NEAR(element_measure(g), 1.0 / 6.0, 1e-16);
}

template <class Rule>
void check_random_tets(std::mt19937_64& rng) {
  constexpr Rule rule{};
  for (int trial = 0; trial < 50; ++trial) {
    const Mat43 x = test::random_tet(rng, 2.0, 10.0);
    const double vol = test::tet_volume(x);
    AffineGeometry<3, 4, Rule::ngi> ga{};
    QuadGeometry<3, 4, Rule::ngi> gq{};
    ASSERT_EQ(transform_to_physical(x, rule, ga), TransformStatus::ok);
    ASSERT_EQ(transform_to_physical(x, rule, gq), TransformStatus::ok);
    EXPECT_NEAR(ga.det_j, 6.0 * vol, 1e-12 * vol);
    EXPECT_NEAR(element_measure(ga), vol, 1e-13 * vol);
    EXPECT_NEAR(tet_signed_volume(x), vol, 1e-13 * vol);
    // Physical derivatives are the barycentric gradients.
    double gscale = 0.0;
    for (int i = 0; i < 4; ++i) {
      const Vec3 ref = test::barycentric_gradient(x, i);
      gscale = std::fmax(gscale, std::sqrt(norm2(ref)));
      for (int d = 0; d < 3; ++d) EXPECT_NEAR(ga.dn(i, d), ref[d], 1e-12 * std::sqrt(norm2(ref)));
    }
    // J J^-1 = I.
    const Mat<3, 3> id = ga.jacobian * ga.jacobian_inv;
    EXPECT_LT(test::max_abs_diff(id, Mat<3, 3>::identity()), 1e-13);
    // Affine and general paths agree at every point.
    for (int gi = 0; gi < Rule::ngi; ++gi) {
      EXPECT_NEAR(gq.detwei[gi], ga.detwei[gi], 1e-15 * vol);
      EXPECT_NEAR(gq.det_j[gi], ga.det_j, 1e-15 * vol);
      EXPECT_LE(test::max_abs_diff(gq.dshape(gi), ga.dshape(gi)), 1e-14 * gscale);
    }
  }
}

TEST(FeTransform, AffineAndGeneralPathsAgreeOnRandomTets) {
  std::mt19937_64 rng(20240611);
  check_random_tets<TetCentroid1>(rng);
  check_random_tets<TetStroud4>(rng);
  check_random_tets<TetVertexEdge11>(rng);
  check_random_tets<TetKeast11>(rng);
  check_random_tets<TetWalkington14>(rng);
}

TEST(FeTransform, InvertedTetIsReportedButStillUsable) {
  std::mt19937_64 rng(7);
  Mat43 x = test::random_tet(rng);
  const double vol = test::tet_volume(x);
  for (int d = 0; d < 3; ++d) std::swap(x(1, d), x(2, d));  // mirror the node order
  constexpr TetStroud4 rule{};
  AffineGeometry<3, 4, 4> ga{};
  QuadGeometry<3, 4, 4> gq{};
  EXPECT_EQ(transform_to_physical(x, rule, ga), TransformStatus::inverted);
  EXPECT_EQ(transform_to_physical(x, rule, gq), TransformStatus::inverted);
  EXPECT_LT(ga.det_j, 0.0);
  EXPECT_NEAR(element_measure(ga), vol, 1e-13 * vol);
  EXPECT_NEAR(element_measure(gq), vol, 1e-13 * vol);
  for (int i = 0; i < 4; ++i) {
    const Vec3 ref = test::barycentric_gradient(x, i);
    for (int d = 0; d < 3; ++d) EXPECT_NEAR(ga.dn(i, d), ref[d], 1e-12 * std::sqrt(norm2(ref)));
  }
}

TEST(FeTransform, FlatTetIsSingularAndZeroed) {
  // Four coplanar nodes (z = 0.5 x + 0.25 y), scaled up to 1e4 to show the test is relative.
  for (double scale : {1e-6, 1.0, 1e4}) {
    const Mat43 x{{{0, 0, 0},
                   {scale, 0, 0.5 * scale},
                   {0, scale, 0.25 * scale},
                   {scale, scale, 0.75 * scale}}};
    constexpr TetKeast11 rule{};
    AffineGeometry<3, 4, 11> ga{};
    QuadGeometry<3, 4, 11> gq{};
    EXPECT_EQ(transform_to_physical(x, rule, ga), TransformStatus::singular) << scale;
    EXPECT_EQ(transform_to_physical(x, rule, gq), TransformStatus::singular) << scale;
    EXPECT_EQ(test::max_abs(ga.dn), 0.0);
    EXPECT_EQ(element_measure(ga), 0.0);
    EXPECT_EQ(element_measure(gq), 0.0);
    for (int gi = 0; gi < 11; ++gi) EXPECT_EQ(test::max_abs(gq.dshape(gi)), 0.0);
  }
  // Two coincident nodes.
  const Mat43 y{{{0, 0, 0}, {1, 0, 0}, {1, 0, 0}, {0, 0, 1}}};
  AffineGeometry<3, 4, 1> g1{};
  EXPECT_EQ(transform_to_physical(y, TetCentroid1{}, g1), TransformStatus::singular);
}

TEST(FeTransform, SmallButValidTetIsNotSingular) {
  // A regular-ish tet of size 1e-8 next to an offset of 1e3: scale-free test must accept it.
  const double h = 1e-8;
  const Mat43 x{{{1e3, 1e3, 1e3}, {1e3 + h, 1e3, 1e3}, {1e3, 1e3 + h, 1e3}, {1e3, 1e3, 1e3 + h}}};
  AffineGeometry<3, 4, 1> g{};
  EXPECT_EQ(transform_to_physical(x, TetCentroid1{}, g), TransformStatus::ok);
}

TEST(FeTransform, NanCoordinateIsSingular) {
  Mat43 x{{{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {0, 0, 1}}};
  x(2, 1) = std::numeric_limits<double>::quiet_NaN();
  AffineGeometry<3, 4, 1> g{};
  QuadGeometry<3, 4, 1> gq{};
  EXPECT_EQ(transform_to_physical(x, TetCentroid1{}, g), TransformStatus::singular);
  EXPECT_EQ(transform_to_physical(x, TetCentroid1{}, gq), TransformStatus::singular);
  EXPECT_EQ(test::max_abs(g.dn), 0.0);  // zeroed, not NaN
  EXPECT_EQ(test::max_abs(gq.dshape(0)), 0.0);
  EXPECT_EQ(element_measure(g), 0.0);
  EXPECT_EQ(element_measure(gq), 0.0);
}

TEST(FeTransform, TwoDimensionalTriangle) {
  // The generic path also serves Dim = 2 (P1 triangle, reference derivatives given explicitly).
  const Mat<3, 2> x{{{1.0, 1.0}, {3.0, 1.0}, {1.0, 2.0}}};
  const Mat<3, 2> dn_ref{{{-1.0, -1.0}, {1.0, 0.0}, {0.0, 1.0}}};
  const Vec<1> w{{0.5}};
  AffineGeometry<2, 3, 1> g{};
  ASSERT_EQ(transform_to_physical(x, dn_ref, w, g), TransformStatus::ok);
  EXPECT_DOUBLE_EQ(g.det_j, 2.0);
  EXPECT_DOUBLE_EQ(g.detwei[0], 1.0);  // triangle area
  EXPECT_DOUBLE_EQ(g.dn(1, 0), 0.5);
  EXPECT_DOUBLE_EQ(g.dn(2, 1), 1.0);
  EXPECT_DOUBLE_EQ(g.dn(0, 0), -0.5);
}

TEST(FeTransform, WorstStatus) {
  EXPECT_EQ(worst(TransformStatus::ok, TransformStatus::inverted), TransformStatus::inverted);
  EXPECT_EQ(worst(TransformStatus::singular, TransformStatus::inverted), TransformStatus::singular);
  EXPECT_EQ(worst(TransformStatus::ok, TransformStatus::ok), TransformStatus::ok);
}

}  // namespace
}  // namespace foehn::fe
