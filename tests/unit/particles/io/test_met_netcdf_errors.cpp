// Bad met files: each is refused with a foehn::Error of the right category whose message names
// the file and the problem, before any wind reaches a MetGrid.

#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>

#include "foehn/particles/io/met_netcdf.hpp"
#include "io_test_support.hpp"
#include "support/temp_dir.hpp"

namespace {

using namespace foehn::particles;
using namespace foehn::particles::io_test;
using foehn::ErrorCategory;

class BadMetFile : public ::testing::Test {
 protected:
  // Writes `raw` as bad.nc and expects reading its info (and, if that passes, time 0) to fail.
  void expect_rejected(const RawMetFile& raw, const std::vector<std::string>& fragments,
                       ErrorCategory category = ErrorCategory::invalid_input) {
    raw.write(path_);
    std::vector<std::string> all = fragments;
    all.push_back("bad.nc");
    expect_error([&] { read_met_wind(read_met_file_info(path_), 0); }, category, all);
  }
  foehn::testing::TempDir folder_;
  std::filesystem::path path_ = folder_ / "bad.nc";
};

TEST_F(BadMetFile, TextFileNamedNc) {
  std::ofstream(path_) << "this is not a netCDF file\n";
  expect_error([&] { read_met_file_info(path_); }, ErrorCategory::invalid_input,
               {"bad.nc", "not a readable netCDF file"});
}

// netCDF-4 (the writer's format): HDF5 refuses a truncated file and netCDF says only "HDF
// error"; the message says what is wrong, from the signature to the last byte.
TEST_F(BadMetFile, TruncatedFile) {
  const MetGridGeometry g = small_geometry();
  const auto whole = folder_ / "whole.nc";
  write_met_file(whole, g, {0.0, 1.0}, {small_wind(g, 0), small_wind(g, 1)});
  const auto size = std::filesystem::file_size(whole);
  for (const std::uintmax_t keep : cut_points(size)) {
    SCOPED_TRACE(std::to_string(keep) + " of " + std::to_string(size) + " bytes");
    copy_truncated(whole, path_, keep);
    expect_error([&] { read_met_wind(read_met_file_info(path_), 1); }, ErrorCategory::invalid_input,
                 {"bad.nc", "truncated"});
  }
  copy_truncated(whole, path_, 0);
  expect_error([&] { read_met_file_info(path_); }, ErrorCategory::invalid_input,
               {"bad.nc", "the file is empty"});
}

// libnetcdf reads a truncated netCDF-3 file without an error and returns zeros for the missing
// bytes: a met file cut short once gave calm winds, exit 0 and trajectories 8.7 km off.
TEST_F(BadMetFile, TruncatedNetcdf3FileInEveryFormat) {
  const auto whole = folder_ / "whole.nc";
  for (const int format : {0, NC_64BIT_OFFSET, NC_64BIT_DATA}) {
    for (const bool time_unlimited : {false, true}) {
      RawMetFile raw;
      raw.format = format;
      raw.time_unlimited = time_unlimited;
      raw.write(whole);
      const WindLevel complete = read_met_wind(read_met_file_info(whole), 1);
      EXPECT_EQ(complete.omega.back(), wind_value(2, 1, 2, 0, 7));
      const auto size = std::filesystem::file_size(whole);
      for (const std::uintmax_t keep : cut_points(size)) {
        SCOPED_TRACE("format " + std::to_string(format) + (time_unlimited ? ", records" : "") +
                     ": " + std::to_string(keep) + " of " + std::to_string(size) + " bytes");
        copy_truncated(whole, path_, keep);
        expect_error([&] { read_met_wind(read_met_file_info(path_), 1); },
                     ErrorCategory::invalid_input, {"bad.nc", "truncated"});
      }
    }
  }
}

TEST_F(BadMetFile, TruncatedNetcdf3FileNamesTheCutVariable) {
  const auto whole = folder_ / "whole.nc";
  RawMetFile raw;
  raw.time_unlimited = true;  // records: time, u, v, w of time 0, then of time 1
  raw.write(whole);
  copy_truncated(whole, path_, std::filesystem::file_size(whole) - 1);
  expect_error([&] { read_met_file_info(path_); }, ErrorCategory::invalid_input,
               {"bad.nc", "truncated", "variable 'w'", "1 of its 2 records complete"});
  copy_truncated(whole, path_, 60);
  expect_error([&] { read_met_file_info(path_); }, ErrorCategory::invalid_input,
               {"bad.nc", "truncated", "header runs past the end of the file"});
}

TEST_F(BadMetFile, MissingFileIsAnIoError) {
  expect_error([&] { read_met_file_info(folder_ / "absent.nc"); }, ErrorCategory::io,
               {"absent.nc", "no such file"});
}

TEST_F(BadMetFile, MissingU) {
  RawMetFile raw;
  raw.winds = {"v", "w"};
  expect_rejected(raw, {"no eastward wind: variable 'u'"});
}

TEST_F(BadMetFile, MissingVerticalVelocity) {
  RawMetFile raw;
  raw.winds = {"u", "v"};
  expect_rejected(raw, {"no vertical velocity: variable 'omega' or 'w'"});
}

TEST_F(BadMetFile, WrongDimensionOrder) {
  RawMetFile raw;
  raw.wind_dims = {"time", "lev", "lon", "lat"};
  expect_rejected(raw, {"variable 'u' has dimensions (time = 2, lev = 3, lon = 8, lat = 5)",
                        "expected (time, lev, lat, lon)"});
}

TEST_F(BadMetFile, IrregularLongitudes) {
  RawMetFile raw;
  raw.lon[3] = 140.0;
  expect_rejected(raw, {"longitudes are not 8 regular", "lon[3] = 140"});
}

TEST_F(BadMetFile, LongitudesNotCoveringTheGlobe) {
  RawMetFile raw;
  raw.lon = {0.0, 45.0, 90.0, 135.0, 180.0, 225.0, 270.0, 315.0, 360.0};
  expect_rejected(raw, {"covering 360 degrees", "repeats the first"});
}

TEST_F(BadMetFile, IrregularLatitudes) {
  RawMetFile raw;
  raw.lat = {90.0, 40.0, 0.0, -45.0, -90.0};
  expect_rejected(raw, {"latitudes are not regularly spaced", "lat[1] = 40"});
}

TEST_F(BadMetFile, NonMonotonicLevels) {
  RawMetFile raw;
  raw.lev_hpa = {1000.0, 500.0, 850.0};
  expect_rejected(raw, {"not strictly monotonic"});
}

// Levels <= 0 gave parcels clamped to them NaN heights, and foehn-trajectories crashed.
TEST_F(BadMetFile, LevelsNotPositive) {
  RawMetFile raw;
  raw.lev_hpa = {1000.0, 500.0, 0.0};
  expect_rejected(raw, {"pressure level 2 is 0 Pa", "must be positive"});
}

TEST_F(BadMetFile, LevelsInPascalLabelledHectopascal) {
  RawMetFile raw;
  raw.lev_hpa = {100000.0, 85000.0, 50000.0};
  expect_rejected(raw, {"lev[0] is 10000000 Pa", "are the units of 'lev' right?"});
}

TEST_F(BadMetFile, TimeBeyondTheRangeOfADouble) {
  RawMetFile raw;
  raw.time_type = NC_DOUBLE;
  raw.time_hours = {1.0, 1e306};  // hours: 3.6e309 s
  expect_rejected(raw, {"time 1 is inf s"});
}

// Finite garbage (an undeclared fill value, a corrupt number) sent parcels to NaN positions.
TEST_F(BadMetFile, ImplausibleWinds) {
  RawMetFile raw;
  raw.poke_variable = "v";
  raw.poke_index = 8 * 3 + 5;  // time 0, level 0, file row 3, column 5
  raw.poke_value = -999.0;
  expect_rejected(raw, {"variable 'v' at time index 0 has the implausible value -999",
                        "lat index 3, lon index 5", "magnitude above 500 m/s"});
  raw.poke_variable = "w";
  raw.poke_value = 1e30;
  expect_rejected(raw, {"variable 'w'", "implausible value 1.00000001504", "above 1000 Pa/s"});
  raw.poke_value = 999.0;  // strong, but possible
  raw.write(path_);
  EXPECT_NO_THROW(read_met_wind(read_met_file_info(path_), 0));
}

TEST_F(BadMetFile, LevelsWithoutUnits) {
  RawMetFile raw;
  raw.lev_units.reset();
  expect_rejected(raw, {"'lev' has no units"});
}

TEST_F(BadMetFile, LevelsInMetres) {
  RawMetFile raw;
  raw.lev_units = "m";
  expect_rejected(raw, {"vertical coordinate 'lev' is a height", "pressure levels"});
}

TEST_F(BadMetFile, UnknownTimeUnits) {
  RawMetFile raw;
  raw.time_units = "fortnights since 1900-01-01";
  expect_rejected(raw, {"time units 'fortnights since 1900-01-01' not understood"});
}

TEST_F(BadMetFile, TimesNotIncreasing) {
  RawMetFile raw;
  raw.time_hours = {7.0, 7.0};
  expect_rejected(raw, {"times are not strictly increasing"});
}

TEST_F(BadMetFile, FillValueInTheWind) {
  RawMetFile raw;
  raw.poke_variable = "v";
  raw.poke_index = 2 * 40 + 8 * 3 + 5;  // time 0, level 2, file row 3, column 5
  raw.poke_value = -32767.0;
  expect_rejected(raw, {"variable 'v' at time index 0", "missing value", "lev index 2",
                        "lat index 3", "lon index 5"});
}

TEST_F(BadMetFile, NanInTheWind) {
  RawMetFile raw;
  raw.fill_value.reset();
  raw.poke_variable = "w";
  raw.poke_index = 9;
  raw.poke_value = std::numeric_limits<double>::quiet_NaN();
  expect_rejected(raw,
                  {"variable 'w' at time index 0", "non-finite", "lat index 1", "lon index 1"});
}

TEST_F(BadMetFile, TimeIndexOutOfRange) {
  RawMetFile().write(path_);
  const MetFileInfo info = read_met_file_info(path_);
  expect_error([&] { read_met_wind(info, 2); }, ErrorCategory::invalid_input,
               {"bad.nc", "time index 2 is out of range", "2 time(s)"});
  expect_error([&] { read_met_grid(path_, 1); }, ErrorCategory::invalid_input,
               {"bad.nc", "out of range"});
}

TEST_F(BadMetFile, FilesOnDifferentGrids) {
  RawMetFile().write(path_);
  const MetGridGeometry g = small_geometry();
  write_met_file(folder_ / "other.nc", g, {86400.0 * 365.0 * 200.0}, {small_wind(g, 0)});
  const MetFileInfo a = read_met_file_info(path_), b = read_met_file_info(folder_ / "other.nc");
  // Same sizes and levels, but longitudes start at 0 and -180 degrees.
  expect_error([&] { require_same_met_grid(a, b); }, ErrorCategory::invalid_input,
               {"bad.nc", "other.nc", "not on the same grid"});
}

}  // namespace

