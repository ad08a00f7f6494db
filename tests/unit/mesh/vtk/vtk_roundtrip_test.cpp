// write_vtu / read_vtu round trips, the boundary file and the .pvd collection.

#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string>

#include <gtest/gtest.h>
#include <vtkCell.h>
#include <vtkCellData.h>
#include <vtkCellType.h>
#include <vtkDataArray.h>
#include <vtkNew.h>
#include <vtkPointData.h>
#include <vtkUnstructuredGrid.h>
#include <vtkXMLUnstructuredGridReader.h>

#include "foehn/mesh/vtk_io.hpp"
#include "foehn/runtime/error.hpp"
#include "unit/mesh/support/box_mesh.hpp"
#include "support/temp_dir.hpp"

namespace {

using foehn::testing::TempDir;

foehn::TetMesh test_mesh() {
  foehn::TetMesh mesh = foehn::testing::make_box_mesh({3, 2, 2, 3000.0, 2000.0, 1500.0});
  foehn::testing::add_test_fields(mesh);
  return mesh;
}

std::string read_text(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// Everything must come back bit for bit: nodes, connectivity, tags, boundary, fields.
void expect_same_mesh(const foehn::TetMesh& a, const foehn::TetMesh& b) {
  EXPECT_EQ(a.nodes, b.nodes);
  EXPECT_EQ(a.tets, b.tets);
  EXPECT_EQ(a.tet_tags, b.tet_tags);
  EXPECT_EQ(a.boundary_faces, b.boundary_faces);
  EXPECT_EQ(a.boundary_tags, b.boundary_tags);
  ASSERT_EQ(a.node_fields.size(), b.node_fields.size());
  for (std::size_t i = 0; i < a.node_fields.size(); ++i) {
    EXPECT_EQ(a.node_fields[i].name, b.node_fields[i].name);
    EXPECT_EQ(a.node_fields[i].components, b.node_fields[i].components);
    EXPECT_EQ(a.node_fields[i].values, b.node_fields[i].values) << a.node_fields[i].name;
  }
  ASSERT_EQ(a.tet_fields.size(), b.tet_fields.size());
  for (std::size_t i = 0; i < a.tet_fields.size(); ++i) {
    EXPECT_EQ(a.tet_fields[i].name, b.tet_fields[i].name);
    EXPECT_EQ(a.tet_fields[i].components, b.tet_fields[i].components);
    EXPECT_EQ(a.tet_fields[i].values, b.tet_fields[i].values) << a.tet_fields[i].name;
  }
}

TEST(VtuRoundTrip, CompressedBinaryIsExact) {
  TempDir dir;
  const foehn::TetMesh mesh = test_mesh();
  foehn::write_vtu(mesh, dir / "mesh.vtu");
  expect_same_mesh(mesh, foehn::read_vtu(dir / "mesh.vtu"));
  const std::string text = read_text(dir / "mesh.vtu");
  EXPECT_NE(text.find("type=\"UnstructuredGrid\""), std::string::npos);
  EXPECT_NE(text.find("format=\"appended\""), std::string::npos);
  EXPECT_NE(text.find("vtkZLibDataCompressor"), std::string::npos);
  EXPECT_NE(text.find("<AppendedData encoding=\"raw\">"), std::string::npos);
  EXPECT_NE(text.find("Scalars=\"height\""), std::string::npos);
  EXPECT_NE(text.find("Vectors=\"wind\""), std::string::npos);
  EXPECT_NE(text.find("Tensors=\"stress\""), std::string::npos);
  // Only the destination is left: the temporary was renamed, not copied.
  EXPECT_EQ(std::distance(std::filesystem::directory_iterator(dir.path()),
                          std::filesystem::directory_iterator()),
            1);
}

TEST(VtuRoundTrip, UncompressedBinaryIsExact) {
  TempDir dir;
  const foehn::TetMesh mesh = test_mesh();
  foehn::write_vtu(mesh, dir / "mesh.vtu", {foehn::VtuEncoding::binary_appended, false});
  expect_same_mesh(mesh, foehn::read_vtu(dir / "mesh.vtu"));
  EXPECT_EQ(read_text(dir / "mesh.vtu").find("compressor="), std::string::npos);
}

// VTK 9.1 prints doubles in ASCII files with round-trip precision (shortest representation
// that reads back identically), so the ASCII round trip is exact too.
TEST(VtuRoundTrip, AsciiIsExact) {
  TempDir dir;
  const foehn::TetMesh mesh = test_mesh();
  foehn::write_vtu(mesh, dir / "mesh.vtu", {foehn::VtuEncoding::ascii});
  EXPECT_NE(read_text(dir / "mesh.vtu").find("format=\"ascii\""), std::string::npos);
  expect_same_mesh(mesh, foehn::read_vtu(dir / "mesh.vtu"));
}

TEST(VtuRoundTrip, BareMeshWithoutTagsOrFields) {
  TempDir dir;
  foehn::TetMesh mesh = foehn::testing::make_box_mesh({1, 1, 1});
  mesh.boundary_faces.clear();
  mesh.boundary_tags.clear();
  foehn::write_vtu(mesh, dir / "bare.vtu");
  const foehn::TetMesh back = foehn::read_vtu(dir / "bare.vtu");
  expect_same_mesh(mesh, back);
  EXPECT_TRUE(back.tet_tags.empty());
}

TEST(VtuRoundTrip, OverwritesAnExistingFile) {
  TempDir dir;
  { std::ofstream(dir / "mesh.vtu") << "old contents"; }
  const foehn::TetMesh mesh = test_mesh();
  foehn::write_vtu(mesh, dir / "mesh.vtu");
  expect_same_mesh(mesh, foehn::read_vtu(dir / "mesh.vtu"));
}

TEST(BoundaryVtu, HasTaggedTrianglesOfTheBoundaryNodesOnly) {
  TempDir dir;
  const foehn::TetMesh mesh = test_mesh();
  foehn::write_boundary_vtu(mesh, dir / "boundary.vtu");

  vtkNew<vtkXMLUnstructuredGridReader> reader;
  reader->SetFileName((dir / "boundary.vtu").c_str());
  reader->Update();
  ASSERT_EQ(reader->GetErrorCode(), 0u);
  vtkUnstructuredGrid* grid = reader->GetOutput();
  ASSERT_EQ(static_cast<std::size_t>(grid->GetNumberOfCells()), mesh.boundary_face_count());
  // A 3x2x2 box has all nodes on the boundary except the (3-1)(2-1)(2-1) interior ones.
  EXPECT_EQ(grid->GetNumberOfPoints(), static_cast<vtkIdType>(mesh.node_count() - 2));
  vtkDataArray* tags = grid->GetCellData()->GetArray("boundary_tag");
  ASSERT_NE(tags, nullptr);
  for (vtkIdType c = 0; c < grid->GetNumberOfCells(); ++c) {
    EXPECT_EQ(grid->GetCellType(c), VTK_TRIANGLE);
    EXPECT_EQ(tags->GetComponent(c, 0), mesh.boundary_tags[static_cast<std::size_t>(c)]);
    // The triangle's corners are the same points as in the volume mesh.
    for (vtkIdType k = 0; k < 3; ++k) {
      double p[3];
      grid->GetPoint(grid->GetCell(c)->GetPointId(k), p);
      const auto& expected = mesh.nodes[static_cast<std::size_t>(
          mesh.boundary_faces[static_cast<std::size_t>(c)][static_cast<std::size_t>(k)])];
      EXPECT_EQ(p[0], expected[0]);
      EXPECT_EQ(p[1], expected[1]);
      EXPECT_EQ(p[2], expected[2]);
    }
  }
  EXPECT_NE(grid->GetPointData()->GetArray("height"), nullptr);

  // read_vtu accepts tetrahedra only.
  try {
    foehn::read_vtu(dir / "boundary.vtu");
    ADD_FAILURE() << "read_vtu accepted triangles";
  } catch (const foehn::Error& e) {
    EXPECT_EQ(e.category(), foehn::ErrorCategory::invalid_input);
    EXPECT_NE(std::string(e.what()).find("boundary.vtu"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("VTK_TETRA"), std::string::npos) << e.what();
  }
}

TEST(Pvd, ListsTheFilesWithExactTimes) {
  TempDir dir;
  foehn::write_pvd(dir / "run.pvd",
                   {{0.0, "out_0000.vtu"}, {0.1, "out_0001.vtu"}, {1.5e3, "a&b \"c\".vtu"}});
  EXPECT_EQ(read_text(dir / "run.pvd"),
            "<?xml version=\"1.0\"?>\n"
            "<VTKFile type=\"Collection\" version=\"0.1\" byte_order=\"LittleEndian\">\n"
            "  <Collection>\n"
            "    <DataSet timestep=\"0\" group=\"\" part=\"0\" file=\"out_0000.vtu\"/>\n"
            "    <DataSet timestep=\"0.1\" group=\"\" part=\"0\" file=\"out_0001.vtu\"/>\n"
            "    <DataSet timestep=\"1500\" group=\"\" part=\"0\" "
            "file=\"a&amp;b &quot;c&quot;.vtu\"/>\n"
            "  </Collection>\n"
            "</VTKFile>\n");
}

TEST(Pvd, RejectsNonFiniteTimesAndEmptyNames) {
  TempDir dir;
  EXPECT_THROW(foehn::write_pvd(dir / "run.pvd", {{std::nan(""), "a.vtu"}}), foehn::Error);
  EXPECT_THROW(foehn::write_pvd(dir / "run.pvd", {{1.0, ""}}), foehn::Error);
  EXPECT_FALSE(std::filesystem::exists(dir / "run.pvd"));
}

// Timing on a ~555k-tet mesh; run with --gtest_also_run_disabled_tests.
TEST(VtuTiming, DISABLED_LargeMesh) {
  TempDir dir;
  foehn::TetMesh mesh = foehn::testing::make_box_mesh({50, 50, 37, 50e3, 50e3, 20e3});
  foehn::testing::add_test_fields(mesh);
  std::printf("mesh: %zu nodes, %zu tets\n", mesh.node_count(), mesh.tet_count());
  for (const foehn::VtuOptions options :
       {foehn::VtuOptions{}, foehn::VtuOptions{foehn::VtuEncoding::binary_appended, false},
        foehn::VtuOptions{foehn::VtuEncoding::binary_appended, true, 5}}) {
    const auto start = std::chrono::steady_clock::now();
    foehn::write_vtu(mesh, dir / "large.vtu", options);
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    std::printf("write_vtu compress=%d level=%d: %.3f s, %.1f MB\n", options.compress ? 1 : 0,
                options.compression_level, seconds,
                static_cast<double>(std::filesystem::file_size(dir / "large.vtu")) / 1e6);
  }
  const auto start = std::chrono::steady_clock::now();
  const foehn::TetMesh back = foehn::read_vtu(dir / "large.vtu");
  std::printf("read_vtu: %.3f s\n",
              std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  EXPECT_EQ(back.tets, mesh.tets);
}

}  // namespace
