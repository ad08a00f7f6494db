#pragma once
// Which GPU an MPI rank uses: ranks on the same host are numbered 0, 1, ... (MPI's shared-
// memory split) and take devices round robin, so four ranks on a one-GPU host share it (the
// published runs used 4 ranks + 1 GPU) and eight ranks on a four-GPU host use two per GPU.
#include <mpi.h>

namespace foehn::petsc {

// The rank's index among the ranks of `comm` on its host. Collective.
int host_local_rank(MPI_Comm comm);

// True when no GPU is shared: on every host of `comm`, at most as many ranks as CUDA devices
// (false where a host has no device). Collective; the same answer on every rank.
bool one_rank_per_device(MPI_Comm comm);

// Selects device host_local_rank % device count on the calling thread and returns it.
// Collective. Throws foehn::Error (unavailable) when the host has no CUDA device. (A PETSc built
// with CUDA picks its device as rank % device count, the same on one host.)
int select_device_for_rank(MPI_Comm comm);

// For programs linked to a PETSc built with CUDA, BEFORE PetscInitialize: when MPI is not
// CUDA-aware (Debian's OpenMPI), presets -use_gpu_aware_mpi 0, without which PETSc aborts at
// start on a GPU; the command line, PETSC_OPTIONS and option files still decide. Does nothing
// with a PETSc without CUDA. Never throws.
void preset_gpu_mpi_options() noexcept;

}  // namespace foehn::petsc