namespace {

// A netCDF-4 met file whose longitude dimension is declared 2^28 long (2 GiB of doubles) while
// nothing of it is written: the file stays a few kB, so only its header speaks for the size.
void write_met_file_with_a_huge_longitude(const std::filesystem::path& path) {
  int file = -1;
  nc(nc_create(path.c_str(), NC_CLOBBER | NC_NETCDF4, &file));
  int dims[4] = {-1, -1, -1, -1};
  nc(nc_def_dim(file, "time", 1, &dims[0]));
  nc(nc_def_dim(file, "lev", 1, &dims[1]));
  nc(nc_def_dim(file, "lat", 2, &dims[2]));
  nc(nc_def_dim(file, "lon", std::size_t{1} << 28, &dims[3]));
  int vars[4] = {-1, -1, -1, -1};
  const char* names[4] = {"time", "lev", "lat", "lon"};
  const char* units[4] = {"hours since 1900-01-01", "hPa", "degrees_north", "degrees_east"};
  for (int d = 0; d < 4; ++d) {
    nc(nc_def_var(file, names[d], NC_DOUBLE, 1, &dims[d], &vars[d]));
    nc(nc_put_att_text(file, vars[d], "units", std::strlen(units[d]), units[d]));
  }
  for (const char* wind : {"u", "v", "w"}) {
    int var = -1;
    nc(nc_def_var(file, wind, NC_FLOAT, 4, dims, &var));
    const std::size_t chunks[4] = {1, 1, 1, 4096};
    nc(nc_def_var_chunking(file, var, NC_CHUNKED, chunks));
  }
  nc(nc_enddef(file));
  const double time = 0.0, level = 500.0, latitudes[2] = {-45.0, 45.0};
  nc(nc_put_var_double(file, vars[0], &time));
  nc(nc_put_var_double(file, vars[1], &level));
  nc(nc_put_var_double(file, vars[2], latitudes));
  nc(nc_close(file));
}

}  // namespace

// The reader checks the host memory before it allocates what a header asks for, and names the
// file and the item (FOEHN_MAX_MEMORY stands for a small machine).
TEST_F(BadMetFile, HugeDeclaredDimensionIsCheckedAgainstTheMemory) {
  write_met_file_with_a_huge_longitude(path_);
  ASSERT_LT(std::filesystem::file_size(path_), std::uintmax_t{1} << 20);
  ASSERT_EQ(::setenv("FOEHN_MAX_MEMORY", "256M", 1), 0);
  expect_error([&] { read_met_file_info(path_); }, ErrorCategory::invalid_input,
               {"bad.nc", "coordinate 'lon' (268435456 values of 8 B) would need 2.0 GiB"});
  ::unsetenv("FOEHN_MAX_MEMORY");
}
