// write_gmsh -> read_gmsh round trips in all four formats, writer errors, and the read speed
// on a mesh of the size Foehn runs on (~550k tets).

#include <chrono>
#include <iostream>
#include <limits>

#include "gmsh_test_support.hpp"

namespace foehn::gmsh_test {
namespace {

class GmshRoundTrip : public ::testing::TestWithParam<GmshFormat> {
 protected:
  ScratchDir dir;
};

TEST_P(GmshRoundTrip, PreservesNodesTetsAndTags) {
  // Irrational-looking coordinates: the text form must still read back bit for bit.
  const TetMesh mesh = make_box_mesh({3, 3, 3}, {1.0 / 3.0, std::sqrt(2.0), 3e-7});
  const auto file = dir / "box.msh";
  write_gmsh(mesh, file, GetParam());
  const TetMesh back = read_gmsh(file);
  EXPECT_EQ(back.nodes, mesh.nodes);
  EXPECT_EQ(back.tets, mesh.tets);
  EXPECT_EQ(back.tet_tags, mesh.tet_tags);
  EXPECT_EQ(back.boundary_faces, mesh.boundary_faces);
  EXPECT_EQ(back.boundary_tags, mesh.boundary_tags);
  // Nothing but the destination is left in the folder (the temporary was renamed).
  EXPECT_EQ(std::distance(std::filesystem::directory_iterator(dir.path()), {}), 1);
}

TEST_P(GmshRoundTrip, MissingTagsBecomeZero) {
  TetMesh mesh = make_box_mesh({2, 1, 1});
  mesh.tet_tags.clear();
  mesh.boundary_tags.clear();
  const auto file = dir / "untagged.msh";
  write_gmsh(mesh, file, GetParam());
  const TetMesh back = read_gmsh(file);
  EXPECT_EQ(back.tets, mesh.tets);
  EXPECT_EQ(back.tet_tags, std::vector<std::int32_t>(mesh.tet_count(), 0));
  EXPECT_EQ(back.boundary_faces, mesh.boundary_faces);
  EXPECT_EQ(back.boundary_tags, std::vector<std::int32_t>(mesh.boundary_face_count(), 0));
}

TEST_P(GmshRoundTrip, OverwritesExistingFile) {
  const auto file = dir / "mesh.msh";
  write_file(file, "old contents");
  const TetMesh mesh = make_box_mesh({1, 1, 1});
  write_gmsh(mesh, file, GetParam());
  EXPECT_EQ(read_gmsh(file).tets, mesh.tets);
}

INSTANTIATE_TEST_SUITE_P(Formats, GmshRoundTrip, ::testing::ValuesIn(all_formats()),
                         [](const auto& info) { return format_name(info.param); });

TEST(GmshWrite, RejectsMeshesItCannotWriteFaithfully) {
  ScratchDir dir;
  const auto file = dir / "bad.msh";
  const auto expect_rejected = [&](const TetMesh& mesh, const std::string& fragment) {
    expect_error([&] { write_gmsh(mesh, file); }, ErrorCategory::invalid_input, {file.string(), fragment});
    EXPECT_FALSE(std::filesystem::exists(file));
  };
  const TetMesh good = make_box_mesh({1, 1, 1});
  expect_rejected(TetMesh{}, "no tetrahedra");
  TetMesh m = good;
  m.tets[2][1] = 8;
  expect_rejected(m, "tet 2 refers to node 8");
  m = good;
  m.boundary_faces[0][0] = -1;
  expect_rejected(m, "boundary face 0 refers to node -1");
  m = good;
  m.nodes[3][2] = std::numeric_limits<double>::quiet_NaN();
  expect_rejected(m, "node 3 has a non-finite coordinate");
  m = good;
  m.tet_tags.pop_back();
  expect_rejected(m, "5 tet tags for 6 tets");
  m = good;
  m.boundary_tags[1] = -4;
  expect_rejected(m, "tag -4");
}

TEST(GmshWrite, MissingFolderIsAnIoError) {
  ScratchDir dir;
  const auto file = dir / "no_such_folder" / "mesh.msh";
  expect_error([&] { write_gmsh(make_box_mesh({1, 1, 1}), file); }, ErrorCategory::io, {"no_such_folder"});
}

// 6 * 45^3 = 546750 tets. The whole read, not just parsing, is timed.
TEST(GmshPerformance, ReadsHalfMillionTetsQuickly) {
  ScratchDir dir;
  const TetMesh mesh = make_box_mesh({45, 45, 45});
  ASSERT_EQ(mesh.tet_count(), 546750u);
  for (const GmshFormat format : all_formats()) {
    const auto file = dir / (format_name(format) + ".msh");
    const auto t0 = std::chrono::steady_clock::now();
    write_gmsh(mesh, file, format);
    const auto t1 = std::chrono::steady_clock::now();
    const TetMesh back = read_gmsh(file);
    const auto t2 = std::chrono::steady_clock::now();
    const double write_s = std::chrono::duration<double>(t1 - t0).count();
    const double read_s = std::chrono::duration<double>(t2 - t1).count();
    std::cout << format_name(format) << ": " << std::filesystem::file_size(file) / 1e6
              << " MB, write " << write_s << " s, read " << read_s << " s\n";
    RecordProperty(format_name(format) + "_read_s", std::to_string(read_s));
    EXPECT_EQ(back.tets, mesh.tets);
    EXPECT_EQ(back.boundary_tags, mesh.boundary_tags);
    // Generous for a loaded CI machine; typical times are a small fraction of this.
    EXPECT_LT(read_s, 5.0) << format_name(format);
    std::filesystem::remove(file);
  }
}

}  // namespace
}  // namespace foehn::gmsh_test
