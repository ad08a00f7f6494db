// Met files by CF conventions: a file in the layout of the current ERA5 download (CDS, 2024 on:
// valid_time as int64 seconds since 1970 in the proleptic Gregorian calendar, pressure_level in
// hPa, latitude north to south, longitude, u/v/w packed as shorts with scale_factor/add_offset
// and _FillValue), written here with raw netCDF-C calls in netCDF-4 and in classic format, reads
// end to end: coordinates found, values unpacked exactly as CF says (stored * scale + offset),
// rows flipped, the reference date interpreted. Coordinates found by attributes alone, by other
// names, and each refusal (height levels, an unsupported calendar, a packed fill value, two
// latitude coordinates) are tested too.

#include <gtest/gtest.h>
#include <netcdf.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "foehn/particles/io/met_netcdf.hpp"
#include "foehn/runtime/error.hpp"
#include "io_test_support.hpp"
#include "support/temp_dir.hpp"

namespace {

using namespace foehn::particles;
using foehn::particles::io_test::nc;

constexpr std::size_t nt = 2, nlev = 3, nlat = 5, nlon = 8;
constexpr double scale = 0.002, offset = 1.5;

// The stored short of component c at (t, k, j, i) in the file's order: distinct, in range.
short stored_value(int c, std::size_t t, std::size_t k, std::size_t j, std::size_t i) {
  return static_cast<short>(-12000 + 5000 * c + 700 * static_cast<int>(t) +
                            97 * static_cast<int>(k) + 31 * static_cast<int>(j) +
                            7 * static_cast<int>(i));
}

struct Era5File {
  int format = NC_NETCDF4;
  std::array<std::string, 4> names{"valid_time", "pressure_level", "latitude", "longitude"};
  std::string calendar = "proleptic_gregorian";
  std::string level_units = "hPa";
  std::string level_standard_name = "air_pressure";
  bool attributes_only = false;        // coordinates named x0..x3, found by their attributes alone
  std::optional<std::size_t> fill_at;  // a point of u at time 0 holding the fill value

  void write(const std::filesystem::path& path) const {
    int file = -1;
    nc(nc_create(path.c_str(), NC_CLOBBER | format, &file));
    std::array<std::string, 4> n = names;
    if (attributes_only) n = {"x0", "x1", "x2", "x3"};
    const std::size_t lengths[4] = {nt, nlev, nlat, nlon};
    int dims[4], vars[4];
    const nc_type time_type = format == NC_NETCDF4 ? NC_INT64 : NC_DOUBLE;
    const nc_type types[4] = {time_type, NC_DOUBLE, NC_DOUBLE, NC_DOUBLE};
    for (int d = 0; d < 4; ++d) {
      nc(nc_def_dim(file, n[d].c_str(), lengths[d], &dims[d]));
      nc(nc_def_var(file, n[d].c_str(), types[d], 1, &dims[d], &vars[d]));
    }
    const auto text = [&](int var, const char* key, const std::string& value) {
      nc(nc_put_att_text(file, var, key, value.size(), value.c_str()));
    };
    text(vars[0], "units", "seconds since 1970-01-01");
    text(vars[0], "calendar", calendar);
    text(vars[0], "standard_name", "time");
    text(vars[1], "units", level_units);
    text(vars[1], "standard_name", level_standard_name);
    if (attributes_only) text(vars[1], "axis", "Z");
    text(vars[2], "units", "degrees_north");
    text(vars[2], "standard_name", "latitude");
    text(vars[3], "units", "degrees_east");
    text(vars[3], "standard_name", "longitude");
    int wind[3];
    const char* wind_names[3] = {"u", "v", "w"};
    const char* standard[3] = {"eastward_wind", "northward_wind",
                               "lagrangian_tendency_of_air_pressure"};
    for (int c = 0; c < 3; ++c) {
      nc(nc_def_var(file, wind_names[c], NC_SHORT, 4, dims, &wind[c]));
      text(wind[c], "units", c < 2 ? "m s**-1" : "Pa s**-1");
      text(wind[c], "standard_name", standard[c]);
      nc(nc_put_att_double(file, wind[c], "scale_factor", NC_DOUBLE, 1, &scale));
      nc(nc_put_att_double(file, wind[c], "add_offset", NC_DOUBLE, 1, &offset));
      const short fill = -32767;
      nc(nc_put_att_short(file, wind[c], "_FillValue", NC_SHORT, 1, &fill));
    }
    nc(nc_enddef(file));
    const double times[nt] = {1717200000.0, 1717203600.0};  // 2024-06-01 00:00 and 01:00 UTC
    const double levels[nlev] = {1000.0, 850.0, 500.0};
    const double latitudes[nlat] = {90.0, 45.0, 0.0, -45.0, -90.0};
    double longitudes[nlon];
    for (std::size_t i = 0; i < nlon; ++i) longitudes[i] = 45.0 * static_cast<double>(i);
    nc(nc_put_var_double(file, vars[0], times));
    nc(nc_put_var_double(file, vars[1], levels));
    nc(nc_put_var_double(file, vars[2], latitudes));
    nc(nc_put_var_double(file, vars[3], longitudes));
    for (int c = 0; c < 3; ++c) {
      std::vector<short> values;
      for (std::size_t t = 0; t < nt; ++t)
        for (std::size_t k = 0; k < nlev; ++k)
          for (std::size_t j = 0; j < nlat; ++j)
            for (std::size_t i = 0; i < nlon; ++i) values.push_back(stored_value(c, t, k, j, i));
      if (c == 0 && fill_at) values.at(*fill_at) = -32767;
      nc(nc_put_var_short(file, wind[c], values.data()));
    }
    nc(nc_close(file));
  }
};

void expect_invalid(const std::filesystem::path& path,
                    std::initializer_list<const char*> fragments) {
  try {
    (void)read_met_wind(read_met_file_info(path), 0);
    ADD_FAILURE() << "accepted";
  } catch (const foehn::Error& error) {
    EXPECT_EQ(error.category(), foehn::ErrorCategory::invalid_input) << error.what();
    for (const char* fragment : fragments)
      EXPECT_NE(std::string(error.what()).find(fragment), std::string::npos)
          << "'" << fragment << "' not in: " << error.what();
  }
}

}  // namespace

