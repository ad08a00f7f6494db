#pragma once
// Built-in synthetic winds. Williamson et al. (1992) test case 1: solid-body rotation about an
// axis tilted by alpha from the pole, one revolution in 12 days:
//   u = u0 (cos phi cos alpha + sin phi cos lambda sin alpha), v = -u0 sin lambda sin alpha,
//   omega = 0, u0 = 2 pi a / 12 days.

#include <cmath>

#include "foehn/particles/integrators.hpp"
#include "foehn/particles/met_grid.hpp"
#include "foehn/runtime/host_device.hpp"

namespace foehn::particles {

inline constexpr double solid_body_period = 12.0 * 86400.0;  // s

struct SolidBodyWind {
  double alpha = 0.0;  // rad
  FOEHN_HD WindSample operator()(double lon, double lat, double, double) const {
    constexpr double two_pi = 6.283185307179586476925286766559;
    const double u0 = two_pi * earth_radius / solid_body_period;
    return WindSample{
        u0 * (std::cos(lat) * std::cos(alpha) + std::sin(lat) * std::cos(lon) * std::sin(alpha)),
        -u0 * std::sin(lon) * std::sin(alpha), 0.0};
  }
};

// The solid-body wind sampled on `geometry`'s points, the same at t0 and t1.
MetGrid make_solid_body_grid(const MetGridGeometry& geometry, double alpha);

// A global geometry: nlon longitudes from 0, nlat latitudes from pole to pole, given levels
// and times.
MetGridGeometry make_global_geometry(int nlon, int nlat, std::vector<double> pressure_levels,
                                     double t0, double t1);

}  // namespace foehn::particles
