// Failure paths of the VTK I/O: unusable folders, files that are not .vtu, bad meshes.
// Every failure must be a foehn::Error naming the file, leave no file behind and print
// nothing (VTK's own messages are captured).

#include <unistd.h>

#include <fstream>
#include <iterator>
#include <limits>
#include <string>

#include <gtest/gtest.h>
#include <vtkLogger.h>
#include <vtkObject.h>
#include <vtkOutputWindow.h>

#include "foehn/mesh/vtk_io.hpp"
#include "foehn/mesh/vtk_points.hpp"
#include "foehn/runtime/error.hpp"
#include "support/temp_dir.hpp"
#include "unit/mesh/support/box_mesh.hpp"

namespace {

using foehn::ErrorCategory;
using foehn::testing::TempDir;

foehn::TetMesh small_mesh() {
  foehn::TetMesh mesh = foehn::testing::make_box_mesh({2, 1, 1});
  foehn::testing::add_test_fields(mesh);
  return mesh;
}

// Runs `action`, expects a foehn::Error of `category` whose message contains `needle`, and
// that nothing was printed to stdout or stderr on the way.
template <typename Action>
void expect_error(Action action, ErrorCategory category, const std::string& needle) {
  ::testing::internal::CaptureStderr();
  ::testing::internal::CaptureStdout();
  bool thrown = false;
  try {
    action();
  } catch (const foehn::Error& e) {
    thrown = true;
    EXPECT_EQ(e.category(), category) << e.what();
    EXPECT_NE(std::string(e.what()).find(needle), std::string::npos)
        << "message '" << e.what() << "' does not mention '" << needle << "'";
  }
  const std::string err = ::testing::internal::GetCapturedStderr();
  const std::string out = ::testing::internal::GetCapturedStdout();
  EXPECT_TRUE(thrown) << "no foehn::Error thrown";
  EXPECT_EQ(err, "");
  EXPECT_EQ(out, "");
}

void write_file(const std::filesystem::path& path, const std::string& text) {
  std::ofstream(path, std::ios::binary) << text;
}

bool folder_is_empty(const std::filesystem::path& folder) {
  return std::filesystem::is_empty(folder);
}

TEST(VtuErrors, WriteIntoMissingFolderIsAnIoErrorNamingThePath) {
  TempDir dir;
  const auto path = dir / "no_such_folder/mesh.vtu";
  expect_error([&] { foehn::write_vtu(small_mesh(), path); }, ErrorCategory::io, path.string());
  expect_error([&] { foehn::write_boundary_vtu(small_mesh(), path); }, ErrorCategory::io,
               path.string());
  expect_error([&] { foehn::write_pvd(path, {{0.0, "a.vtu"}}); }, ErrorCategory::io, path.string());
  EXPECT_TRUE(folder_is_empty(dir.path()));
}

TEST(VtuErrors, WriteIntoReadOnlyFolderIsAnIoError) {
  TempDir dir;
  std::filesystem::permissions(
      dir.path(), std::filesystem::perms::owner_read | std::filesystem::perms::owner_exec);
  if (::access(dir.path().c_str(), W_OK) == 0) {
    GTEST_SKIP() << "the folder stays writable (running as root?)";
  }
  expect_error([&] { foehn::write_vtu(small_mesh(), dir / "mesh.vtu"); }, ErrorCategory::io,
               (dir / "mesh.vtu").string());
  EXPECT_TRUE(folder_is_empty(dir.path()));
}

TEST(VtuErrors, InconsistentMeshIsInvalidInputAndWritesNothing) {
  TempDir dir;
  const auto path = dir / "mesh.vtu";
  foehn::TetMesh bad_node = small_mesh();
  bad_node.tets[3][2] = static_cast<std::int32_t>(bad_node.node_count());
  expect_error([&] { foehn::write_vtu(bad_node, path); }, ErrorCategory::invalid_input, "tet 3");

  foehn::TetMesh short_field = small_mesh();
  short_field.node_fields[1].values.pop_back();
  expect_error([&] { foehn::write_vtu(short_field, path); }, ErrorCategory::invalid_input, "wind");

  foehn::TetMesh duplicate = small_mesh();
  duplicate.tet_fields.push_back(duplicate.tet_fields[0]);
  expect_error([&] { foehn::write_vtu(duplicate, path); }, ErrorCategory::invalid_input, "volume");

  foehn::TetMesh reserved = small_mesh();
  reserved.tet_fields[0].name = "tet_tag";
  expect_error([&] { foehn::write_vtu(reserved, path); }, ErrorCategory::invalid_input, "tet_tag");

  foehn::TetMesh no_boundary = small_mesh();
  no_boundary.boundary_faces.clear();
  no_boundary.boundary_tags.clear();
  expect_error([&] { foehn::write_boundary_vtu(no_boundary, path); }, ErrorCategory::invalid_input,
               "no boundary faces");
  EXPECT_TRUE(folder_is_empty(dir.path()));
}

TEST(VtuErrors, ReadMissingFileIsAnIoError) {
  TempDir dir;
  const auto path = dir / "missing.vtu";
  expect_error([&] { foehn::read_vtu(path); }, ErrorCategory::io, path.string());
  expect_error([&] { foehn::read_vtu(dir.path()); }, ErrorCategory::io, dir.path().string());
}

TEST(VtuErrors, ReadGmshFileSaysWhatItIs) {
  TempDir dir;
  const auto path = dir / "mesh.msh";
  write_file(path, "$MeshFormat\n4.1 0 8\n$EndMeshFormat\n$Nodes\n0 0 0 0\n$EndNodes\n");
  expect_error([&] { foehn::read_vtu(path); }, ErrorCategory::invalid_input, path.string());
  expect_error([&] { foehn::read_vtu(path); }, ErrorCategory::invalid_input, "Gmsh");
}

TEST(VtuErrors, ReadJunkOrEmptyFileIsInvalidInput) {
  TempDir dir;
  write_file(dir / "junk.vtu", std::string("\x7f"
                                           "ELF\x02\x01\x01\0\0\0junk bytes",
                                           20));
  expect_error([&] { foehn::read_vtu(dir / "junk.vtu"); }, ErrorCategory::invalid_input,
               (dir / "junk.vtu").string());
  write_file(dir / "empty.vtu", "");
  expect_error([&] { foehn::read_vtu(dir / "empty.vtu"); }, ErrorCategory::invalid_input, "empty");
}

// These get past the header check, so they exercise the capture of VTK's own messages.
TEST(VtuErrors, ReadXmlThatIsNotAnUnstructuredGridIsInvalidInput) {
  TempDir dir;
  write_file(dir / "other.vtu", "<?xml version=\"1.0\"?>\n<html><body/></html>\n");
  expect_error([&] { foehn::read_vtu(dir / "other.vtu"); }, ErrorCategory::invalid_input,
               (dir / "other.vtu").string());
  write_file(dir / "poly.vtu",
             "<?xml version=\"1.0\"?>\n<VTKFile type=\"PolyData\" version=\"0.1\">\n"
             "<PolyData><Piece NumberOfPoints=\"0\" NumberOfPolys=\"0\"/></PolyData>\n"
             "</VTKFile>\n");
  expect_error([&] { foehn::read_vtu(dir / "poly.vtu"); }, ErrorCategory::invalid_input,
               (dir / "poly.vtu").string());
}

TEST(VtuErrors, ReadTruncatedFileIsInvalidInput) {
  TempDir dir;
  const auto path = dir / "mesh.vtu";
  foehn::write_vtu(small_mesh(), path);
  std::filesystem::resize_file(path, std::filesystem::file_size(path) / 2);
  expect_error([&] { foehn::read_vtu(path); }, ErrorCategory::invalid_input, path.string());
}

TEST(VtuErrors, ReadFileTruncatedInTheBinaryDataIsInvalidInput) {
  TempDir dir;
  const auto path = dir / "mesh.vtu";
  foehn::write_vtu(small_mesh(), path, {foehn::VtuEncoding::binary_appended, false});
  std::filesystem::resize_file(path, std::filesystem::file_size(path) - 100);
  expect_error([&] { foehn::read_vtu(path); }, ErrorCategory::invalid_input, path.string());
}

// VTK does not always notice a cut in appended data: a file cut in its raw appended block
// once came back with zeros for the missing bytes, and one cut in its closing tags read as
// complete. Every cut, in every encoding, must say "truncated".
TEST(VtuErrors, ReadTruncatedAtManyCutPointsInEveryEncoding) {
  TempDir dir;
  const auto whole = dir / "whole.vtu", path = dir / "cut.vtu";
  const foehn::VtuOptions encodings[] = {{foehn::VtuEncoding::binary_appended, true},
                                         {foehn::VtuEncoding::binary_appended, false},
                                         {foehn::VtuEncoding::ascii, false}};
  for (const foehn::VtuOptions& options : encodings) {
    foehn::write_vtu(small_mesh(), whole, options);
    std::ifstream in(whole, std::ios::binary);
    const std::string bytes{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
    const std::size_t n = bytes.size();
    for (const std::size_t keep : {std::size_t{3}, std::size_t{40}, std::size_t{200}, n / 3, n / 2,
                                   n - 100, n - 20, n - 8, n - 2}) {
      SCOPED_TRACE(std::to_string(keep) + " of " + std::to_string(n) + " bytes, " +
                   (options.encoding == foehn::VtuEncoding::ascii ? "ascii" : "appended"));
      write_file(path, bytes.substr(0, keep));
      expect_error([&] { foehn::read_vtu(path); }, ErrorCategory::invalid_input,
                   "cut.vtu': truncated");
    }
    write_file(path, bytes.substr(0, n - 1));  // only the final newline gone: complete
    EXPECT_EQ(foehn::read_vtu(path).tets, small_mesh().tets);
  }
  // Other writers start with an XML declaration: cut before the root element.
  write_file(path, "<?xml version=\"1.0\"?>\n<VTKFi");
  expect_error([&] { foehn::read_vtu(path); }, ErrorCategory::invalid_input,
               "cut.vtu': no <VTKFile> element in its 28 bytes: truncated before it");
}

TEST(VtuErrors, ReadNonFiniteCoordinateIsInvalidInput) {
  TempDir dir;
  foehn::TetMesh mesh = small_mesh();
  mesh.nodes[4][2] = std::numeric_limits<double>::quiet_NaN();
  foehn::write_vtu(mesh, dir / "nan.vtu");
  expect_error([&] { foehn::read_vtu(dir / "nan.vtu"); }, ErrorCategory::invalid_input,
               "nan.vtu': point 4 has z = nan: coordinates must be finite");
}

// VTK cannot open its output (the temporary name is taken by a folder): the writer's error
// must become an io error, and no destination file may appear.
TEST(VtuErrors, WriterFailureIsAnIoErrorAndLeavesNoFile) {
  TempDir dir;
  const auto path = dir / "mesh.vtu";
  std::filesystem::create_directories(dir / ("mesh.vtu.tmp." + std::to_string(::getpid())) / "x");
  expect_error([&] { foehn::write_vtu(small_mesh(), path); }, ErrorCategory::io, path.string());
  EXPECT_FALSE(std::filesystem::exists(path));
}

// The capture of VTK's messages is scoped: afterwards VTK reports to its usual places again.
TEST(VtuErrors, VtkMessageSettingsAreRestored) {
  TempDir dir;
  write_file(dir / "other.vtu", "<?xml version=\"1.0\"?>\n<html/>\n");
  vtkOutputWindow* window = vtkOutputWindow::GetInstance();
  const vtkLogger::Verbosity cutoff = vtkLogger::GetCurrentVerbosityCutoff();
  const int display = vtkObject::GetGlobalWarningDisplay();
  EXPECT_THROW(foehn::read_vtu(dir / "other.vtu"), foehn::Error);
  EXPECT_EQ(vtkOutputWindow::GetInstance(), window);
  EXPECT_EQ(vtkLogger::GetCurrentVerbosityCutoff(), cutoff);
  EXPECT_EQ(vtkObject::GetGlobalWarningDisplay(), display);
}

TEST(VtuErrors, BadCompressionLevelIsInvalidInput) {
  TempDir dir;
  expect_error(
      [&] {
        foehn::write_vtu(small_mesh(), dir / "mesh.vtu",
                         {foehn::VtuEncoding::binary_appended, true, 12});
      },
      ErrorCategory::invalid_input, "compression level");
}

// Point clouds (.vtp): inconsistent data is refused before anything is written.
TEST(VtpErrors, InconsistentCloudsAreRefused) {
  TempDir dir;
  const auto path = dir.path() / "cloud.vtp";
  foehn::PointCloud cloud;
  cloud.points = {{0, 0, 0}, {1, 0, 0}};
  cloud.fields.push_back({"t", 1, {0.0}});
  expect_error([&] { foehn::write_vtp(cloud, path); }, ErrorCategory::invalid_input,
               "point field 't' has 1 values, expected 2");
  cloud.fields[0].values = {0.0, 1.0};
  cloud.integer_fields.push_back({"t", {1, 2}, false});
  expect_error([&] { foehn::write_vtp(cloud, path); }, ErrorCategory::invalid_input,
               "duplicate point field name 't'");
  cloud.integer_fields[0] = {"status", {0, 256}, true};
  expect_error([&] { foehn::write_vtp(cloud, path); }, ErrorCategory::invalid_input,
               "holds 256 at point 1");
  EXPECT_FALSE(std::filesystem::exists(path));
  cloud.integer_fields[0].values[1] = 1;
  expect_error([&] { foehn::write_vtp(cloud, dir.path() / "missing" / "cloud.vtp"); },
               ErrorCategory::io, "missing");
  foehn::write_vtp(cloud, path);
  EXPECT_TRUE(std::filesystem::exists(path));
}

}  // namespace
