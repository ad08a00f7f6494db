#pragma once
// One full physics time step of one parcel, written once for host and device (FOEHN_HD):
// advection (integrators.hpp), subgrid wind fluctuations (Langevin process), turbulent
// diffusion, the vertical and horizontal domain checks, and exponential decay.
//
// Stochastic terms draw from parcel_normals(id, step, draw, seed) (random.hpp), so a parcel's
// trajectory does not depend on where it sits in the arrays.
//
// Formulations (MPTRAC v2.6 style; differences noted):
//  * Tropospheric weight w in [0, 1]: 1 below the tropopause, 0 above, linear in log-pressure
//    height z = H0 ln(P0 / p) across a layer of `tropopause_layer_depth` centred on the
//    tropopause pressure (a fixed pressure here: the met grid has no tropopause field).
//    Diffusivities and decay RATES are blended with w.
//  * Turbulent diffusion: horizontal displacement sigma_h (xi_x, xi_y) metres along the local
//    east and north directions with sigma_h = sqrt(2 D_h |dt|); vertical displacement
//    dz = sqrt(2 D_z |dt|) xi_z in log-pressure height, applied EXACTLY as p <- p exp(-dz/H0)
//    (MPTRAC linearises this to dp = -p dz / H0), so z performs an exact random walk.
//  * Subgrid winds (Langevin/Markov): u' <- r u' + sqrt(1 - r^2) f sigma_u xi, the same for v'
//    and omega', with r = 1 - 2 |dt| / (t1 - t0) clamped to [0, 1], f the horizontal or vertical
//    factor, sigma the population standard deviation of the 16 grid values (8 corners x 2
//    times) around the parcel. The parcel then moves by u' dt, v' dt (metres) and omega' dt (Pa).
//  * Vertical domain: a pressure outside the met levels is clamped to the nearest end level
//    and counted. Horizontal domain: on a grid that does not reach a pole, a parcel whose
//    latitude leaves the grid's range is marked left_domain and frozen from then on.
//  * Decay: every decaying quantity is multiplied by exp(-dt * rate), rate = w / tau_trop +
//    (1 - w) / tau_strat (a time <= 0 means no decay in that region).

#include <cmath>
#include <cstdint>

#include "foehn/particles/integrators.hpp"
#include "foehn/particles/interpolation.hpp"
#include "foehn/particles/particle_set.hpp"
#include "foehn/particles/random.hpp"
#include "foehn/runtime/host_device.hpp"

