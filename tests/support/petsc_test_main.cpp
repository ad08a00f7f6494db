// GoogleTest main for tests that use PETSc (and MPI): PETSc is initialised once around all
// tests, as an application would; the library itself never calls PetscInitialize. Command-line
// options after the gtest ones reach the PETSc options database. Under mpiexec only rank 0
// prints the per-test progress, but a failure on any rank makes that rank, and so mpiexec,
// exit non-zero.
#include <gtest/gtest.h>
#include <petscsys.h>

#include "foehn/petsc/device_binding.hpp"

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  foehn::petsc::preset_gpu_mpi_options();  // a CUDA PETSc with Debian's OpenMPI
  if (PetscInitialize(&argc, &argv, nullptr, nullptr) != 0) return 1;
  PetscMPIInt rank = 0;
  MPI_Comm_rank(PETSC_COMM_WORLD, &rank);
  if (rank != 0) {
    auto& listeners = ::testing::UnitTest::GetInstance()->listeners();
    delete listeners.Release(listeners.default_result_printer());
  }
  const int result = RUN_ALL_TESTS();
  if (PetscFinalize() != 0) return 1;
  return result;
}
