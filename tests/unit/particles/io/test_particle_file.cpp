// Particle snapshots: a round trip keeps pressure, time, ids, statuses and every quantity
// bitwise (lon/lat within 2 ulp after degrees), the file holds degrees, replacing a file is
// atomic, and bad files are refused naming the file.

#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <limits>
#include <random>
#include <string>

#include <netcdf.h>

#include "foehn/particles/io/particle_file.hpp"
#include "io_test_support.hpp"
#include "support/temp_dir.hpp"

namespace {

using namespace foehn::particles;
using namespace foehn::particles::io_test;
using foehn::ErrorCategory;

// Distance in units in the last place between two doubles of the same sign.
std::int64_t ulps_apart(double a, double b) {
  if (a == b) return 0;
  return std::abs(std::bit_cast<std::int64_t>(a) - std::bit_cast<std::int64_t>(b));
}

ParticleSet sample_parcels(std::size_t n) {
  ParticleSet set;
  std::mt19937_64 random(42);
  std::uniform_real_distribution<double> lon(-pi, pi), sin_lat(-1.0, 1.0), p(100.0, 101325.0);
  for (std::size_t i = 0; i < n; ++i) {
    const std::int64_t id = (std::int64_t{1} << 40) + static_cast<std::int64_t>(i * 7919) - 3;
    set.add(lon(random), std::asin(sin_lat(random)), p(random),
            3600.0 + 0.1 * static_cast<double>(i), id);
  }
  set.add(0.0, 0.5 * pi, 50.0, 1.0, -5);  // a pole and a negative id
  set.add(-pi, -0.5 * pi, 101325.0, 2.0, std::numeric_limits<std::int64_t>::max());
  set.status[1] = ParcelStatus::left_domain;
  set.add_quantity("mass", 1.0);
  set.add_quantity("path_horizontal_m");
  set.add_quantity("tracer");
  for (std::size_t i = 0; i < set.size(); ++i) {
    set.quantity("mass")[i] = std::exp(-static_cast<double>(i) / 7.0);
    set.quantity("path_horizontal_m")[i] = 1e6 / 3.0 * static_cast<double>(i);
    set.quantity("tracer")[i] = i % 3 == 0 ? std::numeric_limits<double>::quiet_NaN() : -1e-300;
  }
  return set;
}

void expect_round_trip(const ParticleSet& original, const ParticleSet& back) {
  ASSERT_EQ(back.size(), original.size());
  ASSERT_EQ(back.quantity_names(), original.quantity_names());
  for (std::size_t i = 0; i < original.size(); ++i) {
    EXPECT_LE(ulps_apart(back.longitude[i], original.longitude[i]), 2) << i;
    EXPECT_LE(ulps_apart(back.latitude[i], original.latitude[i]), 2) << i;
    EXPECT_EQ(std::bit_cast<std::uint64_t>(back.pressure[i]),
              std::bit_cast<std::uint64_t>(original.pressure[i]));
    EXPECT_EQ(std::bit_cast<std::uint64_t>(back.time[i]),
              std::bit_cast<std::uint64_t>(original.time[i]));
    EXPECT_EQ(back.id[i], original.id[i]);
    EXPECT_EQ(back.status[i], original.status[i]);
    for (const std::string& name : original.quantity_names()) {
      EXPECT_EQ(std::bit_cast<std::uint64_t>(back.quantity(name)[i]),
                std::bit_cast<std::uint64_t>(original.quantity(name)[i]))
          << name << " " << i;
    }
  }
}

TEST(ParticleFile, RoundTripKeepsEverything) {
  foehn::testing::TempDir folder;
  const ParticleSet parcels = sample_parcels(2000);
  const auto path = folder / "parcels.nc";
  write_particle_file(parcels, path);
  EXPECT_FALSE(std::filesystem::exists(path.string() + ".tmp"));
  expect_round_trip(parcels, read_particle_file(path));
}

// Ids that fit 32 bits are written as int and status as a signed byte, both CF 1.8 types, and
// the file says CF-1.8 (checkable by NCAR's cfchecker); an id beyond 32 bits makes the ids
// int64, which CF allows from 1.9, and the file says CF-1.11.
TEST(ParticleFile, FileHoldsDegreesAndTheNarrowestCfIdType) {
  foehn::testing::TempDir folder;
  for (const std::int64_t id : {std::int64_t{2147483647}, std::int64_t{1} << 62}) {
    SCOPED_TRACE(id);
    ParticleSet parcels;
    parcels.add(0.5 * pi, -0.25 * pi, 50000.0, 0.0, id);
    const auto path = folder / "one.nc";
    write_particle_file(parcels, path);
    int file = -1, variable = -1;
    nc(nc_open(path.c_str(), NC_NOWRITE, &file));
    double lon = 0.0, lat = 0.0;
    nc(nc_inq_varid(file, "lon", &variable));
    nc(nc_get_var_double(file, variable, &lon));
    nc(nc_inq_varid(file, "lat", &variable));
    nc(nc_get_var_double(file, variable, &lat));
    nc_type id_type = NC_NAT, status_type = NC_NAT;
    nc(nc_inq_varid(file, "id", &variable));
    nc(nc_inq_vartype(file, variable, &id_type));
    long long read_id = 0;
    nc(nc_get_var_longlong(file, variable, &read_id));
    nc(nc_inq_varid(file, "status", &variable));
    nc(nc_inq_vartype(file, variable, &status_type));
    std::size_t length = 0;
    nc(nc_inq_attlen(file, NC_GLOBAL, "Conventions", &length));
    std::string conventions(length, '\0');
    nc(nc_get_att_text(file, NC_GLOBAL, "Conventions", conventions.data()));
    nc(nc_close(file));
    EXPECT_NEAR(lon, 90.0, 1e-13);
    EXPECT_NEAR(lat, -45.0, 1e-13);
    EXPECT_EQ(read_id, id);
    EXPECT_EQ(status_type, NC_BYTE);
    EXPECT_EQ(id_type, id <= 2147483647 ? NC_INT : NC_INT64);
    EXPECT_EQ(conventions, id <= 2147483647 ? "CF-1.8" : "CF-1.11");
    EXPECT_EQ(read_particle_file(path).id, parcels.id);
  }
}

TEST(ParticleFile, EmptySetAndReplacement) {
  foehn::testing::TempDir folder;
  const auto path = folder / "parcels.nc";
  write_particle_file(sample_parcels(10), path);
  ParticleSet empty;
  empty.add_quantity("mass");
  write_particle_file(empty, path);  // replaces the 12-parcel file
  const ParticleSet back = read_particle_file(path);
  EXPECT_EQ(back.size(), 0u);
  EXPECT_TRUE(back.has_quantity("mass"));
}

TEST(ParticleFile, WriterRejectsBadSets) {
  foehn::testing::TempDir folder;
  ParticleSet repeated = sample_parcels(3);
  repeated.id[2] = repeated.id[0];
  expect_error([&] { write_particle_file(repeated, folder / "x.nc"); },
               ErrorCategory::invalid_input,
               {"x.nc", "parcel id " + std::to_string(repeated.id[0]), "more than once"});
  ParticleSet clash = sample_parcels(3);
  clash.add_quantity("lat");
  expect_error([&] { write_particle_file(clash, folder / "x.nc"); }, ErrorCategory::invalid_input,
               {"quantity name 'lat'"});
  ParticleSet nan_position = sample_parcels(3);
  nan_position.pressure[1] = std::numeric_limits<double>::quiet_NaN();
  expect_error([&] { write_particle_file(nan_position, folder / "x.nc"); },
               ErrorCategory::invalid_input, {"x.nc", "non-finite"});
  expect_error([&] { write_particle_file(sample_parcels(3), folder / "missing_dir" / "x.nc"); },
               ErrorCategory::io, {"missing_dir"});
  EXPECT_FALSE(std::filesystem::exists(folder / "x.nc"));
}

// A particle file written with raw netCDF calls; `break_it` changes it before the values go in.
struct RawParticleFile {
  std::vector<double> lon{10.0, 20.0, 30.0}, lat{0.0, 45.0, -45.0}, pressure{1e5, 5e4, 2e4},
      time{0.0, 0.0, 0.0};
  std::vector<long long> id{1, 2, 3};
  bool with_id = true;
  std::string time_units, calendar;  // attributes of time, when not empty
  int format = NC_NETCDF4;           // nc_create mode; 64-bit ids need netCDF-4 or CDF-5
  void write(const std::filesystem::path& path) const {
    int file = -1, dim = -1, var = -1;
    nc(nc_create(path.c_str(), NC_CLOBBER | format, &file));
    nc(nc_def_dim(file, "particle", lon.size(), &dim));
    const std::vector<std::pair<const char*, const std::vector<double>*>> doubles{
        {"lon", &lon}, {"lat", &lat}, {"pressure", &pressure}, {"time", &time}};
    std::vector<int> vars;
    for (const auto& [name, values] : doubles) {
      nc(nc_def_var(file, name, NC_DOUBLE, 1, &dim, &var));
      vars.push_back(var);
    }
    const auto text = [&](const char* name, const std::string& value) {
      if (!value.empty()) nc(nc_put_att_text(file, vars[3], name, value.size(), value.data()));
    };
    text("units", time_units);
    text("calendar", calendar);
    int id_var = -1;
    const bool int64 = format == NC_NETCDF4 || format == NC_64BIT_DATA;
    if (with_id) nc(nc_def_var(file, "id", int64 ? NC_INT64 : NC_INT, 1, &dim, &id_var));
    nc(nc_enddef(file));
    for (std::size_t v = 0; v < doubles.size(); ++v)
      nc(nc_put_var_double(file, vars[v], doubles[v].second->data()));
    if (with_id) nc(nc_put_var_longlong(file, id_var, id.data()));
    nc(nc_close(file));
  }
};

TEST(ParticleFile, HandMadeFileWithoutStatusReads) {
  foehn::testing::TempDir folder;
  RawParticleFile().write(folder / "initial.nc");
  const ParticleSet parcels = read_particle_file(folder / "initial.nc");
  ASSERT_EQ(parcels.size(), 3u);
  EXPECT_NEAR(parcels.longitude[2], pi / 6.0, 1e-15);
  EXPECT_EQ(parcels.status[2], ParcelStatus::active);
  EXPECT_TRUE(parcels.quantity_names().empty());
}

// A truncated netCDF-3 parcel file once read as zeros past the cut and was refused for a
// "repeated id 0"; cut in its last bytes it was even read with a wrong last id.
TEST(ParticleFile, TruncatedFilesAreReportedAsTruncated) {
  foehn::testing::TempDir folder;
  const auto whole = folder / "whole.nc", path = folder / "cut.nc";
  for (const int format : {0, NC_64BIT_OFFSET, NC_64BIT_DATA, NC_NETCDF4}) {
    RawParticleFile raw;
    raw.format = format;
    raw.id = {1001, 1002, 1003};
    raw.write(whole);
    EXPECT_EQ(read_particle_file(whole).id.back(), 1003);
    const auto size = std::filesystem::file_size(whole);
    for (const std::uintmax_t keep : cut_points(size)) {
      SCOPED_TRACE("format " + std::to_string(format) + ": " + std::to_string(keep) + " of " +
                   std::to_string(size) + " bytes");
      copy_truncated(whole, path, keep);
      expect_error([&] { read_particle_file(path); }, ErrorCategory::invalid_input,
                   {"cut.nc", "truncated"});
    }
  }
}

// Path lengths are the denominators of RHTD and RVTD: a negative one gave a wrong percentage.
TEST(ParticleFile, PathLengthsMustBeFiniteAndNotNegative) {
  foehn::testing::TempDir folder;
  for (const double bad :
       {-5.0, std::numeric_limits<double>::infinity(), std::numeric_limits<double>::quiet_NaN()}) {
    ParticleSet parcels = sample_parcels(3);
    parcels.quantity("path_horizontal_m")[2] = bad;
    write_particle_file(parcels, folder / "paths.nc");
    expect_error([&] { read_particle_file(folder / "paths.nc"); }, ErrorCategory::invalid_input,
                 {"paths.nc", "variable 'path_horizontal_m' is", "at particle 2",
                  "path lengths are finite and >= 0"});
  }
}

TEST(ParticleFile, ReaderRejectsBadFiles) {
  foehn::testing::TempDir folder;
  const auto path = folder / "bad.nc";
  std::ofstream(path) << "lon,lat\n1,2\n";
  expect_error([&] { read_particle_file(path); }, ErrorCategory::invalid_input,
               {"bad.nc", "not a readable netCDF file"});
  expect_error([&] { read_particle_file(folder / "absent.nc"); }, ErrorCategory::io, {"absent.nc"});

  RawParticleFile no_id;
  no_id.with_id = false;
  no_id.write(path);
  expect_error([&] { read_particle_file(path); }, ErrorCategory::invalid_input,
               {"bad.nc", "no variable 'id'"});
  RawParticleFile repeated;
  repeated.id = {4, 9, 4};
  repeated.write(path);
  expect_error([&] { read_particle_file(path); }, ErrorCategory::invalid_input,
               {"bad.nc", "parcel id 4 occurs more than once"});
  RawParticleFile not_finite;
  not_finite.pressure[1] = std::numeric_limits<double>::infinity();
  not_finite.write(path);
  expect_error([&] { read_particle_file(path); }, ErrorCategory::invalid_input,
               {"bad.nc", "'pressure' is not finite at particle 1"});
  // A negative pressure once crashed foehn-trajectories in transport_step (log of p).
  RawParticleFile negative_pressure;
  negative_pressure.pressure[2] = -5.0;
  negative_pressure.write(path);
  expect_error([&] { read_particle_file(path); }, ErrorCategory::invalid_input,
               {"bad.nc", "pressure -5 Pa; pressures must be positive"});
  RawParticleFile off_sphere;
  off_sphere.lat[0] = 91.0;
  off_sphere.write(path);
  expect_error([&] { read_particle_file(path); }, ErrorCategory::invalid_input,
               {"bad.nc", "latitude 91"});
  // A longitude of 1e300 once ran, wrapped into garbage; one past a full turn is refused.
  RawParticleFile past_a_turn;
  past_a_turn.lon[1] = -1000.5;
  past_a_turn.write(path);
  expect_error([&] { read_particle_file(path); }, ErrorCategory::invalid_input,
               {"bad.nc", "longitude -1000.5 of particle 1 lies outside [-360, 360]"});
  for (const double huge : {1e300, -1e300}) {  // the values that once ran
    past_a_turn.lon[1] = huge;
    past_a_turn.write(path);
    expect_error([&] { read_particle_file(path); }, ErrorCategory::invalid_input,
                 {"bad.nc", "of particle 1 lies outside [-360, 360]"});
  }
  // The met file of another test is not a particle file.
  RawMetFile().write(path);
  expect_error([&] { read_particle_file(path); }, ErrorCategory::invalid_input,
               {"bad.nc", "no dimension 'particle'"});
}

// The snapshot is a CF collection of points: what a CF reader needs is in the file.
TEST(ParticleFile, CarriesCfMetadata) {
  foehn::testing::TempDir folder;
  ParticleSet parcels = sample_parcels(5);
  write_particle_file(parcels, folder / "cf.nc", {"seconds since 1900-01-01 00:00:00"});
  const std::filesystem::path path = folder / "cf.nc";
  int file = -1, time = -1, pressure = -1, mass = -1;
  nc(nc_open(path.c_str(), NC_NOWRITE, &file));
  const auto text = [&](int variable, const char* name) {
    std::size_t length = 0;
    if (nc_inq_attlen(file, variable, name, &length) != NC_NOERR) return std::string("<none>");
    std::string value(length, '\0');
    nc(nc_get_att_text(file, variable, name, value.data()));
    return value;
  };
  nc(nc_inq_varid(file, "time", &time));
  nc(nc_inq_varid(file, "pressure", &pressure));
  nc(nc_inq_varid(file, "mass", &mass));
  EXPECT_EQ(text(NC_GLOBAL, "Conventions"), "CF-1.11");  // ids of 2^40: int64, CF 1.9 on
  EXPECT_EQ(text(NC_GLOBAL, "featureType"), "point");
  EXPECT_EQ(text(time, "units"), "seconds since 1900-01-01 00:00:00");
  EXPECT_EQ(text(time, "standard_name"), "time");
  EXPECT_EQ(text(pressure, "standard_name"), "air_pressure");
  EXPECT_EQ(text(mass, "coordinates"), "time lat lon pressure");
  EXPECT_NE(text(mass, "long_name"), "<none>");
  // Every quantity is named; those Foehn computes carry their units, a user's its name.
  int path_length = -1, tracer = -1;
  nc(nc_inq_varid(file, "path_horizontal_m", &path_length));
  nc(nc_inq_varid(file, "tracer", &tracer));
  EXPECT_EQ(text(path_length, "units"), "m");
  EXPECT_EQ(text(path_length, "long_name"), "horizontal path length travelled by the parcel");
  EXPECT_EQ(text(tracer, "long_name"), "tracer");
  EXPECT_EQ(text(tracer, "units"), "<none>");
  EXPECT_EQ(text(NC_GLOBAL, "title"), "Foehn air parcels (point)");
  EXPECT_NE(text(NC_GLOBAL, "history"), "<none>");
  nc(nc_close(file));
  ParticleFileTime clock;
  const ParticleSet back = read_particle_file(path, &clock);
  EXPECT_EQ(clock.reference, "1900-01-01 00:00:00");
  EXPECT_EQ(clock.reference_instant, -2208988800.0);
  EXPECT_EQ(back.time, parcels.time);
}

// Times in other units are converted to seconds; the reference is reported, not applied.
TEST(ParticleFile, ReadsCfTimeUnits) {
  foehn::testing::TempDir folder;
  RawParticleFile raw;
  raw.time = {0.0, 1.5, 24.0};
  raw.time_units = "hours since 2000-01-01T00:00:00Z";
  raw.calendar = "proleptic_gregorian";
  raw.write(folder / "hours.nc");
  ParticleFileTime clock;
  const ParticleSet parcels = read_particle_file(folder / "hours.nc", &clock);
  EXPECT_EQ(parcels.time, (std::vector<double>{0.0, 5400.0, 86400.0}));
  EXPECT_EQ(clock.reference_instant, 946684800.0);

  raw.calendar = "noleap";
  raw.write(folder / "noleap.nc");
  expect_error([&] { (void)read_particle_file(folder / "noleap.nc"); },
               ErrorCategory::invalid_input, {"noleap.nc", "calendar 'noleap'"});
  raw.calendar.clear();
  raw.time_units = "fortnights";
  raw.write(folder / "fortnights.nc");
  expect_error([&] { (void)read_particle_file(folder / "fortnights.nc"); },
               ErrorCategory::invalid_input, {"fortnights.nc", "time units 'fortnights'"});
  raw.time_units = "days since 2000-13-01";
  raw.write(folder / "month13.nc");
  expect_error([&] { (void)read_particle_file(folder / "month13.nc"); },
               ErrorCategory::invalid_input, {"month13.nc", "2000-13-01"});
  raw.time_units = "days";
  raw.time = {0.0, 1e306, 0.0};
  raw.write(folder / "overflow.nc");
  expect_error([&] { (void)read_particle_file(folder / "overflow.nc"); },
               ErrorCategory::invalid_input, {"overflow.nc", "not finite in seconds"});
}

TEST(ParticleFile, WriterRefusesTimeUnitsOtherThanSeconds) {
  foehn::testing::TempDir folder;
  for (const char* units : {"hours since 2000-01-01", "seconds since yesterday", "parsecs"}) {
    expect_error([&] { write_particle_file(sample_parcels(2), folder / "x.nc", {units}); },
                 ErrorCategory::invalid_input, {"x.nc"});
  }
  EXPECT_FALSE(std::filesystem::exists(folder / "x.nc"));
}

}  // namespace
