#pragma once
// 4-D linear interpolation of the wind, written once for host and device (FOEHN_HD).
// Trilinear in space (longitude periodic, latitude clamped to the grid, pressure LINEAR in p
// between the bracketing levels, clamped outside them), linear in time. The stencil (indices
// and weights) is computed once per integrator stage and reused for u, v and omega.

#include <cmath>
#include <cstddef>

#include "foehn/runtime/host_device.hpp"

namespace foehn::particles {

// Plain pointers and sizes: copyable into a kernel's parameters.
struct MetGridView {
  int nlon = 0, nlat = 0, nlev = 0;
  double first_longitude = 0.0, longitude_spacing = 0.0;
  double first_latitude = 0.0, latitude_spacing = 0.0;
  const double* pressure_levels = nullptr;  // nlev, strictly monotonic
  double t0 = 0.0, t1 = 0.0;
  const double* wind = nullptr;  // [time level][point][u, v, omega]
};

struct WindSample {
  double u, v, omega;
};

struct InterpolationStencil {
  int i0, i1, j0, j1, k0, k1;  // longitude, latitude, level indices of the bracketing box
  double wx, wy, wz, wt;       // weight of the upper index in each direction
};

namespace detail {
FOEHN_HD double clamp01(double x) {
  return x < 0.0 ? 0.0 : (x > 1.0 ? 1.0 : x);
}
}  // namespace detail

// Index of the level interval containing p (0 .. nlev-2) by bisection; works for increasing
// and decreasing levels. Outside the range it returns the end interval (weight clamped later).
FOEHN_HD int bracket_level(const double* levels, int nlev, double p) {
  const bool increasing = levels[nlev - 1] > levels[0];
  int lo = 0, hi = nlev - 1;
  while (hi - lo > 1) {
    const int mid = (lo + hi) / 2;
    const bool below_mid = increasing ? (p < levels[mid]) : (p > levels[mid]);
    if (below_mid)
      hi = mid;
    else
      lo = mid;
  }
  return lo;
}

FOEHN_HD InterpolationStencil make_stencil(const MetGridView& g, double lon, double lat, double p,
                                           double t) {
  InterpolationStencil s;
  double x = (lon - g.first_longitude) / g.longitude_spacing;
  const double period = static_cast<double>(g.nlon);
  x = x - period * std::floor(x / period);  // periodic: x in [0, nlon)
  // A non-finite longitude must not become an index (casting NaN to int is undefined): it
  // reads the first column instead; transport_step keeps positions finite.
  if (!(x >= 0.0 && x < period)) x = 0.0;
  int i = static_cast<int>(x);
  if (i >= g.nlon) i = g.nlon - 1;  // x rounded up to nlon
  s.i0 = i;
  s.i1 = (i + 1 == g.nlon) ? 0 : i + 1;
  s.wx = x - i;

  double y = (lat - g.first_latitude) / g.latitude_spacing;
  if (!(y >= 0.0)) y = 0.0;  // NaN too
  if (y > g.nlat - 1) y = g.nlat - 1;
  int j = static_cast<int>(y);
  if (j > g.nlat - 2) j = g.nlat - 2;
  s.j0 = j;
  s.j1 = j + 1;
  s.wy = y - j;

  const int k = bracket_level(g.pressure_levels, g.nlev, p);
  s.k0 = k;
  s.k1 = k + 1;
  s.wz = detail::clamp01((p - g.pressure_levels[k]) /
                         (g.pressure_levels[k + 1] - g.pressure_levels[k]));
  s.wt = detail::clamp01((t - g.t0) / (g.t1 - g.t0));
  return s;
}

FOEHN_HD WindSample sample_wind(const MetGridView& g, const InterpolationStencil& s) {
  const std::size_t points = static_cast<std::size_t>(g.nlon) * g.nlat * g.nlev;
  double result[3] = {0.0, 0.0, 0.0};
  for (int level = 0; level < 2; ++level) {
    const double wt = level == 0 ? 1.0 - s.wt : s.wt;
    const double* w = g.wind + static_cast<std::size_t>(level) * points * 3;
    for (int dk = 0; dk < 2; ++dk) {
      const double wk = dk == 0 ? 1.0 - s.wz : s.wz;
      const int k = dk == 0 ? s.k0 : s.k1;
      for (int dj = 0; dj < 2; ++dj) {
        const double wj = dj == 0 ? 1.0 - s.wy : s.wy;
        const int j = dj == 0 ? s.j0 : s.j1;
        for (int di = 0; di < 2; ++di) {
          const double wi = di == 0 ? 1.0 - s.wx : s.wx;
          const int i = di == 0 ? s.i0 : s.i1;
          const std::size_t point = (static_cast<std::size_t>(k) * g.nlat + j) * g.nlon + i;
          const double weight = wt * wk * wj * wi;
          result[0] += weight * w[3 * point + 0];
          result[1] += weight * w[3 * point + 1];
          result[2] += weight * w[3 * point + 2];
        }
      }
    }
  }
  return WindSample{result[0], result[1], result[2]};
}

FOEHN_HD WindSample interpolate_wind(const MetGridView& g, double lon, double lat, double p,
                                     double t) {
  return sample_wind(g, make_stencil(g, lon, lat, p, t));
}

}  // namespace foehn::particles
