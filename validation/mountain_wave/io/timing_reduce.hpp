#pragma once
// The Table-10 timing table over several MPI ranks: each row is the maximum over the ranks of
// that row's time (the slowest rank sets the pace of a step), so on several ranks the rows need
// not add up to the total exactly; on one rank they do.
#include <mpi.h>

#include <string>

#include "io/timing_table.hpp"

namespace foehn::mountainwave {

// Collective on `comm`. Every rank gets the same table. Throws foehn::Error (invalid_input, on
// every rank) when the ranks have timed different numbers of steps.
TimingTable reduce_timing_table(const StepTimings& timings, MPI_Comm comm, std::string label = {});

}  // namespace foehn::mountainwave
