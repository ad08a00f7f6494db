// Checkpoints on 1, 2 and 4 ranks: bitwise round trips (ghosts included), restarts on another
// number of ranks than wrote the file (input numbering), byte-identical files whatever the
// rank count, and failures agreed on by every rank.
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "io/checkpoint.hpp"
#include "validation/io/io_test_support.hpp"

namespace foehn::mountainwave {
namespace {

using foehn::testing::distribute_on;
using foehn::testing::error_of;
using foehn::testing::FirstRanks;
using foehn::testing::same_bits;
using foehn::testing::SharedTempDir;
using foehn::testing::test_extra_field;
using foehn::testing::test_state;
using foehn::testing::world;
using foehn::testing::world_rank;
using foehn::testing::world_size;

const CheckpointMetadata metadata{CaseFingerprint().add("cells", "6x6x4").add("dt", 0.5).str()};

std::vector<char> bytes_of(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// Every rank's local state, ghosts included, equals the one built from the input numbering.
void expect_state_of_input_numbering(const petsc::DistributedMesh& mesh, const ModelState& read,
                                     const std::vector<MeshField>& extras) {
  EXPECT_TRUE(same_bits(read, test_state(mesh))) << "rank " << mesh.rank << " of " << mesh.size;
  ASSERT_EQ(extras.size(), 2u);
  EXPECT_EQ(extras[0].name, "pressure_old");  // in name order
  EXPECT_EQ(extras[1].name, "velocity_old");
  EXPECT_EQ(extras[0].components, 1);
  EXPECT_EQ(extras[1].components, 3);
  EXPECT_TRUE(same_bits(extras[0].values, test_extra_field(mesh, "", 1, 11).values));
  EXPECT_TRUE(same_bits(extras[1].values, test_extra_field(mesh, "", 3, 10).values));
}

class CheckpointMpiTest : public ::testing::Test {
 protected:
  void SetUp() override {
    whole_ = foehn::testing::io_test_mountain();
    mesh_ = distribute_on(world(), whole_);
    extras_ = {test_extra_field(mesh_, "velocity_old", 3, 10),
               test_extra_field(mesh_, "pressure_old", 1, 11)};
  }
  TetMesh whole_;
  petsc::DistributedMesh mesh_;
  std::vector<MeshField> extras_;
};

TEST_F(CheckpointMpiTest, RoundTripIsBitwiseGhostsIncluded) {
  SharedTempDir folder;
  const auto path = folder / "checkpoint.h5";
  const ModelState state = test_state(mesh_);
  write_checkpoint(mesh_, state, path, metadata, extras_);

  std::vector<MeshField> extras;
  const ModelState read = read_checkpoint(mesh_, path, metadata, &extras);
  EXPECT_TRUE(same_bits(read, state));
  expect_state_of_input_numbering(mesh_, read, extras);

  // Nothing but the checkpoint in the folder: the temporary was renamed.
  MPI_Barrier(world());
  if (world_rank() == 0) {
    std::vector<std::string> names;
    for (const auto& entry : std::filesystem::directory_iterator(folder.path()))
      names.push_back(entry.path().filename().string());
    EXPECT_EQ(names, std::vector<std::string>{"checkpoint.h5"});
    const CheckpointInfo info = read_checkpoint_info(path);
    EXPECT_EQ(info.format_version, checkpoint_format_version);
    EXPECT_EQ(info.case_fingerprint, metadata.case_fingerprint);
    EXPECT_EQ(info.global_nodes, static_cast<std::int64_t>(whole_.node_count()));
    EXPECT_EQ(info.global_tets, static_cast<std::int64_t>(whole_.tet_count()));
    EXPECT_EQ(info.time, state.time);
    EXPECT_EQ(info.step, state.step);
    EXPECT_EQ(info.extra_fields, (std::vector<std::string>{"pressure_old", "velocity_old"}));
  }
}

// Written on all ranks, read back on the first 1 and 2 of them (e.g. written on 4, read on 2).
TEST_F(CheckpointMpiTest, ReadsOnFewerRanksThanWrote) {
  SharedTempDir folder;
  const auto path = folder / "checkpoint.h5";
  write_checkpoint(mesh_, test_state(mesh_), path, metadata, extras_);
  for (const int ranks : {1, 2}) {
    if (ranks > world_size()) continue;
    const FirstRanks group(world(), ranks);
    if (!group.member()) continue;
    const petsc::DistributedMesh smaller = distribute_on(group.get(), whole_);
    std::vector<MeshField> extras;
    const ModelState read = read_checkpoint(smaller, path, metadata, &extras);
    expect_state_of_input_numbering(smaller, read, extras);
  }
}

// Written on rank 0 alone, read back on all ranks (e.g. written on 1, read on 4).
TEST_F(CheckpointMpiTest, ReadsOnMoreRanksThanWrote) {
  SharedTempDir folder;
  const auto path = folder / "serial.h5";
  {
    const FirstRanks group(world(), 1);
    if (group.member()) {
      const petsc::DistributedMesh serial = distribute_on(group.get(), whole_);
      write_checkpoint(serial, test_state(serial), path, metadata,
                       std::vector<MeshField>{test_extra_field(serial, "velocity_old", 3, 10),
                                              test_extra_field(serial, "pressure_old", 1, 11)});
    }
  }
  std::vector<MeshField> extras;
  const ModelState read = read_checkpoint(mesh_, path, metadata, &extras);
  expect_state_of_input_numbering(mesh_, read, extras);
}

// The same state gives the same bytes whatever the number of ranks that wrote it.
TEST_F(CheckpointMpiTest, FileIsIdenticalWhateverTheRankCount) {
  SharedTempDir folder;
  write_checkpoint(mesh_, test_state(mesh_), folder / "all_ranks.h5", metadata, extras_);
  const FirstRanks group(world(), 1);
  if (!group.member()) return;
  const petsc::DistributedMesh serial = distribute_on(group.get(), whole_);
  write_checkpoint(serial, test_state(serial), folder / "one_rank.h5", metadata,
                   std::vector<MeshField>{test_extra_field(serial, "velocity_old", 3, 10),
                                          test_extra_field(serial, "pressure_old", 1, 11)});
  const std::vector<char> all = bytes_of(folder / "all_ranks.h5");
  EXPECT_FALSE(all.empty());
  EXPECT_TRUE(all == bytes_of(folder / "one_rank.h5"));
}

TEST_F(CheckpointMpiTest, RankZeroFailuresReachEveryRank) {
  SharedTempDir folder;
  const auto missing =
      error_of([&] { (void)read_checkpoint(mesh_, folder / "none.h5", metadata); });
  EXPECT_TRUE(missing.thrown);
  EXPECT_EQ(missing.category, ErrorCategory::io);
  EXPECT_NE(missing.message.find("none.h5"), std::string::npos) << missing.message;

  const auto path = folder / "checkpoint.h5";
  write_checkpoint(mesh_, test_state(mesh_), path, metadata);
  const CheckpointMetadata other{CaseFingerprint().add("cells", "6x6x4").add("dt", 0.25).str()};
  const auto mismatch = error_of([&] { (void)read_checkpoint(mesh_, path, other); });
  EXPECT_TRUE(mismatch.thrown);
  EXPECT_EQ(mismatch.category, ErrorCategory::invalid_input);
  EXPECT_NE(mismatch.message.find("dt: 0.5 in the checkpoint, 0.25 in this run"), std::string::npos)
      << mismatch.message;

  const auto no_folder = error_of(
      [&] { write_checkpoint(mesh_, test_state(mesh_), folder / "no/such.h5", metadata); });
  EXPECT_TRUE(no_folder.thrown);
  EXPECT_EQ(no_folder.category, ErrorCategory::io);
}

TEST_F(CheckpointMpiTest, OneRanksBadStateStopsEveryRank) {
  SharedTempDir folder;
  ModelState state = test_state(mesh_);
  const int bad_rank = world_size() - 1;
  if (world_rank() == bad_rank) state.theta.pop_back();
  const auto error = error_of([&] { write_checkpoint(mesh_, state, folder / "c.h5", metadata); });
  EXPECT_TRUE(error.thrown);
  EXPECT_EQ(error.category, ErrorCategory::invalid_input);
  EXPECT_NE(error.message.find("theta"), std::string::npos) << error.message;
  if (bad_rank > 0) {
    EXPECT_NE(error.message.find("rank " + std::to_string(bad_rank)), std::string::npos);
  }

  // Extra fields that differ between ranks (here: only the last rank has one).
  std::vector<MeshField> extras;
  if (world_rank() == bad_rank && bad_rank > 0) extras.push_back(extras_[1]);
  const auto extra_error = error_of(
      [&] { write_checkpoint(mesh_, test_state(mesh_), folder / "c.h5", metadata, extras); });
  EXPECT_EQ(extra_error.thrown, world_size() > 1);
  MPI_Barrier(world());
  EXPECT_FALSE(std::filesystem::exists(folder / "c.h5") && world_size() > 1);
}

}  // namespace
}  // namespace foehn::mountainwave
