// SectionSampler on 1, 2 and 4 ranks: exact for linear fields, NaN below the terrain, every
// point taken by exactly one rank, the same points found whatever the rank count, and the
// sections file's argument checks (the file's layout is checked by Python:
// check_sections_file.py).
#include <cmath>
#include <filesystem>
#include <limits>
#include <vector>

#include <gtest/gtest.h>

#include "io/section_sampler.hpp"
#include "validation/io/io_test_support.hpp"

namespace foehn::mountainwave {
namespace {

using foehn::testing::distribute_on;
using foehn::testing::error_of;
using foehn::testing::FirstRanks;
using foehn::testing::reduce_all;
using foehn::testing::SharedTempDir;
using foehn::testing::world;
using foehn::testing::world_rank;

double linear(const Point3& p) {
  return 3.0 + 2e-4 * p[0] - 1e-4 * p[1] + 5e-4 * p[2];
}

std::vector<double> linear_field(const petsc::DistributedMesh& mesh, int components) {
  std::vector<double> field;
  for (const Point3& p : mesh.local.nodes)
    for (int c = 0; c < components; ++c) field.push_back(linear(p) * (c + 1));
  return field;
}

std::size_t finite_count(const std::vector<double>& values) {
  std::size_t count = 0;
  for (const double v : values) count += std::isfinite(v) ? 1 : 0;
  return count;
}

class SectionSamplerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    whole_ = foehn::testing::io_test_mountain();
    mesh_ = distribute_on(world(), whole_);
  }
  TetMesh whole_;
  petsc::DistributedMesh mesh_;
};

TEST_F(SectionSamplerTest, DefaultGridIsThePublishedOne) {
  const SectionGrid grid;
  EXPECT_EQ(grid.x.size(), 241u);
  EXPECT_EQ(grid.x.front(), -30000.0);
  EXPECT_EQ(grid.x.back(), 30000.0);
  EXPECT_EQ(grid.x[121], 250.0);
  EXPECT_EQ(grid.heights, (std::vector<double>{2000.0, 5000.0}));
  EXPECT_EQ(grid.section_z.size(), 161u);
  EXPECT_EQ(grid.section_z.back(), 16000.0);
  EXPECT_EQ(evenly_spaced(0.0, 1.0, 0.1).size(), 11u);  // 1.0 included despite rounding
  EXPECT_THROW(evenly_spaced(0.0, 1.0, 0.0), foehn::Error);
}

TEST_F(SectionSamplerTest, LinearFieldsAreExactAndPointsAreTakenOnce) {
  const SectionSampler sampler(mesh_, SectionGrid{});
  const SectionGrid& grid = sampler.grid();
  const std::int64_t taken =
      reduce_all<std::int64_t>(static_cast<std::int64_t>(sampler.points_taken_here()), MPI_SUM);
  EXPECT_EQ(taken, sampler.points_found());

  for (const int components : {1, 3}) {
    const SectionValues values =
        sampler.sample(linear_field(mesh_, components), components, components - 1);
    if (world_rank() != 0) {
      EXPECT_TRUE(values.horizontal.empty() && values.section.empty());
      continue;
    }
    ASSERT_EQ(values.horizontal.size(), grid.horizontal_points());
    ASSERT_EQ(values.section.size(), grid.section_points());
    EXPECT_EQ(
        static_cast<std::int64_t>(finite_count(values.horizontal) + finite_count(values.section)),
        sampler.points_found());
    double worst = 0.0;
    for (std::size_t p = 0; p < values.horizontal.size(); ++p) {
      const std::size_t nx = grid.x.size(), ny = grid.y.size();
      const Point3 point{grid.x[p % nx], grid.y[(p / nx) % ny], grid.heights[p / (nx * ny)]};
      ASSERT_TRUE(std::isfinite(values.horizontal[p])) << "horizontal point " << p;
      worst = std::max(worst, std::abs(values.horizontal[p] - components * linear(point)));
    }
    for (std::size_t p = 0; p < values.section.size(); ++p) {
      const Point3 point{grid.section_x[p % grid.section_x.size()], grid.section_y,
                         grid.section_z[p / grid.section_x.size()]};
      if (std::isfinite(values.section[p]))
        worst = std::max(worst, std::abs(values.section[p] - components * linear(point)));
    }
    EXPECT_LT(worst, 1e-11) << components << " components";
  }
}