namespace foehn::particles {

// Physics switches and parameters; plain data, passed by value into kernels.
struct TransportPhysics {
  Integrator scheme = Integrator::midpoint;
  bool diffusion = false;
  double horizontal_diffusivity_troposphere = 50.0;  // m^2/s (MPTRAC default)
  double horizontal_diffusivity_stratosphere = 0.0;  // m^2/s
  double vertical_diffusivity_troposphere = 0.0;     // m^2/s
  double vertical_diffusivity_stratosphere = 0.1;    // m^2/s (MPTRAC default)
  bool subgrid_wind = false;
  double subgrid_horizontal_factor = 0.16;
  double subgrid_vertical_factor = 0.16;
  double decay_time_troposphere = 0.0;     // s, <= 0: no decay
  double decay_time_stratosphere = 0.0;    // s, <= 0: no decay
  double tropopause_pressure = 20000.0;    // Pa
  double tropopause_layer_depth = 1000.0;  // m
  std::uint32_t seed = 0;
  // Accumulate each parcel's horizontal path (m, chord per step) and vertical path (m of
  // log-pressure height), the denominators of the relative transport deviations RHTD/RVTD.
  bool track_path_length = false;
  FOEHN_HD bool decays() const noexcept {
    return decay_time_troposphere > 0.0 || decay_time_stratosphere > 0.0;
  }
};

// The state one parcel carries through the steps (registers on the device).
struct ParcelState {
  ParcelPosition position;
  double time;
  double subgrid_u, subgrid_v, subgrid_omega;  // Langevin state: m/s, m/s, Pa/s
  double decay_factor;                         // product of this call's decay factors
  double path_horizontal, path_vertical;       // m, when tracked
  ParcelStatus status;
};

// Where the optional per-parcel state lives (null pointers when the feature is off).
struct OptionalParcelArrays {
  double* subgrid[3];  // u', v', omega'
  double* path[2];     // horizontal, vertical path length
};

// Counts of domain events, per parcel during a call, summed over parcels afterwards.
struct DomainEvents {
  std::uint32_t vertical_clamps = 0;
  std::uint32_t left_domain = 0;
};

// Log-pressure height, m.
FOEHN_HD double log_pressure_height(double p) {
  return scale_height * std::log(reference_pressure / p);
}

FOEHN_HD double tropospheric_weight(const TransportPhysics& physics, double p) {
  const double z = log_pressure_height(p);
  const double z_tropopause = log_pressure_height(physics.tropopause_pressure);
  const double depth = physics.tropopause_layer_depth;
  if (!(depth > 0.0)) return z <= z_tropopause ? 1.0 : 0.0;
  return detail::clamp01((z_tropopause + 0.5 * depth - z) / depth);
}

namespace detail {

// Moves a position by (east, north) metres along the sphere (a Cartesian step, projected back;
// well defined at the poles like the advection stages).
FOEHN_HD ParcelPosition displace_horizontally(const ParcelPosition& x, double east, double north) {
  const double sl = std::sin(x.longitude), cl = std::cos(x.longitude);
  const double sp = std::sin(x.latitude), cp = std::cos(x.latitude);
  const double inv_a = 1.0 / earth_radius;
  const Cartesian k{(-east * sl - north * sp * cl) * inv_a, (east * cl - north * sp * sl) * inv_a,
                    north * cp * inv_a, 0.0};
  return to_spherical(advance(to_cartesian(x), k, 1.0));
}

// Population standard deviations of u, v, omega over the 16 grid values of a stencil.
FOEHN_HD WindSample stencil_spread(const MetGridView& g, const InterpolationStencil& s) {
  const std::size_t points = static_cast<std::size_t>(g.nlon) * g.nlat * g.nlev;
  double sum[3] = {0.0, 0.0, 0.0}, sum_sq[3] = {0.0, 0.0, 0.0};
  for (int level = 0; level < 2; ++level) {
    const double* w = g.wind + static_cast<std::size_t>(level) * points * 3;
    for (int corner = 0; corner < 8; ++corner) {
      const int i = (corner & 1) ? s.i1 : s.i0;
      const int j = (corner & 2) ? s.j1 : s.j0;
      const int k = (corner & 4) ? s.k1 : s.k0;
      const std::size_t point = (static_cast<std::size_t>(k) * g.nlat + j) * g.nlon + i;
      for (int c = 0; c < 3; ++c) {
        const double value = w[3 * point + c];
        sum[c] += value;
        sum_sq[c] += value * value;
      }
    }
  }
  double sigma[3];
  for (int c = 0; c < 3; ++c) {
    const double mean = sum[c] / 16.0;
    const double variance = sum_sq[c] / 16.0 - mean * mean;
    sigma[c] = variance > 0.0 ? std::sqrt(variance) : 0.0;
  }
  return WindSample{sigma[0], sigma[1], sigma[2]};
}

FOEHN_HD bool grid_reaches_poles(const MetGridView& g) {
  constexpr double half_pi = 1.57079632679489661923;
  const double last = g.first_latitude + (g.nlat - 1) * g.latitude_spacing;
  const double tolerance = 1e-9;
  return g.first_latitude <= -half_pi + tolerance && last >= half_pi - tolerance;
}

// Clamps a pressure outside the met levels (or NaN) to the nearest end level; `clamped` is set,
// never cleared, so that a step counts once however often it was clamped.
FOEHN_HD void clamp_to_met_levels(ParcelPosition& x, double p_low, double p_high, bool& clamped) {
  if (x.pressure < p_low || x.pressure > p_high || !(x.pressure == x.pressure)) {
    x.pressure = x.pressure < p_low ? p_low : p_high;
    clamped = true;
  }
}

// The stochastic moves of one step, summed before they are applied together: metres east and
// north, Pa of pressure (subgrid omega) and metres of log-pressure height (diffusion).
struct StochasticDisplacement {
  double east = 0.0, north = 0.0, dp_subgrid = 0.0, dz = 0.0;
};

FOEHN_HD void add_subgrid_wind(const MetGridView& grid, const TransportPhysics& physics,
                               std::int64_t parcel_id, std::int64_t step_index, double dt,
                               const ParcelPosition& x, double t_end, ParcelState& state,
                               StochasticDisplacement& d) {
  const InterpolationStencil s = make_stencil(grid, x.longitude, x.latitude, x.pressure, t_end);
  const WindSample sigma = detail::stencil_spread(grid, s);
  const double r = detail::clamp01(1.0 - 2.0 * std::fabs(dt) / (grid.t1 - grid.t0));
  const double kick = std::sqrt(1.0 - r * r);
  const NumberPair xi_h = parcel_normals(parcel_id, step_index, 0, physics.seed);
  const NumberPair xi_v = parcel_normals(parcel_id, step_index, 1, physics.seed);
  state.subgrid_u =
      r * state.subgrid_u + kick * physics.subgrid_horizontal_factor * sigma.u * xi_h.first;
  state.subgrid_v =
      r * state.subgrid_v + kick * physics.subgrid_horizontal_factor * sigma.v * xi_h.second;
  state.subgrid_omega =
      r * state.subgrid_omega + kick * physics.subgrid_vertical_factor * sigma.omega * xi_v.first;
  d.east += state.subgrid_u * dt;
  d.north += state.subgrid_v * dt;
  d.dp_subgrid = state.subgrid_omega * dt;
}

// `w`: the tropospheric weight at the parcel.
FOEHN_HD void add_turbulent_diffusion(const TransportPhysics& physics, std::int64_t parcel_id,
                                      std::int64_t step_index, double dt, double w,
                                      StochasticDisplacement& d) {
  const double d_h = w * physics.horizontal_diffusivity_troposphere +
                     (1.0 - w) * physics.horizontal_diffusivity_stratosphere;
  const double d_z = w * physics.vertical_diffusivity_troposphere +
                     (1.0 - w) * physics.vertical_diffusivity_stratosphere;
  const NumberPair xi_h = parcel_normals(parcel_id, step_index, 2, physics.seed);
  const NumberPair xi_v = parcel_normals(parcel_id, step_index, 3, physics.seed);
  const double sigma_h = std::sqrt(2.0 * d_h * std::fabs(dt));
  d.east += sigma_h * xi_h.first;
  d.north += sigma_h * xi_h.second;
  d.dz = std::sqrt(2.0 * d_z * std::fabs(dt)) * xi_v.first;
}

// `w`: the tropospheric weight at the parcel.
FOEHN_HD double decay_rate(const TransportPhysics& physics, double w) {
  return (physics.decay_time_troposphere > 0.0 ? w / physics.decay_time_troposphere : 0.0) +
         (physics.decay_time_stratosphere > 0.0 ? (1.0 - w) / physics.decay_time_stratosphere
                                                : 0.0);
}

// Adds the step from `state.position` to `x` to the parcel's path lengths.
FOEHN_HD void add_path_length(const ParcelPosition& x, ParcelState& state) {
  const detail::Cartesian a = detail::to_cartesian(state.position), b = detail::to_cartesian(x);
  const double dx = b.x - a.x, dy = b.y - a.y, dz_chord = b.z - a.z;
  state.path_horizontal += earth_radius * std::sqrt(dx * dx + dy * dy + dz_chord * dz_chord);
  state.path_vertical +=
      std::fabs(log_pressure_height(x.pressure) - log_pressure_height(state.position.pressure));
}

// For a regional grid only (see grid_reaches_poles).
FOEHN_HD void check_latitude_range(const MetGridView& grid, const ParcelPosition& x,
                                   ParcelState& state, DomainEvents& events) {
  const double lat_last = grid.first_latitude + (grid.nlat - 1) * grid.latitude_spacing;
  if (x.latitude < grid.first_latitude || x.latitude > lat_last) {
    state.status = ParcelStatus::left_domain;
    ++events.left_domain;
  }
}

}  // namespace detail

// One physics step of length dt for parcel `parcel_id` at global step index `step_index`.
FOEHN_HD void transport_step(const MetGridView& grid, const TransportPhysics& physics,
                             std::int64_t parcel_id, std::int64_t step_index, double dt,
                             ParcelState& state, DomainEvents& events) {
  if (state.status != ParcelStatus::active) return;
  const GridWind wind{grid};
  ParcelPosition x = step(wind, state.position, state.time, dt, physics.scheme);
  const double t_end = state.time + dt;
  // Into the met levels before anything else reads the pressure: a parcel that starts above
  // the top level, or a step whose omega dt overshoots it, can leave a pressure <= 0, whose
  // log-pressure height is NaN (that NaN once reached make_stencil's index casts).
  const double first = grid.pressure_levels[0], last = grid.pressure_levels[grid.nlev - 1];
  const double p_low = first < last ? first : last, p_high = first < last ? last : first;
  bool clamped = false;  // counted once per step however often
  detail::clamp_to_met_levels(x, p_low, p_high, clamped);
  detail::StochasticDisplacement d;

  if (physics.subgrid_wind)
    detail::add_subgrid_wind(grid, physics, parcel_id, step_index, dt, x, t_end, state, d);

  const bool needs_weight = physics.diffusion || physics.decays();
  const double w = needs_weight ? tropospheric_weight(physics, x.pressure) : 0.0;
  if (physics.diffusion) detail::add_turbulent_diffusion(physics, parcel_id, step_index, dt, w, d);
  if (physics.subgrid_wind || physics.diffusion) {
    x = detail::displace_horizontally(x, d.east, d.north);
    x.pressure = (x.pressure + d.dp_subgrid) * std::exp(-d.dz / scale_height);
  }

  // Vertical domain after diffusion and subgrid winds: clamp into the met levels again.
  detail::clamp_to_met_levels(x, p_low, p_high, clamped);
  if (clamped) ++events.vertical_clamps;

  if (physics.decays()) {
    const double rate = detail::decay_rate(physics, w);
    state.decay_factor *= std::exp(-std::fabs(dt) * rate);
  }

  if (physics.track_path_length) detail::add_path_length(x, state);
  state.position = x;
  state.time = t_end;
  // Horizontal domain: only a regional grid has edges a parcel can leave.
  if (!detail::grid_reaches_poles(grid)) detail::check_latitude_range(grid, x, state, events);
}

// A parcel's state at the start of a call.
FOEHN_HD ParcelState load_parcel(std::int64_t i, double t_start, const double* lon,
                                 const double* lat, const double* p, const ParcelStatus* status,
                                 const OptionalParcelArrays& optional) {
  ParcelState state{
      ParcelPosition{lon[i], lat[i], p[i]}, t_start, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, status[i]};
  if (optional.subgrid[0] != nullptr) {
    state.subgrid_u = optional.subgrid[0][i];
    state.subgrid_v = optional.subgrid[1][i];
    state.subgrid_omega = optional.subgrid[2][i];
  }
  if (optional.path[0] != nullptr) {
    state.path_horizontal = optional.path[0][i];
    state.path_vertical = optional.path[1][i];
  }
  return state;
}

// Stores a parcel's state after a call into the SoA arrays; each decaying quantity is
// multiplied by the call's factor.
FOEHN_HD void write_back_parcel(const ParcelState& state, std::int64_t i, double* lon, double* lat,
                                double* p, double* t, ParcelStatus* status,
                                const OptionalParcelArrays& optional, double* const* decaying,
                                int decaying_count) {
  lon[i] = state.position.longitude;
  lat[i] = state.position.latitude;
  p[i] = state.position.pressure;
  t[i] = state.time;
  status[i] = state.status;
  if (optional.subgrid[0] != nullptr) {
    optional.subgrid[0][i] = state.subgrid_u;
    optional.subgrid[1][i] = state.subgrid_v;
    optional.subgrid[2][i] = state.subgrid_omega;
  }
  if (optional.path[0] != nullptr) {
    optional.path[0][i] = state.path_horizontal;
    optional.path[1][i] = state.path_vertical;
  }
  for (int q = 0; q < decaying_count; ++q) decaying[q][i] *= state.decay_factor;
}

}  // namespace foehn::particles
