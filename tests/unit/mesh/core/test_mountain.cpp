// The built-in Mountainwave3D mesh against the published case and against geometry.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numbers>
#include <set>
#include <vector>

#include "foehn/mesh/geometry.hpp"
#include "foehn/mesh/mountain.hpp"
#include "foehn/mesh/statistics.hpp"
#include "foehn/mesh/validate.hpp"
#include "foehn/runtime/error.hpp"

namespace foehn {
namespace {

// Published Mountainwave3D mesh (seed paper, section 5): 103,635 nodes and 554,394 tets.
constexpr double paper_mesh_nodes = 103635.0;
constexpr double paper_mesh_tets = 554394.0;

class DefaultMountainMesh : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { mesh_ = new TetMesh(generate_mountain_mesh()); }
  static void TearDownTestSuite() { delete mesh_; }
  static TetMesh* mesh_;
};
TetMesh* DefaultMountainMesh::mesh_ = nullptr;

TEST_F(DefaultMountainMesh, MatchesPublishedSizeWithinTenPercent) {
  EXPECT_NEAR(mesh_->node_count() / paper_mesh_nodes, 1.0, 0.10);
  EXPECT_NEAR(mesh_->tet_count() / paper_mesh_tets, 1.0, 0.10);
}

TEST_F(DefaultMountainMesh, IsValidWithNoInvertedElement) {
  TetMesh copy = *mesh_;
  const MeshCheckResult result = check_mesh(copy);
  EXPECT_TRUE(result.ok()) << result.summary();
  double min_volume = 1e300;
  for (const Tet& tet : mesh_->tets) min_volume = std::min(min_volume, signed_volume(*mesh_, tet));
  EXPECT_GT(min_volume, 0.0);
}

TEST_F(DefaultMountainMesh, TetVolumesEqualVolumeEnclosedByBoundary) {
  const MeshStatistics stats = compute_statistics(*mesh_);
  EXPECT_EQ(stats.untagged_surface_faces, 0u);
  EXPECT_EQ(stats.surface_faces, mesh_->boundary_face_count());
  EXPECT_NEAR(stats.enclosed_volume / stats.total_volume, 1.0, 1e-12);
}

TEST_F(DefaultMountainMesh, VolumeIsBoxMinusBellMountain) {
  // The bell integrates to 2 pi h0 a^2 over the plane; the box cuts off a few per cent of
  // its tail and the piecewise-linear terrain differs slightly, so allow 10% of the mountain.
  const MountainMeshOptions options;
  const double mountain = 2.0 * std::numbers::pi * options.mountain_height *
                          options.mountain_half_width * options.mountain_half_width;
  const double box = options.length_x * options.length_y * options.height;
  const MeshStatistics stats = compute_statistics(*mesh_);
  EXPECT_NEAR(stats.total_volume, box - mountain, 0.10 * mountain);
  EXPECT_LT(stats.total_volume, box);
}

TEST_F(DefaultMountainMesh, TerrainNodesLieOnTheBellSurface) {
  const MountainMeshOptions options;
  std::set<std::int32_t> terrain_nodes;
  for (std::size_t f = 0; f < mesh_->boundary_face_count(); ++f)
    if (mesh_->boundary_tags[f] == boundary_terrain)
      terrain_nodes.insert(mesh_->boundary_faces[f].begin(), mesh_->boundary_faces[f].end());
  ASSERT_EQ(terrain_nodes.size(),
            static_cast<std::size_t>((options.cells_x + 1) * (options.cells_y + 1)));
  double worst = 0.0;
  for (std::int32_t n : terrain_nodes) {
    const Point3& p = mesh_->nodes[n];
    worst = std::max(worst, std::abs(p[2] - mountain_surface_height(options, p[0], p[1])));
  }
  EXPECT_EQ(worst, 0.0);
  // The summit is a node (x = y = 0 is on the grid for even cell counts).
  double top_of_terrain = 0.0;
  for (std::int32_t n : terrain_nodes)
    top_of_terrain = std::max(top_of_terrain, mesh_->nodes[n][2]);
  EXPECT_DOUBLE_EQ(top_of_terrain, options.mountain_height);
}

TEST_F(DefaultMountainMesh, BoundaryTagsCoverTheSidesWithTheRightAreas) {
  const MountainMeshOptions o;
  const MeshStatistics stats = compute_statistics(*mesh_);
  ASSERT_EQ(stats.boundary_area_by_tag.size(), 5u);
  EXPECT_NEAR(stats.boundary_area_by_tag.at(boundary_top) / (o.length_x * o.length_y), 1.0, 1e-12);
  EXPECT_GT(stats.boundary_area_by_tag.at(boundary_terrain), o.length_x * o.length_y);
  // Lateral walls stand on terrain that is ~1 cm high 30 km from the summit.
  EXPECT_NEAR(stats.boundary_area_by_tag.at(boundary_inflow) / (o.length_y * o.height), 1.0, 1e-5);
  EXPECT_NEAR(stats.boundary_area_by_tag.at(boundary_outflow) / (o.length_y * o.height), 1.0, 1e-5);
  EXPECT_NEAR(stats.boundary_area_by_tag.at(boundary_lateral) / (2 * o.length_x * o.height), 1.0,
              1e-5);
}

TEST_F(DefaultMountainMesh, SpacingIsFinestAtTheMountainAndAtTheGround) {
  const MeshStatistics stats = compute_statistics(*mesh_);
  const MountainMeshOptions o;
  const double mean_dx = o.length_x / o.cells_x, mean_dz = o.height / o.cells_z;
  EXPECT_LT(stats.min_edge, 0.5 * std::min(mean_dx, mean_dz));
  EXPECT_GT(stats.max_edge, 2.0 * mean_dx);
}

TEST(MountainMesh, AnySizeCanBeAskedFor) {
  for (std::size_t target : {1000u, 50000u, 20000000u}) {
    const MountainMeshOptions options = mountain_options_for_tets(target);
    const double tets = 6.0 * options.cells_x * options.cells_y * options.cells_z;
    EXPECT_NEAR(tets / static_cast<double>(target), 1.0, 0.15) << target;
  }
  const TetMesh small = generate_mountain_mesh(mountain_options_for_tets(5000));
  TetMesh copy = small;
  EXPECT_TRUE(check_mesh(copy).ok());
}

TEST(MountainMesh, FlatTerrainGivesTheExactBox) {
  MountainMeshOptions options;
  options.mountain_height = 0.0;
  options.cells_x = 6;
  options.cells_y = 5;
  options.cells_z = 4;
  const TetMesh mesh = generate_mountain_mesh(options);
  EXPECT_EQ(mesh.node_count(), 7u * 6u * 5u);
  EXPECT_EQ(mesh.tet_count(), 6u * 6u * 5u * 4u);
  // Each cube face is split into two triangles: 2 * (2*6*5 + 2*6*4 + 2*5*4).
  EXPECT_EQ(mesh.boundary_face_count(), 2u * (2 * 30 + 2 * 24 + 2 * 20));
  const MeshStatistics stats = compute_statistics(mesh);
  EXPECT_NEAR(stats.total_volume / (60000.0 * 60000.0 * 16000.0), 1.0, 1e-14);
}

TEST(MountainMesh, RejectsBadOptionsNamingTheOption) {
  auto expect_invalid = [](MountainMeshOptions options, const std::string& name) {
    try {
      generate_mountain_mesh(options);
      FAIL() << "accepted bad " << name;
    } catch (const Error& error) {
      EXPECT_EQ(error.category(), ErrorCategory::invalid_input);
      EXPECT_NE(std::string(error.what()).find(name), std::string::npos) << error.what();
    }
  };
  MountainMeshOptions o;
  o.cells_x = 0;
  expect_invalid(o, "cells_x");
  o = {};
  o.height = std::nan("");
  expect_invalid(o, "height");
  o = {};
  o.mountain_height = 20000.0;
  expect_invalid(o, "mountain_height");
  o = {};
  o.vertical_grading = 0.0;
  expect_invalid(o, "vertical_grading");
  o = {};
  o.mountain_spacing = -1.0;
  expect_invalid(o, "mountain_spacing");
  o = {};
  o.mountain_core = std::numeric_limits<double>::infinity();
  expect_invalid(o, "mountain_core");
  o = {};
  o.horizontal_growth = 0.9;
  expect_invalid(o, "horizontal_growth");
  o = {};
  o.cells_x = o.cells_y = o.cells_z = 2000;
  expect_invalid(o, "32-bit");
}

// Widths of the cells of one axis, and the largest ratio of neighbouring widths.
struct AxisShape {
  std::vector<double> widths;
  double growth = 1;
  explicit AxisShape(const std::vector<double>& x) {
    for (std::size_t i = 0; i + 1 < x.size(); ++i) widths.push_back(x[i + 1] - x[i]);
    for (std::size_t i = 1; i < widths.size(); ++i)
      growth = std::max({growth, widths[i] / widths[i - 1], widths[i - 1] / widths[i]});
  }
};

TEST(MountainAxis, SymmetricWithExactEndsForEvenAndOddCounts) {
  const MountainMeshOptions o;
  for (int cells : {1, 2, 7, 24, 48, 49, 200}) {
    const std::vector<double> x = mountain_axis_coordinates(cells, 60000.0, o);
    ASSERT_EQ(x.size(), static_cast<std::size_t>(cells) + 1);
    EXPECT_EQ(x.front(), -30000.0);
    EXPECT_EQ(x.back(), 30000.0);
    for (int i = 0; i <= cells; ++i) {
      EXPECT_EQ(x[i], -x[cells - i]) << cells << " cells, node " << i;
      if (i > 0) {
        EXPECT_GT(x[i], x[i - 1]) << cells << " cells, node " << i;
      }
    }
    if (cells % 2 == 0) {
      EXPECT_EQ(x[cells / 2], 0.0);
    }
  }
}

TEST(MountainAxis, CoreSpacingWhereTheCellsAllowItAndNeverMoreGrowth) {
  const MountainMeshOptions o;  // 250 m within 1 km, growth 1.15
  // Enough cells: the core cells are exactly as asked, the growth at most the limit.
  for (int cells : {48, 64, 96}) {
    const AxisShape axis(mountain_axis_coordinates(cells, 60000.0, o));
    const std::size_t middle = axis.widths.size() / 2;
    for (std::size_t j = middle - 4; j < middle + 4; ++j)
      EXPECT_NEAR(axis.widths[j], 250.0, 1e-6) << cells << " cells, cell " << j;
    EXPECT_LE(axis.growth, o.horizontal_growth * (1 + 1e-9)) << cells;
    EXPECT_GT(axis.widths.front(), 4 * 250.0) << cells << ": the outer cells grow";
  }
  // Too few: the core cells widen, still finer than uniform ones, and the growth stays at the
  // limit.
  const AxisShape coarse(mountain_axis_coordinates(24, 60000.0, o));
  EXPECT_GT(coarse.widths[12], 250.0);
  EXPECT_LT(coarse.widths[12], 2500.0);
  EXPECT_NEAR(coarse.growth, o.horizontal_growth, 1e-6);
  // Many: uniform and finer than asked.
  const AxisShape fine(mountain_axis_coordinates(300, 60000.0, o));
  EXPECT_NEAR(fine.widths.front(), 200.0, 1e-9);
  EXPECT_NEAR(fine.growth, 1.0, 1e-12);
  // mountain_spacing 0: uniform at any count.
  MountainMeshOptions uniform;
  uniform.mountain_spacing = 0;
  const AxisShape flat(mountain_axis_coordinates(24, 60000.0, uniform));
  EXPECT_NEAR(flat.widths[3], 2500.0, 1e-9);
  EXPECT_NEAR(flat.growth, 1.0, 1e-12);
}

}  // namespace
}  // namespace foehn
