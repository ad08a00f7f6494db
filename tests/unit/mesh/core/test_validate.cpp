// Mesh validation: one test per defect, each on a tiny hand-made mesh whose answer is known.

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <optional>

#include "foehn/mesh/topology.hpp"
#include "foehn/mesh/validate.hpp"
#include "foehn/runtime/error.hpp"

namespace foehn {
namespace {

// Two positively oriented tets sharing the face (1, 2, 3), with its six outward surface
// triangles as boundary faces.
TetMesh two_tets() {
  TetMesh mesh;
  mesh.nodes = {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {0, 0, 1}, {1, 1, 1}};
  mesh.tets = {{0, 1, 2, 3}, {1, 2, 3, 4}};
  for (const SurfaceFace& face : build_face_topology(mesh).surface) {
    mesh.boundary_faces.push_back(face.nodes);
    mesh.boundary_tags.push_back(1);
  }
  return mesh;
}

// Returns a copy: the result passed in is often a temporary.
std::optional<MeshFinding> find(const MeshCheckResult& result, MeshProblem problem) {
  for (const MeshFinding& f : result.findings)
    if (f.problem == problem) return f;
  return std::nullopt;
}

TEST(ValidateMesh, AcceptsAValidMesh) {
  TetMesh mesh = two_tets();
  const MeshCheckResult result = check_mesh(mesh);
  EXPECT_TRUE(result.ok()) << result.summary();
  EXPECT_EQ(mesh.boundary_face_count(), 6u);
  EXPECT_NO_THROW(validate_mesh(mesh, "two tets"));
}

TEST(ValidateMesh, ReportsOutOfRangeIndexWithFirstItemAndCount) {
  TetMesh mesh = two_tets();
  mesh.tets[1][3] = 7;
  mesh.boundary_faces[2][0] = -1;
  const MeshCheckResult result = check_mesh(mesh);
  const std::optional<MeshFinding> f = find(result, MeshProblem::node_index_out_of_range);
  ASSERT_TRUE(f.has_value());
  EXPECT_EQ(f->count, 2u);
  EXPECT_EQ(f->first, 1u);
  EXPECT_NE(f->first_detail.find("tet 1"), std::string::npos);
  try {
    validate_mesh(mesh, "broken.msh");
    FAIL();
  } catch (const Error& error) {
    EXPECT_EQ(error.category(), ErrorCategory::invalid_input);
    EXPECT_NE(std::string(error.what()).find("broken.msh"), std::string::npos);
    EXPECT_NE(std::string(error.what()).find("2 x node index out of range"), std::string::npos)
        << error.what();
  }
}

TEST(ValidateMesh, ReportsNonFiniteCoordinates) {
  TetMesh mesh = two_tets();
  mesh.nodes[3][2] = std::numeric_limits<double>::quiet_NaN();
  mesh.nodes[4][0] = std::numeric_limits<double>::infinity();
  const std::optional<MeshFinding> f = find(check_mesh(mesh), MeshProblem::non_finite_coordinate);
  ASSERT_TRUE(f.has_value());
  EXPECT_EQ(f->count, 2u);
  EXPECT_EQ(f->first, 3u);
}

TEST(ValidateMesh, ReportsInvertedTetsAndFixesThemWhenAsked) {
  TetMesh mesh = two_tets();
  std::swap(mesh.tets[1][0], mesh.tets[1][1]);
  const std::optional<MeshFinding> f = find(check_mesh(mesh), MeshProblem::inverted_element);
  ASSERT_TRUE(f.has_value());
  EXPECT_EQ(f->count, 1u);
  EXPECT_EQ(f->first, 1u);

  MeshCheckOptions fix;
  fix.fix_orientation = true;
  const MeshCheckResult fixed = check_mesh(mesh, fix);
  EXPECT_TRUE(fixed.ok()) << fixed.summary();
  EXPECT_EQ(fixed.flipped_tets, 1u);
  EXPECT_TRUE(check_mesh(mesh).ok());
}

TEST(ValidateMesh, RejectsDegenerateTetsEvenWhenFixing) {
  TetMesh mesh = two_tets();
  mesh.nodes[4] = {0.5, 0.25, 0.25};  // in the plane x + y + z = 1 of face (1, 2, 3)
  MeshCheckOptions fix;
  fix.fix_orientation = true;
  const std::optional<MeshFinding> f = find(check_mesh(mesh, fix), MeshProblem::degenerate_element);
  ASSERT_TRUE(f.has_value());
  EXPECT_EQ(f->first, 1u);
}

TEST(ValidateMesh, ReportsDuplicateTets) {
  TetMesh mesh = two_tets();
  mesh.tets.push_back({3, 0, 2, 1});  // same node set as tet 0
  const std::optional<MeshFinding> f = find(check_mesh(mesh), MeshProblem::duplicate_element);
  ASSERT_TRUE(f.has_value());
  EXPECT_EQ(f->count, 1u);
}

TEST(ValidateMesh, ReportsUnusedNodesUnlessAllowed) {
  TetMesh mesh = two_tets();
  mesh.nodes.push_back({5, 5, 5});
  const std::optional<MeshFinding> f = find(check_mesh(mesh), MeshProblem::unused_node);
  ASSERT_TRUE(f.has_value());
  EXPECT_EQ(f->first, 5u);
  MeshCheckOptions allow;
  allow.allow_unused_nodes = true;
  EXPECT_TRUE(check_mesh(mesh, allow).ok());
}

TEST(ValidateMesh, ReportsAFaceSharedByThreeTets) {
  TetMesh mesh = two_tets();
  mesh.nodes.push_back({1, 1, 2});
  mesh.tets.push_back({1, 2, 3, 5});  // a second tet on the far side of face (1, 2, 3)
  const std::optional<MeshFinding> f = find(check_mesh(mesh), MeshProblem::non_manifold_face);
  ASSERT_TRUE(f.has_value());
  EXPECT_EQ(f->count, 1u);
}

TEST(ValidateMesh, ReportsANonManifoldBoundaryEdge) {
  // Two tets touching along one edge only: the edge is used by four surface triangles.
  TetMesh mesh;
  mesh.nodes = {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {0, 0, 1}, {-1, 0, 0}, {0, -1, 0}};
  mesh.tets = {{0, 1, 2, 3}, {0, 4, 5, 3}};
  const std::optional<MeshFinding> f = find(check_mesh(mesh), MeshProblem::non_manifold_boundary);
  ASSERT_TRUE(f.has_value());
  EXPECT_NE(f->first_detail.find("(0, 3)"), std::string::npos) << f->first_detail;
}

TEST(ValidateMesh, ReportsBoundaryTrianglesThatAreNotOnTheSurface) {
  TetMesh mesh = two_tets();
  mesh.boundary_faces.push_back({1, 2, 3});  // the interior face
  mesh.boundary_tags.push_back(9);
  const std::optional<MeshFinding> f = find(check_mesh(mesh), MeshProblem::boundary_face_not_on_surface);
  ASSERT_TRUE(f.has_value());
  EXPECT_EQ(f->first, 6u);
}

TEST(ValidateMesh, ReportsInwardBoundaryTrianglesAndFixesThem) {
  TetMesh mesh = two_tets();
  std::swap(mesh.boundary_faces[4][0], mesh.boundary_faces[4][1]);
  const std::optional<MeshFinding> f = find(check_mesh(mesh), MeshProblem::inward_boundary_face);
  ASSERT_TRUE(f.has_value());
  EXPECT_EQ(f->first, 4u);
  MeshCheckOptions fix;
  fix.fix_orientation = true;
  EXPECT_EQ(check_mesh(mesh, fix).flipped_boundary_faces, 1u);
  EXPECT_TRUE(check_mesh(mesh).ok());
}

TEST(ValidateMesh, ReportsInconsistentTagAndFieldSizes) {
  TetMesh mesh = two_tets();
  mesh.tet_tags = {1};
  mesh.node_fields.push_back({"temperature", 1, {1.0, 2.0}});
  const std::optional<MeshFinding> f = find(check_mesh(mesh), MeshProblem::inconsistent_sizes);
  ASSERT_TRUE(f.has_value());
  EXPECT_EQ(f->count, 2u);
}

TEST(ValidateMesh, ReportsARepeatedNodeInsideATet) {
  TetMesh mesh = two_tets();
  mesh.tets[0] = {0, 1, 1, 3};
  const std::optional<MeshFinding> f = find(check_mesh(mesh), MeshProblem::repeated_node_in_element);
  ASSERT_TRUE(f.has_value());
  EXPECT_EQ(f->first, 0u);
}

}  // namespace
}  // namespace foehn
