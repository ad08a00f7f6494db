// mesh_from_arrays: the caller's arrays, 0- or 1-based, 32- or 64-bit, give the same TetMesh;
// orientation is checked or fixed; every kind of bad input is refused with a message naming the
// array and the item in the caller's numbering.

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <initializer_list>
#include <limits>
#include <string>
#include <vector>

#include "foehn/mesh/from_arrays.hpp"
#include "foehn/mesh/geometry.hpp"
#include "foehn/runtime/error.hpp"
#include "unit/mesh/support/box_mesh.hpp"

namespace foehn {
namespace {

// The caller's side: flat arrays as a C or Fortran core holds them.
struct CallerArrays {
  std::vector<double> xyz;
  std::vector<std::int64_t> tets;  // converted to int32 where a test needs it
  std::vector<std::int64_t> faces;
  std::vector<std::int32_t> face_tags;
  std::vector<std::int32_t> tet_tags;
  int base = 0;
};

CallerArrays arrays_of(const TetMesh& mesh, int base) {
  CallerArrays a;
  a.base = base;
  for (const Point3& p : mesh.nodes) a.xyz.insert(a.xyz.end(), p.begin(), p.end());
  for (const Tet& t : mesh.tets)
    for (std::int32_t n : t) a.tets.push_back(n + base);
  for (const Triangle& f : mesh.boundary_faces)
    for (std::int32_t n : f) a.faces.push_back(n + base);
  a.face_tags = mesh.boundary_tags;
  a.tet_tags = mesh.tet_tags;
  return a;
}

std::vector<std::int32_t> narrow(const std::vector<std::int64_t>& values) {
  return std::vector<std::int32_t>(values.begin(), values.end());
}

// A view of `a` with 64-bit connectivity.
MeshArrays view_of(const CallerArrays& a) {
  MeshArrays m;
  m.coordinates = a.xyz.data();
  m.node_count = static_cast<std::int64_t>(a.xyz.size() / 3);
  m.tets = a.tets;
  m.boundary_faces = a.faces;
  m.boundary_tags = a.face_tags;
  m.tet_tags = a.tet_tags;
  m.index_base = a.base;
  return m;
}

TetMesh small_box() {
  TetMesh mesh = testing::make_box_mesh({2, 2, 1, 2.0, 2.0, 1.0});
  testing::add_test_fields(mesh);  // tet tags
  mesh.node_fields.clear();
  mesh.tet_fields.clear();
  return mesh;
}

void expect_same_mesh(const TetMesh& got, const TetMesh& expected) {
  EXPECT_EQ(got.nodes, expected.nodes);
  EXPECT_EQ(got.tets, expected.tets);
  EXPECT_EQ(got.boundary_faces, expected.boundary_faces);
  EXPECT_EQ(got.boundary_tags, expected.boundary_tags);
  EXPECT_EQ(got.tet_tags, expected.tet_tags);
}

// The message of the invalid_input error `arrays` raise; fails the test for anything else.
std::string error_of(const MeshArrays& arrays) {
  try {
    mesh_from_arrays(arrays);
  } catch (const Error& error) {
    EXPECT_EQ(error.category(), ErrorCategory::invalid_input);
    const std::string message = error.what();
    EXPECT_EQ(message.rfind("mesh_from_arrays: ", 0), 0u) << message;
    EXPECT_EQ(message.find('\n'), std::string::npos) << "one line: " << message;
    return message;
  }
  ADD_FAILURE() << "no error";
  return {};
}

#define EXPECT_MESSAGE(arrays, ...)                                          \
  do {                                                                       \
    const std::string foehn_message_ = error_of(arrays);                     \
    for (const char* part : std::initializer_list<const char*>{__VA_ARGS__}) \
      EXPECT_NE(foehn_message_.find(part), std::string::npos)                \
          << "'" << part << "' missing in: " << foehn_message_;              \
  } while (0)

TEST(MeshFromArrays, ZeroBasedInt32AndOneBasedInt64GiveTheSameMesh) {
  const TetMesh box = small_box();
  const CallerArrays zero = arrays_of(box, 0);
  const std::vector<std::int32_t> tets32 = narrow(zero.tets), faces32 = narrow(zero.faces);
  MeshArrays c_style = view_of(zero);
  c_style.tets = tets32;
  c_style.boundary_faces = faces32;
  MeshImportReport report;
  expect_same_mesh(mesh_from_arrays(c_style, &report), box);
  EXPECT_EQ(report.flipped_tets, 0u);
  EXPECT_EQ(report.flipped_boundary_faces, 0u);

  const CallerArrays one = arrays_of(box, 1);
  expect_same_mesh(mesh_from_arrays(view_of(one)), box);
  MeshArrays mixed = view_of(one);  // 1-based int32 too
  const std::vector<std::int32_t> one32 = narrow(one.tets), one_faces32 = narrow(one.faces);
  mixed.tets = one32;
  mixed.boundary_faces = one_faces32;
  expect_same_mesh(mesh_from_arrays(mixed), box);
}

TEST(MeshFromArrays, OptionalArraysMayBeLeftOut) {
  const TetMesh box = small_box();
  CallerArrays a = arrays_of(box, 1);
  a.faces.clear();
  a.face_tags.clear();
  a.tet_tags.clear();
  const TetMesh mesh = mesh_from_arrays(view_of(a));
  EXPECT_EQ(mesh.tets, box.tets);
  EXPECT_TRUE(mesh.boundary_faces.empty());
  EXPECT_TRUE(mesh.tet_tags.empty());

  // Triangles without tags get tag 0.
  CallerArrays untagged = arrays_of(box, 0);
  untagged.face_tags.clear();
  const TetMesh tagged_zero = mesh_from_arrays(view_of(untagged));
  EXPECT_EQ(tagged_zero.boundary_tags, std::vector<std::int32_t>(box.boundary_face_count(), 0));
}

TEST(MeshFromArrays, InvertedTetsAreAnErrorOrFlipped) {
  const TetMesh box = small_box();
  CallerArrays a = arrays_of(box, 1);
  for (std::size_t t : {3u, 7u, 8u}) std::swap(a.tets[4 * t], a.tets[4 * t + 1]);
  // Fortran numbering: the first inverted tet is tet 4, its nodes as the caller wrote them.
  const std::string nodes = "(nodes " + std::to_string(a.tets[12]) + ", " +
                            std::to_string(a.tets[13]) + ", " + std::to_string(a.tets[14]) + ", " +
                            std::to_string(a.tets[15]) + ")";
  EXPECT_MESSAGE(view_of(a), "tets: 3 tet(s) are inverted", "the first is tet 4 ", nodes.c_str(),
                 "OrientationPolicy::fix");

  MeshArrays fix = view_of(a);
  fix.orientation = OrientationPolicy::fix;
  MeshImportReport report;
  const TetMesh fixed = mesh_from_arrays(fix, &report);
  EXPECT_EQ(report.flipped_tets, 3u);
  EXPECT_EQ(report.flipped_boundary_faces, 0u);
  double volume = 0;
  for (const Tet& tet : fixed.tets) {
    EXPECT_GT(signed_volume(fixed, tet), 0.0);
    volume += signed_volume(fixed, tet);
  }
  EXPECT_NEAR(volume, 4.0, 1e-12);
}

TEST(MeshFromArrays, InwardBoundaryTrianglesAreAnErrorOrFlipped) {
  const TetMesh box = small_box();
  CallerArrays a = arrays_of(box, 0);
  std::swap(a.faces[3 * 2 + 1], a.faces[3 * 2 + 2]);
  EXPECT_MESSAGE(view_of(a), "the mesh is not valid", "boundary triangle oriented inward");
  MeshArrays fix = view_of(a);
  fix.orientation = OrientationPolicy::fix;
  MeshImportReport report;
  const TetMesh fixed = mesh_from_arrays(fix, &report);
  EXPECT_EQ(report.flipped_boundary_faces, 1u);
  EXPECT_EQ(fixed.boundary_faces, box.boundary_faces);
}

TEST(MeshFromArrays, RefusesIndicesOutOfRangeNamingArrayAndItem) {
  const CallerArrays good = arrays_of(small_box(), 1);
  const std::int64_t nodes = static_cast<std::int64_t>(good.xyz.size() / 3);
  {
    CallerArrays a = good;
    a.tets[4 * 5 + 2] = nodes + 5;  // tet 6, corner 3 in Fortran numbering
    EXPECT_MESSAGE(view_of(a), "tets: tet 6 corner 3 is ", "outside the nodes 1..");
  }
  {
    CallerArrays a = good;
    a.faces[3 * 1] = -4;
    EXPECT_MESSAGE(view_of(a), "boundary_faces: triangle 2 corner 1 is -4");
  }
  {  // 64-bit values beyond 32 bits, up and down
    CallerArrays a = good;
    a.tets[4 * 2 + 3] = std::int64_t{1} << 33;
    EXPECT_MESSAGE(view_of(a), "tets: tet 3 corner 4 is 8589934592",
                   "does not fit a 32-bit node index");
    a = good;
    a.tets[0] = std::numeric_limits<std::int64_t>::min();
    EXPECT_MESSAGE(view_of(a), "tets: tet 1 corner 1", "does not fit a 32-bit node index");
  }
}

TEST(MeshFromArrays, RefusesTheWrongIndexBaseWithAHint) {
  const TetMesh box = small_box();
  CallerArrays zero = arrays_of(box, 0);  // a 0-based array called 1-based
  MeshArrays declared_one = view_of(zero);
  declared_one.index_base = 1;
  EXPECT_MESSAGE(declared_one, "below index_base 1", "set index_base = 0");

  CallerArrays one = arrays_of(box, 1);  // a 1-based array called 0-based
  MeshArrays declared_zero = view_of(one);
  declared_zero.index_base = 0;
  EXPECT_MESSAGE(declared_zero, "beyond the last node", "set index_base = 1");

  MeshArrays odd = view_of(one);
  odd.index_base = 2;
  EXPECT_MESSAGE(odd, "index_base is 2");
}

TEST(MeshFromArrays, RefusesNonFiniteCoordinates) {
  CallerArrays a = arrays_of(small_box(), 1);
  a.xyz[3 * 4 + 1] = std::nan("");
  EXPECT_MESSAGE(view_of(a), "coordinates: node 5 is at (", "nan", "not finite");
  a = arrays_of(small_box(), 0);
  a.xyz[3 * 2 + 2] = -std::numeric_limits<double>::infinity();
  EXPECT_MESSAGE(view_of(a), "coordinates: node 2 is at (", "-inf");
}

TEST(MeshFromArrays, RefusesBadCounts) {
  const CallerArrays good = arrays_of(small_box(), 0);
  MeshArrays m = view_of(good);
  m.node_count = 0;
  EXPECT_MESSAGE(m, "node_count is 0");
  m.node_count = -3;
  EXPECT_MESSAGE(m, "node_count is -3");
  m = view_of(good);
  m.node_count = std::int64_t{1} << 40;
  EXPECT_MESSAGE(m, "node_count is 1099511627776", "32-bit");
  m = view_of(good);
  m.coordinates = nullptr;
  EXPECT_MESSAGE(m, "coordinates is a null pointer");
  m = view_of(good);
  m.tets = IndexArray{};
  EXPECT_MESSAGE(m, "tets is empty");
  m = view_of(good);
  m.tets = std::span<const std::int64_t>(good.tets.data(), good.tets.size() - 1);
  EXPECT_MESSAGE(m, "tets has ", "not a multiple of 4");
  m = view_of(good);
  m.boundary_faces = std::span<const std::int64_t>(good.faces.data(), good.faces.size() - 2);
  m.boundary_tags = {};
  EXPECT_MESSAGE(m, "boundary_faces has ", "not a multiple of 3");
  m = view_of(good);
  m.tets = std::span<const std::int32_t>(static_cast<const std::int32_t*>(nullptr), 8);
  EXPECT_MESSAGE(m, "tets is a null pointer");
}

TEST(MeshFromArrays, RefusesTagArraysOfTheWrongLength) {
  CallerArrays a = arrays_of(small_box(), 0);
  a.face_tags.pop_back();
  EXPECT_MESSAGE(view_of(a), "boundary_tags has ", "tags for ");
  a = arrays_of(small_box(), 0);
  a.tet_tags.push_back(3);
  EXPECT_MESSAGE(view_of(a), "tet_tags has ", "tags for ");
  a = arrays_of(small_box(), 0);
  a.faces.clear();  // tags without triangles
  EXPECT_MESSAGE(view_of(a), "boundary_tags has ", "for 0 boundary triangles");
}

TEST(MeshFromArrays, ValidatesTheMesh) {
  CallerArrays a = arrays_of(small_box(), 0);
  a.tets[4 * 3 + 1] = a.tets[4 * 3];  // a repeated node
  EXPECT_MESSAGE(view_of(a), "the mesh is not valid", "repeated node");

  CallerArrays one = arrays_of(small_box(), 1);
  one.tets[2] = one.tets[0];
  EXPECT_MESSAGE(view_of(one), "the mesh is not valid", "count items from 0");
}

TEST(MeshFromArrays, UnusedNodesOnlyWhenAllowed) {
  CallerArrays a = arrays_of(small_box(), 1);
  a.xyz.insert(a.xyz.end(), {9.0, 9.0, 9.0});  // a geometry point no tet uses
  EXPECT_MESSAGE(view_of(a), "node used by no tetrahedron");
  MeshArrays allowed = view_of(a);
  allowed.allow_unused_nodes = true;
  const TetMesh mesh = mesh_from_arrays(allowed);
  EXPECT_EQ(mesh.node_count(), small_box().node_count() + 1);
}

TEST(MeshFromArrays, NonManifoldSurfaceOnlyWhenAllowed) {
  // Two tets touching along one edge only: as a rank's piece of a larger mesh this is normal.
  CallerArrays a;
  a.xyz = {0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1, -1, 0, 0, 0, -1, 0};
  a.tets = {0, 1, 2, 3, 0, 4, 3, 5};
  MeshArrays m = view_of(a);
  m.orientation = OrientationPolicy::fix;
  EXPECT_MESSAGE(m, "non-manifold boundary edge");
  m.allow_non_manifold_surface = true;
  EXPECT_EQ(mesh_from_arrays(m).tet_count(), 2u);
}

}  // namespace
}  // namespace foehn
