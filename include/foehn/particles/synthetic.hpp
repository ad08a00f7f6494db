#pragma once
// Built-in synthetic winds (FOEHN_HD functors: wind(lon, lat, p, t) -> (u, v, omega)).
//
// SolidBodyWind: Williamson et al. (1992) test case 1, solid-body rotation about an axis tilted
// by alpha from the pole, one revolution in 12 days:
//   u = u0 (cos phi cos alpha + sin phi cos lambda sin alpha), v = -u0 sin lambda sin alpha,
//   u0 = 2 pi a / 12 days,
// with the optional vertical motion of MPTRAC's `wind` tool: omega = -w0 p / H0, so the
// log-pressure height rises exactly as z(t) = z(0) + w0 t.
//
// TurbulentWind: a benchmark field with realistic small-scale variability, so that parcels
// separate and de-sort as in a reanalysis (a solid-body field keeps them sorted forever):
// two zonal jets at +-45 degrees plus `modes` travelling waves with zonal wavenumbers spread
// logarithmically from 1 to `largest_wavenumber`, amplitudes following a k^-3 energy
// spectrum, random phases, vertical wavelengths and frequencies (Philox, `seed`), and omega
// made of the same kind of waves with rms `omega_rms` * p / P0. All wave terms carry a cos phi
// factor, so the field is smooth at the poles.

#include <cmath>
#include <cstdint>

#include "foehn/particles/integrators.hpp"
#include "foehn/particles/met_grid.hpp"
#include "foehn/particles/particle_set.hpp"
#include "foehn/particles/random.hpp"
#include "foehn/runtime/host_device.hpp"
#include "foehn/runtime/stream.hpp"

namespace foehn::particles {

inline constexpr double solid_body_period = 12.0 * 86400.0;  // s

struct SolidBodyWind {
  double alpha = 0.0;              // rad
  double vertical_velocity = 0.0;  // w0, m/s in log-pressure height
  FOEHN_HD WindSample operator()(double lon, double lat, double p, double) const {
    constexpr double two_pi = 6.283185307179586476925286766559;
    const double u0 = two_pi * earth_radius / solid_body_period;
    return WindSample{
        u0 * (std::cos(lat) * std::cos(alpha) + std::sin(lat) * std::cos(lon) * std::sin(alpha)),
        -u0 * std::sin(lon) * std::sin(alpha), -vertical_velocity * p / scale_height};
  }
};

struct TurbulentWind {
  std::uint32_t seed = 1;
  int modes = 48;
  int largest_wavenumber = 256;
  double jet_speed = 35.0;     // m/s, peak of each jet
  double eddy_speed = 12.0;    // m/s, rms of the wave part of u and v
  double omega_rms = 0.3;      // Pa/s at P0
  double wave_period = 4.0 * 86400.0;  // s, time scale of the largest waves

  FOEHN_HD WindSample operator()(double lon, double lat, double p, double t) const {
    constexpr double pi = 3.14159265358979323846;
    const double z = scale_height * std::log(reference_pressure / p);
    const double cos_lat = std::cos(lat);
    const double jet_width = 0.17;  // rad, about 10 degrees
    const double north = (lat - 0.25 * pi) / jet_width, south = (lat + 0.25 * pi) / jet_width;
    const double u_jet = jet_speed * cos_lat * (std::exp(-north * north) + std::exp(-south * south));
    // One pass: the waves' sums and the normalisation (each mode contributes amplitude^2 / 2
    // to the mean square, amplitude_m = k_m^-1.5, i.e. energy ~ k^-3), scaled at the end so
    // that the rms of the wave part of u and v is eddy_speed.
    double u_waves = 0.0, v_waves = 0.0, omega_waves = 0.0, energy = 0.0;
    for (int m = 0; m < modes; ++m) {
      const double k = wavenumber(m);
      const NumberPair a = keyed_uniforms(m, 0, 0, seed);
      const NumberPair b = keyed_uniforms(m, 0, 1, seed);
      const double meridional = k * (0.5 + a.first);               // wavenumber in latitude
      const double vertical = 2.0 * pi / (4000.0 + 16000.0 * a.second);  // 4-20 km wavelength
      const double frequency = (b.first - 0.5) * 4.0 * pi / wave_period / std::sqrt(k);
      const double phase = 2.0 * pi * b.second;
      const double arg = k * lon + meridional * lat + vertical * z + phase + frequency * t;
      const double amplitude = 1.0 / (k * std::sqrt(k));
      const double horizontal = std::sqrt(k * k + meridional * meridional);
      const double wave = amplitude * std::sin(arg);
      u_waves += wave * meridional / horizontal;
      v_waves -= wave * k / horizontal;
      omega_waves += amplitude * std::cos(arg + 1.0);
      energy += 0.5 * amplitude * amplitude;
    }
    const double scale = energy > 0.0 ? cos_lat / std::sqrt(energy) : 0.0;
    const double u = u_jet + eddy_speed * scale * u_waves;
    const double v = eddy_speed * scale * v_waves;
    const double omega = omega_rms * (p / reference_pressure) * scale * omega_waves;
    return WindSample{u, v, omega};
  }

