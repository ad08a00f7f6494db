// Met files: what write_met_file writes, read_met_file_info / read_met_wind read back exactly
// (both latitude orders, Pa and hPa, float and double, omega and w); a file written with raw
// netCDF-C calls in ERA5's conventions (north-to-south float latitudes, int hPa levels, hours
// since 1900, float winds with _FillValue, w) reads as the same grid, rows flipped; pairs of
// times across two files make a MetGrid.

#include <gtest/gtest.h>

#include <filesystem>

#include "foehn/particles/io/met_netcdf.hpp"
#include "io_test_support.hpp"
#include "support/temp_dir.hpp"

namespace {

using namespace foehn::particles;
using namespace foehn::particles::io_test;

void expect_same_geometry(const MetGridGeometry& a, const MetGridGeometry& b) {
  EXPECT_EQ(a.nlon, b.nlon);
  EXPECT_EQ(a.nlat, b.nlat);
  EXPECT_NEAR(a.first_longitude, b.first_longitude, 1e-12);
  EXPECT_NEAR(a.first_latitude, b.first_latitude, 1e-12);
  EXPECT_NEAR(a.latitude_spacing, b.latitude_spacing, 1e-12);
  ASSERT_EQ(a.pressure_levels.size(), b.pressure_levels.size());
  for (std::size_t k = 0; k < a.pressure_levels.size(); ++k)
    EXPECT_EQ(a.pressure_levels[k], b.pressure_levels[k]) << k;
}

void expect_same_wind(const WindLevel& a, const WindLevel& b) {
  ASSERT_EQ(a.u.size(), b.u.size());
  for (std::size_t p = 0; p < a.u.size(); ++p) {
    ASSERT_EQ(a.u[p], b.u[p]) << "point " << p;
    ASSERT_EQ(a.v[p], b.v[p]) << "point " << p;
    ASSERT_EQ(a.omega[p], b.omega[p]) << "point " << p;
  }
}

struct WriterCase {
  const char* name;
  MetFileWriteOptions options;
};

// gtest would otherwise print the parameter's bytes, padding included.
void PrintTo(const WriterCase& writer_case, std::ostream* out) {
  *out << writer_case.name;
}

class MetWriterRoundTrip : public ::testing::TestWithParam<WriterCase> {};

TEST_P(MetWriterRoundTrip, ReadsBackExactly) {
  foehn::testing::TempDir folder;
  const MetGridGeometry g = small_geometry();
  const std::vector<double> times{3600.0, 7200.0, 14400.0};
  const std::vector<WindLevel> winds{small_wind(g, 0), small_wind(g, 1), small_wind(g, 2)};
  const auto path = folder / "met.nc";
  write_met_file(path, g, times, winds, GetParam().options);
  EXPECT_FALSE(std::filesystem::exists(path.string() + ".tmp"));

  const MetFileInfo info = read_met_file_info(path);
  expect_same_geometry(info.geometry, g);
  EXPECT_EQ(info.times, times);
  EXPECT_EQ(info.latitude_north_to_south, GetParam().options.latitude_north_to_south);
  EXPECT_EQ(info.vertical_velocity, GetParam().options.vertical_velocity);
  for (std::size_t k = 0; k < times.size(); ++k) expect_same_wind(read_met_wind(info, k), winds[k]);

  const MetGrid grid = read_met_grid(path, 1);
  EXPECT_EQ(grid.geometry().t0, 7200.0);
  EXPECT_EQ(grid.geometry().t1, 14400.0);
  EXPECT_EQ(grid.interleaved_wind()[0], winds[1].u[0]);
  EXPECT_EQ(grid.interleaved_wind()[3 * g.point_count() + 2], winds[2].omega[0]);
}

MetFileWriteOptions options(MetValueType type, bool north_to_south, bool hpa, const char* w,
                            const char* time_units = "seconds") {
  MetFileWriteOptions o;
  o.value_type = type;
  o.latitude_north_to_south = north_to_south;
  o.pressure_in_hpa = hpa;
  o.vertical_velocity = w;
  o.time_units = time_units;
  return o;
}

INSTANTIATE_TEST_SUITE_P(
    Layouts, MetWriterRoundTrip,
    ::testing::Values(
        WriterCase{"DoubleSouthToNorthPa", options(MetValueType::float64, false, false, "omega")},
        WriterCase{"DoubleNorthToSouthPa", options(MetValueType::float64, true, false, "omega")},
        WriterCase{"FloatSouthToNorthHpa", options(MetValueType::float32, false, true, "w")},
        WriterCase{"FloatNorthToSouthHpaHours",
                   options(MetValueType::float32, true, true, "w", "hours since 2000-01-01")}),
    [](const ::testing::TestParamInfo<WriterCase>& info) { return std::string(info.param.name); });

TEST(MetFile, Era5LikeFileWrittenWithRawNetcdfCalls) {
  foehn::testing::TempDir folder;
  const auto path = folder / "era5_like.nc";
  const RawMetFile raw;
  raw.write(path);

  const MetFileInfo info = read_met_file_info(path);
  const MetGridGeometry expected = small_geometry();
  EXPECT_EQ(info.geometry.nlon, 8);
  EXPECT_EQ(info.geometry.nlat, 5);
  EXPECT_NEAR(info.geometry.first_longitude, 0.0, 1e-15);
  EXPECT_NEAR(info.geometry.first_latitude, -0.5 * pi, 1e-15);
  EXPECT_NEAR(info.geometry.latitude_spacing, 0.25 * pi, 1e-15);
  EXPECT_EQ(info.geometry.pressure_levels, expected.pressure_levels);
  EXPECT_TRUE(info.latitude_north_to_south);
  EXPECT_EQ(info.vertical_velocity, "w");
  EXPECT_EQ(info.time_reference, "1900-01-01 00:00:00.0");
  EXPECT_EQ(info.times, (std::vector<double>{3600.0, 25200.0}));

  const WindLevel wind = read_met_wind(info, 1);
  const std::size_t nlat = 5, nlon = 8;
  for (std::size_t k = 0; k < 3; ++k)
    for (std::size_t j = 0; j < nlat; ++j)      // grid row j (south to north) ...
      for (std::size_t i = 0; i < nlon; ++i) {  // ... is the file's row nlat - 1 - j
        const std::size_t point = (k * nlat + j) * nlon + i;
        ASSERT_EQ(wind.u[point], wind_value(0, 1, k, nlat - 1 - j, i)) << k << " " << j << " " << i;
        ASSERT_EQ(wind.v[point], wind_value(1, 1, k, nlat - 1 - j, i));
        ASSERT_EQ(wind.omega[point], wind_value(2, 1, k, nlat - 1 - j, i));
      }
}

TEST(MetFile, PairAcrossTwoFiles) {
  foehn::testing::TempDir folder;
  const MetGridGeometry g = small_geometry();
  write_met_file(folder / "a.nc", g, {0.0, 3600.0}, {small_wind(g, 0), small_wind(g, 1)});
  write_met_file(folder / "b.nc", g, {7200.0}, {small_wind(g, 2)});
  const MetFileInfo a = read_met_file_info(folder / "a.nc");
  const MetFileInfo b = read_met_file_info(folder / "b.nc");
  const MetGrid grid = read_met_grid(a, 1, b, 0);
  EXPECT_EQ(grid.geometry().t0, 3600.0);
  EXPECT_EQ(grid.geometry().t1, 7200.0);
  const std::size_t points = g.point_count();
  EXPECT_EQ(grid.interleaved_wind()[3 * 7], small_wind(g, 1).u[7]);
  EXPECT_EQ(grid.interleaved_wind()[3 * (points + 7) + 1], small_wind(g, 2).v[7]);
  // Backwards in time is refused.
  expect_error([&] { read_met_grid(b, 0, a, 0); }, foehn::ErrorCategory::invalid_input,
               {"do not increase", "b.nc"});
}

TEST(MetFile, WriterReplacesAnExistingFileAtomically) {
  foehn::testing::TempDir folder;
  const MetGridGeometry g = small_geometry();
  const auto path = folder / "met.nc";
  write_met_file(path, g, {0.0}, {small_wind(g, 0)});
  write_met_file(path, g, {10.0, 20.0}, {small_wind(g, 1), small_wind(g, 2)});
  EXPECT_EQ(read_met_file_info(path).times, (std::vector<double>{10.0, 20.0}));
  EXPECT_FALSE(std::filesystem::exists(path.string() + ".tmp"));
}

// What write_met_file writes is a CF file: every variable named, the winds in CF units.
TEST(MetFile, WriterNamesEveryVariableTheCfWay) {
  foehn::testing::TempDir folder;
  const MetGridGeometry g = small_geometry();
  const auto path = folder / "met.nc";
  write_met_file(path, g, {0.0}, {small_wind(g, 0)}, {.vertical_velocity = "w"});
  int file = -1;
  ASSERT_EQ(nc_open(path.c_str(), NC_NOWRITE, &file), NC_NOERR);
  const auto text = [&](const char* variable_name, const char* name) {
    int variable = NC_GLOBAL;
    if (variable_name != nullptr && nc_inq_varid(file, variable_name, &variable) != NC_NOERR)
      return std::string("<no variable>");
    std::size_t length = 0;
    if (nc_inq_attlen(file, variable, name, &length) != NC_NOERR) return std::string("<none>");
    std::string value(length, '\0');
    nc_get_att_text(file, variable, name, value.data());
    return value;
  };
  EXPECT_EQ(text(nullptr, "Conventions"), "CF-1.8");
  EXPECT_NE(text(nullptr, "title"), "<none>");
  EXPECT_EQ(text("lon", "standard_name"), "longitude");
  EXPECT_EQ(text("lat", "standard_name"), "latitude");
  EXPECT_EQ(text("lev", "standard_name"), "air_pressure");
  EXPECT_EQ(text("lev", "positive"), "down");
  EXPECT_EQ(text("time", "standard_name"), "time");
  EXPECT_EQ(text("u", "standard_name"), "eastward_wind");
  EXPECT_EQ(text("v", "units"), "m s-1");
  // ERA5's "w" is the pressure velocity, as "omega" is.
  EXPECT_EQ(text("w", "standard_name"), "lagrangian_tendency_of_air_pressure");
  EXPECT_EQ(text("w", "units"), "Pa s-1");
  nc_close(file);
  EXPECT_EQ(read_met_file_info(path).vertical_velocity, "w");
}

TEST(MetFile, WriterRejectsBadArguments) {
  foehn::testing::TempDir folder;
  const MetGridGeometry g = small_geometry();
  const auto path = folder / "met.nc";
  expect_error(
      [&] {
        write_met_file(path, g, {0.0, 1.0}, {small_wind(g, 0)});
      },
      foehn::ErrorCategory::invalid_input, {"met.nc", "2 times for 1 wind"});
  expect_error(
      [&] {
        write_met_file(path, g, {1.0, 1.0}, {small_wind(g, 0), small_wind(g, 1)});
      },
      foehn::ErrorCategory::invalid_input, {"strictly increasing"});
  WindLevel short_wind = small_wind(g, 0);
  short_wind.v.pop_back();
  expect_error([&] { write_met_file(path, g, {0.0}, {short_wind}); },
               foehn::ErrorCategory::invalid_input, {"119 values", "120"});
  expect_error(
      [&] { write_met_file(folder / "no_such_dir" / "met.nc", g, {0.0}, {small_wind(g, 0)}); },
      foehn::ErrorCategory::io, {"no_such_dir"});
  EXPECT_FALSE(std::filesystem::exists(path));
}

}  // namespace
