#pragma once
// Time steps of one parcel, written once for host and device (FOEHN_HD).
//
// The motion is the spherical-metric system dlambda/dt = u / (a cos phi), dphi/dt = v / a,
// dp/dt = omega. Its lon-lat form is singular at the poles, so every stage is taken as a
// LOCAL CARTESIAN STEP: the position is the unit vector X = (cos phi cos lambda,
// cos phi sin lambda, sin phi), its velocity (u e_lambda + v e_phi) / a, and each stage point
// X + h K is projected back onto the sphere before the wind is sampled there. This is the same
// ODE (no cos phi floor needed); a parcel crossing a pole comes out on the other side
// (phi -> +-pi - phi, lambda -> lambda + pi) by construction. Output longitude is in [-pi, pi].

#include <cmath>

#include "foehn/particles/interpolation.hpp"
#include "foehn/runtime/host_device.hpp"

namespace foehn::particles {

// Williamson et al. (1992) radius, m.
inline constexpr double earth_radius = 6.37122e6;
// Log-pressure height z = H0 ln(P0 / p): scale height H0 (m) and reference pressure P0 (Pa).
inline constexpr double scale_height = 7000.0;
inline constexpr double reference_pressure = 101325.0;

enum class Integrator { euler, midpoint, rk4 };

struct ParcelPosition {
  double longitude, latitude, pressure;  // rad, rad, Pa
};

// The wind of a met grid as a callable, the form the steps take (synthetic analytic winds
// provide the same operator()).
struct GridWind {
  MetGridView grid;
  FOEHN_HD WindSample operator()(double lon, double lat, double p, double t) const {
    return interpolate_wind(grid, lon, lat, p, t);
  }
};

// Latitude beyond a pole folds back onto the sphere: phi -> +-pi - phi, lambda -> lambda + pi.
// For displacements given in lon-lat (e.g. the diffusion still to come).
FOEHN_HD ParcelPosition wrap_over_pole(ParcelPosition x) {
  constexpr double pi = 3.14159265358979323846;
  if (x.latitude > 0.5 * pi) {
    x.latitude = pi - x.latitude;
    x.longitude += pi;
  } else if (x.latitude < -0.5 * pi) {
    x.latitude = -pi - x.latitude;
    x.longitude += pi;
  }
  x.longitude = std::remainder(x.longitude, 2.0 * pi);
  return x;
}

namespace detail {

struct Cartesian {
  double x, y, z, p;
};

FOEHN_HD Cartesian to_cartesian(const ParcelPosition& s) {
  const double c = std::cos(s.latitude);
  return Cartesian{c * std::cos(s.longitude), c * std::sin(s.longitude), std::sin(s.latitude),
                   s.pressure};
}

FOEHN_HD ParcelPosition to_spherical(const Cartesian& c) {
  const double horizontal = std::sqrt(c.x * c.x + c.y * c.y);
  return ParcelPosition{std::atan2(c.y, c.x), std::atan2(c.z, horizontal), c.p};
}

// X + h K, projected back onto the unit sphere.
FOEHN_HD Cartesian advance(const Cartesian& x, const Cartesian& k, double h) {
  Cartesian r{x.x + h * k.x, x.y + h * k.y, x.z + h * k.z, x.p + h * k.p};
  const double inv = 1.0 / std::sqrt(r.x * r.x + r.y * r.y + r.z * r.z);
  r.x *= inv;
  r.y *= inv;
  r.z *= inv;
  return r;
}

// dX/dt at a point on the sphere: (u e_lambda + v e_phi) / a, dp/dt = omega. The basis is
// taken from X itself, so it is well defined at the poles (where lambda is arbitrary but
// e_lambda, e_phi and the sampled u, v belong to the same lambda).
template <class WindField>
FOEHN_HD Cartesian tendency(const WindField& wind, const Cartesian& x, double t) {
  const ParcelPosition s = to_spherical(x);
  const WindSample w = wind(s.longitude, s.latitude, s.pressure, t);
  const double sl = std::sin(s.longitude), cl = std::cos(s.longitude);
  const double sp = std::sin(s.latitude), cp = std::cos(s.latitude);
  const double inv_a = 1.0 / earth_radius;
  return Cartesian{(-w.u * sl - w.v * sp * cl) * inv_a, (w.u * cl - w.v * sp * sl) * inv_a,
                   w.v * cp * inv_a, w.omega};
}

}  // namespace detail

// One step of length dt from time t.
template <class WindField>
FOEHN_HD ParcelPosition step(const WindField& wind, const ParcelPosition& start, double t,
                             double dt, Integrator scheme) {
  using detail::advance;
  using detail::tendency;
  const detail::Cartesian x = detail::to_cartesian(start);
  const detail::Cartesian k1 = tendency(wind, x, t);
  if (scheme == Integrator::euler) return detail::to_spherical(advance(x, k1, dt));
  const detail::Cartesian k2 = tendency(wind, advance(x, k1, 0.5 * dt), t + 0.5 * dt);
  if (scheme == Integrator::midpoint) return detail::to_spherical(advance(x, k2, dt));
  const detail::Cartesian k3 = tendency(wind, advance(x, k2, 0.5 * dt), t + 0.5 * dt);
  const detail::Cartesian k4 = tendency(wind, advance(x, k3, dt), t + dt);
  const double sixth = 1.0 / 6.0;
  const detail::Cartesian k{sixth * (k1.x + 2.0 * k2.x + 2.0 * k3.x + k4.x),
                            sixth * (k1.y + 2.0 * k2.y + 2.0 * k3.y + k4.y),
                            sixth * (k1.z + 2.0 * k2.z + 2.0 * k3.z + k4.z),
                            sixth * (k1.p + 2.0 * k2.p + 2.0 * k3.p + k4.p)};
  return detail::to_spherical(advance(x, k, dt));
}

// `steps` steps from t_start.
template <class WindField>
FOEHN_HD ParcelPosition integrate(const WindField& wind, ParcelPosition x, double t_start,
                                  double dt, int steps, Integrator scheme) {
  for (int n = 0; n < steps; ++n) x = step(wind, x, t_start + n * dt, dt, scheme);
  return x;
}

}  // namespace foehn::particles
