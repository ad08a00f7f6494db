#pragma once
// Advection of a whole particle set through a met grid: CPU reference (OpenMP over parcels
// where available) and CUDA backend (one thread per parcel), both running the same FOEHN_HD
// step functions of integrators.hpp. Each parcel starts at t_start and takes `steps` steps of
// dt; its time attribute is set to t_start + steps * dt.

#include "foehn/particles/integrators.hpp"
#include "foehn/particles/met_grid.hpp"
#include "foehn/particles/particle_set.hpp"
#include "foehn/runtime/stream.hpp"

namespace foehn::particles {

// invalid_input for steps < 0, dt not finite, or invalid particle arrays.
void advect(ParticleSet& particles, const MetGrid& grid, double t_start, double dt, int steps,
            Integrator scheme = Integrator::midpoint);

// The CUDA backend; queued on `stream`, which it synchronises before returning.
// unavailable in builds without CUDA.
void advect(DeviceParticleSet& particles, const DeviceMetGrid& grid, double t_start, double dt,
            int steps, const Stream& stream, Integrator scheme = Integrator::midpoint);

}  // namespace foehn::particles
