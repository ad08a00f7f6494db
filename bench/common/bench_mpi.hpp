#pragma once
// What the multi-rank GPU benchmarks (bench_*_distributed) share: their main() (MPI first, the
// GPU presets, PETSc, an error that ends every rank) and the count of GPUs their ranks use.
// Header-only: only those benchmarks link MPI and PETSc.
#include <mpi.h>
#include <petscsys.h>

#include <cstdio>
#include <set>
#include <vector>

#include "foehn/petsc/device_binding.hpp"
#include "foehn/petsc/mpi_collective.hpp"
#include "foehn/runtime/error.hpp"

namespace foehn::bench {

// Distinct devices used by the ranks of `comm` (one host), given each rank's.
inline int distinct_devices(MPI_Comm comm, int device) {
  int size = 0;
  FOEHN_MPI_CHECK(MPI_Comm_size(comm, &size));
  std::vector<int> all(static_cast<std::size_t>(size));
  FOEHN_MPI_CHECK(MPI_Allgather(&device, 1, MPI_INT, all.data(), 1, MPI_INT, comm));
  return static_cast<int>(std::set<int>(all.begin(), all.end()).size());
}

// MPI first, as Foehn's programs do, so that the GPU-related PETSc options can be preset; then
// PETSc and `run`. A foehn::Error on one rank ends every rank with its exit code (the others may
// be waiting in a collective call).
template <typename Run>
int run_mpi_benchmark(int argc, char** argv, const char* name, Run run) {
  if (MPI_Init(&argc, &argv) != MPI_SUCCESS) return 1;
  foehn::petsc::preset_gpu_mpi_options(MPI_COMM_WORLD);
  if (PetscInitialize(&argc, &argv, nullptr, nullptr) != 0) return 1;
  // The benchmark reads its own options from argv; PETSc need not list them as unused.
  (void)PetscOptionsSetValue(nullptr, "-options_left", "0");
  int status = 0;
  try {
    status = run(argc, argv);
  } catch (const foehn::Error& error) {
    std::fprintf(stderr, "%s: %s\n", name, error.what());
    MPI_Abort(MPI_COMM_WORLD, foehn::exit_code_for(error));
  }
  PetscFinalize();
  MPI_Finalize();
  return status;
}

}  // namespace foehn::bench
