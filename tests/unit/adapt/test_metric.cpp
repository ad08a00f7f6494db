// foehn::adapt's metric fields against independent references: a quadratic field's Hessian is
// its constant matrix of second derivatives (at every node of the graded terrain mesh, boundary
// corners included); a metric's eigenvalues are the edge lengths it asks for, so bounds and
// anisotropy are read off them; the L^p normalisation reaches the complexity it was given where
// no bound bites; an intersection contains both metrics and is the smallest that does along
// their common eigenvectors.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>
#include <vector>

#include "foehn/adapt/metric.hpp"
#include "foehn/runtime/error.hpp"
#include "support/error_category.hpp"
#include "support/small_mountain.hpp"

namespace foehn::adapt {
namespace {

using fe::EigenSym3;

EigenSym3<double> eigen(const Sym3<double>& m) {
  EigenSym3<double> e{};
  EXPECT_TRUE(fe::eigen_sym3_jacobi(m, e));
  return e;
}

double max_abs(const Sym3<double>& m) {
  return std::fmax(std::fmax(std::fmax(std::fabs(m.xx), std::fabs(m.yy)), std::fabs(m.zz)),
                   std::fmax(std::fmax(std::fabs(m.xy), std::fabs(m.xz)), std::fabs(m.yz)));
}

Sym3<double> difference(const Sym3<double>& a, const Sym3<double>& b) {
  return {a.xx - b.xx, a.yy - b.yy, a.zz - b.zz, a.xy - b.xy, a.xz - b.xz, a.yz - b.yz};
}

// u = x^T A x / 2 + g.x + 3 in kilometres, A below in 1/km^2.
const Sym3<double> kA{2.0, -1.0, 5.0, 0.5, -0.25, 1.5};

double quadratic(const Point3& p) {
  const double x = p[0] / 1000, y = p[1] / 1000, z = p[2] / 1000;
  return 0.5 * (kA.xx * x * x + kA.yy * y * y + kA.zz * z * z) + kA.xy * x * y + kA.xz * x * z +
         kA.yz * y * z + 0.3 * x - 0.7 * y + 1.1 * z + 3.0;
}

TEST(AdaptHessians, AQuadraticFieldsHessianIsExactAtEveryNode) {
  const TetMesh mesh = testing::small_mountain(6, 6, 4);
  std::vector<double> u(mesh.node_count());
  for (std::size_t n = 0; n < u.size(); ++n) u[n] = quadratic(mesh.nodes[n]);
  const NodePatches patches = node_patches(mesh);
  const auto hessians = recover_hessians(mesh, patches, u);
  const Sym3<double> expected{kA.xx * 1e-6, kA.yy * 1e-6, kA.zz * 1e-6,
                              kA.xy * 1e-6, kA.xz * 1e-6, kA.yz * 1e-6};  // per m^2
  double worst = 0;
  for (const Sym3<double>& h : hessians) worst = std::fmax(worst, max_abs(difference(h, expected)));
  EXPECT_LT(worst, 1e-9 * max_abs(expected));
  for (std::size_t n = 0; n + 1 < patches.offsets.size(); ++n)
    EXPECT_GE(patches.offsets[n + 1] - patches.offsets[n], 12) << "node " << n;
}

TEST(AdaptHessians, ALinearFieldAsksForTheLongestEdgesEverywhere) {
  const TetMesh mesh = testing::small_mountain(5, 5, 3);
  std::vector<double> u(mesh.node_count());
  for (std::size_t n = 0; n < u.size(); ++n)
    u[n] = 2 + 1e-3 * mesh.nodes[n][0] - 4e-3 * mesh.nodes[n][2];
  const auto hessians = recover_hessians(mesh, node_patches(mesh), u);
  MetricOptions options;
  options.bounds = {100.0, 5000.0, 50.0};
  options.target_complexity = 1000;
  const auto metric = metric_from_hessians(hessians, lumped_volumes(mesh), options);
  for (const Sym3<double>& m : metric)
    for (const double lambda : eigen(m).values.v) EXPECT_NEAR(lambda, 1 / 5000.0 / 5000.0, 1e-15);
}

TEST(AdaptMetric, BoundsAndAnisotropyHoldWhateverTheHessian) {
  std::mt19937 random(7);
  std::uniform_real_distribution<double> entry(-1.0, 1.0), exponent(-9.0, 3.0);
  const MetricBounds<double> bounds{10.0, 1000.0, 20.0};
  for (int trial = 0; trial < 500; ++trial) {
    const double s = std::pow(10.0, exponent(random));
    const Sym3<double> h{s * entry(random), s * entry(random), s * entry(random),
                         s * entry(random), s * entry(random), s * entry(random)};
    Sym3<double> m{};
    ASSERT_TRUE(metric_from_hessian(h, 1.0, bounds, m));
    const auto lambda = eigen(m).values;
    EXPECT_GE(lambda.v[0], (1 - 1e-12) / (1000.0 * 1000.0));
    EXPECT_LE(lambda.v[2], (1 + 1e-12) / (10.0 * 10.0));
    EXPECT_LE(lambda.v[2] / lambda.v[0], 20.0 * 20.0 * (1 + 1e-12));  // edge ratio <= 20
  }
  Sym3<double> unused{};
  EXPECT_FALSE(metric_from_hessian(kA, 1.0, MetricBounds<double>{10.0, 5.0, 2.0}, unused));
  EXPECT_FALSE(metric_from_hessian(kA, 1.0, MetricBounds<double>{10.0, 50.0, 0.5}, unused));
}

// A uniform Hessian diag(1, 4, 9) / km^2 on the mesh: M = D |H| everywhere, so the complexity
// is D^(3/2) sqrt(det|H|) V and D follows from the target: with no bound biting, the metric's
// complexity is the target for every L^p order.
TEST(AdaptMetric, TheComplexityIsTheTargetWhereNoBoundBites) {
  const TetMesh mesh = testing::small_mountain(6, 6, 4);
  const auto volumes = lumped_volumes(mesh);
  const std::vector<Sym3<double>> hessians(mesh.node_count(),
                                           Sym3<double>{1e-6, 4e-6, 9e-6, 0, 0, 0});
  for (const double p : {1.0, 2.0, std::numeric_limits<double>::infinity()}) {
    MetricOptions options;
    options.bounds = {1e-3, 1e7, 1e6};
    options.target_complexity = 5000;
    options.norm_order = p;
    const auto metric = metric_from_hessians(hessians, volumes, options);
    EXPECT_NEAR(complexity(metric, volumes), 5000, 5000 * 1e-10) << "p = " << p;
    // Uniform Hessian: the same metric at every node, proportional to it (ratios 1 : 4 : 9).
    EXPECT_NEAR(metric[0].yy / metric[0].xx, 4.0, 1e-12);
    EXPECT_NEAR(metric[0].zz / metric[0].xx, 9.0, 1e-12);
  }
}

TEST(AdaptMetric, AnIntersectionContainsBothAndIsTheSmallestThatDoes) {
  Sym3<double> out{};
  // Common eigenvectors: the larger eigenvalue in every direction.
  ASSERT_TRUE(
      intersect_metrics(Sym3<double>{1, 4, 1, 0, 0, 0}, Sym3<double>{4, 1, 1, 0, 0, 0}, out));
  EXPECT_LT(max_abs(difference(out, Sym3<double>{4, 4, 1, 0, 0, 0})), 1e-14);
  std::mt19937 random(11);
  std::uniform_real_distribution<double> entry(-1.0, 1.0);
  const auto spd = [&] {
    const Mat<3, 3, double> r{{{entry(random), entry(random), entry(random)},
                               {entry(random), entry(random), entry(random)},
                               {entry(random), entry(random), entry(random)}}};
    Mat<3, 3, double> m = Mat<3, 3, double>::zero();
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j) {
        for (int k = 0; k < 3; ++k) m.a[i][j] += r.a[i][k] * r.a[j][k];
        if (i == j) m.a[i][j] += 0.1;
      }
    return Sym3<double>::from_mat(m);
  };
  for (int trial = 0; trial < 200; ++trial) {
    const Sym3<double> a = spd(), b = spd();
    ASSERT_TRUE(intersect_metrics(a, b, out));
    // out - a and out - b are positive semi-definite: every edge is no longer under out.
    EXPECT_GE(eigen(difference(out, a)).values.v[0], -1e-12 * max_abs(out));
    EXPECT_GE(eigen(difference(out, b)).values.v[0], -1e-12 * max_abs(out));
    ASSERT_TRUE(intersect_metrics(a, a, out));
    EXPECT_LT(max_abs(difference(out, a)), 1e-12 * max_abs(a));
  }
  EXPECT_FALSE(intersect_metrics(Sym3<double>{1, -1, 1, 0, 0, 0}, kA, out));
}

// A boundary layer in theta, tanh((z - 3 km) / 200 m): the metric asks for short vertical edges
// in the layer (its largest eigenvector vertical, down to h_min) and long ones far from it, with
// the anisotropy capped.
TEST(AdaptMetric, ABoundaryLayerGetsShortVerticalEdgesOnly) {
  const TetMesh mesh = testing::small_mountain(8, 8, 24);
  std::vector<double> theta(mesh.node_count());
  for (std::size_t n = 0; n < theta.size(); ++n)
    theta[n] = std::tanh((mesh.nodes[n][2] - 3000.0) / 200.0);
  MetricOptions options;
  options.bounds = {50.0, 20000.0, 100.0};
  options.target_complexity = 20000;
  const auto metric = metric_from_hessians(recover_hessians(mesh, node_patches(mesh), theta),
                                           lumped_volumes(mesh), options);
  int in_layer = 0;
  for (std::size_t n = 0; n < metric.size(); ++n) {
    const auto e = eigen(metric[n]);
    EXPECT_LE(e.values.v[2] / e.values.v[0], 100.0 * 100.0 * (1 + 1e-12));
    const double z = mesh.nodes[n][2];
    if (std::fabs(z - 3000.0 - 100.0) < 150.0 && std::fabs(mesh.nodes[n][0]) < 20000) {
      ++in_layer;
      EXPECT_GT(std::fabs(e.vectors.a[2][2]), 0.95) << "node " << n << " at z = " << z;
      EXPECT_LT(1 / std::sqrt(e.values.v[2]), 400.0) << "node " << n;
    }
    if (std::fabs(z - 3000.0) > 3000.0) {
      EXPECT_GT(1 / std::sqrt(e.values.v[2]), 2000.0) << "node " << n << " at z = " << z;
    }
  }
  EXPECT_GT(in_layer, 0);
}

// The comparison the GPU tests and bench_adapt use: each node relative to its own largest entry.
TEST(AdaptMetric, RelativeDifferencesAreTakenNodeByNode) {
  const std::vector<Sym3<double>> reference = {{1e-6, 2e-6, 3e-6, 0, 0, 0},
                                               {4.0, 1.0, 1.0, 0, 0, 0}};
  EXPECT_EQ(max_relative_difference(reference, reference), 0.0);
  auto moved = reference;
  moved[0].yz = 3e-12;  // 1e-6 of the first node's largest entry, tiny against the second's
  moved[1].xx = 4.0 + 4e-9;
  EXPECT_NEAR(max_relative_difference(moved, reference), 1e-6, 1e-15);
  EXPECT_EQ(
      testing::category_of([&] { max_relative_difference(std::span(moved).first(1), reference); }),
      ErrorCategory::invalid_input);
}

TEST(AdaptErrors, BadInputIsNamed) {
  const TetMesh mesh = testing::small_mountain(4, 4, 3);
  const NodePatches patches = node_patches(mesh);
  std::vector<double> u(mesh.node_count(), 1.0);
  EXPECT_EQ(testing::category_of([&] { node_patches(mesh, 8); }), ErrorCategory::invalid_input);
  EXPECT_EQ(testing::category_of(
                [&] { recover_hessians(mesh, patches, std::span<const double>(u).first(3)); }),
            ErrorCategory::invalid_input);
  u[5] = std::numeric_limits<double>::quiet_NaN();
  EXPECT_EQ(testing::category_of([&] { recover_hessians(mesh, patches, u); }),
            ErrorCategory::invalid_input);
  const std::vector<Sym3<double>> hessians(mesh.node_count(), kA);
  const auto volumes = lumped_volumes(mesh);
  MetricOptions options;
  options.bounds = {10.0, 1.0, 2.0};
  options.target_complexity = 100;
  EXPECT_EQ(testing::category_of([&] { metric_from_hessians(hessians, volumes, options); }),
            ErrorCategory::invalid_input);
  options.bounds = {1.0, 10.0, 2.0};
  options.target_complexity = std::numeric_limits<double>::quiet_NaN();
  EXPECT_EQ(testing::category_of([&] { metric_from_hessians(hessians, volumes, options); }),
            ErrorCategory::invalid_input);
  options.target_complexity = 100;
  options.norm_order = 0.5;
  EXPECT_EQ(testing::category_of([&] { metric_from_hessians(hessians, volumes, options); }),
            ErrorCategory::invalid_input);
  EXPECT_EQ(testing::category_of(
                [&] { intersect(hessians, std::span<const Sym3<double>>(hessians).first(2)); }),
            ErrorCategory::invalid_input);
}

}  // namespace
}  // namespace foehn::adapt
