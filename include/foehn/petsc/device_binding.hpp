#pragma once
// Which GPU an MPI rank uses: ranks on the same host are numbered 0, 1, ... (MPI's shared-
// memory split) and take devices round robin, so four ranks on a one-GPU host share it (the
// published runs used 4 ranks + 1 GPU) and eight ranks on a four-GPU host use two per GPU.
#include <mpi.h>

namespace foehn::petsc {

// The rank's index among the ranks of `comm` on its host. Collective.
int host_local_rank(MPI_Comm comm);

// Selects device host_local_rank % device count on the calling thread and returns it.
// Collective. Throws foehn::Error (unavailable) when the host has no CUDA device.
int select_device_for_rank(MPI_Comm comm);

}  // namespace foehn::petsc
