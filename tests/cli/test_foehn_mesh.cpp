// Runs the foehn-mesh executable and checks what a user sees: exit code 0 on success, 2 on
// bad input with a message naming the file and the problem, and no half-written files.

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include "foehn/mesh/mesh_files.hpp"
#include "foehn/mesh/quality.hpp"
#include "foehn/mesh/validate.hpp"
#include "support/run_command.hpp"
#include "support/temp_dir.hpp"

namespace fs = std::filesystem;

namespace {

using foehn::testing::RunResult;

RunResult run_mesh_tool(const std::string& arguments) {
  return foehn::testing::run_command(std::string(FOEHN_MESH_TOOL) + " " + arguments);
}

std::string data(const std::string& name) {
  return std::string(FOEHN_TEST_DATA_DIR) + "/cli/" + name;
}

class MeshTool : public ::testing::Test {
 protected:
  std::string path(const std::string& name) const { return (folder_ / name).string(); }
  std::size_t files_in_folder() const {
    return static_cast<std::size_t>(std::distance(fs::directory_iterator(folder_.path()), {}));
  }
  foehn::testing::TempDir folder_;
};

void expect_bad_input(const RunResult& r, const std::string& must_mention) {
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find(must_mention), std::string::npos)
      << "message should mention '" << must_mention << "':\n"
      << r.output;
}

TEST_F(MeshTool, GeneratesAValidMeshAndPrintsStatistics) {
  const RunResult r = run_mesh_tool("generate -cells_x 8 -cells_y 8 -cells_z 6 -o " +
                                    path("m.vtu") + " -boundary_o " + path("b.vtu"));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("tetrahedra           2304"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("relative difference"), std::string::npos);
  foehn::TetMesh mesh = foehn::read_mesh_file(path("m.vtu"));
  EXPECT_EQ(mesh.tet_count(), 2304u);
  EXPECT_TRUE(fs::exists(path("b.vtu")));
  EXPECT_EQ(files_in_folder(), 2u);  // no temporaries left
}

TEST_F(MeshTool, ConvertsBetweenGmshAndVtk) {
  ASSERT_EQ(run_mesh_tool("generate -cells_x 4 -cells_y 4 -cells_z 3 -numbering shuffled -o " +
                          path("m.msh") + " -msh_version 2.2 -msh_binary")
                .exit_code,
            0);
  const RunResult r = run_mesh_tool("convert -i " + path("m.msh") + " -o " + path("m.vtu"));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  foehn::TetMesh from_msh = foehn::read_mesh_file(path("m.msh"));
  foehn::TetMesh from_vtu = foehn::read_mesh_file(path("m.vtu"));
  EXPECT_EQ(from_msh.nodes, from_vtu.nodes);
  EXPECT_EQ(from_msh.tets, from_vtu.tets);
}

// stdout is one JSON object (dump(2): one "key": value a line), the numbers mesh_quality gives.
TEST_F(MeshTool, PrintsTheQualityAsJson) {
  ASSERT_EQ(
      run_mesh_tool("generate -cells_x 6 -cells_y 5 -cells_z 4 -o " + path("m.vtu")).exit_code, 0);
  const RunResult r = run_mesh_tool("quality -i " + path("m.vtu") + " -shortest_edge 3000");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const foehn::MeshQuality q = foehn::mesh_quality(foehn::read_mesh_file(path("m.vtu")), {3000, 0});
  ASSERT_GT(q.edges_below, 0u);
  EXPECT_EQ(r.output.substr(0, 1), "{") << r.output;
  for (const std::string& line :
       {"\"tets\": " + std::to_string(q.tets), "\"edges\": " + std::to_string(q.edges),
        "\"edges_below\": " + std::to_string(q.edges_below), std::string("\"edges_above\": 0"),
        std::string("\"worst_aspect_ratio\": ")})
    EXPECT_NE(r.output.find(line), std::string::npos) << line << " in\n" << r.output;
  expect_bad_input(run_mesh_tool("quality"), "quality needs an input mesh");
  expect_bad_input(run_mesh_tool("quality -i " + path("m.vtu") + " -longest_edge -1"),
                   "-longest_edge");
}

