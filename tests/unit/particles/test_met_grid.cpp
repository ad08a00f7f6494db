// MetGrid validation and the 4-D interpolation: exact for fields linear in lambda, phi, p, t.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <numbers>

#include "foehn/particles/met_grid.hpp"
#include "foehn/particles/particle_set.hpp"
#include "foehn/particles/synthetic.hpp"
#include "foehn/runtime/error.hpp"

namespace foehn::particles {
namespace {

using std::numbers::pi;

struct LinearField {
  double c0, cl, cp, cz, ct;
  double operator()(double lon, double lat, double p, double t) const {
    return c0 + cl * lon + cp * lat + cz * p + ct * t;
  }
};

constexpr LinearField field_u{3.0, 2.0, -5.0, 1e-4, 1e-5};
constexpr LinearField field_v{-1.0, 0.5, 4.0, -2e-4, 3e-5};
constexpr LinearField field_w{0.1, -0.3, 0.7, 5e-5, -2e-6};

MetGrid make_linear_grid(std::vector<double> levels) {
  MetGridGeometry g = make_global_geometry(36, 19, std::move(levels), 0.0, 21600.0);
  WindLevel level[2];
  const double dlon = 2.0 * pi / g.nlon;
  for (int l = 0; l < 2; ++l) {
    const double t = l == 0 ? g.t0 : g.t1;
    for (double p : g.pressure_levels) {
      for (int j = 0; j < g.nlat; ++j) {
        for (int i = 0; i < g.nlon; ++i) {
          const double lon = i * dlon, lat = g.first_latitude + j * g.latitude_spacing;
          level[l].u.push_back(field_u(lon, lat, p, t));
          level[l].v.push_back(field_v(lon, lat, p, t));
          level[l].omega.push_back(field_w(lon, lat, p, t));
        }
      }
    }
  }
  return MetGrid(g, level[0], level[1]);
}

void expect_exact_inside(const MetGrid& grid) {
  const MetGridView view = grid.view();
  const double last_lon = (grid.geometry().nlon - 1) * view.longitude_spacing;
  const auto& levels = grid.geometry().pressure_levels;
  const double p_low = std::min(levels.front(), levels.back());
  const double p_high = std::max(levels.front(), levels.back());
  for (int n = 0; n < 200; ++n) {
    // Deterministic spread of points strictly inside the grid (not in the periodic wrap cell).
    const double s = (n + 0.5) / 200.0;
    const double lon = last_lon * std::fmod(s * 7.31, 1.0);
    const double lat = -0.5 * pi + pi * std::fmod(s * 3.77, 1.0);
    const double p = p_low + (p_high - p_low) * std::fmod(s * 5.13, 1.0);
    const double t = 21600.0 * std::fmod(s * 2.91, 1.0);
    const WindSample w = interpolate_wind(view, lon, lat, p, t);
    EXPECT_NEAR(w.u, field_u(lon, lat, p, t), 1e-12 * (1 + std::abs(w.u))) << n;
    EXPECT_NEAR(w.v, field_v(lon, lat, p, t), 1e-12 * (1 + std::abs(w.v))) << n;
    EXPECT_NEAR(w.omega, field_w(lon, lat, p, t), 1e-12 * (1 + std::abs(w.omega))) << n;
  }
}

TEST(ParticleInterpolation, ExactForLinearFieldsIncreasingIrregularLevels) {
  expect_exact_inside(make_linear_grid({1000.0, 5000.0, 10000.0, 30000.0, 70000.0, 100000.0}));
}

TEST(ParticleInterpolation, ExactForLinearFieldsDecreasingIrregularLevels) {
  expect_exact_inside(make_linear_grid({100000.0, 85000.0, 50000.0, 20000.0, 7000.0, 100.0}));
}

TEST(ParticleInterpolation, PeriodicInLongitudeAndClampedOutside) {
  const MetGrid grid = make_linear_grid({1000.0, 50000.0, 100000.0});
  const MetGridView view = grid.view();
  // The wrap cell blends the last and the first longitude.
  const double dlon = view.longitude_spacing;
  const double lon = 2.0 * pi - 0.25 * dlon;
  const WindSample w = interpolate_wind(view, lon, 0.3, 40000.0, 100.0);
  // A quarter cell short of 2 pi = the first longitude: weight 3/4 on it, 1/4 on the last.
  const double expected = 0.25 * field_u(2.0 * pi - dlon, 0.3, 40000.0, 100.0) +
                          0.75 * field_u(0.0, 0.3, 40000.0, 100.0);
  EXPECT_NEAR(w.u, expected, 1e-12 * std::abs(expected));
  const WindSample shifted = interpolate_wind(view, lon - 4.0 * pi, 0.3, 40000.0, 100.0);
  EXPECT_NEAR(shifted.u, w.u, 1e-12 * std::abs(w.u));
  // Pressure and time outside the grid take the end values.
  const WindSample above = interpolate_wind(view, 1.0, 0.3, 10.0, 100.0);
  const WindSample top = interpolate_wind(view, 1.0, 0.3, 1000.0, 100.0);
  EXPECT_DOUBLE_EQ(above.v, top.v);
  const WindSample late = interpolate_wind(view, 1.0, 0.3, 40000.0, 1e9);
  const WindSample at_t1 = interpolate_wind(view, 1.0, 0.3, 40000.0, 21600.0);
  EXPECT_DOUBLE_EQ(late.omega, at_t1.omega);
}

TEST(ParticleInterpolation, BracketLevelBothDirections) {
  const double up[] = {1.0, 2.0, 5.0, 9.0};
  const double down[] = {9.0, 5.0, 2.0, 1.0};
  EXPECT_EQ(bracket_level(up, 4, 3.0), 1);
  EXPECT_EQ(bracket_level(up, 4, 0.0), 0);
  EXPECT_EQ(bracket_level(up, 4, 10.0), 2);
  EXPECT_EQ(bracket_level(down, 4, 3.0), 1);
  EXPECT_EQ(bracket_level(down, 4, 9.5), 0);
  EXPECT_EQ(bracket_level(down, 4, 0.5), 2);
}

void expect_invalid(const MetGridGeometry& g, const WindLevel& a, const WindLevel& b) {
  try {
    MetGrid grid(g, a, b);
    FAIL() << "expected foehn::Error";
  } catch (const Error& e) {
    EXPECT_EQ(e.category(), ErrorCategory::invalid_input) << e.what();
  }
}

TEST(ParticleMetGrid, RejectsBadGrids) {
  const MetGridGeometry good = make_global_geometry(8, 5, {100.0, 500.0, 1000.0}, 0.0, 10.0);
  const std::size_t n = good.point_count();
  const WindLevel wind{std::vector<double>(n, 1.0), std::vector<double>(n, 2.0),
                       std::vector<double>(n, 0.0)};
  EXPECT_NO_THROW(MetGrid(good, wind, wind));

  MetGridGeometry g = good;
  g.nlon = 1;
  expect_invalid(g, wind, wind);
  g = good;
  g.pressure_levels = {100.0, 1000.0, 500.0};
  expect_invalid(g, wind, wind);
  g.pressure_levels = {100.0, 100.0, 500.0};
  expect_invalid(g, wind, wind);
  g.pressure_levels = {100.0, std::numeric_limits<double>::quiet_NaN(), 500.0};
  expect_invalid(g, wind, wind);
  g.pressure_levels = {0.0, 500.0, 1000.0};  // log(p0 / p) of a parcel clamped to it
  expect_invalid(g, wind, wind);
  g.pressure_levels = {1000.0, 500.0, -100.0};
  expect_invalid(g, wind, wind);
  g = good;
  g.t1 = g.t0;
  expect_invalid(g, wind, wind);
  g = good;
  g.latitude_spacing = 1.0;  // runs past the north pole
  expect_invalid(g, wind, wind);

  WindLevel short_wind = wind;
  short_wind.v.pop_back();
  expect_invalid(good, wind, short_wind);
  WindLevel nan_wind = wind;
  nan_wind.omega[7] = std::numeric_limits<double>::quiet_NaN();
  expect_invalid(good, nan_wind, wind);
}

TEST(ParticleSetHost, QuantitiesAndValidation) {
  ParticleSet set;
  set.add(0.1, 0.2, 5e4, 0.0, 42);
  set.add_quantity("mass", 1.5);
  set.add(0.3, 0.4, 6e4, 0.0, 43);
  ASSERT_EQ(set.quantity("mass").size(), 2u);
  EXPECT_EQ(set.quantity("mass")[0], 1.5);
  EXPECT_EQ(set.quantity("mass")[1], 1.5);  // later parcels start at the initial value too
  EXPECT_THROW(set.add_quantity("mass"), Error);
  EXPECT_THROW((void)set.quantity("ozone"), Error);
  set.latitude[1] = std::numeric_limits<double>::quiet_NaN();
  EXPECT_THROW(set.validate(), Error);
}

}  // namespace
}  // namespace foehn::particles
