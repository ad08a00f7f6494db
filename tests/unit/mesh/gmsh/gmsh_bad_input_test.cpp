// read_gmsh on broken input: every case must throw foehn::Error of the right category whose
// message names the file and the line (ASCII) or byte offset (binary) of the problem.

#include <sys/stat.h>

#include <cstring>
#include <random>

#include "gmsh_test_support.hpp"

namespace foehn::gmsh_test {
namespace {

// A valid MSH 2.2 file; the tests break one line of it (line numbers in the comments).
const std::string good_msh22 =
    "$MeshFormat\n"         // 1
    "2.2 0 8\n"             // 2
    "$EndMeshFormat\n"      // 3
    "$Nodes\n"              // 4
    "4\n"                   // 5
    "1 0 0 0\n"             // 6
    "2 1 0 0\n"             // 7
    "3 0 1 0\n"             // 8
    "4 0 0 1\n"             // 9
    "$EndNodes\n"           // 10
    "$Elements\n"           // 11
    "2\n"                   // 12
    "1 2 2 5 1 1 3 2\n"     // 13
    "2 4 2 42 1 1 2 3 4\n"  // 14
    "$EndElements\n";       // 15

std::string replaced(std::string text, const std::string& from, const std::string& to) {
  const auto at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  if (at != std::string::npos) text.replace(at, from.size(), to);
  return text;
}

class GmshBadInput : public ::testing::Test {
 protected:
  // Writes `contents` to a file of the scratch folder and expects read_gmsh to reject it.
  std::string expect_bad(const std::string& contents, std::vector<std::string> fragments) {
    const auto file = dir / "bad.msh";
    write_file(file, contents);
    return expect_bad_file(file, std::move(fragments));
  }
  std::string written(const TetMesh& mesh, GmshFormat format) {
    const auto file = dir / "written.msh";
    write_gmsh(mesh, file, format);
    return read_bytes(file);
  }
  ScratchDir dir;
};

TEST_F(GmshBadInput, BaseFileIsValid) {
  write_file(dir / "good.msh", good_msh22);
  EXPECT_EQ(read_gmsh(dir / "good.msh").tet_count(), 1u);
}

TEST_F(GmshBadInput, MissingFileIsIoError) {
  const auto file = dir / "does_not_exist.msh";
  expect_error([&] { read_gmsh(file); }, ErrorCategory::io, {file.string(), "no such file"});
  expect_error([&] { read_gmsh(dir.path()); }, ErrorCategory::io, {dir.path().string(), "folder"});
  // A FIFO blocked the reader until something wrote into it.
  const auto fifo = dir / "fifo.msh";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  expect_error([&] { read_gmsh(fifo); }, ErrorCategory::io, {fifo.string(), "not a regular file"});
}

TEST_F(GmshBadInput, NotAGmshFile) {
  expect_bad("", {"line 1", "empty"});
  expect_bad(
      "<?xml version=\"1.0\"?>\n<VTKFile type=\"UnstructuredGrid\" version=\"1.0\">\n</VTKFile>\n",
      {"line 1", "not a Gmsh mesh file", "VTK XML"});
  expect_bad(std::string("\x7f"
                         "ELF\x02\x01\x01\0\0\0junk",
                         14),
             {"line 1", "binary data"});
  expect_bad("\n\nhello world\n", {"line 3", "'hello world'"});
  expect_bad("$NOD\n1\n1 0 0 0\n$ENDNOD\n", {"line 1", "MSH 1.0", "2.2 and 4.1"});
}

TEST_F(GmshBadInput, UnsupportedVersions) {
  for (const std::string version : {"1.0", "3.0", "4", "4.0", "2.1"}) {
    expect_bad(replaced(good_msh22, "2.2 0 8", version + " 0 8"),
               {"line 2", "MSH version " + version + " is not supported", "2.2 and 4.1"});
  }
  expect_bad(replaced(good_msh22, "2.2 0 8", "x.y 0 8"), {"line 2", "'x.y'"});
  expect_bad(replaced(good_msh22, "2.2 0 8", "2.2 0 4"), {"line 2", "data size 4"});
  expect_bad(replaced(good_msh22, "2.2 0 8", "2.2 3 8"), {"line 2", "file type"});
}

TEST_F(GmshBadInput, UnsupportedElementTypes) {
  expect_bad(replaced(good_msh22, "2 4 2 42 1 1 2 3 4", "2 11 2 42 1 1 2 3 4 1 2 3 4 1 2"),
             {"line 14", "element type 11", "10-node second-order tetrahedron", "type 4"});
  expect_bad(replaced(good_msh22, "2 4 2 42 1 1 2 3 4", "2 5 2 42 1 1 2 3 4 1 2 3 4"),
             {"line 14", "element type 5", "hexahedron"});
  // MSH 4.1: the type is in the block header (line 72 of the unit cube file).
  const std::string cube = read_bytes(data_dir() / "unit_cube_physical_surfaces.msh");
  expect_bad(replaced(cube, "3 1 4 6\n", "3 1 11 6\n"), {"line 72", "element type 11"});
  // Binary 2.2: the tet block header holds the type.
  std::string bin = written(make_box_mesh({1, 1, 1}), {GmshVersion::msh22, true});
  const std::int32_t tet_block[3] = {4, 6, 2};
  const auto at = bin.find(std::string(reinterpret_cast<const char*>(tet_block), 12));
  ASSERT_NE(at, std::string::npos);
  bin[at] = 5;
  expect_bad(bin, {"byte offset " + std::to_string(at), "element type 5"});
}

TEST_F(GmshBadInput, UndefinedAndDuplicateNodeTags) {
  expect_bad(replaced(good_msh22, "1 1 2 3 4\n", "1 1 2 3 77\n"),
             {"line 14", "element 2 refers to node tag 77", "not define"});
  expect_bad(replaced(good_msh22, "3 0 1 0", "2 0 1 0"), {"line 8", "node tag 2 is defined twice"});
  const std::string cube = read_bytes(data_dir() / "unit_cube_physical_surfaces.msh");
  expect_bad(replaced(cube, "18 1 7 5 8", "18 1 7 5 80"), {"line 78", "node tag 80"});
  expect_bad(replaced(cube, "\n7\n8\n0 0 1", "\n7\n3\n0 0 1"),
             {"line 46", "node tag 3 is defined twice"});
}

TEST_F(GmshBadInput, NonFiniteCoordinates) {
  expect_bad(replaced(good_msh22, "2 1 0 0", "2 nan 0 0"), {"line 7", "'nan'", "finite"});
  expect_bad(replaced(good_msh22, "3 0 1 0", "3 0 1 -inf"), {"line 8", "'-inf'", "finite"});
  expect_bad(replaced(good_msh22, "4 0 0 1", "4 1e999 0 1"), {"line 9", "'1e999'", "finite"});
  // Binary: overwrite the y of node 2 (the nodes start after "$Nodes\n8\n").
  for (const GmshFormat format :
       {GmshFormat{GmshVersion::msh22, true}, GmshFormat{GmshVersion::msh41, true}}) {
    std::string bin = written(make_box_mesh({1, 1, 1}), format);
    const double x1 = 1.0, y0 = 0.0;
    const std::string node2 = std::string(reinterpret_cast<const char*>(&x1), 8) +
                              std::string(reinterpret_cast<const char*>(&y0), 8);
    const auto at = bin.find(node2, bin.find("$Nodes")) + 8;
    const double nan = std::numeric_limits<double>::quiet_NaN();
    std::memcpy(bin.data() + at, &nan, 8);
    expect_bad(bin, {"byte offset " + std::to_string(at), "finite"});
  }
}

TEST_F(GmshBadInput, CorruptNumbersAndCounts) {
  expect_bad(replaced(good_msh22, "3 0 1 0", "3 0 abc 0"), {"line 8", "found 'abc'"});
  expect_bad(replaced(good_msh22, "1 2 2 5", "1 2 2x 5"), {"line 13", "found '2x'"});
  expect_bad(replaced(good_msh22, "$Nodes\n4\n", "$Nodes\n5\n"), {"line 10", "fewer entries"});
  expect_bad(replaced(good_msh22, "$Nodes\n4\n", "$Nodes\n3\n"),
             {"line 9", "expected $EndNodes", "more entries"});
  expect_bad(replaced(good_msh22, "$Elements\n2\n", "$Elements\n3\n"),
             {"line 15", "fewer entries"});
  expect_bad(replaced(good_msh22, "$EndNodes\n", ""),
             {"line 10", "expected $EndNodes", "'$Elements'"});
  expect_bad(replaced(good_msh22, "$EndElements\n", ""),
             {"line 15 (end of file)", "$EndElements", "truncated"});
  const std::string cube = read_bytes(data_dir() / "unit_cube_physical_surfaces.msh");
  expect_bad(replaced(cube, "7 18 1 18", "7 19 1 19"),
             {"line 79", "hold 18 elements but the header announces 19"});
}

TEST_F(GmshBadInput, HugeCountsFailBeforeAllocating) {
  expect_bad(replaced(good_msh22, "$Elements\n2\n", "$Elements\n1000000000000000000\n"),
             {"line 12", "1000000000000000000 elements", "bytes remain"});
  expect_bad(replaced(good_msh22, "$Nodes\n4\n", "$Nodes\n100000000\n"),
             {"line 5", "bytes remain"});
  expect_bad(replaced(good_msh22, "$Nodes\n4\n", "$Nodes\n99999999999999999999999\n"),
             {"line 5", "out of range"});
  expect_bad(replaced(good_msh22, "1 2 2 5", "1 2 999999999 5"), {"line 13", "out of range"});
  const std::string cube = read_bytes(data_dir() / "unit_cube_physical_surfaces.msh");
  expect_bad(replaced(cube, "2 8 1 8", "2 800000000000000 1 8"), {"line 32", "bytes remain"});
  expect_bad(replaced(cube, "0 0 6 1", "0 0 6 100000000000"), {"line 22", "bytes remain"});
  // Binary 4.1: the element count of the $Elements header.
  std::string bin = written(make_box_mesh({1, 1, 1}), {GmshVersion::msh41, true});
  const std::size_t at = bin.find("$Elements\n") + 10 + 8;
  const std::uint64_t huge = std::uint64_t{1} << 60;
  std::memcpy(bin.data() + at, &huge, 8);
  expect_bad(bin, {"byte offset " + std::to_string(at - 8), "bytes remain"});
}

TEST_F(GmshBadInput, BinaryHeaderChecks) {
  std::string bin = written(make_box_mesh({1, 1, 1}), {GmshVersion::msh22, true});
  const std::size_t marker = bin.find("2.2 1 8\n") + 8;
  std::string swapped = bin;
  const std::int32_t other_order = 0x01000000;
  std::memcpy(swapped.data() + marker, &other_order, 4);
  expect_bad(swapped, {"byte offset " + std::to_string(marker), "byte order"});
  std::string junk = bin;
  junk[marker] = 7;
  expect_bad(junk, {"byte offset " + std::to_string(marker), "marker is 7"});
}

TEST_F(GmshBadInput, StructuralProblems) {
  expect_bad(replaced(good_msh22, "1 2 2 5 1 1 3 2\n2 4 2 42 1 1 2 3 4\n",
                      "1 2 2 5 1 1 3 2\n2 2 2 5 1 1 2 4\n"),
             {"line 11", "no linear tetrahedra"});
  expect_bad(good_msh22.substr(0, good_msh22.find("$Elements")), {"end of file", "no $Elements"});
  expect_bad(replaced(good_msh22, "$Nodes\n", "junk\n$Nodes\n"),
             {"line 4", "expected a section", "'junk'"});
  const std::string cube = read_bytes(data_dir() / "unit_cube_physical_surfaces.msh");
  expect_bad(
      replaced(cube, "$Nodes\n", "$PartitionedEntities\n1\n$EndPartitionedEntities\n$Nodes\n"),
      {"line 31", "partitioned"});
  expect_bad(replaced(cube, "$EndComments", "$EndCommentz"), {"end of file", "$EndComments"});
}

// Every prefix of a valid file short of its last "$EndElements" must be rejected with a
// located invalid_input error that says the file is truncated (not, say, "found '$EndEleme'"
// or "version 2. is not supported"); the full file must read.
TEST_F(GmshBadInput, TruncatedAtEveryByte) {
  const TetMesh mesh = make_box_mesh({1, 1, 1});
  for (const GmshFormat format : all_formats()) {
    SCOPED_TRACE(format_name(format));
    const std::string full = written(mesh, format);
    const std::size_t complete = full.rfind("$EndElements") + std::strlen("$EndElements");
    const auto file = dir / "truncated.msh";
    for (std::size_t length = 0; length < complete; ++length) {
      write_file(file, full.substr(0, length));
      try {
        read_gmsh(file);
        ADD_FAILURE() << "prefix of " << length << " bytes was accepted";
      } catch (const Error& e) {
        const std::string message = e.what();
        ASSERT_EQ(e.category(), ErrorCategory::invalid_input) << message;
        ASSERT_NE(message.find(file.string()), std::string::npos) << message;
        const std::string after_name =
            message.substr(message.find(file.string()) + file.string().size());
        if (length > 0) {
          ASSERT_NE(after_name.find(" truncated"), std::string::npos) << length << ": " << message;
        }
        // Binary files are located by byte offset once the header says they are binary.
        const bool is_line = message.find(", line ") != std::string::npos;
        const bool is_offset = message.find(", byte offset ") != std::string::npos;
        if (format.binary && length > full.find("$EndMeshFormat")) {
          ASSERT_TRUE(is_offset) << length << ": " << message;
        } else {
          ASSERT_TRUE(is_line || is_offset) << length << ": " << message;
          ASSERT_TRUE(format.binary || is_line) << length << ": " << message;
        }
      }
    }
    write_file(file, full.substr(0, complete));
    EXPECT_EQ(read_gmsh(file).tets, mesh.tets);
  }
}

// Random byte changes must give either a mesh whose indices are all valid or a foehn::Error
// (invalid_input): never a crash, another exception or an out-of-range index.
TEST_F(GmshBadInput, RandomCorruptionNeverCrashes) {
  const TetMesh mesh = make_box_mesh({1, 1, 2});
  std::mt19937 random(12345);
  const auto file = dir / "corrupt.msh";
  for (const GmshFormat format : all_formats()) {
    SCOPED_TRACE(format_name(format));
    const std::string full = written(mesh, format);
    std::uniform_int_distribution<std::size_t> where(0, full.size() - 1);
    std::uniform_int_distribution<int> byte(0, 255);
    for (int trial = 0; trial < 400; ++trial) {
      std::string bytes = full;
      for (int k = 0; k < 1 + trial % 4; ++k) {
        const std::size_t at = where(random);
        bytes[at] =
            trial % 2 ? static_cast<char>(byte(random)) : "0123456789 -.e$\n"[byte(random) % 16];
      }
      write_file(file, bytes);
      try {
        const TetMesh back = read_gmsh(file);
        ASSERT_EQ(back.tet_tags.size(), back.tets.size());
        ASSERT_EQ(back.boundary_tags.size(), back.boundary_faces.size());
        for (const Tet& t : back.tets)
          for (const std::int32_t v : t)
            ASSERT_TRUE(v >= 0 && static_cast<std::size_t>(v) < back.node_count());
        for (const Triangle& f : back.boundary_faces)
          for (const std::int32_t v : f)
            ASSERT_TRUE(v >= 0 && static_cast<std::size_t>(v) < back.node_count());
      } catch (const Error& e) {
        ASSERT_EQ(e.category(), ErrorCategory::invalid_input) << e.what();
      }
    }
  }
}

}  // namespace
}  // namespace foehn::gmsh_test
