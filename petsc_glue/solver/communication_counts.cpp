#include "foehn/petsc/communication_counts.hpp"

#include <petsclog.h>

namespace foehn::petsc {

namespace {

std::int64_t whole(PetscLogDouble count) noexcept {
  return static_cast<std::int64_t>(count);
}

}  // namespace

#if defined(PETSC_USE_LOG)
// PETSc keeps these as doubles in globals it updates from its MPI macros (petsclog.h); a
// thread-safe PETSc adds to the thread-local copies too, which only its log handler reads.
CommunicationCounts communication_counts() noexcept {
  CommunicationCounts counts;
  counts.halo_exchanges = whole(petsc_wait_all_ct + petsc_wait_any_ct);
  counts.messages = whole(petsc_send_ct + petsc_isend_ct);
  counts.reductions =
      whole(petsc_allreduce_ct + petsc_gather_ct + petsc_scatter_ct + petsc_wait_ct);
  return counts;
}

bool communication_counts_available() noexcept {
  return true;
}
#else
CommunicationCounts communication_counts() noexcept {
  return {};
}

bool communication_counts_available() noexcept {
  return false;
}
#endif

}  // namespace foehn::petsc
