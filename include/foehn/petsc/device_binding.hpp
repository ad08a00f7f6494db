#pragma once
// Which GPU an MPI rank uses: ranks on the same host are numbered 0, 1, ... (MPI's shared-
// memory split) and take devices round robin, so four ranks on a one-GPU host share it (the
// published runs used 4 ranks + 1 GPU) and eight ranks on a four-GPU host use two per GPU.
#include <mpi.h>

#include <string>
#include <vector>

namespace foehn::petsc {

// The rank's index among the ranks of `comm` on its host. Collective.
int host_local_rank(MPI_Comm comm);

// True when no GPU is shared: on every host of `comm`, at most as many ranks as CUDA devices
// (false where a host has no device). Collective; the same answer on every rank.
bool one_rank_per_device(MPI_Comm comm);

// Selects the rank's device on the calling thread and returns it. In order of precedence:
// - `-foehn_devices 0,2,...` (PETSc options database): the host's ranks take these devices round
//   robin, device = list[host_local_rank % list size]; the choice is also set as PETSc's
//   `-device_select`, so that a PETSc built with CUDA (whose devices start lazily) uses the same;
// - PETSc's `-device_select` when set (preset_gpu_mpi_options sets it to the default below);
// - host_local_rank % device count.
// Collective. Throws foehn::Error (unavailable) when the host has no CUDA device,
// (invalid_input) when an option names a device the host does not have or lists none.
int select_device_for_rank(MPI_Comm comm);

// One line per rank, gathered on rank 0 (empty elsewhere), saying where each rank runs:
// "rank 1 on node7 (host rank 1 of 2): GPU 1 NVIDIA H200 [0000:2a:00.0]". `device` is the
// rank's device (select_device_for_rank), or -1 for a rank without one. Collective.
std::vector<std::string> device_placement_report(MPI_Comm comm, int device);

// Empty when every rank of `comm` has a GPU of its own; otherwise (on rank 0, empty elsewhere)
// one line for the run log saying how many ranks share how many GPUs on the most crowded host
// and what that costs: ranks sharing a GPU time-slice it and wait for each other in every
// Krylov iteration (measured: docs/scaling.md). Collective.
std::string device_sharing_warning(MPI_Comm comm);

// For programs linked to a PETSc built with CUDA, after MPI_Init and BEFORE PetscInitialize
// (Foehn's programs initialise MPI themselves first, as a Fortran dynamical core does):
// - presets -use_gpu_aware_mpi 0 unless every rank's MPI says it is CUDA-aware
//   (query_mpi_gpu_support; Debian's Open MPI is not), without which PETSc aborts at start on a
//   GPU; with a CUDA-aware MPI PETSc passes device buffers to it;
// - presets -device_select host_local_rank(comm) % device count: PETSc's own default is the
//   rank in MPI_COMM_WORLD % device count, which differs across several hosts and would leave
//   PETSc's kernels on another GPU than Foehn's.
// The command line, PETSC_OPTIONS and option files still decide. With MPI not initialised it
// only presets -use_gpu_aware_mpi 0 (MPI cannot be asked); with a PETSc without CUDA it does
// nothing. Never throws; a failure leaves PETSc's defaults.
void preset_gpu_mpi_options(MPI_Comm comm = MPI_COMM_WORLD) noexcept;

// Whether the MPI library the process runs with (asked at run time, so a CUDA-aware build of
// the same MPI swapped in under the same binaries counts) takes device buffers.
enum class GpuAwareness { cuda_aware, not_cuda_aware, unknown };
struct MpiGpuSupport {
  GpuAwareness awareness = GpuAwareness::unknown;
  std::string how;  // the query and its answer, for logs
};
MpiGpuSupport query_mpi_gpu_support();

// One line for the run log: whether the MPI is CUDA-aware, and whether PETSc passes it device
// buffers or stages through the host, and whether the options overrode the preset (a user's
// -use_gpu_aware_mpi always wins). After PetscInitialize.
std::string gpu_aware_mpi_report();
// True when a PETSc built with CUDA hands device buffers to MPI (-use_gpu_aware_mpi, as preset
// or set); false when it stages them through the host, or has no CUDA.
bool petsc_passes_device_buffers();

}  // namespace foehn::petsc
