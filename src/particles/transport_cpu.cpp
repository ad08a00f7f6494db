// CPU reference of the parcel physics: transport_step (physics.hpp) for every parcel and step,
// OpenMP over parcels when the build found it. Parcels are independent and their random
// numbers are keyed by id, so the result does not depend on the number of threads.
#include <cmath>
#include <cstdint>
#include <numbers>
#include <vector>

#include "foehn/particles/transport.hpp"
#include "foehn/particles/transport_checks.hpp"
#include "foehn/runtime/error.hpp"

namespace foehn::particles {

namespace detail {

void check_transport_arguments(const TransportClock& clock, const TransportSettings& settings) {
  if (clock.steps < 0 || !std::isfinite(clock.dt) || !std::isfinite(clock.t_start) ||
      (clock.steps > 0 && clock.dt == 0.0) || clock.first_step_index < 0) {
    fail(ErrorCategory::invalid_input,
         "transport: need steps >= 0, a finite non-zero dt, a finite start time and a "
         "non-negative first step index; got steps = ",
         clock.steps, ", dt = ", clock.dt, ", t_start = ", clock.t_start,
         ", first_step_index = ", clock.first_step_index);
  }
  settings.validate();
}

}  // namespace detail

void TransportSettings::validate() const {
  const TransportPhysics& p = physics;
  const double non_negative[] = {p.horizontal_diffusivity_troposphere,
                                 p.horizontal_diffusivity_stratosphere,
                                 p.vertical_diffusivity_troposphere,
                                 p.vertical_diffusivity_stratosphere,
                                 p.subgrid_horizontal_factor,
                                 p.subgrid_vertical_factor,
                                 p.tropopause_layer_depth};
  const char* names[] = {"horizontal_diffusivity_troposphere",
                         "horizontal_diffusivity_stratosphere",
                         "vertical_diffusivity_troposphere",
                         "vertical_diffusivity_stratosphere",
                         "subgrid_horizontal_factor",
                         "subgrid_vertical_factor",
                         "tropopause_layer_depth"};
  for (std::size_t i = 0; i < std::size(non_negative); ++i) {
    if (!std::isfinite(non_negative[i]) || non_negative[i] < 0.0) {
      fail(ErrorCategory::invalid_input, "transport settings: ", names[i],
           " must be finite and >= 0, got ", non_negative[i]);
    }
  }
  // A negative e-folding time is no decay time (foehn-trajectories' -decay_time_trop/_strat
  // refuse it too); it once ran as "no decay" without a word.
  if (!std::isfinite(p.decay_time_troposphere) || !std::isfinite(p.decay_time_stratosphere) ||
      p.decay_time_troposphere < 0.0 || p.decay_time_stratosphere < 0.0) {
    fail(ErrorCategory::invalid_input,
         "transport settings: decay times must be finite and >= 0 s (0 turns decay off), got ",
         p.decay_time_troposphere, " and ", p.decay_time_stratosphere);
  }
  if (!std::isfinite(p.tropopause_pressure) || p.tropopause_pressure <= 0.0) {
    fail(ErrorCategory::invalid_input,
         "transport settings: tropopause_pressure must be > 0 Pa, got ", p.tropopause_pressure);
  }
  if (p.scheme != Integrator::euler && p.scheme != Integrator::midpoint &&
      p.scheme != Integrator::rk4) {
    fail(ErrorCategory::invalid_input, "transport settings: unknown integrator ",
         static_cast<int>(p.scheme));
  }
}

void require_clock_within_met_times(const TransportClock& clock, const MetGridGeometry& grid) {
  const double end = clock.t_start + clock.dt * static_cast<double>(clock.steps);
  if (!std::isfinite(end)) return;  // transport() names the non-finite t_start or dt
  // Rounding of t_start + steps * dt against a met time the run was meant to end on.
  const double slack = 1e-9 * (grid.t1 - grid.t0);
  const auto inside = [&](double t) { return t >= grid.t0 - slack && t <= grid.t1 + slack; };
  if (!inside(clock.t_start) || !inside(end))
    fail(ErrorCategory::invalid_input, "transport: the run from t_start = ", clock.t_start,
         " s to ", end, " s (", clock.steps, " steps of ", clock.dt,
         " s) leaves the met grid's times [", grid.t0, ", ", grid.t1,
         "] s: its winds are not known there");
}

void require_geographic_positions(const ParticleSet& parcels) {
  using std::numbers::pi;
  constexpr double slack = 1e-9;  // rounding of a pole or a full turn given in degrees
  for (std::size_t i = 0; i < parcels.size(); ++i) {
    const double lon = parcels.longitude[i], lat = parcels.latitude[i];
    if (!(std::fabs(lat) <= 0.5 * pi + slack))
      fail(ErrorCategory::invalid_input, "parcel ", parcels.id[i], ": latitude ", lat,
           " rad lies outside [-pi/2, pi/2] (radians expected: degrees?)");
    // Longitudes wrap, but one beyond a full turn either way is no position (the limit the
    // particle files hold in degrees): 1e300 ran and put the parcel wherever rounding left it.
    if (!(std::fabs(lon) <= 2.0 * pi + slack))
      fail(ErrorCategory::invalid_input, "parcel ", parcels.id[i], ": longitude ", lon,
           " rad lies outside [-2 pi, 2 pi] (radians expected: degrees?)");
  }
}

void add_transport_quantities(ParticleSet& particles, const TransportPhysics& physics) {
  if (physics.subgrid_wind) {
    for (const char* name : subgrid_quantity_names)
      if (!particles.has_quantity(name)) particles.add_quantity(name, 0.0);
  }
  if (physics.track_path_length) {
    for (const char* name : path_quantity_names)
      if (!particles.has_quantity(name)) particles.add_quantity(name, 0.0);
  }
}

TransportReport transport(ParticleSet& particles, const MetGrid& grid, const TransportClock& clock,
                          const TransportSettings& settings) {
  particles.validate();
  detail::check_transport_arguments(clock, settings);
  const TransportPhysics physics = settings.physics;
  add_transport_quantities(particles, physics);
  std::vector<double*> decaying;
  if (physics.decays()) {
    for (const auto& name : settings.decaying_quantities)
      decaying.push_back(particles.quantity(name).data());
  }
  OptionalParcelArrays optional{{nullptr, nullptr, nullptr}, {nullptr, nullptr}};
  if (physics.subgrid_wind) {
    for (int c = 0; c < 3; ++c)
      optional.subgrid[c] = particles.quantity(subgrid_quantity_names[c]).data();
  }
  if (physics.track_path_length) {
    for (int c = 0; c < 2; ++c)
      optional.path[c] = particles.quantity(path_quantity_names[c]).data();
  }

  const MetGridView view = grid.view();
  const auto n = static_cast<std::int64_t>(particles.size());
  double* lon = particles.longitude.data();
  double* lat = particles.latitude.data();
  double* p = particles.pressure.data();
  double* t = particles.time.data();
  const std::int64_t* id = particles.id.data();
  ParcelStatus* status = particles.status.data();
  const auto decaying_count = static_cast<int>(decaying.size());
  double* const* decaying_values = decaying.data();

  std::uint64_t left_domain = 0, clamps = 0, active = 0;
#pragma omp parallel for schedule(static) reduction(+ : left_domain, clamps, active)
  for (std::int64_t i = 0; i < n; ++i) {
    ParcelState state = load_parcel(i, clock.t_start, lon, lat, p, status, optional);
    if (state.status == ParcelStatus::active) {
      DomainEvents events;
      for (int s = 0; s < clock.steps; ++s) {
        transport_step(view, physics, id[i], clock.first_step_index + s, clock.dt, state, events);
      }
      write_back_parcel(state, i, lon, lat, p, t, status, optional, decaying_values,
                        decaying_count);
      left_domain += events.left_domain;
      clamps += events.vertical_clamps;
    }
    if (state.status == ParcelStatus::active) ++active;
  }
  return TransportReport{static_cast<std::uint64_t>(n), active, left_domain, clamps};
}

}  // namespace foehn::particles