TEST_F(MeshTool, ChecksAValidMesh) {
  const RunResult r = run_mesh_tool("check -i " + data("two_tets.msh"));
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("mesh is valid"), std::string::npos) << r.output;
}

TEST_F(MeshTool, RejectsAnInvertedTetAndFixesItWhenAsked) {
  expect_bad_input(run_mesh_tool("check -i " + data("inverted_tet.msh")), "inverted");
  const RunResult fixed = run_mesh_tool("convert -fix_orientation -i " + data("inverted_tet.msh") +
                                        " -o " + path("fixed.vtu"));
  ASSERT_EQ(fixed.exit_code, 0) << fixed.output;
  foehn::TetMesh mesh = foehn::read_mesh_file(path("fixed.vtu"));
  EXPECT_TRUE(foehn::check_mesh(mesh).ok());
}

TEST_F(MeshTool, RejectsADegenerateTet) {
  expect_bad_input(run_mesh_tool("check -fix_orientation -i " + data("degenerate_tet.msh")),
                   "degenerate");
}

TEST_F(MeshTool, RejectsADuplicateTet) {
  expect_bad_input(run_mesh_tool("check -i " + data("duplicate_tet.msh")), "duplicate");
}

TEST_F(MeshTool, RejectsNaNCoordinates) {
  const RunResult r = run_mesh_tool("stats -i " + data("nan_coordinate.msh"));
  expect_bad_input(r, "nan_coordinate.msh");
}

TEST_F(MeshTool, RejectsAnElementNamingAnUndefinedNode) {
  const RunResult r = run_mesh_tool("check -i " + data("undefined_node.msh"));
  expect_bad_input(r, "undefined_node.msh");
  EXPECT_NE(r.output.find("99"), std::string::npos) << r.output;
}

TEST_F(MeshTool, RejectsWrongElementTypes) {
  const RunResult r = run_mesh_tool("check -i " + data("hexahedron.msh"));
  expect_bad_input(r, "hexahedron.msh");
}

TEST_F(MeshTool, RejectsATruncatedFile) {
  expect_bad_input(run_mesh_tool("check -i " + data("truncated.msh")), "truncated.msh");
}

TEST_F(MeshTool, RejectsAFileThatIsNotGmsh) {
  expect_bad_input(run_mesh_tool("check -i " + data("not_a_gmsh_file.msh")), "not_a_gmsh_file.msh");
}

TEST_F(MeshTool, RejectsAMissingFileAndAnUnknownFormat) {
  expect_bad_input(run_mesh_tool("check -i " + path("nowhere.msh")), "nowhere.msh");
  expect_bad_input(run_mesh_tool("check -i " + data("two_tets.msh") + ".txt"), ".txt");
}

TEST_F(MeshTool, MakesTheFolderOfAnOutput) {
  const RunResult r =
      run_mesh_tool("generate -cells_x 2 -cells_y 2 -cells_z 2 -o " + path("new/folder/m.vtu"));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_TRUE(fs::exists(path("new/folder/m.vtu")));
}

TEST_F(MeshTool, RejectsAnUnwritableOutputAndLeavesNoFile) {
  const RunResult folder_as_file = run_mesh_tool("generate -cells_x 2 -cells_y 2 -cells_z 2 -o " +
                                                 folder_.path().string() + "/");
  EXPECT_EQ(folder_as_file.exit_code, 2) << folder_as_file.output;
  EXPECT_EQ(files_in_folder(), 0u);
}

TEST_F(MeshTool, RejectsUnknownOptionsBadValuesAndUnknownCommands) {
  expect_bad_input(
      run_mesh_tool("generate -cells_x 2 -cells_y 2 -cells_z 2 -colour red -o " + path("m.vtu")),
      "-colour");
  EXPECT_EQ(files_in_folder(), 0u);  // options are checked before any work
  expect_bad_input(run_mesh_tool("generate -cells_x ten"), "-cells_x 'ten'");
  expect_bad_input(run_mesh_tool("generate -cells_x 0"), "cells_x");
  expect_bad_input(run_mesh_tool("generate -numbering sideways"), "-numbering 'sideways'");
  expect_bad_input(run_mesh_tool("explode"), "unknown command 'explode'");
  expect_bad_input(run_mesh_tool("check"), "-i");
}

