// LinearSolver::solve_loosely: a solve stops at the looser of its own tolerance and the one
// given (fewer iterations, an error of that size), a fixed Chebyshev solve runs the iterations
// its eigenvalue bounds say reach it, and the solver's own tolerances are what they were after
// the solve, also when it throws.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "foehn/petsc/linear_solver.hpp"
#include "foehn/runtime/error.hpp"
#include "solver_test_support.hpp"

namespace foehn::petsc {
namespace {

using test::laplacian_7pt;
using test::OwnedMat;
using test::relative_error;
using test::ScopedOption;
using test::system_for;

double rtol_of(const LinearSolver& solver) {
  PetscReal rtol = 0, atol = 0, dtol = 0;
  PetscInt max_it = 0;
  KSPGetTolerances(solver.ksp(), &rtol, &atol, &dtol, &max_it);
  return rtol;
}

PetscInt max_it_of(const LinearSolver& solver) {
  PetscReal rtol = 0, atol = 0, dtol = 0;
  PetscInt max_it = 0;
  KSPGetTolerances(solver.ksp(), &rtol, &atol, &dtol, &max_it);
  return max_it;
}

TEST(LinearSolverLoosened, StopsAtTheLooserToleranceAndKeepsItsOwn) {
  OwnedMat a = laplacian_7pt(16);
  auto system = system_for(a);
  SolverSettings settings = SolverSettings::for_kind(SolverKind::elliptic);
  settings.relative_tolerance = 1e-10;
  settings.preconditioner = PCJACOBI;  // many iterations, so that the tolerance shows
  LinearSolver solver(PETSC_COMM_SELF, "loose_", settings);
  solver.set_operator(a);
  const int tight = solver.solve(system.rhs, system.x).iterations;
  EXPECT_LT(relative_error(system.x, system.exact), 1e-7);

  VecSet(system.x, 0.0);
  const SolveResult loose = solver.solve_loosely(system.rhs, system.x, 1e-4);
  EXPECT_TRUE(loose.converged);
  EXPECT_LT(loose.iterations, tight * 3 / 4);
  const double error = relative_error(system.x, system.exact);
  EXPECT_LT(error, 1e-2);   // the residual's 1e-4 times the condition number's share
  EXPECT_GT(error, 1e-10);  // not the tight solve
  EXPECT_DOUBLE_EQ(rtol_of(solver), 1e-10);

  // Tighter than its own, or 0: the solver's own tolerance.
  for (const double given : {1e-12, 0.0}) {
    VecSet(system.x, 0.0);
    EXPECT_EQ(solver.solve_loosely(system.rhs, system.x, given).iterations, tight) << given;
  }
  EXPECT_EQ(solver.statistics().solves, 4);
}

// Jacobi-preconditioned, 25 fixed Chebyshev iterations on [lower, upper].
SolverSettings fixed_chebyshev_on(double lower, double upper) {
  SolverSettings settings = SolverSettings::for_kind(SolverKind::elliptic);
  settings.preconditioner = PCJACOBI;
  settings.fixed_chebyshev = SolverSettings::FixedChebyshev{lower, upper, 25};
  return settings;
}

TEST(LinearSolverLoosened, AFixedChebyshevSolveRunsTheIterationsItsBoundsNeed) {
  OwnedMat a = laplacian_7pt(6);
  auto system = system_for(a);
  // 2 ((sqrt(5) - 1) / (sqrt(5) + 1))^k = 2 (0.382)^k <= 1e-5 from k = 13.
  const SolverSettings settings = fixed_chebyshev_on(0.5, 2.5);
  {
    LinearSolver solver(PETSC_COMM_SELF, "loose_cheby_", settings);
    solver.set_operator(a);
    EXPECT_EQ(solver.solve_loosely(system.rhs, system.x, 1e-5).iterations, 13);
    EXPECT_EQ(max_it_of(solver), 25);
    EXPECT_EQ(solver.solve_loosely(system.rhs, system.x, 1e-30).iterations, 25);  // at most its own
    EXPECT_EQ(solver.solve(system.rhs, system.x).iterations, 25);
  }
  // Bounds on the command line are the ones used: k = 16, rate 3/5, 2 (0.6)^k <= 1e-5 from 24.
  ScopedOption bounds("-loose_cheby_ksp_chebyshev_eigenvalues", "0.25,4");
  LinearSolver solver(PETSC_COMM_SELF, "loose_cheby_", settings);
  solver.set_operator(a);
  EXPECT_EQ(solver.solve_loosely(system.rhs, system.x, 1e-5).iterations, 24);
}

// PETSc's Chebyshev recurrence grows its coefficients by 1 / rate per iteration and overflows
// (NaN) after log(DBL_MAX) / log(1 / rate) of them, 737 on [1/2, 5/2]: a fixed solve runs at
// most 95% of that, far beyond round-off (39 iterations there), whatever -ksp_max_it says.
TEST(LinearSolverLoosened, AFixedChebyshevSolveStopsBeforePetscsRecurrenceOverflows) {
  OwnedMat a = laplacian_7pt(4);
  auto system = system_for(a);
  // The Jacobi-scaled 7-point Laplacian's spectrum lies in (0, 2): bounds that contain it.
  const SolverSettings settings = fixed_chebyshev_on(0.05, 2.0);
  ScopedOption many("-overflow_ksp_max_it", "5000");
  LinearSolver solver(PETSC_COMM_SELF, "overflow_", settings);
  const double rate = (std::sqrt(40.0) - 1) / (std::sqrt(40.0) + 1);
  const auto limit =
      static_cast<PetscInt>(0.95 * std::log(1.7976931348623157e308) / std::log(1 / rate));
  EXPECT_EQ(max_it_of(solver), limit);
  solver.set_operator(a);
  const SolveResult result = solver.solve(system.rhs, system.x);
  EXPECT_EQ(result.iterations, limit);
  EXPECT_LT(relative_error(system.x, system.exact), 1e-10);
}

TEST(LinearSolverLoosened, ItsOwnTolerancesAreBackAfterAFailedSolve) {
  OwnedMat a = laplacian_7pt(12);
  auto system = system_for(a);
  SolverSettings settings = SolverSettings::for_kind(SolverKind::elliptic);
  settings.max_iterations = 1;
  settings.relative_tolerance = 1e-12;
  LinearSolver solver(PETSC_COMM_SELF, "loose_stubborn_", settings);
  solver.set_operator(a);
  EXPECT_THROW(solver.solve_loosely(system.rhs, system.x, 1e-3), Error);
  EXPECT_DOUBLE_EQ(rtol_of(solver), 1e-12);
  EXPECT_EQ(max_it_of(solver), 1);
}

TEST(LinearSolverLoosened, AToleranceOutsideZeroToOneIsInvalidInput) {
  OwnedMat a = laplacian_7pt(4);
  auto system = system_for(a);
  LinearSolver solver(PETSC_COMM_SELF, "loose_bad_", SolverKind::elliptic);
  solver.set_operator(a);
  for (const double bad : {-1e-6, 1.0, std::numeric_limits<double>::quiet_NaN()}) {
    try {
      solver.solve_loosely(system.rhs, system.x, bad);
      FAIL() << bad;
    } catch (const Error& error) {
      EXPECT_EQ(error.category(), ErrorCategory::invalid_input);
      EXPECT_NE(std::string(error.what()).find("'loose_bad_'"), std::string::npos) << error.what();
    }
  }
  EXPECT_EQ(solver.statistics().solves, 0);
}

}  // namespace
}  // namespace foehn::petsc
