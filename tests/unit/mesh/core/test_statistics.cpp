// Mesh statistics against hand-computed values.

#include <gtest/gtest.h>

#include <cmath>
#include <sstream>

#include "foehn/mesh/statistics.hpp"
#include "foehn/mesh/topology.hpp"

namespace foehn {
namespace {

TEST(MeshStatistics, RegularTetHasQualityOneAndKnownVolume) {
  TetMesh mesh;
  const double s = 2.0;  // a regular tet from alternate corners of an s-cube
  mesh.nodes = {{0, 0, 0}, {s, s, 0}, {s, 0, s}, {0, s, s}};
  mesh.tets = {{0, 1, 2, 3}};
  for (const SurfaceFace& face : build_face_topology(mesh).surface) {
    mesh.boundary_faces.push_back(face.nodes);
    mesh.boundary_tags.push_back(7);
  }
  const MeshStatistics stats = compute_statistics(mesh);
  EXPECT_NEAR(std::abs(stats.total_volume), s * s * s / 3.0, 1e-14);
  EXPECT_NEAR(stats.enclosed_volume, stats.total_volume, 1e-14);
  EXPECT_NEAR(stats.min_quality, 1.0, 1e-14);
  EXPECT_NEAR(stats.min_edge, s * std::sqrt(2.0), 1e-14);
  const double regular_dihedral = std::acos(1.0 / 3.0) * 180.0 / M_PI;  // 70.5288 degrees
  EXPECT_NEAR(stats.min_dihedral_degrees, regular_dihedral, 1e-12);
  EXPECT_NEAR(stats.max_dihedral_degrees, regular_dihedral, 1e-12);
  EXPECT_EQ(stats.boundary_faces_by_tag.at(7), 4u);
  EXPECT_EQ(stats.untagged_surface_faces, 0u);
  std::ostringstream text;
  print_statistics(text, stats);
  EXPECT_NE(text.str().find("tetrahedra           1"), std::string::npos) << text.str();
}

// The corner tet of the unit cube (0, e_x, e_y, e_z): right angles at the three edges through
// the origin, 54.74 degrees (acos(1/sqrt 3)) at the three of the slanted face; whatever the
// corner order (orientation).
TEST(MeshStatistics, DihedralAnglesOfTheCornerTet) {
  const Point3 o{0, 0, 0}, x{1, 0, 0}, y{0, 1, 0}, z{0, 0, 1};
  const double slanted = std::acos(1.0 / std::sqrt(3.0)) * 180.0 / M_PI;
  for (const std::array<Point3, 4>& corners :
       {std::array<Point3, 4>{o, x, y, z}, std::array<Point3, 4>{o, y, x, z}}) {
    const std::array<double, 2> range = dihedral_angle_range(corners);
    EXPECT_NEAR(range[0], slanted, 1e-12);
    EXPECT_NEAR(range[1], 90.0, 1e-12);
  }
  // A sliver: four nearly coplanar corners of a square.
  const std::array<double, 2> sliver =
      dihedral_angle_range({Point3{0, 0, 0}, Point3{1, 0, 0}, Point3{1, 1, 1e-3}, Point3{0, 1, 0}});
  EXPECT_LT(sliver[0], 1.0);
  EXPECT_GT(sliver[1], 179.0);
}

}  // namespace
}  // namespace foehn