// The defects of issue 17, as a tester found them.
TEST_F(MeshTool, AWrappedIntegerIsOutOfRangeNotAFourCellMesh) {
  const RunResult r = run_mesh_tool("generate -cells_x 4294967300 -o " + path("m.vtu"));
  expect_bad_input(r, "-cells_x '4294967300': out of range");
  EXPECT_EQ(files_in_folder(), 0u);
}

TEST_F(MeshTool, WithoutDashOTheDefaultOutputIsWritten) {
  const RunResult r =
      foehn::testing::run_command("cd " + folder_.path().string() + " && " + FOEHN_MESH_TOOL +
                                  " generate -cells_x 2 -cells_y 2 -cells_z 2");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_TRUE(fs::exists(folder_ / "out" / "mountain.vtu")) << r.output;
}

TEST_F(MeshTool, AnOutputWithTheWrongExtensionIsRefused) {
  expect_bad_input(run_mesh_tool("generate -cells_x 2 -cells_y 2 -cells_z 2 -o " + path("m.vtu") +
                                 " -boundary_o " + path("b.msh")),
                   "-boundary_o '" + path("b.msh") + "': expected a file name ending in .vtu");
  expect_bad_input(run_mesh_tool("generate -o " + path("m.txt")), "-o '");
  EXPECT_EQ(files_in_folder(), 0u);
}

TEST_F(MeshTool, AnEmptyValueIsRefusedNotReplacedByTheDefault) {
  expect_bad_input(run_mesh_tool("generate -cells_x '' -o " + path("m.vtu")),
                   "-cells_x: needs a value");
  expect_bad_input(run_mesh_tool("generate -h0 nan -o " + path("m.vtu")), "-h0 'nan'");
}

TEST_F(MeshTool, AnOutputFolderThatIsAFileIsNamed) {
  { std::ofstream(path("taken")) << "x"; }
  expect_bad_input(
      run_mesh_tool("generate -cells_x 2 -cells_y 2 -cells_z 2 -o " + path("taken/m.vtu")),
      "exists and is not a folder");
}

TEST_F(MeshTool, AMissingOptionsFileIsOneLineNamingIt) {
  const RunResult r = run_mesh_tool("generate -options_file " + path("none.opts"));
  expect_bad_input(r, "-options_file '" + path("none.opts") + "': cannot be read");
  EXPECT_EQ(std::count(r.output.begin(), r.output.end(), '\n'), 1) << r.output;
}

// Options files PETSc would have followed into a crash (one that includes itself, two that
// include each other, /dev/zero), a hang (a FIFO) or a multi-line trace (a folder, UTF-16,
// garbage, bare dashes, PETSC_OPTIONS naming a missing file): one line each, exit 2, nothing
// written.
TEST_F(MeshTool, HostileOptionsFilesAreOneLineNamingThem) {
  { std::ofstream(path("self.opts")) << "-cells_x 2\n-options_file " << path("self.opts") << "\n"; }
  { std::ofstream(path("a.opts")) << "-options_file " << path("b.opts") << "\n"; }
  { std::ofstream(path("b.opts")) << "# b\n-options_file " << path("a.opts") << "\n"; }
  { std::ofstream(path("dashes.opts")) << "-cells_x 2\n--\n"; }
  { std::ofstream(path("garbage.opts")) << "cells_x 2\n"; }
  { std::ofstream(path("utf16.opts"), std::ios::binary) << std::string("\xff\xfe-\0c\0", 6); }
  ASSERT_EQ(::mkfifo(path("fifo.opts").c_str(), 0600), 0);
  std::filesystem::create_directory(path("folder.opts"));
  const struct {
    std::string file, expected;
  } cases[] = {{path("self.opts"), "includes itself (self.opts -> self.opts)"},
               {path("a.opts"), "includes itself (a.opts -> b.opts -> a.opts)"},
               {path("dashes.opts"), "line 2: '--' is not an option"},
               {path("garbage.opts"), "line 1: 'cells_x' is not an option"},
               {path("utf16.opts"), "is not text"},
               {path("fifo.opts"), "is a FIFO, not a file"},
               {path("folder.opts"), "is a folder, not a file"},
               {"/dev/zero", "is a character device, not a file"}};
  for (const auto& c : cases) {
    const RunResult r = run_mesh_tool("generate -o " + path("m.vtu") + " -options_file " + c.file);
    expect_bad_input(r, c.expected);
    EXPECT_EQ(std::count(r.output.begin(), r.output.end(), '\n'), 1) << r.output;
  }
  const RunResult r =
      foehn::testing::run_command("PETSC_OPTIONS='-options_file " + path("none.opts") + "' " +
                                  FOEHN_MESH_TOOL + " generate -o " + path("m.vtu"));
  expect_bad_input(r, "PETSC_OPTIONS: -options_file '" + path("none.opts") + "': cannot be read");
  EXPECT_FALSE(std::filesystem::exists(path("m.vtu")));
}

