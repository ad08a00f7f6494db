// write_pvtu at 1, 2 and 4 ranks, read back on rank 0 with VTK's own parallel reader.

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <vtkCellData.h>
#include <vtkDataArray.h>
#include <vtkIdList.h>
#include <vtkNew.h>
#include <vtkPointData.h>
#include <vtkUnstructuredGrid.h>
#include <vtkXMLPUnstructuredGridReader.h>

#include "foehn/petsc/distributed_mesh.hpp"
#include "foehn/petsc/pvtu.hpp"
#include "mpi/support/mpi_test_support.hpp"

namespace foehn::petsc {
namespace {

using foehn::testing::gather_all;
using foehn::testing::SharedTempDir;
using foehn::testing::world;
using foehn::testing::world_rank;
using foehn::testing::world_size;

double wind_of(std::int64_t input_node, int component) {
  return 0.5 * static_cast<double>(input_node) - component;
}

// Files in `folder` (names only), to check nothing temporary is left behind.
std::vector<std::string> files_in(const std::filesystem::path& folder) {
  std::vector<std::string> names;
  for (const auto& entry : std::filesystem::directory_iterator(folder))
    names.push_back(entry.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

class PvtuTest : public ::testing::Test {
 protected:
  void SetUp() override {
    input_ = foehn::testing::make_small_mountain();
    mesh_ = distribute_mesh(world(), world_rank() == 0 ? &input_ : nullptr);
  }
  // Extra fields: "u" (3 components) at the local nodes, "input_tet" at the local tets.
  std::vector<MeshField> node_fields() const {
    MeshField u{"u", 3, {}};
    for (std::int64_t n : mesh_.input_node_of_local)
      for (int c = 0; c < 3; ++c) u.values.push_back(wind_of(n, c));
    return {u};
  }
  std::vector<MeshField> tet_fields() const {
    MeshField tet{"input_tet", 1, {}};
    for (std::int64_t t : mesh_.input_tet_of_local) tet.values.push_back(static_cast<double>(t));
    return {tet};
  }

  TetMesh input_;
  DistributedMesh mesh_;
};

TEST_F(PvtuTest, WrittenPiecesReadBackAsTheInputMesh) {
  SharedTempDir folder;
  const auto path = folder / "wave.pvtu";
  write_pvtu(mesh_, path, node_fields(), tet_fields());
  const std::vector<std::int32_t> tets_per_rank = gather_all<std::int32_t>(mesh_.local_tets());
  if (world_rank() != 0) return;

  std::vector<std::string> expected{"wave.pvtu"};
  for (int r = 0; r < world_size(); ++r) expected.push_back(pvtu_piece_path(path, r).filename());
  std::sort(expected.begin(), expected.end());
  EXPECT_EQ(files_in(folder.path()), expected);

  vtkNew<vtkXMLPUnstructuredGridReader> reader;
  reader->SetFileName(path.c_str());
  reader->Update();
  EXPECT_EQ(reader->GetNumberOfPieces(), world_size());
  vtkUnstructuredGrid* grid = reader->GetOutput();
  ASSERT_EQ(grid->GetNumberOfCells(), static_cast<vtkIdType>(input_.tet_count()));
  vtkDataArray* rank = grid->GetCellData()->GetArray("rank");
  vtkDataArray* input_tet = grid->GetCellData()->GetArray("input_tet");
  vtkDataArray* tet_tag = grid->GetCellData()->GetArray("tet_tag");
  vtkDataArray* volume = grid->GetCellData()->GetArray("volume");
  vtkDataArray* u = grid->GetPointData()->GetArray("u");
  vtkDataArray* height = grid->GetPointData()->GetArray("height");
  ASSERT_TRUE(rank && input_tet && tet_tag && volume && u && height);
  EXPECT_EQ(u->GetNumberOfComponents(), 3);

  std::vector<std::int32_t> cells_of_rank(static_cast<std::size_t>(world_size()), 0);
  std::vector<std::int32_t> seen(input_.tet_count(), 0);
  const MeshField& input_height = input_.node_fields[0];
  const MeshField& input_volume = input_.tet_fields[0];
  ASSERT_EQ(input_height.name, "height");
  ASSERT_EQ(input_volume.name, "volume");
  vtkNew<vtkIdList> points;
  for (vtkIdType cell = 0; cell < grid->GetNumberOfCells(); ++cell) {
    ++cells_of_rank[static_cast<std::size_t>(rank->GetTuple1(cell))];
    const auto t = static_cast<std::size_t>(input_tet->GetTuple1(cell));
    ASSERT_LT(t, input_.tet_count());
    ++seen[t];
    EXPECT_EQ(tet_tag->GetTuple1(cell), input_.tet_tags[t]);
    EXPECT_EQ(volume->GetTuple1(cell), input_volume.values[t]);
    grid->GetCellPoints(cell, points);
    ASSERT_EQ(points->GetNumberOfIds(), 4);
    for (vtkIdType k = 0; k < 4; ++k) {
      const vtkIdType p = points->GetId(k);
      const auto n = static_cast<std::size_t>(input_.tets[t][static_cast<std::size_t>(k)]);
      double xyz[3];
      grid->GetPoint(p, xyz);
      for (int c = 0; c < 3; ++c) EXPECT_EQ(xyz[c], input_.nodes[n][static_cast<std::size_t>(c)]);
      for (int c = 0; c < 3; ++c)
        EXPECT_EQ(u->GetComponent(p, c), wind_of(static_cast<std::int64_t>(n), c));
      EXPECT_EQ(height->GetTuple1(p), input_height.values[n]);
    }
  }
  EXPECT_EQ(std::count(seen.begin(), seen.end(), 1),
            static_cast<std::ptrdiff_t>(input_.tet_count()));
  EXPECT_EQ(cells_of_rank, tets_per_rank);
}

// ParaView colours by the active scalars: the caller's first field, not the mesh's "height".
TEST_F(PvtuTest, CallersFirstScalarIsTheActiveOne) {
  SharedTempDir folder;
  const auto path = folder / "active.pvtu";
  MeshField p{"p", 1, std::vector<double>(static_cast<std::size_t>(mesh_.local_nodes()), 1.0)};
  std::vector<MeshField> fields = node_fields();
  fields.push_back(p);
  write_pvtu(mesh_, path, fields, tet_fields());
  if (world_rank() != 0) return;
  vtkNew<vtkXMLPUnstructuredGridReader> reader;
  reader->SetFileName(path.c_str());
  reader->Update();
  vtkUnstructuredGrid* grid = reader->GetOutput();
  ASSERT_NE(grid->GetPointData()->GetScalars(), nullptr);
  EXPECT_STREQ(grid->GetPointData()->GetScalars()->GetName(), "p");
  ASSERT_NE(grid->GetPointData()->GetVectors(), nullptr);
  EXPECT_STREQ(grid->GetPointData()->GetVectors()->GetName(), "u");
  ASSERT_NE(grid->GetCellData()->GetScalars(), nullptr);
  EXPECT_STREQ(grid->GetCellData()->GetScalars()->GetName(), "input_tet");
}

TEST_F(PvtuTest, WritingAgainReplacesTheFiles) {
  SharedTempDir folder;
  const auto path = folder / "again.pvtu";
  write_pvtu(mesh_, path);
  write_pvtu(mesh_, path, node_fields(), tet_fields());
  if (world_rank() != 0) return;
  EXPECT_EQ(files_in(folder.path()).size(), static_cast<std::size_t>(world_size()) + 1);
  vtkNew<vtkXMLPUnstructuredGridReader> reader;
  reader->SetFileName(path.c_str());
  reader->Update();
  EXPECT_NE(reader->GetOutput()->GetPointData()->GetArray("u"), nullptr);
}

void expect_error_everywhere(const foehn::testing::ThrownError& error, ErrorCategory category,
                             const std::string& text) {
  EXPECT_TRUE(error.thrown) << "rank " << world_rank() << " did not throw";
  EXPECT_EQ(error.category, category) << error.message;
  EXPECT_NE(error.message.find(text), std::string::npos) << error.message;
}

TEST_F(PvtuTest, BadPathThrowsEverywhere) {
  SharedTempDir folder;
  expect_error_everywhere(foehn::testing::error_of([&] { write_pvtu(mesh_, folder / "wave.vtu"); }),
                          ErrorCategory::invalid_input, "is not a .pvtu file name");
  expect_error_everywhere(
      foehn::testing::error_of([&] { write_pvtu(mesh_, folder / "missing" / "wave.pvtu"); }),
      ErrorCategory::io, "does not exist");
}

// A field of the wrong size on the last rank only: every rank throws, and no .pvtu names the
// pieces that were written; no temporary file is left.
TEST_F(PvtuTest, BadFieldOnOneRankThrowsEverywhereAndWritesNoSummary) {
  SharedTempDir folder;
  std::vector<MeshField> fields = node_fields();
  if (world_rank() == world_size() - 1) fields[0].values.pop_back();
  expect_error_everywhere(
      foehn::testing::error_of([&] { write_pvtu(mesh_, folder / "bad.pvtu", fields); }),
      ErrorCategory::invalid_input, "'u' has");
  MPI_Barrier(world());
  if (world_rank() == 0) {
    for (const std::string& name : files_in(folder.path())) {
      EXPECT_NE(name, "bad.pvtu");
      EXPECT_EQ(name.find(".tmp"), std::string::npos) << name;
    }
  }
}

TEST_F(PvtuTest, ReservedOrMismatchedFieldsThrowEverywhere) {
  SharedTempDir folder;
  const std::vector<MeshField> rank_field{
      {"rank", 1, std::vector<double>(mesh_.local.tet_count(), 0.0)}};
  expect_error_everywhere(
      foehn::testing::error_of([&] { write_pvtu(mesh_, folder / "r.pvtu", {}, rank_field); }),
      ErrorCategory::invalid_input, "'rank'");
  if (world_size() == 1) return;
  // Rank 1 names its field differently from everyone else.
  std::vector<MeshField> fields = node_fields();
  if (world_rank() == 1) fields[0].name = "v";
  expect_error_everywhere(
      foehn::testing::error_of([&] { write_pvtu(mesh_, folder / "m.pvtu", fields); }),
      ErrorCategory::invalid_input, "differ from rank 0's");
}

TEST(PvtuPiecePath, FollowsVtkNaming) {
  EXPECT_EQ(pvtu_piece_path("out/wave_0007.pvtu", 3), std::filesystem::path("out/wave_0007_3.vtu"));
  EXPECT_EQ(pvtu_piece_path("m.pvtu", 0), std::filesystem::path("m_0.vtu"));
}

}  // namespace
}  // namespace foehn::petsc
