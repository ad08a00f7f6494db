// GAMG on a cuSPARSE operator through LinearSolver: its Galerkin products are formed on the host
// for the set-up only (PETSc 3.26's cuSPARSE SpGEMM does not always return: docs/solvers.md),
// the solves run on the GPU, and the options database is left as it was.

#include <gtest/gtest.h>
#include <petscksp.h>

#include "foehn/petsc/device_petsc.hpp"
#include "foehn/petsc/linear_solver.hpp"
#include "support/gpu_test.hpp"
#include "unit/petsc/solver_test_support.hpp"

namespace foehn::petsc {
namespace {

bool option_present(const char* name) {
  PetscBool present = PETSC_TRUE;
  EXPECT_EQ(PetscOptionsHasName(nullptr, nullptr, name, &present), 0);
  return present == PETSC_TRUE;
}

TEST(DeviceGamg, SolvesOnTheGpuAndLeavesNoSetupOptionsBehind) {
  FOEHN_SKIP_WITHOUT_GPU();
  if (!device_solves_available()) GTEST_SKIP() << "this PETSc is built without CUDA";
  test::OwnedMat host = test::laplacian_7pt(24);
  Mat device = nullptr;
  ASSERT_EQ(MatConvert(host.mat, MATSEQAIJCUSPARSE, MAT_INITIAL_MATRIX, &device), 0);
  test::OwnedMat a(device);
  // Several fresh set-ups: one that never returned would stop the test at ctest's timeout.
  for (int attempt = 0; attempt < 3; ++attempt) {
    auto system = test::system_for(a.mat);
    SolverSettings settings = SolverSettings::for_kind(SolverKind::pressure, true);
    settings.preconditioner = PCGAMG;
    LinearSolver solver(PETSC_COMM_SELF, "device_gamg_", settings);
    solver.set_operator(a.mat);
    const SolveResult result = solver.solve(system.rhs, system.x);
    EXPECT_TRUE(result.converged) << "attempt " << attempt;
    EXPECT_LT(test::relative_error(system.x, system.exact), 1e-6) << "attempt " << attempt;
    VecType type = nullptr;
    ASSERT_EQ(VecGetType(system.x, &type), 0);
    EXPECT_STREQ(type, VECSEQCUDA) << "the solution lives on the GPU";
  }
  EXPECT_FALSE(option_present("-matptap_backend_cpu"));
  EXPECT_FALSE(option_present("-matmatmult_backend_cpu"));
  EXPECT_FALSE(option_present("-mat_product_clear"));
}

}  // namespace
}  // namespace foehn::petsc
