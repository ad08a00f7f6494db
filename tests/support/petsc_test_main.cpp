// GoogleTest main for tests that use PETSc (and MPI): PETSc is initialised once around all
// tests, as an application would; the library itself never calls PetscInitialize. Command-line
// options after the gtest ones reach the PETSc options database. Under mpiexec only rank 0
// prints the per-test progress, but a failure on any rank makes that rank, and so mpiexec,
// exit non-zero.
#include <gtest/gtest.h>
#include <petscsys.h>

#include <cstdio>
#include <exception>

#include "foehn/petsc/device_binding.hpp"
#include "foehn/runtime/device.hpp"

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  // MPI first, as an application would, so that the GPU presets can ask it about the host.
  int provided = 0;  // the level PetscInitialize would ask for
  if (MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided) != MPI_SUCCESS) return 1;
  foehn::petsc::preset_gpu_mpi_options(MPI_COMM_WORLD);
  if (PetscInitialize(&argc, &argv, nullptr, nullptr) != 0) return 1;
  // One GPU per rank where the host has several, as an application selects it: Foehn's
  // streams and PETSc's device context then live on the same GPU (-device_select).
  if (foehn::cuda_device_count() > 0) {
    try {
      foehn::petsc::select_device_for_rank(PETSC_COMM_WORLD);
    } catch (const std::exception& error) {
      std::fprintf(stderr, "petsc_test_main: %s\n", error.what());
      return 1;
    }
  }
  PetscMPIInt rank = 0;
  MPI_Comm_rank(PETSC_COMM_WORLD, &rank);
  if (rank != 0) {
    auto& listeners = ::testing::UnitTest::GetInstance()->listeners();
    delete listeners.Release(listeners.default_result_printer());
  }
  const int result = RUN_ALL_TESTS();
  const bool finalised = PetscFinalize() == 0;
  MPI_Finalize();  // PETSc leaves MPI to whoever initialised it
  return finalised ? result : 1;
}
