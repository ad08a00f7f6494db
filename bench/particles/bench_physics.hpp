#pragma once
// The transport settings both particle benchmarks time as "full physics".
#include "foehn/particles/transport.hpp"

namespace foehn::particles {

// Turbulent diffusion, subgrid (Langevin) winds and a three-day decay, on top of advection.
inline TransportSettings full_physics() {
  TransportSettings s;
  s.physics.diffusion = true;
  s.physics.subgrid_wind = true;
  s.physics.decay_time_troposphere = 259200.0;
  s.physics.decay_time_stratosphere = 259200.0;
  return s;
}

}  // namespace foehn::particles
