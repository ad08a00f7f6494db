// The CF trajectory file, read back with raw netCDF-C calls: parcels matched to their
// trajectory by id whatever their order, fill values where a parcel or a quantity is missing,
// the CF attributes, the temporary-then-rename life cycle, and the writer's refusals.

#include <gtest/gtest.h>
#include <netcdf.h>

#include <algorithm>
#include <filesystem>
#include <numbers>
#include <string>
#include <vector>

#include "foehn/particles/io/trajectory_file.hpp"
#include "io_test_support.hpp"
#include "support/temp_dir.hpp"

namespace {

using namespace foehn::particles;
using namespace foehn::particles::io_test;
using foehn::ErrorCategory;

constexpr double degrees = 180.0 / std::numbers::pi;

ParticleSet three_parcels(double t) {
  ParticleSet set;
  set.add(0.1, 0.2, 50000.0, t, 30);
  set.add(-1.0, -0.5, 80000.0, t, 10);
  set.add(2.0, 1.0, 20000.0, t, 20);
  set.add_quantity("mass", 1.0);
  return set;
}

// A (trajectory, obs) variable as [trajectory][obs] doubles, and the file's text attributes.
struct OpenedFile {
  explicit OpenedFile(const std::filesystem::path& path) {
    nc(nc_open(path.c_str(), NC_NOWRITE, &id));
  }
  ~OpenedFile() { nc_close(id); }
  std::size_t length(const char* dimension) const {
    int d = -1;
    std::size_t n = 0;
    nc(nc_inq_dimid(id, dimension, &d));
    nc(nc_inq_dimlen(id, d, &n));
    return n;
  }
  std::vector<double> values(const char* name) const {
    int variable = -1;
    nc(nc_inq_varid(id, name, &variable));
    std::vector<double> out(length("trajectory") * length("obs"));
    nc(nc_get_var_double(id, variable, out.data()));
    return out;
  }
  std::string text(const char* variable_name, const char* attribute) const {
    int variable = NC_GLOBAL;
    if (variable_name != nullptr) nc(nc_inq_varid(id, variable_name, &variable));
    std::size_t n = 0;
    nc(nc_inq_attlen(id, variable, attribute, &n));
    std::string value(n, '\0');
    nc(nc_get_att_text(id, variable, attribute, value.data()));
    return value;
  }
  int id = -1;
};

TEST(TrajectoryFile, MatchesParcelsByIdAndFillsWhatIsMissing) {
  foehn::testing::TempDir folder;
  const auto path = folder / "parcels_trajectories.nc";
  {
    TrajectoryFileWriter writer(path, three_parcels(0.0), {"seconds since 2000-01-01 00:00:00"});
    writer.append(three_parcels(0.0));
    // Sorted differently, moved, with a new quantity and parcel 20 missing.
    ParticleSet later;
    later.add(0.3, 0.25, 51000.0, 600.0, 10);
    later.add(0.4, 0.35, 52000.0, 600.0, 30);
    later.status[1] = ParcelStatus::left_domain;
    later.add_quantity("mass", 0.5);
    later.add_quantity("path_horizontal_m", 7.0);
    writer.append(later);
    EXPECT_EQ(writer.observations(), 2u);
    EXPECT_TRUE(std::filesystem::exists(folder / "parcels_trajectories.nc.tmp"));
    EXPECT_FALSE(std::filesystem::exists(path));
    writer.finish();
  }
  EXPECT_FALSE(std::filesystem::exists(folder / "parcels_trajectories.nc.tmp"));
  const OpenedFile file(path);
  EXPECT_EQ(file.text(nullptr, "featureType"), "trajectory");
  EXPECT_EQ(file.text(nullptr, "Conventions"), "CF-1.8");
  EXPECT_EQ(file.text("trajectory", "cf_role"), "trajectory_id");
  EXPECT_EQ(file.text("time", "units"), "seconds since 2000-01-01 00:00:00");
  EXPECT_EQ(file.text("lat", "standard_name"), "latitude");
  // A quantity that appears in a later snapshot is described like the first ones.
  EXPECT_EQ(file.text("path_horizontal_m", "units"), "m");
  EXPECT_EQ(file.text("path_horizontal_m", "coordinates"), "time lat lon pressure");
  EXPECT_EQ(file.text(nullptr, "title"), "Foehn air parcels (trajectory)");
  ASSERT_EQ(file.length("trajectory"), 3u);
  ASSERT_EQ(file.length("obs"), 2u);
  std::vector<long long> ids(3);
  int trajectory = -1;
  nc(nc_inq_varid(file.id, "trajectory", &trajectory));
  nc(nc_get_var_longlong(file.id, trajectory, ids.data()));
  EXPECT_EQ(ids, (std::vector<long long>{10, 20, 30}));
  // [trajectory][obs]: ids 10, 20, 30 at t = 0 and t = 600.
  EXPECT_EQ(file.values("pressure"),
            (std::vector<double>{80000.0, 51000.0, 20000.0, NC_FILL_DOUBLE, 50000.0, 52000.0}));
  EXPECT_EQ(file.values("time"), (std::vector<double>{0, 600, 0, NC_FILL_DOUBLE, 0, 600}));
  EXPECT_EQ(file.values("lon")[0], -1.0 * degrees);
  EXPECT_EQ(file.values("lat")[5], 0.35 * degrees);
  EXPECT_EQ(file.values("status"), (std::vector<double>{0, 0, 0, NC_FILL_BYTE, 0, 1}));
  EXPECT_EQ(file.values("mass"), (std::vector<double>{1, 0.5, 1, NC_FILL_DOUBLE, 1, 0.5}));
  EXPECT_EQ(
      file.values("path_horizontal_m"),
      (std::vector<double>{NC_FILL_DOUBLE, 7, NC_FILL_DOUBLE, NC_FILL_DOUBLE, NC_FILL_DOUBLE, 7}));
}

TEST(TrajectoryFile, UnfinishedFileLeavesNothing) {
  foehn::testing::TempDir folder;
  {
    TrajectoryFileWriter writer(folder / "t.nc", three_parcels(0.0));
    writer.append(three_parcels(0.0));
  }
  EXPECT_TRUE(std::filesystem::is_empty(folder.path()));
}

TEST(TrajectoryFile, RefusesWhatItCannotWrite) {
  foehn::testing::TempDir folder;
  const auto path = folder / "t.nc";
  for (const char* units : {"hours since 2000-01-01", "seconds since 2000-02-30", "s since"}) {
    expect_error([&] { TrajectoryFileWriter(path, three_parcels(0.0), {units}); },
                 ErrorCategory::invalid_input, {"t.nc"});
  }
  ParticleSet named_trajectory = three_parcels(0.0);
  named_trajectory.add_quantity("trajectory");
  expect_error([&] { TrajectoryFileWriter(path, named_trajectory); }, ErrorCategory::invalid_input,
               {"t.nc", "quantity name 'trajectory'"});
  TrajectoryFileWriter writer(path, three_parcels(0.0));
  ParticleSet stranger = three_parcels(60.0);
  stranger.add(0.0, 0.0, 1000.0, 60.0, 99);
  expect_error([&] { writer.append(stranger); }, ErrorCategory::invalid_input,
               {"t.nc", "parcel id 99 was not in the first snapshot"});
  expect_error([&] { TrajectoryFileWriter(folder / "missing" / "t.nc", three_parcels(0.0)); },
               ErrorCategory::io, {"missing"});
}

}  // namespace