  // Zonal wavenumbers spread logarithmically over [1, largest_wavenumber] (integers: the field
  // must be periodic in longitude).
  FOEHN_HD double wavenumber(int m) const {
    if (modes <= 1) return 1.0;
    const double fraction = static_cast<double>(m) / (modes - 1);
    return std::round(std::pow(static_cast<double>(largest_wavenumber), fraction));
  }
};

// Parcels spread uniformly over the globe (longitude uniform, sin(latitude) uniform) and
// uniformly in log-pressure height between z_bottom and z_top: MPTRAC's benchmark set-up.
// Parcel i has id first_id + i and a position drawn from Philox keyed by that id, so the host
// and device generators give the same parcels.
struct RandomGlobalParcels {
  std::size_t count = 0;
  double z_bottom = 0.0;      // m
  double z_top = 60000.0;     // m
  double time = 0.0;          // s
  std::uint32_t seed = 1;
  std::int64_t first_id = 0;

  FOEHN_HD ParcelPosition position(std::int64_t parcel_id) const {
    constexpr double pi = 3.14159265358979323846;
    const NumberPair a = keyed_uniforms(parcel_id, 0, 0, seed);
    const NumberPair b = keyed_uniforms(parcel_id, 0, 1, seed);
    const double z = z_bottom + (z_top - z_bottom) * b.first;
    return ParcelPosition{2.0 * pi * a.first - pi, std::asin(2.0 * a.second - 1.0),
                          reference_pressure * std::exp(-z / scale_height)};
  }
};
// invalid_input for z_top <= z_bottom or non-finite values.
ParticleSet make_random_global_parcels(const RandomGlobalParcels& spec);
DeviceParticleSet make_random_global_device_parcels(const RandomGlobalParcels& spec,
                                                    const Stream& stream);

// A synthetic wind sampled on every point of `geometry` at time t (host, OpenMP over points
// where the build has it): the form met files give, for MetGrid and MetGrid::advance.
WindLevel sample_on_grid(const MetGridGeometry& geometry, const SolidBodyWind& wind, double t);
WindLevel sample_on_grid(const MetGridGeometry& geometry, const TurbulentWind& wind, double t);

// The solid-body wind sampled on `geometry`'s points (the same at t0 and t1).
MetGrid make_solid_body_grid(const MetGridGeometry& geometry, double alpha,
                             double vertical_velocity = 0.0);
// The turbulent wind sampled at the grid's two times.
MetGrid make_turbulent_grid(const MetGridGeometry& geometry, const TurbulentWind& wind);
// The same, sampled directly into device memory by a kernel (no host copy of a large grid).
// unavailable without CUDA.
DeviceMetGrid make_solid_body_device_grid(const MetGridGeometry& geometry, double alpha,
                                          double vertical_velocity, const Stream& stream);
DeviceMetGrid make_turbulent_device_grid(const MetGridGeometry& geometry,
                                         const TurbulentWind& wind, const Stream& stream);

// A global geometry: nlon longitudes from 0, nlat latitudes from pole to pole, given levels
// and times.
MetGridGeometry make_global_geometry(int nlon, int nlat, std::vector<double> pressure_levels,
                                     double t0, double t1);
// n pressure levels equally spaced in log-pressure height from z_bottom to z_top (m),
// decreasing pressure, the layout of MPTRAC's `wind` tool.
std::vector<double> log_pressure_levels(int n, double z_bottom, double z_top);

}  // namespace foehn::particles
