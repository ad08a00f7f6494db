// foehn::adapt's transfer of nodal fields between meshes of one domain: a field linear over the
// domain is reproduced to round-off at every node of another mesh (P1 interpolation is exact for
// it), in both directions between the graded terrain mesh and its adaptation; a point outside is
// clamped into the nearest tet and its distance measured; the conservative option restores a
// tracer's integral and keeps it non-negative; bad input is named.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "foehn/adapt/remesh.hpp"
#include "foehn/adapt/transfer.hpp"
#include "support/error_category.hpp"
#include "support/small_mountain.hpp"

namespace foehn::adapt {
namespace {

// u, v, w linear in x, y, z (m/s), with a large constant part as a real wind has.
std::array<double, 3> linear_wind(const Point3& p) {
  return {10.0 + 2e-4 * p[0] - 1e-4 * p[1] + 5e-4 * p[2], -3.0 + 1e-4 * p[0] + 3e-4 * p[2],
          0.5 - 2e-5 * p[0] + 7e-5 * p[1] - 1e-4 * p[2]};
}

std::vector<double> wind_at(const TetMesh& mesh) {
  std::vector<double> wind(3 * mesh.node_count());
  for (std::size_t n = 0; n < mesh.node_count(); ++n) {
    const auto u = linear_wind(mesh.nodes[n]);
    std::copy(u.begin(), u.end(), wind.begin() + 3 * n);
  }
  return wind;
}

void expect_linear_reproduced(const TetMesh& from, const TetMesh& to) {
  const PointLocations at = locate_points(from, to.nodes);
  EXPECT_EQ(at.outside, 0u);
  const std::vector<double> moved = interpolate(from, at, wind_at(from), 3);
  ASSERT_EQ(moved.size(), 3 * to.node_count());
  double worst = 0;
  for (std::size_t n = 0; n < to.node_count(); ++n) {
    const auto exact = linear_wind(to.nodes[n]);
    for (int c = 0; c < 3; ++c) worst = std::max(worst, std::fabs(moved[3 * n + c] - exact[c]));
  }
  // The wind is about 10 m/s: round-off of the barycentric sums over tens of kilometres.
  EXPECT_LT(worst, 1e-11 * 10.0);
}

// Without a mountain the graded meshes of any cell counts fill the same box: no node of one is
// a node of the other but the corners.
TEST(AdaptTransfer, ALinearFieldIsExactBetweenTwoMeshesOfTheDomain) {
  MountainMeshOptions flat = testing::small_mountain_options(6, 6, 4);
  flat.mountain_height = 0;
  const TetMesh coarse = generate_mountain_mesh(flat);
  flat.cells_x = 9;
  flat.cells_y = 7;
  flat.cells_z = 5;
  const TetMesh fine = generate_mountain_mesh(flat);
  expect_linear_reproduced(coarse, fine);
  expect_linear_reproduced(fine, coarse);
}

TEST(AdaptTransfer, ALinearFieldIsExactAcrossARemesh) {
  if (!remeshing_available()) GTEST_SKIP() << "this build has no Mmg (FOEHN_MMG_DIR)";
  const TetMesh mesh = testing::small_mountain(8, 8, 8);
  // Isotropic 2 km edges, finer below 4 km: a mesh with nodes everywhere the old one has none.
  std::vector<Sym3<double>> metric(mesh.node_count());
  for (std::size_t n = 0; n < metric.size(); ++n) {
    const double h = mesh.nodes[n][2] < 4000 ? 1500.0 : 3000.0;
    metric[n] = {1 / (h * h), 1 / (h * h), 1 / (h * h), 0, 0, 0};
  }
  const TetMesh adapted = remesh(mesh, metric);
  expect_linear_reproduced(mesh, adapted);
  expect_linear_reproduced(adapted, mesh);
}

TEST(AdaptTransfer, APointOutsideIsClampedIntoTheNearestTet) {
  const MountainMeshOptions domain = testing::small_mountain_options(4, 4, 3);
  const TetMesh mesh = generate_mountain_mesh(domain);
  const double top = domain.height, east = domain.length_x / 2;
  const std::vector<Point3> points = {{0.3 * east, 100.0, 0.5 * top},
                                      {east + 12.5, 0.25 * east, 0.5 * top},
                                      {0.1 * east, -0.2 * east, top + 40.0}};
  const PointLocations at = locate_points(mesh, points);
  EXPECT_EQ(at.outside, 2u);
  EXPECT_NEAR(at.largest_outside_distance, 40.0, 1e-6);
  for (const auto& w : at.weights) {
    EXPECT_NEAR(w[0] + w[1] + w[2] + w[3], 1.0, 1e-15);
    EXPECT_GE(*std::min_element(w.begin(), w.end()), -1e-10);
  }
  // Inside, the barycentrics give the point back; outside, its projection on the boundary.
  std::vector<double> x(mesh.node_count()), z(mesh.node_count());
  for (std::size_t n = 0; n < mesh.node_count(); ++n) {
    x[n] = mesh.nodes[n][0];
    z[n] = mesh.nodes[n][2];
  }
  const auto x_at = interpolate(mesh, at, x), z_at = interpolate(mesh, at, z);
  EXPECT_NEAR(x_at[0], points[0][0], 1e-9);
  EXPECT_NEAR(x_at[1], east, 1e-9);
  EXPECT_NEAR(z_at[2], top, 1e-9);
}

TEST(AdaptTransfer, TheConservativeOptionRestoresATracersIntegral) {
  const TetMesh coarse = testing::small_mountain(6, 6, 5);
  const TetMesh fine = testing::small_mountain(6, 6, 9);  // the same columns, more layers
  std::vector<double> tracer(fine.node_count());
  for (std::size_t n = 0; n < tracer.size(); ++n) {
    const double r = std::hypot(fine.nodes[n][0] / 8000.0, (fine.nodes[n][2] - 5000.0) / 2000.0);
    tracer[n] = 1e-3 * std::exp(-r * r);
  }
  const double before = integral(fine, tracer);
  std::vector<double> moved = interpolate(fine, locate_points(fine, coarse.nodes), tracer);
  EXPECT_GT(std::fabs(integral(coarse, moved) / before - 1), 1e-3);  // not conserved by itself
  const double factor = conserve_integral(coarse, moved, before);
  EXPECT_GT(factor, 0.0);
  EXPECT_NEAR(integral(coarse, moved), before, 1e-14 * before);
  EXPECT_GE(*std::min_element(moved.begin(), moved.end()), 0.0);
  std::vector<double> zero(coarse.node_count(), 0.0);
  EXPECT_EQ(conserve_integral(coarse, zero, 0.0), 1.0);
}

TEST(AdaptTransfer, BadInputIsNamed) {
  const TetMesh mesh = testing::small_mountain(3, 3, 2);
  const std::vector<Point3> bad = {{0, 0, 1000}, {NAN, 0, 0}};
  testing::expect_error(ErrorCategory::invalid_input, "point 1", [&] { locate_points(mesh, bad); });
  const PointLocations at = locate_points(mesh, std::span(bad).first(1));
  const std::vector<double> short_field(mesh.node_count() - 1, 1.0);
  testing::expect_error(ErrorCategory::invalid_input, "values for",
                        [&] { interpolate(mesh, at, short_field); });
  PointLocations wrong = at;
  wrong.tets[0] = static_cast<std::int32_t>(mesh.tet_count());
  const std::vector<double> field(mesh.node_count(), 1.0);
  testing::expect_error(ErrorCategory::invalid_input, "lies in tet",
                        [&] { interpolate(mesh, wrong, field); });
  std::vector<double> zero(mesh.node_count(), 0.0);
  testing::expect_error(ErrorCategory::invalid_input, "cannot be scaled",
                        [&] { conserve_integral(mesh, zero, 1.0); });
  TetMesh inverted = mesh;
  std::swap(inverted.tets[3][0], inverted.tets[3][1]);
  testing::expect_error(ErrorCategory::invalid_input, "tet 3",
                        [&] { locate_points(inverted, std::span(bad).first(1)); });
}

}  // namespace
}  // namespace foehn::adapt