TEST(MetConventions, Era5DownloadLayoutReadsEndToEndInNetcdf4AndClassic) {
  for (const int format : {NC_NETCDF4, 0}) {
    foehn::testing::TempDir folder;
    const auto path = folder / "era5_cds.nc";
    Era5File era5;
    era5.format = format;
    era5.write(path);
    const MetFileInfo info = read_met_file_info(path);
    EXPECT_EQ(info.geometry.nlon, 8);
    EXPECT_EQ(info.geometry.nlat, 5);
    EXPECT_EQ(info.geometry.pressure_levels, (std::vector<double>{100000.0, 85000.0, 50000.0}));
    EXPECT_TRUE(info.latitude_north_to_south);
    EXPECT_EQ(info.vertical_velocity, "w");
    EXPECT_EQ(info.time_reference, "1970-01-01");
    EXPECT_EQ(info.time_reference_instant, 0.0);
    EXPECT_EQ(info.times, (std::vector<double>{1717200000.0, 1717203600.0}));
    const WindLevel wind = read_met_wind(info, 1);
    for (std::size_t k = 0; k < nlev; ++k)
      for (std::size_t j = 0; j < nlat; ++j)
        for (std::size_t i = 0; i < nlon; ++i) {
          const std::size_t point = (k * nlat + j) * nlon + i;  // grid row j = file row nlat-1-j
          ASSERT_EQ(wind.u[point], stored_value(0, 1, k, nlat - 1 - j, i) * scale + offset)
              << format << " " << k << " " << j << " " << i;
          ASSERT_EQ(wind.v[point], stored_value(1, 1, k, nlat - 1 - j, i) * scale + offset);
          ASSERT_EQ(wind.omega[point], stored_value(2, 1, k, nlat - 1 - j, i) * scale + offset);
        }
  }
}

TEST(MetConventions, CoordinatesFoundByTheirAttributesAlone) {
  foehn::testing::TempDir folder;
  Era5File era5;
  era5.attributes_only = true;
  era5.write(folder / "x.nc");
  const MetFileInfo info = read_met_file_info(folder / "x.nc");
  EXPECT_EQ(info.geometry.pressure_levels.size(), nlev);
  EXPECT_EQ(info.times.size(), nt);
  // The same instant written another way is the same reference.
  MetFileInfo other = info;
  other.time_reference = "1970-01-01 00:00:00 UTC";
  EXPECT_NO_THROW(require_same_met_grid(info, other));
  other.time_reference = "1970-01-02";
  other.time_reference_instant = 86400.0;
  EXPECT_THROW(require_same_met_grid(info, other), foehn::Error);
}

TEST(MetConventions, WhatTheGridCannotHoldIsRefusedNamingIt) {
  foehn::testing::TempDir folder;
  const auto path = folder / "bad.nc";
  Era5File heights;
  heights.level_units = "m";
  heights.level_standard_name = "geopotential_height";
  heights.write(path);
  expect_invalid(path, {"bad.nc", "'pressure_level' is a height", "pressure levels"});
  Era5File calendar;
  calendar.calendar = "360_day";
  calendar.write(path);
  expect_invalid(path, {"bad.nc", "calendar '360_day' is not supported"});
  Era5File fill;
  fill.fill_at = 9;  // time 0, level 0, file row 1, column 1
  fill.write(path);
  expect_invalid(path,
                 {"bad.nc", "variable 'u' at time index 0 has a missing value", "lat index 1"});
}

TEST(MetConventions, ReferenceDatesAreInstants) {
  // Through files: "hours since <date>" with different spellings of dates and zones.
  foehn::testing::TempDir folder;
  struct Case {
    const char* reference;
    double instant;
  };
  const Case cases[] = {{"1900-01-01 00:00:00.0", -2208988800.0},
                        {"2000-02-29T12:30:00Z", 951827400.0},
                        {"2000-3-1 0:0:0 +01:00", 951865200.0},
                        {"1582-10-15", -12219292800.0}};
  for (const Case& c : cases) {
    io_test::RawMetFile raw;
    raw.time_units = std::string("hours since ") + c.reference;
    raw.write(folder / "t.nc");
    EXPECT_EQ(read_met_file_info(folder / "t.nc").time_reference_instant, c.instant) << c.reference;
  }
  for (const char* bad : {"2001-02-29", "yesterday", "2000-13-01", "2000-01-01 25:00",
                          "2000-01-01 00:00 +99:99", "2000-01-01 00:00 +15"}) {
    io_test::RawMetFile raw;
    raw.time_units = std::string("hours since ") + bad;
    raw.write(folder / "t.nc");
    expect_invalid(folder / "t.nc", {"t.nc", "time reference"});
  }
  // Tens of thousands of blanks or digits after a date once overflowed the stack of the
  // regular expression: refused by length, naming it.
  for (const char tail : {' ', '7'}) {
    io_test::RawMetFile raw;
    raw.time_units = "hours since 2000-01-01" + std::string(50000, tail);
    raw.write(folder / "t.nc");
    expect_invalid(folder / "t.nc", {"t.nc", "time reference of 50010 characters"});
  }
}
