#include "gpu_memory.hpp"

#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include <petscsys.h>

#include "foehn/petsc/mpi_collective.hpp"
#include "foehn/petsc/petsc_check.hpp"
#include "foehn/runtime/device.hpp"
#include "foehn/runtime/error.hpp"
#include "foehn/runtime/memory.hpp"

namespace foehn::mountainwave {

namespace {

std::string gib(double bytes) {
  char text[32];
  std::snprintf(text, sizeof text, "%.2f GiB", bytes / (1024.0 * 1024.0 * 1024.0));
  return text;
}

}  // namespace

GpuMemoryModel gpu_memory_model(bool device_solves, int ranks) {
  // Measured at the end of the first step on an H200 (the largest rank, default solvers, GAMG's
  // product buffers freed while it is built; docs/scaling.md): with the solves on the GPU,
  // PETSc's matrices, the GAMG hierarchy and the Krylov vectors beside Foehn's own arrays: one
  // rank 2195 (5 M tets) and 1999 (20 M) bytes per tet; several ranks add the off-rank blocks
  // and PETSc's COO maps of the hand-off, 3209 bytes per tet on two at 5 M. With the solves on
  // the host only Foehn's arrays (its pool, 860 bytes per tet at 5 M tets).
  if (!device_solves) return {1000.0, 1.0e9, 0.0, 0.0};
  // One rank, sampled every 100 ms on an H200 (27 Nov): GAMG's set-up with its products on the
  // GPU peaks at 4,159 bytes per tet (20 M tets, 79.3 GB), with them on the host at 2,043
  // (40 M tets, 77.9 GB; the run then holds 1,987).
  if (ranks == 1) return {2300.0, 1.0e9, 0.0, 4300.0};
  // Several ranks (PETSc 3.26, H200, with or without the product buffers freed): GAMG's
  // products on the GPUs ran at 5 M tets per rank (2 and 4 ranks) and failed at 10 M on two
  // ranks with 98 GB of 140 free. Between the two they move to the host.
  return {3400.0, 1.0e9, 8.0e6, 0.0};
}

GalerkinProductPlacement galerkin_product_placement(const GpuMemoryModel& model, int ranks,
                                                    double tets_per_rank, double free_bytes) {
  GalerkinProductPlacement placement;
  placement.past_cusparse_limit = model.device_products_max_tets_per_rank > 0 &&
                                  tets_per_rank > model.device_products_max_tets_per_rank;
  placement.device_peak_bytes =
      model.fixed_bytes + model.device_products_peak_bytes_per_tet * tets_per_rank;
  placement.peak_too_large =
      model.device_products_peak_bytes_per_tet > 0 && placement.device_peak_bytes > free_bytes;
  if (!placement.past_cusparse_limit && !placement.peak_too_large) return placement;
  // Past cuSPARSE's limit GAMG's Galerkin products (PtAP) are formed on the host; everything
  // else stays on the GPUs. Once per run: the pressure preconditioner is built once. Measured
  // on 2 x H200 at 20 M tets: the first step (which builds it) 23-33 s against 16 s on one GPU
  // with the products on its device, later steps 1.4x faster. On more than two ranks (slabs
  // with two neighbours) the prolongator smoothing's A P failed on the GPUs too (4 x H200,
  // 80 M tets, 21 M per rank; on two ranks it ran on the GPUs at that size): there it goes to
  // the host as well (that 80 M run then failed in another cuSPARSE call of the set-up,
  // docs/scaling.md). On one rank the products move where their set-up peak would not fit:
  // measured on one H200, 40 M tets then run (first step slower, later steps unchanged) where
  // with them on the GPU the set-up ran out of memory.
  placement.host_options.push_back("-matptap_backend_cpu");
  if (ranks != 2) placement.host_options.push_back("-matmatmult_backend_cpu");
  return placement;
}

std::string check_gpu_memory_fits(MPI_Comm comm, double global_tets, bool device_solves,
                                  const std::string& request) {
  int rank = 0, ranks = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &ranks);
  const GpuMemoryModel model = gpu_memory_model(device_solves, ranks);
  // METIS balances tets within a few percent: size for the largest part.
  const double tets_per_rank = global_tets / ranks * 1.05;
  double free_bytes = 0;
  petsc::detail::run_collectively(comm, [&] {
    const double needed = model.fixed_bytes + model.bytes_per_tet * tets_per_rank;
    const DeviceMemoryInfo memory = device_memory_info();
    free_bytes = static_cast<double>(memory.free_bytes);
    if (needed > static_cast<double>(memory.free_bytes))
      fail(ErrorCategory::out_of_memory, request, ": about ", tets_per_rank, " tets on rank ", rank,
           " need about ", gib(needed), " (", static_cast<long long>(needed),
           " bytes) of GPU memory with the solves on the ", device_solves ? "GPU" : "host",
           ", but its GPU ", current_device(), " has ", gib(static_cast<double>(memory.free_bytes)),
           " free of ", gib(static_cast<double>(memory.total_bytes)),
           ": use more GPUs (one rank each) or a smaller mesh");
  });
  const GalerkinProductPlacement placement =
      galerkin_product_placement(model, ranks, tets_per_rank, free_bytes);
  std::string moved;
  for (const char* option : placement.host_options) {
    PetscBool user_set = PETSC_FALSE;
    FOEHN_PETSC_CHECK(PetscOptionsHasName(nullptr, nullptr, option, &user_set));
    if (user_set) continue;
    FOEHN_PETSC_CHECK(PetscOptionsSetValue(nullptr, option, "1"));
    // Marked used: PETSc reads it only where GAMG forms that product, and a run whose
    // preconditioner never needs it must not end with "unknown option".
    FOEHN_PETSC_CHECK(PetscOptionsHasName(nullptr, nullptr, option, &user_set));
    moved += std::string(moved.empty() ? "" : " ") + option + " 1";
  }
  if (moved.empty()) return {};
  char note[320];
  if (placement.past_cusparse_limit)
    std::snprintf(note, sizeof note,
                  "about %.3g tets per rank, more than the %.3g at which GAMG's sparse products "
                  "on several GPUs run out of cuSPARSE resources: they are formed on the host (%s)",
                  tets_per_rank, model.device_products_max_tets_per_rank, moved.c_str());
  else
    std::snprintf(note, sizeof note,
                  "GAMG's sparse products on the GPU would need about %s at their peak for %.3g "
                  "tets, more than the %s free: they are formed on the host (%s)",
                  gib(placement.device_peak_bytes).c_str(), tets_per_rank, gib(free_bytes).c_str(),
                  moved.c_str());
  return note;
}