TEST_F(SectionSamplerTest, BelowTheTerrainIsNaN) {
  const SectionSampler sampler(mesh_, SectionGrid{});
  const SectionValues values = sampler.sample(linear_field(mesh_, 1), 1, 0);
  if (world_rank() == 0) {
    const SectionGrid& grid = sampler.grid();
    const std::size_t nx = grid.section_x.size();
    for (std::size_t p = 0; p < values.section.size(); ++p) {
      const double z = grid.section_z[p / nx];
      // The terrain is above z = 0 everywhere and at most h0 = 400 m high.
      if (z == 0.0) {
        EXPECT_TRUE(std::isnan(values.section[p])) << "x " << grid.section_x[p % nx];
      }
      if (z > 400.0) {
        EXPECT_TRUE(std::isfinite(values.section[p])) << "z " << z;
      }
    }
  }

  // At the summit node (0, 0, 400): 1 m below is outside the mesh, 1 m above inside.
  bool summit_node = false;
  for (const Point3& p : whole_.nodes) summit_node = summit_node || (p == Point3{0.0, 0.0, 400.0});
  ASSERT_TRUE(summit_node);
  SectionGrid summit;
  summit.heights.clear();
  summit.section_x = {0.0};
  summit.section_z = {399.0, 401.0};
  const SectionSampler at_summit(mesh_, summit);
  EXPECT_EQ(at_summit.points_found(), 1);
  const SectionValues near = at_summit.sample(linear_field(mesh_, 1), 1, 0);
  if (world_rank() == 0) {
    EXPECT_TRUE(std::isnan(near.section[0]));
    EXPECT_NEAR(near.section[1], linear({0.0, 0.0, 401.0}), 1e-12);
  }
}

TEST_F(SectionSamplerTest, FindsTheSamePointsAsOneRank) {
  const SectionSampler sampler(mesh_, SectionGrid{});
  std::int64_t serial_found = 0;
  {
    const FirstRanks group(world(), 1);
    if (group.member()) {
      const petsc::DistributedMesh serial = distribute_on(group.get(), whole_);
      serial_found = SectionSampler(serial, SectionGrid{}).points_found();
    }
  }
  MPI_Bcast(&serial_found, 1, MPI_INT64_T, 0, world());
  EXPECT_EQ(sampler.points_found(), serial_found);
  EXPECT_GT(serial_found, 0);
}

TEST_F(SectionSamplerTest, BadArgumentsFailOnEveryRank) {
  SectionGrid unsorted;
  unsorted.x = {0.0, -1.0};
  EXPECT_EQ(error_of([&] { (void)SectionSampler(mesh_, unsorted); }).category,
            ErrorCategory::invalid_input);
  SectionGrid empty;
  empty.heights.clear();
  empty.section_z.clear();
  EXPECT_EQ(error_of([&] { (void)SectionSampler(mesh_, empty); }).category,
            ErrorCategory::invalid_input);

  SectionGrid small;
  small.x = small.y = small.section_x = evenly_spaced(-5000.0, 5000.0, 1000.0);
  const SectionSampler sampler(mesh_, small);
  const std::vector<double> field = linear_field(mesh_, 1);
  EXPECT_EQ(error_of([&] { (void)sampler.sample(field, 1, 1); }).category,
            ErrorCategory::invalid_input);
  EXPECT_EQ(error_of([&] { (void)sampler.sample(field, 3, 0); }).category,
            ErrorCategory::invalid_input);

  SharedTempDir folder;
  const SectionValues w = sampler.sample(field, 1, 0);
  const auto write = [&](std::vector<NamedSectionValues> fields) {
    return error_of(
        [&] { sampler.write_sections(folder / "s.h5", 10.0, MountainWaveCase{}, fields); });
  };
  EXPECT_EQ(write({{"theta", w}}).category, ErrorCategory::invalid_input);  // no w
  EXPECT_EQ(write({{"w", w}, {"q", w}}).category, ErrorCategory::invalid_input);
  EXPECT_EQ(write({{"w", w}, {"w", w}}).category, ErrorCategory::invalid_input);
  SectionValues short_w = w;
  if (world_rank() == 0) short_w.section.pop_back();
  EXPECT_EQ(write({{"w", short_w}}).category, ErrorCategory::invalid_input);
  EXPECT_FALSE(write({{"w", w}, {"theta", w}}).thrown);
  MPI_Barrier(world());
  EXPECT_TRUE(std::filesystem::exists(folder / "s.h5"));
  const auto missing_folder = error_of([&] {
    sampler.write_sections(folder / "no/s.h5", 10.0, MountainWaveCase{}, {{"w", w}});
  });
  EXPECT_EQ(missing_folder.category, ErrorCategory::io);
}

}  // namespace
}  // namespace foehn::mountainwave
