#pragma once
// Where the parcels of a run live and move: the host (CPU reference, OpenMP) or the GPU. The
// driver's loop is the same for both; only these operations differ.

#include <memory>

#include "foehn/particles/met_grid.hpp"
#include "foehn/particles/particle_set.hpp"
#include "foehn/particles/transport.hpp"
#include "trajectory_options.hpp"

namespace foehn::app {

class ParcelRunner {
 public:
  virtual ~ParcelRunner() = default;
  virtual particles::TransportReport transport(const particles::TransportClock& clock,
                                               const particles::TransportSettings& settings) = 0;
  virtual void sort() = 0;
  // The met pair moves on: (old t1, `next` at t_next).
  virtual void advance_met(const particles::WindLevel& next, double t_next) = 0;
  // A host copy of the parcels (for output).
  virtual particles::ParticleSet parcels() const = 0;
};

// Takes the initial parcels and the first met pair.
std::unique_ptr<ParcelRunner> make_parcel_runner(TrajectoryBackend backend,
                                                 particles::ParticleSet parcels,
                                                 particles::MetGridGeometry geometry,
                                                 const particles::WindLevel& at_t0,
                                                 const particles::WindLevel& at_t1);

}  // namespace foehn::app