GpuMemoryUse measure_gpu_memory(MPI_Comm comm, std::int64_t local_tets) {
  const DeviceMemoryInfo memory = device_memory_info();
  const double used = static_cast<double>(memory.total_bytes - memory.free_bytes);
  const double pool = static_cast<double>(MemoryPool::current().reserved_bytes());
  // The largest user decides whether a case fits: MAXLOC keeps its rank.
  struct {
    double value;
    int rank;
  } mine{used, 0}, largest{0, 0};
  MPI_Comm_rank(comm, &mine.rank);
  double per_tet = used / static_cast<double>(std::max<std::int64_t>(local_tets, 1));
  double values[3] = {pool, per_tet, static_cast<double>(memory.total_bytes)}, maxima[3] = {};
  if (MPI_Allreduce(&mine, &largest, 1, MPI_DOUBLE_INT, MPI_MAXLOC, comm) != MPI_SUCCESS ||
      MPI_Allreduce(values, maxima, 3, MPI_DOUBLE, MPI_MAX, comm) != MPI_SUCCESS)
    fail(ErrorCategory::internal, "measure_gpu_memory: MPI_Allreduce failed");
  GpuMemoryUse use;
  use.max_used_bytes = largest.value;
  use.max_pool_bytes = maxima[0];
  use.bytes_per_tet = maxima[1];
  use.device_bytes = maxima[2];
  MPI_Comm_size(comm, &use.ranks);
  return use;
}

std::string GpuMemoryUse::describe() const {
  char text[256];
  std::snprintf(text, sizeof text,
                "GPU memory: up to %s of %s in use per rank (%d rank(s)), %.0f bytes per tet, "
                "Foehn's pool up to %s",
                gib(max_used_bytes).c_str(), gib(device_bytes).c_str(), ranks, bytes_per_tet,
                gib(max_pool_bytes).c_str());
  return text;
}

}  // namespace foehn::mountainwave
