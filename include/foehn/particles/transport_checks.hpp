#pragma once
// Checks of a transport call's inputs that foehn-trajectories makes on its own inputs (in
// degrees, or by stepping in chunks between met times) and the language bindings make through
// these functions (in radians), so that both refuse the same things.

#include "foehn/particles/met_grid.hpp"
#include "foehn/particles/particle_set.hpp"
#include "foehn/particles/transport.hpp"

namespace foehn::particles {

// invalid_input unless the whole call (t_start to t_start + steps * dt, either direction) lies
// within the grid's times [t0, t1]: beyond them the winds are extrapolated, not known.
void require_clock_within_met_times(const TransportClock& clock, const MetGridGeometry& grid);

// invalid_input for a parcel whose latitude lies outside [-pi/2, pi/2] or whose longitude lies
// outside [-2 pi, 2 pi] (radians; the limits foehn-trajectories' parcel files hold in degrees),
// e.g. a position given in degrees.
void require_geographic_positions(const ParticleSet& parcels);

}  // namespace foehn::particles
