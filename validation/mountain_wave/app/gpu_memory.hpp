#pragma once
// GPU memory of the mountain-wave core: refused up front when a case cannot fit its GPUs, and
// reported in the run log once the first step has built every preconditioner.
//
//   const std::string note = check_gpu_memory_fits(comm, global_tets, device_solves, "-mesh_tets
//   4e7");
//   ... first step ...
//   const GpuMemoryUse use = measure_gpu_memory(comm, mesh.local_tets());
//   if (rank == 0) std::printf("%s\n", use.describe().c_str());
#include <mpi.h>

#include <cstdint>
#include <string>
#include <vector>

namespace foehn::mountainwave {

// GPU memory a rank needs per tet of its part, measured at the end of the first step (device
// solves: matrices, GAMG hierarchy, Krylov work vectors, Foehn's fields and assembly buffers),
// and the CUDA context and libraries' fixed share. See docs/scaling.md for the measurements.
struct GpuMemoryModel {
  double bytes_per_tet = 0;
  double fixed_bytes = 0;
  // Beyond this many tets on a rank (0: no limit) GAMG's Galerkin products on several GPUs fail
  // in cuSPARSE (CUSPARSE_STATUS_INSUFFICIENT_RESOURCES) however much memory is free.
  double device_products_max_tets_per_rank = 0;
  // One rank: the peak while GAMG forms its Galerkin products on the GPU (cuSPARSE's SpGEMM
  // work space on top of the matrices), per tet; where it exceeds the free memory the products
  // are formed on the host, whose peak bytes_per_tet covers (0: not modelled).
  double device_products_peak_bytes_per_tet = 0;
};
GpuMemoryModel gpu_memory_model(bool device_solves, int ranks);

// Where GAMG's Galerkin products of the pressure preconditioner are formed for `tets_per_rank`
// (the largest rank's) with `free_bytes` free on each GPU: on the GPUs (no options) or on the
// host (the PETSc options that put them there, each set to 1 unless the user chose it).
struct GalerkinProductPlacement {
  bool past_cusparse_limit = false;  // several ranks: beyond cuSPARSE's per-rank limit
  bool peak_too_large = false;       // one rank: the set-up peak on the GPU would not fit
  double device_peak_bytes = 0;      // that peak with the products on the GPU (one rank)
  std::vector<const char*> host_options;
};
GalerkinProductPlacement galerkin_product_placement(const GpuMemoryModel& model, int ranks,
                                                    double tets_per_rank, double free_bytes);

// Collective. Throws foehn::Error (out_of_memory, on every rank) when the tets per rank of
// `global_tets` over the ranks of `comm` need more memory than any rank's GPU has free now,
// naming the bytes needed and free, the rank and `request` (the option that sized the case);
// before anything large is allocated. The current device must be the rank's. Past the per-rank
// limit of GAMG's device products on several ranks, or where on one rank their set-up peak
// would not fit the free memory, it sets PETSc's -matptap_backend_cpu (on one rank and on more
// than two also -matmatmult_backend_cpu; each unless the user gave it), and returns a line for
// the run log saying so; otherwise an empty string.
std::string check_gpu_memory_fits(MPI_Comm comm, double global_tets, bool device_solves,
                                  const std::string& request);

struct GpuMemoryUse {
  double max_used_bytes = 0;  // over ranks: device memory in use (total - free)
  double max_pool_bytes = 0;  // over ranks: held by Foehn's stream-ordered pool
  double bytes_per_tet = 0;   // the largest rank's use / its local tets
  double device_bytes = 0;    // that rank's device's total memory
  int ranks = 1;
  std::string describe() const;  // one line for the run log
};

// Collective: the device memory every rank uses now, reduced over ranks.
GpuMemoryUse measure_gpu_memory(MPI_Comm comm, std::int64_t local_tets);

}  // namespace foehn::mountainwave
