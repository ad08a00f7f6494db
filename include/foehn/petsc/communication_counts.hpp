#pragma once
// Counts of the MPI communication PETSc does on a rank: what a timestep pays in latency on
// several ranks, whatever the route (host-staged or CUDA-aware). Kernel launches and host
// waits are counted by cuda_call_counts.hpp; these are the other half of what synchronises.
//
//   const petsc::CommunicationCounts before = petsc::communication_counts();
//   KSPSolve(ksp, b, x);
//   const petsc::CommunicationCounts used = petsc::communication_counts() - before;
//
// The counts are PETSc's own (the counters -log_view sums: PETSc's sources and any code that
// includes petsclog.h, Foehn's included, count through its MPI macros), read without a log
// handler, so they cost nothing to keep:
//  - halo_exchanges: completions of neighbour messages (MPI_Waitall, MPI_Waitany). A PetscSF
//    halo exchange (every MatMult, VecScatter and PetscSF broadcast or reduction with off-rank
//    entries) waits once for what it receives and once for what it sends, on each rank that
//    has both; a rank with no neighbour in it does not wait. Zero on one rank.
//  - messages: point-to-point messages sent (MPI_Send, MPI_Isend and persistent sends started).
//  - reductions: collective operations on communicators of several ranks (MPI_Allreduce,
//    MPI_Bcast, MPI_Reduce_scatter_block, MPI_Alltoall and PETSc's gathers and scatters), each
//    of which waits for every rank, and the waits for single requests (MPI_Wait): PETSc's
//    non-blocking reductions (pipelined Krylov methods, VecNormBegin/End) complete that way,
//    and PETSc counts their MPI_Iallreduce nowhere else. Zero on one rank.
// A PETSc built without logging (--with-log=0) has no counters: counts stay zero and
// communication_counts_available() says so.
#include <cstdint>

namespace foehn::petsc {

struct CommunicationCounts {
  std::int64_t halo_exchanges = 0;
  std::int64_t messages = 0;
  std::int64_t reductions = 0;

  CommunicationCounts& operator+=(const CommunicationCounts& other) noexcept {
    halo_exchanges += other.halo_exchanges;
    messages += other.messages;
    reductions += other.reductions;
    return *this;
  }
  CommunicationCounts& operator-=(const CommunicationCounts& other) noexcept {
    halo_exchanges -= other.halo_exchanges;
    messages -= other.messages;
    reductions -= other.reductions;
    return *this;
  }
  friend CommunicationCounts operator+(CommunicationCounts a,
                                       const CommunicationCounts& b) noexcept {
    return a += b;
  }
  friend CommunicationCounts operator-(CommunicationCounts a,
                                       const CommunicationCounts& b) noexcept {
    return a -= b;
  }
};

// The calling rank's totals since PetscInitialize (all zero without PETSc's logging).
CommunicationCounts communication_counts() noexcept;
// False for a PETSc built without logging, whose counts are always zero.
bool communication_counts_available() noexcept;

}  // namespace foehn::petsc
