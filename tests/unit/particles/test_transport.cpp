// Parcel physics beyond advection, CPU reference: decay against exp(-t/tau), diffusion-only
// ensemble variance 2 D t, the Langevin subgrid winds' stationary variance (f sigma)^2,
// domain events, vertical motion of the solid-body field, and bad settings.
#include <gtest/gtest.h>

#include <cmath>
#include <numbers>
#include <vector>

#include "foehn/particles/synthetic.hpp"
#include "foehn/particles/transport.hpp"
#include "foehn/runtime/error.hpp"

namespace foehn::particles {
namespace {

using std::numbers::pi;

MetGrid calm_grid(std::vector<double> levels, int nlat = 19, double first_lat = -0.5 * pi,
                  double spacing = pi / 18.0) {
  MetGridGeometry g;
  g.nlon = 36;
  g.nlat = nlat;
  g.first_latitude = first_lat;
  g.latitude_spacing = spacing;
  g.pressure_levels = std::move(levels);
  g.t0 = 0.0;
  g.t1 = 3600.0;
  const std::size_t points = g.point_count();
  const WindLevel still{std::vector<double>(points, 0.0), std::vector<double>(points, 0.0),
                        std::vector<double>(points, 0.0)};
  return MetGrid(g, still, still);
}

double sample_variance(const std::vector<double>& x) {
  double mean = 0.0;
  for (double v : x) mean += v;
  mean /= static_cast<double>(x.size());
  double sum = 0.0;
  for (double v : x) sum += (v - mean) * (v - mean);
  return sum / static_cast<double>(x.size() - 1);
}

TEST(Transport, DecayFollowsExponentialInEachRegion) {
  const MetGrid grid = calm_grid({100.0, 100000.0});
  ParticleSet set;
  set.add_quantity("mass", 2.5);
  set.add(0.3, 0.2, 80000.0, 0.0, 1);  // troposphere (tropopause at 200 hPa)
  set.add(0.3, 0.2, 5000.0, 0.0, 2);   // stratosphere
  TransportSettings settings;
  settings.physics.decay_time_troposphere = 259200.0;
  settings.physics.decay_time_stratosphere = 86400.0;
  const double dt = 180.0;
  for (int call = 0; call < 5; ++call) {
    transport(set, grid, TransportClock{call * 20 * dt, dt, 20, call * 20}, settings);
  }
  const double t = 100 * dt;
  EXPECT_NEAR(set.quantity("mass")[0], 2.5 * std::exp(-t / 259200.0), 1e-13 * 2.5);
  EXPECT_NEAR(set.quantity("mass")[1], 2.5 * std::exp(-t / 86400.0), 1e-13 * 2.5);
  EXPECT_DOUBLE_EQ(set.time[0], t);
}

TEST(Transport, DiffusionVarianceGrowsAsTwoDt) {
  const MetGrid grid = calm_grid({100.0, 100000.0});
  const std::size_t n = 20000;
  ParticleSet tropo, strato;
  for (std::size_t i = 0; i < n; ++i) {
    tropo.add(0.0, 0.0, 80000.0, 0.0, static_cast<std::int64_t>(i));
    strato.add(0.0, 0.0, 5000.0, 0.0, static_cast<std::int64_t>(i));
  }
  TransportSettings settings;
  settings.physics.diffusion = true;
  settings.physics.seed = 7;
  const double dt = 180.0;
  const int steps = 100;
  transport(tropo, grid, TransportClock{0.0, dt, steps, 0}, settings);
  transport(strato, grid, TransportClock{0.0, dt, steps, 0}, settings);
  const double t = steps * dt;
  std::vector<double> east(n), north(n), z(n);
  for (std::size_t i = 0; i < n; ++i) {
    east[i] = earth_radius * tropo.longitude[i];  // at the equator, small displacements
    north[i] = earth_radius * tropo.latitude[i];
    z[i] = log_pressure_height(strato.pressure[i]);
  }
  // Sample variances of N normal draws have relative standard error sqrt(2/N) = 1%.
  const double horizontal = 2.0 * 50.0 * t, vertical = 2.0 * 0.1 * t;
  EXPECT_NEAR(sample_variance(east), horizontal, 0.05 * horizontal);
  EXPECT_NEAR(sample_variance(north), horizontal, 0.05 * horizontal);
  EXPECT_NEAR(sample_variance(z), vertical, 0.05 * vertical);
  // Defaults: no vertical diffusion in the troposphere, no horizontal in the stratosphere.
  for (std::size_t i = 0; i < n; ++i) {
    ASSERT_EQ(tropo.pressure[i], 80000.0) << i;
    ASSERT_EQ(strato.longitude[i], 0.0) << i;
    ASSERT_EQ(strato.latitude[i], 0.0) << i;
  }
}

TEST(Transport, SubgridWindsReachTheLangevinStationaryVariance) {
  // u alternates +U / -U in longitude, so the 16 values around any point have mean 0 and
  // standard deviation U; v and omega are zero, so v' and omega' must stay zero.
  MetGridGeometry g = make_global_geometry(36, 19, {10000.0, 100000.0}, 0.0, 3600.0);
  const double U = 10.0;
  WindLevel level{std::vector<double>(g.point_count()), std::vector<double>(g.point_count(), 0.0),
                  std::vector<double>(g.point_count(), 0.0)};
  for (std::size_t p = 0; p < g.point_count(); ++p) level.u[p] = (p % 2 == 0) ? U : -U;
  const MetGrid grid(g, level, level);
  ParticleSet set;
  const std::size_t n = 20000;
  for (std::size_t i = 0; i < n; ++i)
    set.add(0.1 + 1e-4 * static_cast<double>(i % 100), 0.3, 50000.0, 0.0,
            static_cast<std::int64_t>(i));
  TransportSettings settings;
  settings.physics.subgrid_wind = true;
  transport(set, grid, TransportClock{0.0, 180.0, 200, 0}, settings);  // r = 0.9, r^200 ~ 0
  const double expected = 0.16 * U * 0.16 * U;
  EXPECT_NEAR(sample_variance(set.quantity("subgrid_u")), expected, 0.05 * expected);
  for (std::size_t i = 0; i < n; ++i) {
    ASSERT_EQ(set.quantity("subgrid_v")[i], 0.0);
    ASSERT_EQ(set.quantity("subgrid_omega")[i], 0.0);
  }
}

TEST(Transport, ParcelsLeavingARegionalGridAreFrozenAndCounted) {
  // Latitudes -30..30 degrees, a uniform 20 m/s northward wind: parcels north of ~27 degrees
  // leave within a day.
  MetGridGeometry g;
  g.nlon = 36;
  g.nlat = 7;
  g.first_latitude = -pi / 6.0;
  g.latitude_spacing = pi / 18.0;
  g.pressure_levels = {20000.0, 100000.0};
  g.t0 = 0.0;
  g.t1 = 86400.0;
  const std::size_t points = g.point_count();
  const WindLevel north{std::vector<double>(points, 0.0), std::vector<double>(points, 20.0),
                        std::vector<double>(points, 0.0)};
  const MetGrid grid(g, north, north);
  ParticleSet set;
  set.add(0.0, 0.0, 50000.0, 0.0, 1);
  set.add(0.0, 28.0 * pi / 180.0, 50000.0, 0.0, 2);
  set.add(1.0, 29.0 * pi / 180.0, 50000.0, 0.0, 3);
  const TransportReport report =
      transport(set, grid, TransportClock{0.0, 600.0, 144, 0}, TransportSettings{});
  EXPECT_EQ(report.parcels, 3u);
  EXPECT_EQ(report.left_domain, 2u);
  EXPECT_EQ(report.active, 1u);
  EXPECT_EQ(set.status[0], ParcelStatus::active);
  EXPECT_EQ(set.status[1], ParcelStatus::left_domain);
  EXPECT_GT(set.latitude[1], pi / 6.0);
  EXPECT_LT(set.time[1], 86400.0);  // frozen at its exit time
  const ParticleSet frozen = set;
  const TransportReport again =
      transport(set, grid, TransportClock{86400.0, 600.0, 10, 144}, TransportSettings{});
  EXPECT_EQ(again.left_domain, 0u);
  EXPECT_EQ(set.latitude[1], frozen.latitude[1]);
  EXPECT_EQ(set.time[2], frozen.time[2]);
}

TEST(Transport, PressureIsClampedIntoTheMetLevelsAndCounted) {
  MetGridGeometry g = make_global_geometry(36, 19, {10000.0, 100000.0}, 0.0, 3600.0);
  const std::size_t points = g.point_count();
  const WindLevel rising{std::vector<double>(points, 0.0), std::vector<double>(points, 0.0),
                         std::vector<double>(points, -10.0)};  // -10 Pa/s
  const MetGrid grid(g, rising, rising);
  ParticleSet set;
  set.add(0.0, 0.0, 12000.0, 0.0, 1);
  const TransportReport report =
      transport(set, grid, TransportClock{0.0, 100.0, 10, 0}, TransportSettings{});
  EXPECT_EQ(set.pressure[0], 10000.0);
  EXPECT_EQ(report.vertical_clamps, 8u);  // reaches the top after 2 steps, clamped 8 times
}

// A parcel above the top level (21 Pa, the top at 200 hPa) under strong ascent, with every
// physics option on: the midpoint step took its pressure below zero, the log-pressure height
// of that was NaN, and the NaN longitude it gave crashed foehn-trajectories in make_stencil.
TEST(Transport, AParcelAboveTheTopUnderStrongAscentStaysFiniteAndInside) {
  MetGridGeometry g = make_global_geometry(36, 19, {20000.0, 50000.0, 100000.0}, 0.0, 3600.0);
  const std::size_t points = g.point_count();
  const WindLevel rising{std::vector<double>(points, 20.0), std::vector<double>(points, 5.0),
                         std::vector<double>(points, -1000.0)};  // Pa/s, the readers' limit
  const MetGrid grid(g, rising, rising);
  ParticleSet set;
  set.add(0.3, 0.2, 21.0, 0.0, 1);
  set.add(0.3, 0.2, 20100.0, 0.0, 2);
  TransportSettings settings;
  settings.physics.decay_time_troposphere = 86400.0;
  settings.decaying_quantities = {"mass"};
  set.add_quantity("mass", 1.0);
  for (Integrator scheme : {Integrator::euler, Integrator::midpoint, Integrator::rk4}) {
    settings.physics.scheme = scheme;
    ParticleSet run = set;
    const TransportReport report = transport(run, grid, TransportClock{0.0, 600.0, 6, 0}, settings);
    for (std::size_t i = 0; i < run.size(); ++i) {
      EXPECT_TRUE(std::isfinite(run.longitude[i]) && std::isfinite(run.latitude[i])) << i;
      EXPECT_GE(run.pressure[i], 20000.0) << i;
      EXPECT_LE(run.pressure[i], 100000.0) << i;
      EXPECT_TRUE(std::isfinite(run.quantity("mass")[i])) << i;
    }
    EXPECT_GE(report.vertical_clamps, 6u);  // the first parcel at least, every step
  }
}

TEST(Transport, SolidBodyVerticalMotionRaisesLogPressureHeightLinearly) {
  const double w0 = 0.01;  // m/s
  const MetGrid grid = make_solid_body_grid(
      make_global_geometry(72, 37, log_pressure_levels(31, 0.0, 60000.0), 0.0, 86400.0), pi / 4.0,
      w0);
  ParticleSet set;
  for (int i = 0; i < 20; ++i) set.add(0.3 * i - 3.0, 0.07 * i - 0.7, 80000.0, 0.0, i);
  const double z0 = log_pressure_height(80000.0);
  transport(set, grid, TransportClock{0.0, 600.0, 144, 0}, TransportSettings{});
  for (std::size_t i = 0; i < set.size(); ++i) {
    EXPECT_NEAR(log_pressure_height(set.pressure[i]), z0 + w0 * 86400.0, 1e-3) << i;
  }
}

TEST(Transport, PathLengthsOfOneRevolutionAndOfSteadyAscent) {
  const double w0 = 0.005;
  const MetGrid grid = make_solid_body_grid(
      make_global_geometry(72, 37, log_pressure_levels(31, 0.0, 60000.0), 0.0, 86400.0), 0.0, w0);
  ParticleSet set;
  set.add(0.0, 0.0, 80000.0, 0.0, 1);
  TransportSettings settings;
  settings.physics.track_path_length = true;
  transport(set, grid, TransportClock{0.0, 3600.0, 288, 0}, settings);
  const double circumference = 2.0 * pi * earth_radius;
  // Chords of 1/288 of a circle are shorter than the arcs by a relative 2e-5.
  EXPECT_NEAR(set.quantity("path_horizontal_m")[0], circumference, 1e-4 * circumference);
  // The midpoint step of dp/dt = -w0 p / H0 is exact to O((w0 dt / H0)^3) per step: ~6 mm here.
  EXPECT_NEAR(set.quantity("path_vertical_m")[0], w0 * 288 * 3600.0, 1e-2);
}

TEST(Transport, BadSettingsAreRejected) {
  const MetGrid grid = calm_grid({100.0, 100000.0});
  ParticleSet set;
  set.add(0.0, 0.0, 50000.0, 0.0, 1);
  TransportSettings negative;
  negative.physics.horizontal_diffusivity_troposphere = -1.0;
  EXPECT_THROW(transport(set, grid, TransportClock{0.0, 60.0, 1, 0}, negative), Error);
  TransportSettings missing;
  missing.physics.decay_time_troposphere = 100.0;  // decays "mass", which the set lacks
  try {
    transport(set, grid, TransportClock{0.0, 60.0, 1, 0}, missing);
    FAIL() << "a missing decaying quantity must be rejected";
  } catch (const Error& e) {
    EXPECT_EQ(e.category(), ErrorCategory::invalid_input);
    EXPECT_NE(std::string(e.what()).find("mass"), std::string::npos) << e.what();
  }
  EXPECT_THROW(transport(set, grid, TransportClock{0.0, 60.0, -1, 0}, TransportSettings{}), Error);
  EXPECT_THROW(transport(set, grid, TransportClock{0.0, 0.0, 3, 0}, TransportSettings{}), Error);
  TransportSettings nan_tropopause;
  nan_tropopause.physics.tropopause_pressure = std::nan("");
  EXPECT_THROW(transport(set, grid, TransportClock{0.0, 60.0, 1, 0}, nan_tropopause), Error);
}

}  // namespace
}  // namespace foehn::particles
