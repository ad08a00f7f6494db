// Trajectories: solid-body rotation returns to its start after one revolution (12 days), and
// the integrators converge at their orders (Euler 1, midpoint 2, RK4 4) in dt.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <numbers>

#include "foehn/particles/advect.hpp"
#include "foehn/particles/synthetic.hpp"
#include "unit/particles/particle_test_support.hpp"

namespace foehn::particles {
namespace {

using std::numbers::pi;
using test::central_angle;

ParticleSet make_ring_of_parcels() {
  ParticleSet set;
  std::int64_t id = 0;
  for (int j = -3; j <= 3; ++j) {
    for (int i = 0; i < 12; ++i) {
      set.add(-pi + i * pi / 6.0 + 0.1, j * pi / 7.5, 50000.0, 0.0, id++);
    }
  }
  // For alpha = 90 deg these two cross the poles exactly; the last starts on one.
  set.add(0.5 * pi, 0.0, 50000.0, 0.0, id++);
  set.add(-0.5 * pi, 0.0, 50000.0, 0.0, id++);
  set.add(0.7, 0.5 * pi, 50000.0, 0.0, id++);
  return set;
}

class SolidBodyRevolution : public ::testing::TestWithParam<double> {};

// One revolution on a 2-degree grid with dt = 1 h, midpoint: every parcel is back within
// 30 km of its start (the grid's interpolation error of the wind, ~1e-4 relative, accumulates
// to a few km along the 40000 km track; the tolerance leaves room for the pole passages).
TEST_P(SolidBodyRevolution, ReturnsToStartOnGrid) {
  const double alpha = GetParam() * pi / 180.0;
  const MetGrid grid = make_solid_body_grid(
      make_global_geometry(180, 91, {1000.0, 50000.0, 100000.0}, 0.0, solid_body_period), alpha);
  ParticleSet parcels = make_ring_of_parcels();
  const ParticleSet start = parcels;
  advect(parcels, grid, 0.0, 3600.0, 288, Integrator::midpoint);
  double worst_km = 0.0;
  for (std::size_t i = 0; i < parcels.size(); ++i) {
    const double km = 1e-3 * earth_radius *
                      central_angle(parcels.longitude[i], parcels.latitude[i],
                                    start.longitude[i], start.latitude[i]);
    worst_km = std::max(worst_km, km);
    EXPECT_LT(km, 30.0) << "parcel " << parcels.id[i];
    EXPECT_DOUBLE_EQ(parcels.pressure[i], 50000.0);
    EXPECT_DOUBLE_EQ(parcels.time[i], solid_body_period);
  }
  std::printf("alpha = %g deg: largest distance from start after 12 days = %.3f km\n",
              GetParam(), worst_km);
}

INSTANTIATE_TEST_SUITE_P(Alpha, SolidBodyRevolution, ::testing::Values(0.0, 45.0, 90.0));

// Solid-body rotation plus vertical relaxation dp/dt = -(p - p_ref) / tau: the horizontal
// motion alone is a rigid rotation, for which projected schemes gain orders by accident; the
// vertical part keeps each scheme at its true order.
struct RotationWithRelaxation {
  SolidBodyWind horizontal;
  double p_ref, tau;
  FOEHN_HD WindSample operator()(double lon, double lat, double p, double t) const {
    WindSample w = horizontal(lon, lat, p, t);
    w.omega = -(p - p_ref) / tau;
    return w;
  }
};

double revolution_error(Integrator scheme, int steps, double alpha) {
  const RotationWithRelaxation wind{SolidBodyWind{alpha}, 50000.0, 4.0 * 86400.0};
  const double p0 = 90000.0;
  const double dt = solid_body_period / steps;
  double worst = 0.0;
  for (int n = 0; n < 6; ++n) {
    const ParcelPosition start{0.3 + n, -1.2 + 0.45 * n, p0};
    const ParcelPosition end = integrate(wind, start, 0.0, dt, steps, scheme);
    const double p_exact =
        wind.p_ref + (p0 - wind.p_ref) * std::exp(-solid_body_period / wind.tau);
    const double error = central_angle(end.longitude, end.latitude, start.longitude,
                                       start.latitude) +
                         std::abs(end.pressure - p_exact) / p0;
    worst = std::max(worst, error);
  }
  return worst;
}

void expect_order(Integrator scheme, int coarse_steps, double min_order, double max_order) {
  for (double alpha_deg : {0.0, 45.0, 90.0}) {
    const double alpha = alpha_deg * pi / 180.0;
    const double e1 = revolution_error(scheme, coarse_steps, alpha);
    const double e2 = revolution_error(scheme, 2 * coarse_steps, alpha);
    const double e3 = revolution_error(scheme, 4 * coarse_steps, alpha);
    const double order12 = std::log2(e1 / e2), order23 = std::log2(e2 / e3);
    std::printf("scheme %d alpha %g: errors %.3e %.3e %.3e, orders %.3f %.3f\n",
                static_cast<int>(scheme), alpha_deg, e1, e2, e3, order12, order23);
    EXPECT_GT(order23, min_order);
    EXPECT_LT(order23, max_order);
    EXPECT_GT(order12, min_order - 0.2);
  }
}

TEST(ParticleIntegrators, EulerConvergesAtFirstOrder) {
  expect_order(Integrator::euler, 1152, 0.9, 1.3);
}
TEST(ParticleIntegrators, MidpointConvergesAtSecondOrder) {
  expect_order(Integrator::midpoint, 96, 1.8, 2.4);
}
TEST(ParticleIntegrators, Rk4ConvergesAtFourthOrder) {
  expect_order(Integrator::rk4, 48, 3.6, 4.5);
}

TEST(ParticleIntegrators, PoleWrap) {
  const ParcelPosition over = wrap_over_pole(ParcelPosition{0.5, 0.5 * pi + 0.1, 1.0});
  EXPECT_NEAR(over.latitude, 0.5 * pi - 0.1, 1e-15);
  EXPECT_NEAR(over.longitude, 0.5 + pi - 2.0 * pi, 1e-15);
  const ParcelPosition under = wrap_over_pole(ParcelPosition{-2.0, -0.5 * pi - 0.2, 1.0});
  EXPECT_NEAR(under.latitude, -0.5 * pi + 0.2, 1e-15);
  EXPECT_NEAR(under.longitude, -2.0 + pi, 1e-15);
}

TEST(ParticleAdvection, RejectsBadArguments) {
  const MetGrid grid = make_solid_body_grid(
      make_global_geometry(8, 5, {1000.0, 100000.0}, 0.0, 1.0), 0.0);
  ParticleSet parcels = make_ring_of_parcels();
  EXPECT_THROW(advect(parcels, grid, 0.0, 1.0, -1), Error);
  EXPECT_THROW(advect(parcels, grid, 0.0, std::nan(""), 1), Error);
}

}  // namespace
}  // namespace foehn::particles
