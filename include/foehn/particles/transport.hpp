#pragma once
// The full parcel physics over several time steps: advection plus the optional subgrid winds,
// turbulent diffusion, domain checks and exponential decay of physics.hpp. CPU reference
// (OpenMP over parcels) and CUDA backend (one thread per parcel, all steps of the call in
// registers) run the same FOEHN_HD transport_step, so the call is the unit a driver puts
// between sorts and met-time updates.
//
// The Langevin state lives in three quantities, subgrid_u, subgrid_v (m/s) and subgrid_omega
// (Pa/s), added (zero) when subgrid winds are on and the set does not have them yet; the
// path lengths likewise in path_horizontal_m and path_vertical_m. Sorting and output carry
// them like any other quantity.

#include <cstdint>
#include <string>
#include <vector>

#include "foehn/particles/met_grid.hpp"
#include "foehn/particles/particle_set.hpp"
#include "foehn/particles/physics.hpp"
#include "foehn/runtime/stream.hpp"

namespace foehn::particles {

inline constexpr const char* subgrid_quantity_names[3] = {"subgrid_u", "subgrid_v",
                                                          "subgrid_omega"};
// Added (zero) when physics.track_path_length is on.
inline constexpr const char* path_quantity_names[2] = {"path_horizontal_m", "path_vertical_m"};

// Adds (zero) the quantities `physics` keeps in the set and the set lacks: the Langevin state
// with subgrid winds, the path lengths when tracked. transport() does it on its first call; a
// driver that writes the set before the first step calls it first, so that every snapshot of
// a series has the same arrays.
void add_transport_quantities(ParticleSet& particles, const TransportPhysics& physics);

// Which steps a call takes: `steps` steps of dt from t_start; `first_step_index` numbers the
// first of them for the random numbers (a driver counts steps over the whole run, so that
// no two steps of a run share numbers).
struct TransportClock {
  double t_start = 0.0;
  double dt = 0.0;
  int steps = 0;
  std::int64_t first_step_index = 0;
};

// What one call did: parcels that left a regional grid during the call (now frozen), pressure
// clamps into the met levels (events, summed over steps), parcels active at the end.
struct TransportReport {
  std::uint64_t parcels = 0;
  std::uint64_t active = 0;
  std::uint64_t left_domain = 0;
  std::uint64_t vertical_clamps = 0;
};

struct TransportSettings {
  TransportPhysics physics;
  // Quantities multiplied by the decay factor (when physics.decays()); each must exist.
  std::vector<std::string> decaying_quantities{"mass"};
  // invalid_input for negative or non-finite parameters, a decaying quantity that is missing.
  void validate() const;
};

// CPU reference. invalid_input for bad arguments (steps < 0, dt not finite or 0 with steps,
// bad settings, invalid parcels).
TransportReport transport(ParticleSet& particles, const MetGrid& grid, const TransportClock& clock,
                          const TransportSettings& settings);

// CUDA backend, queued on `stream` and synchronised before returning (the report is read
// back). unavailable without CUDA.
TransportReport transport(DeviceParticleSet& particles, const DeviceMetGrid& grid,
                          const TransportClock& clock, const TransportSettings& settings,
                          const Stream& stream);

}  // namespace foehn::particles
