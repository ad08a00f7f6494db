// OutputSeries and the timing table's reduction on 1, 2 and 4 ranks.
#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "foehn/mesh/vtk_io.hpp"
#include "foehn/petsc/pvtu.hpp"
#include "io/output_series.hpp"
#include "io/timing_reduce.hpp"
#include "validation/io/io_test_support.hpp"

namespace foehn::mountainwave {
namespace {

using foehn::testing::distribute_on;
using foehn::testing::error_of;
using foehn::testing::SharedTempDir;
using foehn::testing::test_state;
using foehn::testing::world;
using foehn::testing::world_rank;
using foehn::testing::world_size;

std::string text_of(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::stringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

const MeshField& field_named(const TetMesh& mesh, const std::string& name) {
  for (const MeshField& f : mesh.node_fields)
    if (f.name == name) return f;
  throw std::runtime_error("no node field " + name);
}

class OutputSeriesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    whole_ = foehn::testing::io_test_mountain();
    mesh_ = distribute_on(world(), whole_);
  }
  TetMesh whole_;
  petsc::DistributedMesh mesh_;
};

TEST_F(OutputSeriesTest, SnapshotsAndCollection) {
  SharedTempDir folder;
  OutputSeries series(mesh_, folder / "out", "wave");  // creates the folder
  ModelState state = test_state(mesh_);
  for (int snapshot = 0; snapshot < 3; ++snapshot) {
    state.time = 60.0 * snapshot + 0.5;
    const auto path = series.write(state);
    EXPECT_EQ(path, folder / "out" / ("wave_000" + std::to_string(snapshot) + ".pvtu"));
  }
  EXPECT_EQ(series.next_index(), 3);
  MPI_Barrier(world());

  // Each rank's piece of the last snapshot holds its local values.
  const TetMesh piece =
      read_vtu(petsc::pvtu_piece_path(folder / "out" / "wave_0002.pvtu", world_rank()));
  EXPECT_EQ(field_named(piece, "u").values, state.velocity);
  EXPECT_EQ(field_named(piece, "u").components, 3);
  EXPECT_EQ(field_named(piece, "theta").values, state.theta);
  EXPECT_EQ(field_named(piece, "qr").values, state.tracers[2]);
  EXPECT_EQ(field_named(piece, "p").values, state.pressure);

  if (world_rank() == 0) {
    ASSERT_EQ(series.entries().size(), 3u);
    EXPECT_EQ(series.entries()[1], (std::pair<double, std::string>{60.5, "wave_0001.pvtu"}));
    const std::string pvd = text_of(folder / "out" / "wave.pvd");
    for (const char* expected : {"timestep=\"0.5\"", "file=\"wave_0000.pvtu\"",
                                 "timestep=\"120.5\"", "file=\"wave_0002.pvtu\""})
      EXPECT_NE(pvd.find(expected), std::string::npos) << expected << " in\n" << pvd;
  }

  // A restart at t = 60.5 keeps snapshots 0 and 1 and rewrites 2.
  OutputSeries resumed(mesh_, folder / "out", "wave");
  resumed.resume(60.5);
  EXPECT_EQ(resumed.next_index(), 2);
  if (world_rank() == 0) {
    EXPECT_EQ(resumed.entries().size(), 2u);
    EXPECT_EQ(text_of(folder / "out" / "wave.pvd").find("wave_0002"), std::string::npos);
  }
  state.time = 100.0;
  EXPECT_EQ(resumed.write(state), folder / "out" / "wave_0002.pvtu");
  if (world_rank() == 0) {
    EXPECT_EQ(resumed.entries().size(), 3u);
    EXPECT_NE(text_of(folder / "out" / "wave.pvd").find("timestep=\"100\""), std::string::npos);
  }

  // Wrong sizes and names fail on every rank.
  ModelState bad = state;
  if (world_rank() == world_size() - 1) bad.tracers[0].clear();
  EXPECT_EQ(error_of([&] { (void)resumed.write(bad); }).category, ErrorCategory::invalid_input);
  EXPECT_EQ(error_of([&] { OutputSeries(mesh_, folder.path(), "a/b"); }).category,
            ErrorCategory::invalid_input);
}

TEST(TimingReduceTest, EveryRowIsTheSlowestRank) {
  const int rank = world_rank();
  StepTimings timings;
  for (int step = 0; step < 4; ++step) {
    timings.add(TimedPhase::momentum_matrix, 0.5 + rank);     // slowest: the last rank
    timings.add(TimedPhase::petsc_solve, 2.0 - 0.25 * rank);  // slowest: rank 0
    timings.finish_step(10.0);
  }
  const TimingTable table = reduce_timing_table(timings, world(), "test");
  EXPECT_EQ(table.steps, 4);
  EXPECT_EQ(table.ranks, world_size());
  EXPECT_DOUBLE_EQ(table.row("momentum_matrix").seconds_per_step, 0.5 + (world_size() - 1));
  EXPECT_DOUBLE_EQ(table.row("petsc_solve").seconds_per_step, 2.0);
  EXPECT_DOUBLE_EQ(table.row("petsc_total").seconds_per_step, 2.0);
  EXPECT_DOUBLE_EQ(table.row("other").seconds_per_step, 10.0 - 2.5);  // rank 0's 10 - 0.5 - 2
  EXPECT_DOUBLE_EQ(table.row("total").seconds_per_step, 10.0);
  EXPECT_DOUBLE_EQ(table.row("petsc_solve").percentage, 20.0);

  StepTimings uneven;
  if (rank == 0) uneven.finish_step(1.0);
  const auto error = error_of([&] { (void)reduce_timing_table(uneven, world()); });
  EXPECT_EQ(error.thrown, world_size() > 1);
}

}  // namespace
}  // namespace foehn::mountainwave
