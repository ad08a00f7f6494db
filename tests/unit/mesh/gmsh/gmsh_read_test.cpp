// read_gmsh on hand-written files and on meshes made by the real gmsh program; the gmsh
// program also re-saves files write_gmsh produced, to show they are valid Gmsh files.

#include <cmath>
#include <iostream>
#include <map>

#include "gmsh_test_support.hpp"

namespace foehn::gmsh_test {
namespace {

TEST(GmshRead, SingleTetMsh22WithSparseNodeTags) {
  const TetMesh mesh = read_gmsh(data_dir() / "single_tet_sparse_tags.msh");
  // File order is kept; tags 10 20 35 7 99 become 0..4 (99 is unused but kept).
  ASSERT_EQ(mesh.node_count(), 5u);
  EXPECT_EQ(mesh.nodes[0], (Point3{0, 0, 0}));
  EXPECT_EQ(mesh.nodes[3], (Point3{0, 0, 1}));
  EXPECT_EQ(mesh.nodes[4], (Point3{5, 5, 5}));
  ASSERT_EQ(mesh.tet_count(), 1u);
  EXPECT_EQ(mesh.tets[0], (Tet{0, 1, 2, 3}));
  EXPECT_EQ(mesh.tet_tags, std::vector<std::int32_t>{42});
  EXPECT_DOUBLE_EQ(signed_volume(mesh, mesh.tets[0]), 1.0 / 6.0);
  // The point and the line are skipped, the triangle kept with its physical tag.
  ASSERT_EQ(mesh.boundary_face_count(), 1u);
  EXPECT_EQ(mesh.boundary_faces[0], (Triangle{0, 2, 1}));
  EXPECT_EQ(mesh.boundary_tags, std::vector<std::int32_t>{5});
}

TEST(GmshRead, UnitCubeMsh41PhysicalSurfaces) {
  const TetMesh mesh = read_gmsh(data_dir() / "unit_cube_physical_surfaces.msh");
  ASSERT_EQ(mesh.node_count(), 8u);
  ASSERT_EQ(mesh.tet_count(), 6u);
  EXPECT_EQ(mesh.tet_tags, std::vector<std::int32_t>(6, 10));
  double volume = 0;
  for (const Tet& t : mesh.tets) {
    EXPECT_GT(signed_volume(mesh, t), 0.0);
    volume += signed_volume(mesh, t);
  }
  EXPECT_NEAR(volume, 1.0, 1e-15);
  ASSERT_EQ(mesh.boundary_face_count(), 12u);
  const auto area = area_by_tag(mesh);
  ASSERT_EQ(area.size(), 6u);
  for (std::int32_t tag = 1; tag <= 6; ++tag) EXPECT_NEAR(area.at(tag), 1.0, 1e-15) << tag;
  // Each triangle lies on the side its tag names (tag 2k+1: coordinate k is 0, 2k+2: 1).
  double enclosed = 0;
  for (std::size_t i = 0; i < mesh.boundary_faces.size(); ++i) {
    const int axis = (mesh.boundary_tags[i] - 1) / 2;
    const double value = (mesh.boundary_tags[i] - 1) % 2;
    for (const std::int32_t v : mesh.boundary_faces[i]) EXPECT_EQ(mesh.nodes[v][axis], value);
    const Triangle& f = mesh.boundary_faces[i];
    enclosed += enclosed_volume_term(mesh.nodes[f[0]], mesh.nodes[f[1]], mesh.nodes[f[2]]);
  }
  EXPECT_NEAR(enclosed, 1.0, 1e-15);  // outward orientation survives
}

TEST(GmshRead, AcceptsWindowsLineEndings) {
  ScratchDir dir;
  for (const char* name : {"single_tet_sparse_tags.msh", "unit_cube_physical_surfaces.msh"}) {
    std::string text;
    for (const char c : read_bytes(data_dir() / name)) {
      if (c == '\n') text += '\r';
      text += c;
    }
    write_file(dir / name, text);
    const TetMesh crlf = read_gmsh(dir / name);
    const TetMesh lf = read_gmsh(data_dir() / name);
    EXPECT_EQ(crlf.nodes, lf.nodes) << name;
    EXPECT_EQ(crlf.tets, lf.tets) << name;
    EXPECT_EQ(crlf.boundary_tags, lf.boundary_tags) << name;
  }
}

class GmshProgram : public ::testing::Test {
 protected:
  void SetUp() override {
    if (gmsh_program().empty()) GTEST_SKIP() << "gmsh program not found at configure time";
  }
  ScratchDir dir;
};

// gmsh meshes the 1x2x3 box in each format; every file must give the same mesh, with the
// right volume and the right area on each physical surface.
TEST_F(GmshProgram, BoxMeshedByGmshInAllFormats) {
  const std::map<std::int32_t, double> face_area{{101, 6}, {102, 6}, {103, 3}, {104, 3}, {105, 2}, {106, 2}};
  std::size_t first_tets = 0, first_nodes = 0;
  for (const GmshFormat format : all_formats()) {
    SCOPED_TRACE(format_name(format));
    const auto file = dir / (format_name(format) + ".msh");
    const std::string args = shell_quoted(data_dir() / "box_1x2x3.geo") + " -3 -format " +
                             (format.version == GmshVersion::msh22 ? "msh22" : "msh41") +
                             (format.binary ? " -bin" : "") + " -o " + shell_quoted(file);
    ASSERT_EQ(run_gmsh(args, dir / "gmsh.log"), 0) << read_bytes(dir / "gmsh.log");
    const TetMesh mesh = read_gmsh(file);
    ASSERT_GT(mesh.tet_count(), 100u);
    if (first_tets == 0) {
      first_tets = mesh.tet_count();
      first_nodes = mesh.node_count();
    }
    EXPECT_EQ(mesh.tet_count(), first_tets);
    EXPECT_EQ(mesh.node_count(), first_nodes);
    EXPECT_EQ(mesh.tet_tags, std::vector<std::int32_t>(mesh.tet_count(), 7));

    double volume = 0;
    std::size_t negative = 0;
    for (const Tet& t : mesh.tets) {
      const double v = signed_volume(mesh, t);
      negative += v < 0;
      volume += std::abs(v);
    }
    // The reader keeps Gmsh's node order, so orientation is Gmsh's: report, don't judge.
    RecordProperty(format_name(format) + "_negative_tets", static_cast<int>(negative));
    std::cout << format_name(format) << ": " << mesh.tet_count() << " tets, " << negative
              << " negatively oriented\n";
    EXPECT_NEAR(volume, 6.0, 6.0 * 1e-12);

    const auto area = area_by_tag(mesh);
    ASSERT_EQ(area.size(), face_area.size());
    for (const auto& [tag, expected] : face_area) EXPECT_NEAR(area.at(tag), expected, expected * 1e-12) << tag;
  }
}

// A volume in two physical groups: MSH 2.2 repeats each tet per group, 4.1 tags the entity
// twice. Either way each tet is read once, with the first group's tag.
TEST_F(GmshProgram, ElementsInTwoPhysicalGroupsAreReadOnce) {
  std::vector<TetMesh> meshes;
  for (const GmshFormat format : all_formats()) {
    SCOPED_TRACE(format_name(format));
    const auto file = dir / (format_name(format) + ".msh");
    const std::string args = shell_quoted(data_dir() / "cube_in_two_physical_volumes.geo") + " -3 -format " +
                             (format.version == GmshVersion::msh22 ? "msh22" : "msh41") +
                             (format.binary ? " -bin" : "") + " -o " + shell_quoted(file);
    ASSERT_EQ(run_gmsh(args, dir / "gmsh.log"), 0) << read_bytes(dir / "gmsh.log");
    if (format.version == GmshVersion::msh22 && !format.binary) {
      // The repeats are really there (physical tag 8 after 7), so the test is not vacuous.
      EXPECT_NE(read_bytes(file).find(" 4 2 8 "), std::string::npos);
    }
    meshes.push_back(read_gmsh(file));
    const TetMesh& mesh = meshes.back();
    EXPECT_EQ(mesh.tet_tags, std::vector<std::int32_t>(mesh.tet_count(), 7));
    double volume = 0;
    for (const Tet& t : mesh.tets) volume += std::abs(signed_volume(mesh, t));
    EXPECT_NEAR(volume, 1.0, 1e-12);
    const auto area = area_by_tag(mesh);
    ASSERT_EQ(area.size(), 1u);
    EXPECT_NEAR(area.at(11), 1.0, 1e-12);
  }
  for (const TetMesh& mesh : meshes) EXPECT_EQ(mesh.tets, meshes.front().tets);
}

// Files written by write_gmsh, re-saved by gmsh (in both versions) and read back, keep
// counts, volume, per-tag areas and per-tag tet counts.
TEST_F(GmshProgram, GmshReadsFilesFoehnWrote) {
  const TetMesh mesh = make_box_mesh({3, 3, 3}, {1, 2, 3});
  std::map<std::int32_t, int> tets_per_tag;
  for (const std::int32_t tag : mesh.tet_tags) ++tets_per_tag[tag];
  const auto areas = area_by_tag(mesh);
  for (const GmshFormat format : all_formats()) {
    for (const char* resave : {"msh22", "msh41"}) {
      SCOPED_TRACE(format_name(format) + " re-saved as " + resave);
      const auto written = dir / (format_name(format) + ".msh");
      const auto resaved = dir / (format_name(format) + "_" + resave + ".msh");
      write_gmsh(mesh, written, format);
      ASSERT_EQ(run_gmsh(shell_quoted(written) + " -save -format " + resave + " -o " + shell_quoted(resaved), dir / "gmsh.log"), 0)
          << read_bytes(dir / "gmsh.log");
      const TetMesh back = read_gmsh(resaved);
      ASSERT_EQ(back.node_count(), mesh.node_count());
      ASSERT_EQ(back.tet_count(), mesh.tet_count());
      ASSERT_EQ(back.boundary_face_count(), mesh.boundary_face_count());
      double volume = 0;
      for (const Tet& t : back.tets) volume += signed_volume(back, t);
      EXPECT_NEAR(volume, 6.0, 6.0 * 1e-12);
      std::map<std::int32_t, int> back_per_tag;
      for (const std::int32_t tag : back.tet_tags) ++back_per_tag[tag];
      EXPECT_EQ(back_per_tag, tets_per_tag);
      const auto back_areas = area_by_tag(back);
      ASSERT_EQ(back_areas.size(), areas.size());
      for (const auto& [tag, a] : areas) EXPECT_NEAR(back_areas.at(tag), a, a * 1e-12) << tag;
    }
  }
}

}  // namespace
}  // namespace foehn::gmsh_test