// What PETSc's YAML reader refuses itself (a list where it wants a mapping, a list of lists,
// broken YAML) came as a 17-line PETSc trace and exit 1: it is one line naming the file and
// PETSc's reason, exit 2. Nesting 1e5 deep, which libyaml took minutes over, the options guard
// refuses before PETSc reads it (test_options_guard.cpp has the other YAML refusals).
TEST_F(MeshTool, YamlOptionsFilesPetscRefusesAreOneLineNamingThem) {
  {
    std::ofstream(path("deep.yaml"))
        << "a: " << std::string(100000, '[') << std::string(100000, ']') << "\n";
  }
  {
    std::ofstream bomb(path("bomb.yaml"));
    bomb << "a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n";
    for (int i = 1; i < 12; ++i) {
      bomb << "a" << i << ": &a" << i << " [";
      for (int k = 0; k < 10; ++k) bomb << (k ? ", " : "") << "*a" << i - 1;
      bomb << "]\n";
    }
  }
  { std::ofstream(path("list.yaml")) << "- -cells_x: 2\n"; }
  { std::ofstream(path("broken.yaml")) << "cells_x: [2\n"; }
  const struct {
    std::string file, expected;
  } cases[] = {
      {"deep.yaml", "YAML nested more than 64 levels deep"},
      {"bomb.yaml", "PETSc refused the options: Unsupported YAML node type"},
      {"list.yaml", "PETSc refused the options: Unsupported YAML node type: expected mapping"},
      {"broken.yaml", "is not YAML this check can read: "}};
  for (const auto& c : cases) {
    const RunResult r =
        run_mesh_tool("generate -o " + path("m.vtu") + " -options_file_yaml " + path(c.file));
    expect_bad_input(r, "-options_file_yaml '" + path(c.file) + "': " + c.expected);
    EXPECT_EQ(std::count(r.output.begin(), r.output.end(), '\n'), 1) << r.output;
    EXPECT_FALSE(std::filesystem::exists(path("m.vtu")));
  }
}

TEST_F(MeshTool, AMeshTooLargeForTheMachineNamesTheMemory) {
  // 100^3 cells: 6 M tets, 120 MB of mesh, above a 100 MiB limit (as a batch job might set).
  const RunResult r = foehn::testing::run_command(
      "FOEHN_MAX_MEMORY=100M " + std::string(FOEHN_MESH_TOOL) +
      " generate -cells_x 100 -cells_y 100 -cells_z 100 -o " + path("m.vtu"));
  expect_bad_input(r, "of host memory, more than the 100.0 MiB available");
  EXPECT_NE(r.output.find("100 x 100 x 100 cells"), std::string::npos) << r.output;
  expect_bad_input(foehn::testing::run_command("FOEHN_MAX_MEMORY=lots " +
                                               std::string(FOEHN_MESH_TOOL) + " generate"),
                   "FOEHN_MAX_MEMORY 'lots'");
}

TEST_F(MeshTool, HelpListsTheOptions) {
  for (const char* flag : {"-help", "--help"}) {
    const RunResult r = run_mesh_tool(std::string("generate ") + flag);
    EXPECT_EQ(r.exit_code, 0) << r.output;
    EXPECT_NE(r.output.find("-cells_x"), std::string::npos) << r.output;
    EXPECT_NE(r.output.find("usage: foehn-mesh"), std::string::npos) << r.output;
  }
}

}  // namespace
