// The checks foehn-trajectories and the Python package share: a met grid's horizontal axes from
// coordinate values in degrees (met files) or radians (Python), the run inside the met times,
// parcel positions on the sphere, decay times >= 0.
#include <gtest/gtest.h>

#include <numbers>
#include <string>
#include <tuple>
#include <vector>

#include "foehn/particles/met_axes.hpp"
#include "foehn/particles/met_grid.hpp"
#include "foehn/particles/transport_checks.hpp"
#include "foehn/runtime/error.hpp"

namespace foehn::particles {
namespace {

using std::numbers::pi;

std::vector<double> regular(double first, double step, int n) {
  std::vector<double> values;
  for (int i = 0; i < n; ++i) values.push_back(first + i * step);
  return values;
}

std::vector<double> to_radians(std::vector<double> degrees) {
  for (double& d : degrees) d *= pi / 180.0;
  return degrees;
}

void expect_refused(const auto& call, const std::string& fragment) {
  try {
    call();
    ADD_FAILURE() << "accepted; expected an error with '" << fragment << "'";
  } catch (const Error& e) {
    EXPECT_EQ(e.category(), ErrorCategory::invalid_input);
    EXPECT_NE(std::string(e.what()).find(fragment), std::string::npos) << e.what();
  }
}

TEST(HorizontalAxes, DegreesAndRadiansDescribeTheSameGrid) {
  const std::vector<double> lon = regular(-180.0, 2.5, 144), lat = regular(20.0, -0.5, 41);
  const HorizontalAxes d = describe_horizontal_axes(lon, lat, AngleUnit::degrees, "file.nc");
  const HorizontalAxes r =
      describe_horizontal_axes(to_radians(lon), to_radians(lat), AngleUnit::radians, "MetGrid");
  EXPECT_EQ(d.nlon, 144);
  EXPECT_EQ(d.nlat, 41);
  EXPECT_TRUE(d.latitude_north_to_south && r.latitude_north_to_south);
  EXPECT_NEAR(d.first_longitude, -pi, 1e-15);
  EXPECT_NEAR(d.first_latitude, 0.0, 1e-15);  // the southernmost of a north-to-south band
  EXPECT_NEAR(d.latitude_spacing, 0.5 * pi / 180.0, 1e-15);
  EXPECT_NEAR(r.first_longitude, d.first_longitude, 1e-15);
  EXPECT_NEAR(r.first_latitude, d.first_latitude, 1e-15);
  EXPECT_NEAR(r.latitude_spacing, d.latitude_spacing, 1e-15);
}

TEST(HorizontalAxes, RegionalOrIrregularLongitudesAreRefused) {
  const std::vector<double> lat = regular(-80.0, 10.0, 17);
  expect_refused(
      [&] { describe_horizontal_axes(regular(0.0, 1.0, 21), lat, AngleUnit::degrees, "f"); },
      "covering 360 degrees");
  expect_refused(
      [&] {
        describe_horizontal_axes(to_radians(regular(0.0, 1.0, 21)), to_radians(lat),
                                 AngleUnit::radians, "MetGrid");
      },
      "MetGrid: longitudes are not 21 regular increasing points covering 2 pi radians");
  // Degrees where radians are expected: 0, 2, 4, ... are no 180 points around the globe.
  expect_refused(
      [&] { describe_horizontal_axes(regular(0.0, 2.0, 180), lat, AngleUnit::radians, "g"); },
      "covering 2 pi radians");
  std::vector<double> bumped = regular(0.0, 2.0, 180);
  bumped[7] += 0.5;
  expect_refused([&] { describe_horizontal_axes(bumped, lat, AngleUnit::degrees, "f"); },
                 "lon[7] = 14.5");
  expect_refused(
      [&] { describe_horizontal_axes(regular(0.0, 2.0, 181), lat, AngleUnit::degrees, "f"); },
      "repeats the first");
}

TEST(HorizontalAxes, IrregularLatitudesAreRefused) {
  const std::vector<double> lon = regular(0.0, 10.0, 36);
  expect_refused(
      [&] {
        describe_horizontal_axes(lon, std::vector<double>{0.0, 1.0, 3.0, 4.0}, AngleUnit::degrees,
                                 "f");
      },
      "latitudes are not regularly spaced");
  expect_refused(
      [&] {
        describe_horizontal_axes(lon, std::vector<double>{5.0, 5.0}, AngleUnit::degrees, "f");
      },
      "latitudes are not regularly spaced");
  expect_refused(
      [&] { describe_horizontal_axes(lon, std::vector<double>{5.0}, AngleUnit::degrees, "f"); },
      "at least 2 latitudes");
}

TEST(TransportChecks, TheRunMustLieWithinTheMetTimes) {
  MetGridGeometry g;
  g.t0 = 0.0;
  g.t1 = 3600.0;
  require_clock_within_met_times({0.0, 60.0, 60, 0}, g);      // ends on t1
  require_clock_within_met_times({3600.0, -60.0, 60, 0}, g);  // backwards to t0
  expect_refused(
      [&] {
        require_clock_within_met_times({0.0, 60.0, 61, 0}, g);
      },
      "leaves the met grid's times [0, 3600] s");
  expect_refused([&] { require_clock_within_met_times({-1.0, 1.0, 1, 0}, g); }, "met grid's times");
  expect_refused(
      [&] {
        require_clock_within_met_times({60.0, -60.0, 2, 0}, g);
      },
      "met grid's times");
}

TEST(TransportChecks, PositionsMustLieOnTheSphereInRadians) {
  ParticleSet ok;
  ok.add(-2.0 * pi, 0.5 * pi, 5e4, 0.0, 1);
  ok.add(2.0 * pi, -0.5 * pi, 5e4, 0.0, 2);
  require_geographic_positions(ok);
  for (const auto& [lon, lat, fragment] : std::vector<std::tuple<double, double, std::string>>{
           {0.0, 40.0, "latitude 40"},
           {0.0, -1.6, "latitude -1.6"},
           {1e300, 0.0, "longitude 1.0000000000000001e+300"},
           {-7.0, 0.0, "longitude -7"}}) {
    ParticleSet bad;
    bad.add(lon, lat, 5e4, 0.0, 42);
    expect_refused([&] { require_geographic_positions(bad); }, "parcel 42: " + fragment);
  }
}

TEST(TransportChecks, NegativeDecayTimesAreRefused) {
  TransportSettings settings;
  settings.physics.decay_time_troposphere = -10.0;
  expect_refused([&] { settings.validate(); }, "decay times must be finite and >= 0");
  settings.physics.decay_time_troposphere = 0.0;
  settings.physics.decay_time_stratosphere = -1.0;
  expect_refused([&] { settings.validate(); }, "decay times");
  settings.physics.decay_time_stratosphere = 0.0;
  settings.validate();
}

}  // namespace
}  // namespace foehn::particles
