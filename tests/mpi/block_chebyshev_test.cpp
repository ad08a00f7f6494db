// mpiexec -n 1, 2, 4: BlockChebyshev (several right-hand sides in one fixed Chebyshev solve)
// against PETSc's own KSPCHEBYSHEV + Jacobi run column by column with the same bounds and
// iterations, on host matrices and, where a CUDA PETSc and a GPU exist, on device matrices; the
// communication it saves, read from PETSc's counters (communication_counts.hpp); its refusals.
// Also what Foehn says of the MPI's CUDA support.
#include <gtest/gtest.h>
#include <petscksp.h>

#include <algorithm>
#include <cmath>
#include <optional>
#include <string>
#include <vector>

#include "foehn/petsc/block_chebyshev.hpp"
#include "foehn/petsc/communication_counts.hpp"
#include "foehn/petsc/device_binding.hpp"
#include "foehn/petsc/device_petsc.hpp"
#include "foehn/runtime/device.hpp"
#include "foehn/runtime/error.hpp"
#include "support/mpi_test_support.hpp"

namespace foehn::petsc {
namespace {

using foehn::testing::world;
using foehn::testing::world_rank;

constexpr PetscInt rows_per_rank = 40;
constexpr int columns = 3;

// A 1D P1 mass matrix (h/6) tridiag(1, 4, 1), h = 1, row-distributed: its Jacobi-scaled
// spectrum lies in (1/2, 3/2), inside the [1/2, 5/2] of a 3D P1 mass matrix.
Mat mass_matrix(MatType type) {
  Mat m = nullptr;
  EXPECT_EQ(MatCreate(world(), &m), 0);
  MatSetSizes(m, rows_per_rank, rows_per_rank, PETSC_DETERMINE, PETSC_DETERMINE);
  MatSetType(m, type);
  MatSeqAIJSetPreallocation(m, 3, nullptr);
  MatMPIAIJSetPreallocation(m, 3, nullptr, 1, nullptr);
  PetscInt first = 0, end = 0, size = 0;
  MatGetOwnershipRange(m, &first, &end);
  MatGetSize(m, &size, nullptr);
  for (PetscInt i = first; i < end; ++i) {
    const double diagonal = 4.0 / 6.0, off = 1.0 / 6.0;
    MatSetValue(m, i, i, diagonal, INSERT_VALUES);
    if (i > 0) MatSetValue(m, i, i - 1, off, INSERT_VALUES);
    if (i + 1 < size) MatSetValue(m, i, i + 1, off, INSERT_VALUES);
  }
  MatAssemblyBegin(m, MAT_FINAL_ASSEMBLY);
  MatAssemblyEnd(m, MAT_FINAL_ASSEMBLY);
  return m;
}

// Column c's value at global row i: smooth and rough parts, different per column.
double rhs_value(PetscInt i, int c) {
  return std::sin(0.1 * static_cast<double>(i) * (c + 1)) + ((i + c) % 3 == 0 ? 0.5 : -0.25);
}
double guess_value(PetscInt i, int c) {
  return 0.01 * static_cast<double>((i * 7 + c) % 11);
}

// The block's columns on the host, for comparisons (a device Vec is copied back by PETSc).
std::vector<double> host_copy(Vec v) {
  PetscInt n = 0;
  VecGetLocalSize(v, &n);
  const PetscScalar* a = nullptr;
  VecGetArrayRead(v, &a);
  std::vector<double> out(a, a + n);
  VecRestoreArrayRead(v, &a);
  return out;
}

void fill_block(Vec block, PetscInt first, double (*value)(PetscInt, int)) {
  PetscScalar* a = nullptr;
  VecGetArray(block, &a);
  for (int c = 0; c < columns; ++c)
    for (PetscInt i = 0; i < rows_per_rank; ++i) a[c * rows_per_rank + i] = value(first + i, c);
  VecRestoreArray(block, &a);
}

// Column by column with PETSc's KSPCHEBYSHEV + Jacobi: the reference, and its communication.
std::vector<double> per_column_reference(Mat m, int iterations, bool nonzero_guess,
                                         CommunicationCounts& used) {
  KSP ksp = nullptr;
  KSPCreate(world(), &ksp);
  KSPSetOperators(ksp, m, m);
  KSPSetType(ksp, KSPCHEBYSHEV);
  KSPChebyshevSetEigenvalues(ksp, 2.5, 0.5);
  KSPSetNormType(ksp, KSP_NORM_NONE);
  KSPSetTolerances(ksp, 1e-50, 1e-50, PETSC_DEFAULT, iterations);
  KSPSetInitialGuessNonzero(ksp, nonzero_guess ? PETSC_TRUE : PETSC_FALSE);
  PC pc = nullptr;
  KSPGetPC(ksp, &pc);
  PCSetType(pc, PCJACOBI);
  KSPSetUp(ksp);
  Vec b = nullptr, x = nullptr;
  MatCreateVecs(m, &x, &b);
  PetscInt first = 0;
  MatGetOwnershipRange(m, &first, nullptr);
  std::vector<double> out(static_cast<std::size_t>(columns * rows_per_rank));
  used = {};
  for (int c = 0; c < columns; ++c) {
    for (PetscInt i = 0; i < rows_per_rank; ++i) {
      VecSetValue(b, first + i, rhs_value(first + i, c), INSERT_VALUES);
      VecSetValue(x, first + i, nonzero_guess ? guess_value(first + i, c) : 0.0, INSERT_VALUES);
    }
    VecAssemblyBegin(b);
    VecAssemblyEnd(b);
    VecAssemblyBegin(x);
    VecAssemblyEnd(x);
    const CommunicationCounts before = communication_counts();  // the solve's alone
    EXPECT_EQ(KSPSolve(ksp, b, x), 0);
    used += communication_counts() - before;
    const std::vector<double> column = host_copy(x);
    std::copy(column.begin(), column.end(), out.begin() + c * rows_per_rank);
  }
  VecDestroy(&b);
  VecDestroy(&x);
  KSPDestroy(&ksp);
  return out;
}

double max_relative_difference(const std::vector<double>& a, const std::vector<double>& b) {
  double largest = 0, scale = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    largest = std::max(largest, std::abs(a[i] - b[i]));
    scale = std::max(scale, std::abs(b[i]));
  }
  MPI_Allreduce(MPI_IN_PLACE, &largest, 1, MPI_DOUBLE, MPI_MAX, world());
  MPI_Allreduce(MPI_IN_PLACE, &scale, 1, MPI_DOUBLE, MPI_MAX, world());
  return largest / scale;
}

struct Outcome {
  std::vector<double> solution;
  CommunicationCounts used;
};

Outcome block_solve(Mat m, const Stream* stream, int iterations, bool nonzero_guess) {
  BlockChebyshev block(m, columns, 0.5, 2.5, stream);
  PetscInt first = 0;
  MatGetOwnershipRange(m, &first, nullptr);
  fill_block(block.rhs(), first, rhs_value);
  // The first product with each of the three iterate blocks sets it up (symbolic product and
  // scatter, a few reductions, once per solver): done here, not counted below.
  block.solve(3, true);
  fill_block(block.solution(), first, guess_value);
  const CommunicationCounts before = communication_counts();
  block.solve(iterations, nonzero_guess);
  Outcome outcome{host_copy(block.solution()), communication_counts() - before};
  return outcome;
}

TEST(BlockChebyshev, EveryColumnIsPetscsChebyshevSolveOnTheHost) {
  Mat m = mass_matrix(MATAIJ);
  for (const bool nonzero_guess : {false, true}) {
    for (const int iterations : {1, 2, 25}) {
      CommunicationCounts reference_used;
      const std::vector<double> reference =
          per_column_reference(m, iterations, nonzero_guess, reference_used);
      const Outcome block = block_solve(m, nullptr, iterations, nonzero_guess);
      EXPECT_LE(max_relative_difference(block.solution, reference), 1e-14)
          << iterations << " iterations, guess " << nonzero_guess;
    }
  }
  MatDestroy(&m);
}

TEST(BlockChebyshev, ConvergesAtTheBoundsRate) {
  // 25 iterations on [1/2, 5/2]: the error falls by at most 2 (0.382)^25 = 7e-11; the exact
  // solution of M x = b from a direct solve.
  Mat m = mass_matrix(MATAIJ);
  const Outcome block = block_solve(m, nullptr, 25, false);
  KSP direct = nullptr;
  KSPCreate(world(), &direct);
  KSPSetOperators(direct, m, m);
  KSPSetType(direct, KSPCG);
  KSPSetTolerances(direct, 1e-15, 1e-50, PETSC_DEFAULT, 1000);
  Vec b = nullptr, x = nullptr;
  MatCreateVecs(m, &x, &b);
  PetscInt first = 0;
  MatGetOwnershipRange(m, &first, nullptr);
  std::vector<double> exact;
  for (int c = 0; c < columns; ++c) {
    for (PetscInt i = 0; i < rows_per_rank; ++i)
      VecSetValue(b, first + i, rhs_value(first + i, c), INSERT_VALUES);
    VecAssemblyBegin(b);
    VecAssemblyEnd(b);
    KSPSolve(direct, b, x);
    const std::vector<double> column = host_copy(x);
    exact.insert(exact.end(), column.begin(), column.end());
  }
  EXPECT_LE(max_relative_difference(block.solution, exact), 1e-10);
  VecDestroy(&b);
  VecDestroy(&x);
  KSPDestroy(&direct);
  MatDestroy(&m);
}

TEST(BlockChebyshev, ExchangesOnceAnIterationForAllColumns) {
  Mat m = mass_matrix(MATAIJ);
  CommunicationCounts columnwise;
  (void)per_column_reference(m, 25, false, columnwise);
  const Outcome block = block_solve(m, nullptr, 25, false);
  if (foehn::testing::world_size() == 1) {
    // One rank: nothing to exchange or reduce, either way.
    EXPECT_EQ(block.used.halo_exchanges + block.used.reductions, 0);
    EXPECT_EQ(columnwise.halo_exchanges + columnwise.reductions, 0);
  } else if (communication_counts_available()) {
    // Every rank has a neighbour in a 1D chain: 24 products, each one exchange for the block;
    // three times as many column by column; no reduction in either.
    EXPECT_GT(block.used.halo_exchanges, 0);
    EXPECT_EQ(block.used.reductions, 0);
    EXPECT_LE(3 * block.used.halo_exchanges, columnwise.halo_exchanges + 3)
        << block.used.halo_exchanges << " vs " << columnwise.halo_exchanges;
  }
  MatDestroy(&m);
}

TEST(BlockChebyshev, OnTheGpuAsOnTheHost) {
  if (!device_solves_available() || cuda_device_count() == 0)
    GTEST_SKIP() << "no CUDA PETSc or no GPU";
  Mat host = mass_matrix(MATAIJ);
  Mat device = mass_matrix(MATAIJCUSPARSE);
  const Stream stream;
  for (const bool nonzero_guess : {false, true}) {
    const Outcome on_host = block_solve(host, nullptr, 25, nonzero_guess);
    const Outcome on_device = block_solve(device, &stream, 25, nonzero_guess);
    EXPECT_LE(max_relative_difference(on_device.solution, on_host.solution), 1e-14);
  }
  MatDestroy(&host);
  MatDestroy(&device);
}

TEST(BlockChebyshev, RefusesWhatItCannotSolve) {
  Mat m = mass_matrix(MATAIJ);
  EXPECT_THROW(BlockChebyshev(m, 0, 0.5, 2.5, nullptr), Error);
  EXPECT_THROW(BlockChebyshev(m, 3, 2.5, 0.5, nullptr), Error);
  EXPECT_THROW(BlockChebyshev(m, 3, 0.0, 2.5, nullptr), Error);
  EXPECT_THROW(BlockChebyshev(nullptr, 3, 0.5, 2.5, nullptr), Error);
  BlockChebyshev block(m, 3, 0.5, 2.5, nullptr);
  EXPECT_THROW(block.solve(0, false), Error);
  // A zero on the diagonal (of one rank's first row, on every rank): Jacobi cannot scale it.
  PetscInt first = 0;
  MatGetOwnershipRange(m, &first, nullptr);
  MatSetValue(m, first, first, 0.0, INSERT_VALUES);
  MatAssemblyBegin(m, MAT_FINAL_ASSEMBLY);
  MatAssemblyEnd(m, MAT_FINAL_ASSEMBLY);
  try {
    block.solve(3, false);
    ADD_FAILURE() << "a zero diagonal was accepted";
  } catch (const Error& error) {
    EXPECT_EQ(error.category(), ErrorCategory::invalid_input);
    EXPECT_NE(std::string(error.what()).find("diagonal"), std::string::npos) << error.what();
  }
  MatDestroy(&m);
}

TEST(CommunicationCounts, CountWhatCrossesRanks) {
  Mat m = mass_matrix(MATAIJ);
  Vec x = nullptr, y = nullptr;
  MatCreateVecs(m, &x, &y);
  VecSet(x, 1.0);
  MatMult(m, x, y);  // the first product may set the scatter up (PETSc 3.18 does): not counted
  const CommunicationCounts before = communication_counts();
  MatMult(m, x, y);
  const CommunicationCounts product = communication_counts() - before;
  PetscReal norm = 0;
  VecNorm(y, NORM_2, &norm);
  const CommunicationCounts both = communication_counts() - before;
  if (foehn::testing::world_size() == 1 || !communication_counts_available()) {
    EXPECT_EQ(both.halo_exchanges + both.messages + both.reductions, 0);
  } else {
    // A chain: each rank sends to one or two neighbours and waits for them; one reduction.
    EXPECT_GE(product.halo_exchanges, 1);
    EXPECT_GE(product.messages, 1);
    EXPECT_LE(product.messages, 2);
    EXPECT_EQ(product.reductions, 0);
    EXPECT_EQ(both.reductions - product.reductions, 1);
  }
  VecDestroy(&x);
  VecDestroy(&y);
  MatDestroy(&m);
}

TEST(MpiGpuSupport, TheReportSaysWhatPetscDoes) {
  const MpiGpuSupport support = query_mpi_gpu_support();
  EXPECT_FALSE(support.how.empty());
  const std::string report = gpu_aware_mpi_report();
  EXPECT_EQ(report.rfind("MPI: ", 0), 0u) << report;
  if (petsc_passes_device_buffers()) {
    EXPECT_NE(report.find("device buffers"), std::string::npos) << report;
  } else {
    EXPECT_NE(report.find("host"), std::string::npos) << report;
  }
  // The preset (petsc_test_main calls preset_gpu_mpi_options) stages unless the MPI is
  // CUDA-aware, and no option here overrides it.
  if (device_solves_available() && support.awareness != GpuAwareness::cuda_aware) {
    EXPECT_FALSE(petsc_passes_device_buffers()) << report;
  }
}

}  // namespace
}  // namespace foehn::petsc
