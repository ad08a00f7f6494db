// Preconditioner reuse between "timesteps": the rebuild interval decides when PETSc refactors.
// Evidence is PETSc's own MatLUFactorNum event (the numeric ILU/LU factorisation), counted with
// logging on, next to the solver's preconditioner_rebuilt flags and statistics.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "foehn/petsc/linear_solver.hpp"
#include "solver_test_support.hpp"

namespace foehn::petsc {
namespace {

using test::OwnedMat;
using test::ScopedOption;
using test::system_for;

class PcReuse : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { PetscLogDefaultBegin(); }

  // Runs `steps` solves; before each but the first, the operator's values change (as a new
  // timestep's assembly would). Returns the rebuilt flags; `factorisations` gets how many
  // numeric factorisations PETSc did.
  static std::vector<bool> run_steps(LinearSolver& solver, int steps, bool change_values,
                                     int* factorisations) {
    OwnedMat a = test::convection_diffusion(8);
    auto system = system_for(a);
    solver.set_operator(a);
    const int before = test::event_count("MatLUFactorNum");
    std::vector<bool> rebuilt;
    for (int step = 0; step < steps; ++step) {
      if (step > 0 && change_values) MatShift(a, 1e-3);  // same pattern, new values
      VecSet(system.x, 0.0);
      const SolveResult result = solver.solve(system.rhs, system.x);
      EXPECT_TRUE(result.converged) << "step " << step << ": " << result.reason;
      rebuilt.push_back(result.preconditioner_rebuilt);
    }
    *factorisations = test::event_count("MatLUFactorNum") - before;
    return rebuilt;
  }
};

TEST_F(PcReuse, IntervalOneRebuildsAfterEveryUpdate) {
  LinearSolver solver(PETSC_COMM_SELF, "reuse1_", SolverKind::advection_diffusion);
  int factorisations = 0;
  const auto rebuilt = run_steps(solver, 4, true, &factorisations);
  EXPECT_EQ(rebuilt, (std::vector<bool>{true, true, true, true}));
  EXPECT_EQ(factorisations, 4);
  EXPECT_EQ(solver.statistics().preconditioner_builds, 4);
}

TEST_F(PcReuse, UnchangedOperatorIsNotRefactored) {
  LinearSolver solver(PETSC_COMM_SELF, "reuse_same_", SolverKind::advection_diffusion);
  int factorisations = 0;
  const auto rebuilt = run_steps(solver, 3, false, &factorisations);
  EXPECT_EQ(rebuilt, (std::vector<bool>{true, false, false}));
  EXPECT_EQ(factorisations, 1);
}

TEST_F(PcReuse, IntervalThreeFromTheCommandLineSkipsTwoOfThree) {
  ScopedOption interval("-reuse3_foehn_pc_rebuild_interval", "3");
  LinearSolver solver(PETSC_COMM_SELF, "reuse3_", SolverKind::advection_diffusion);
  EXPECT_EQ(solver.pc_rebuild_interval(), 3);
  int factorisations = 0;
  const auto rebuilt = run_steps(solver, 7, true, &factorisations);
  // Built at step 0; updates at steps 1, 2, 3 -> rebuilt at 3; 4, 5, 6 -> rebuilt at 6.
  EXPECT_EQ(rebuilt, (std::vector<bool>{true, false, false, true, false, false, true}));
  EXPECT_EQ(factorisations, 3);
  EXPECT_EQ(solver.statistics().preconditioner_builds, 3);
  EXPECT_EQ(solver.statistics().solves, 7);
}

TEST_F(PcReuse, IntervalZeroBuildsOnceAndALaggedPreconditionerStillConverges) {
  SolverSettings settings = SolverSettings::for_kind(SolverKind::momentum);
  settings.pc_rebuild_interval = 0;
  LinearSolver solver(PETSC_COMM_SELF, "reuse0_", settings);
  int factorisations = 0;
  const auto rebuilt = run_steps(solver, 5, true, &factorisations);
  EXPECT_EQ(rebuilt, (std::vector<bool>{true, false, false, false, false}));
  EXPECT_EQ(factorisations, 1);
  EXPECT_NE(solver.description().find("pc built once"), std::string::npos);
}

TEST_F(PcReuse, PetscsOwnReuseOptionMeansNeverRebuild) {
  ScopedOption reuse("-petsc_reuse_ksp_reuse_preconditioner", "");
  LinearSolver solver(PETSC_COMM_SELF, "petsc_reuse_", SolverKind::advection_diffusion);
  EXPECT_EQ(solver.pc_rebuild_interval(), 0);
  int factorisations = 0;
  run_steps(solver, 4, true, &factorisations);
  EXPECT_EQ(factorisations, 1);
}

TEST_F(PcReuse, DirectSolverReusesItsFactorisation) {
  ScopedOption interval("-reuse_lu_foehn_pc_rebuild_interval", "2");
  LinearSolver solver(PETSC_COMM_SELF, "reuse_lu_", SolverKind::direct);
  int factorisations = 0;
  // A reused LU factor of a slightly different matrix is not exact: preonly still reports
  // convergence (one application), which is what a lagged direct solve means.
  const auto rebuilt = run_steps(solver, 5, true, &factorisations);
  EXPECT_EQ(rebuilt, (std::vector<bool>{true, false, true, false, true}));
  EXPECT_EQ(factorisations, 3);
}

TEST_F(PcReuse, ANewMatrixObjectAlwaysRebuilds) {
  SolverSettings settings = SolverSettings::for_kind(SolverKind::advection_diffusion);
  settings.pc_rebuild_interval = 0;
  LinearSolver solver(PETSC_COMM_SELF, "reuse_new_", settings);
  OwnedMat first = test::convection_diffusion(6);
  OwnedMat second = test::convection_diffusion(6);
  auto system = system_for(first);
  solver.set_operator(first);
  EXPECT_TRUE(solver.solve(system.rhs, system.x).preconditioner_rebuilt);
  solver.set_operator(first);  // the same Mat again: nothing to rebuild
  EXPECT_FALSE(solver.solve(system.rhs, system.x).preconditioner_rebuilt);
  solver.set_operator(second);
  const int before = test::event_count("MatLUFactorNum");
  EXPECT_TRUE(solver.solve(system.rhs, system.x).preconditioner_rebuilt);
  EXPECT_EQ(test::event_count("MatLUFactorNum") - before, 1);
}

TEST_F(PcReuse, ThePreconditionerMatrixMayBeReleasedByTheCaller) {
  // Once the preconditioner is built from its snapshot, the KSP no longer holds the caller's
  // preconditioner matrix; the solver keeps its own reference to read its state.
  SolverSettings settings = SolverSettings::for_kind(SolverKind::advection_diffusion);
  settings.pc_rebuild_interval = 0;
  LinearSolver solver(PETSC_COMM_SELF, "reuse_released_", settings);
  OwnedMat a = test::convection_diffusion(6);
  auto system = system_for(a);
  {
    OwnedMat preconditioner = test::convection_diffusion(6);
    solver.set_operator(a, preconditioner);
  }  // the caller's handle is gone
  for (int step = 0; step < 3; ++step) {
    VecSet(system.x, 0.0);
    const SolveResult result = solver.solve(system.rhs, system.x);
    EXPECT_TRUE(result.converged) << "step " << step;
    EXPECT_EQ(result.preconditioner_rebuilt, step == 0);
  }
}

TEST_F(PcReuse, OperatorsSetOnTheKspDirectlyAreTakenOver) {
  LinearSolver solver(PETSC_COMM_SELF, "reuse_direct_set_", SolverKind::advection_diffusion);
  OwnedMat a = test::convection_diffusion(6);
  auto system = system_for(a);
  ASSERT_EQ(KSPSetOperators(solver.ksp(), a, a), 0);
  const SolveResult first = solver.solve(system.rhs, system.x);
  EXPECT_TRUE(first.converged);
  EXPECT_TRUE(first.preconditioner_rebuilt);
  VecSet(system.x, 0.0);
  EXPECT_FALSE(solver.solve(system.rhs, system.x).preconditioner_rebuilt);  // unchanged
}

TEST_F(PcReuse, EllipticAmgFollowsTheSameRule) {
  SolverSettings settings = SolverSettings::for_kind(SolverKind::elliptic);
  settings.pc_rebuild_interval = 2;
  LinearSolver solver(PETSC_COMM_SELF, "reuse_amg_", settings);
  OwnedMat a = test::laplacian_7pt(10);
  auto system = system_for(a);
  solver.set_operator(a);
  // PETSc 3.18 logs each GAMG build (hierarchy and Galerkin products) as "PCSetUp_GAMG+".
  const int builds_before = test::event_count("PCSetUp_GAMG+");
  std::vector<bool> rebuilt;
  for (int step = 0; step < 5; ++step) {
    if (step > 0) MatShift(a, 1e-2);
    VecSet(system.x, 0.0);
    rebuilt.push_back(solver.solve(system.rhs, system.x).preconditioner_rebuilt);
  }
  EXPECT_EQ(rebuilt, (std::vector<bool>{true, false, true, false, true}));
  EXPECT_EQ(solver.statistics().preconditioner_builds, 3);
  if (builds_before >= 0) {
    EXPECT_EQ(test::event_count("PCSetUp_GAMG+") - builds_before, 3);
  }
}

}  // namespace
}  // namespace foehn::petsc
