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
  EXPECT_EQ(stats.boundary_faces_by_tag.at(7), 4u);
  EXPECT_EQ(stats.untagged_surface_faces, 0u);
  std::ostringstream text;
  print_statistics(text, stats);
  EXPECT_NE(text.str().find("tetrahedra           1"), std::string::npos) << text.str();
}

}  // namespace
}  // namespace foehn
