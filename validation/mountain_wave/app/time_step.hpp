#pragma once
// foehn-mountainwave's time step. A run ends exactly at -end_time: with -cfl the step is
// shortened to divide it; a -dt that does not is refused rather than overshooting. The
// advective CFL number U dt / shortest edge is bounded by -cfl_max: the implicit steps stay
// stable far beyond it, but the flow they give is no longer a solution of anything
// (docs/mountain_wave.md).
#include <mpi.h>

#include <cstdint>
#include <span>
#include <string>

#include "foehn/mesh/tet_mesh.hpp"
#include "run_options.hpp"

namespace foehn::mountainwave {

// The shortest edge of the ranks' local meshes. Collective.
double shortest_edge(const TetMesh& local, MPI_Comm comm);
// Sets o.numerics.dt from -cfl (if given) and checks it against -cfl_max, the run's step budget
// and -end_time (a whole number of steps); invalid_input naming the options otherwise.
void choose_time_step(RunOptions& o, double shortest);
// The CFL number of the step dt on `local` with the nodal `velocity` (3 per node): the largest
// over the tets of the larger of `speed_floor` (U) and the tet's largest nodal speed, times dt,
// over the tet's shortest edge. This is the step's own number (TetCfl) with U as a floor, so on
// the starting mesh and state it is choose_time_step's U dt / shortest edge. Collective.
double state_cfl(const TetMesh& local, std::span<const double> velocity, double speed_floor,
                 double dt, MPI_Comm comm);
// After the adaptation at `step`: `cfl` (state_cfl on the new mesh) above -cfl_max is an error
// (invalid_input naming -adapt_hmin, the step, the new mesh's `shortest` edge and the numbers).
// The step is not shortened: the run's step count to -end_time, its time history and a
// restart's fingerprint all hold dt.
void check_time_step_after_adaptation(const RunOptions& o, std::int64_t step, double cfl,
                                      double shortest);
// A warning for the run log where the time scheme amplifies what it should keep (empty
// otherwise): one Picard iteration with the extrapolated velocity (-picard 1
// -picard_extrapolate) treats the buoyancy exchange as Adams-Bashforth 2 does, which amplifies
// a free gravity wave by about (pi/4) (N dt)^3 a buoyancy period (docs/mountain_wave.md).
std::string time_scheme_warning(const RunOptions& o);
// A restart at `start` must still end at -end_time after a whole number of steps.
void check_whole_steps_to_end(const RunOptions& o, double start);

}  // namespace foehn::mountainwave
