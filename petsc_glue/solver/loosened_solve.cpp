// LinearSolver::solve_loosely: a solve whose result only seeds a later, tighter one (the Picard
// iterations before the last) stops at a looser tolerance; and the iteration counts of a fixed
// Chebyshev solve, which follow from its eigenvalue bounds. Kept apart from linear_solver.cpp:
// both only change the KSP's stopping rule around an ordinary solve.
#include <petscksp.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <string_view>

#include "foehn/petsc/linear_solver.hpp"
#include "foehn/petsc/petsc_check.hpp"
#include "foehn/runtime/error.hpp"

namespace foehn::petsc {

namespace {

// Chebyshev on [lower, upper] reduces the error by at most 2 rate^k after k iterations.
double chebyshev_rate(double lower, double upper) {
  const double root = std::sqrt(upper / lower);
  return (root - 1) / (root + 1);
}

// The iterations after which 2 rate^k <= relative_tolerance, at least one.
PetscInt chebyshev_iterations_for(double rate, double relative_tolerance) {
  if (rate <= 0) return 1;
  const double iterations = std::ceil(std::log(relative_tolerance / 2) / std::log(rate));
  return static_cast<PetscInt>(std::clamp(iterations, 1.0, 1e9));
}

// PETSc's Chebyshev iteration (first kind) grows its recurrence coefficients by 1 / rate per
// iteration: past log(DBL_MAX) / log(1 / rate) of them (737 on [1/2, 5/2]) they overflow and
// the iterate becomes NaN. 95% of that is far beyond round-off (39 iterations on [1/2, 5/2]).
PetscInt chebyshev_iterations_before_overflow(double rate) {
  const double limit = 0.95 * std::log(std::numeric_limits<double>::max()) / std::log(1 / rate);
  return static_cast<PetscInt>(std::min(limit, 1e9));
}

}  // namespace

void LinearSolver::note_fixed_chebyshev_rate(const SolverSettings& settings) {
  fixed_chebyshev_rate_ = fixed_chebyshev_lower_ = fixed_chebyshev_upper_ = 0;
  PetscBool chebyshev = PETSC_FALSE;
  FOEHN_PETSC_CHECK(
      PetscObjectTypeCompare(reinterpret_cast<PetscObject>(ksp_), KSPCHEBYSHEV, &chebyshev));
  KSPNormType norm = KSP_NORM_DEFAULT;
  FOEHN_PETSC_CHECK(KSPGetNormType(ksp_, &norm));
  if (!chebyshev || norm != KSP_NORM_NONE) return;
  // Bounds on the command line win over the code's, as they do in PETSc.
  PetscReal bounds[2] = {0, 0};
  PetscInt given = 2;
  PetscBool set = PETSC_FALSE;
  FOEHN_PETSC_CHECK(PetscOptionsGetRealArray(nullptr, prefix_.empty() ? nullptr : prefix_.c_str(),
                                             "-ksp_chebyshev_eigenvalues", bounds, &given, &set));
  // PETSc's option is "emin,emax".
  if (set && given == 2 && bounds[0] > 0 && bounds[1] > bounds[0]) {
    fixed_chebyshev_lower_ = bounds[0];
    fixed_chebyshev_upper_ = bounds[1];
  } else if (!set && settings.fixed_chebyshev) {
    fixed_chebyshev_lower_ = settings.fixed_chebyshev->lower;
    fixed_chebyshev_upper_ = settings.fixed_chebyshev->upper;
  } else {
    return;
  }
  fixed_chebyshev_rate_ = chebyshev_rate(fixed_chebyshev_lower_, fixed_chebyshev_upper_);
  // A larger -<prefix>ksp_max_it would return NaN; fewer iterations than this give the same
  // solution to round-off, so the cap changes no result.
  PetscReal rtol = 0, atol = 0, dtol = 0;
  PetscInt max_iterations = 0;
  FOEHN_PETSC_CHECK(KSPGetTolerances(ksp_, &rtol, &atol, &dtol, &max_iterations));
  const PetscInt safe = chebyshev_iterations_before_overflow(fixed_chebyshev_rate_);
  if (max_iterations > safe) FOEHN_PETSC_CHECK(KSPSetTolerances(ksp_, rtol, atol, dtol, safe));
}

std::optional<LinearSolver::FixedChebyshevPlan> LinearSolver::fixed_chebyshev_plan(
    double loosest_relative_tolerance) const {
  if (!ksp_ || fixed_chebyshev_rate_ <= 0) return std::nullopt;
  PC pc = nullptr;
  FOEHN_PETSC_CHECK(KSPGetPC(ksp_, &pc));
  PetscBool jacobi = PETSC_FALSE;
  FOEHN_PETSC_CHECK(PetscObjectTypeCompare(reinterpret_cast<PetscObject>(pc), PCJACOBI, &jacobi));
  if (!jacobi) return std::nullopt;
  // Only the plain diagonal and the first kind are what a block solve reproduces.
  PCJacobiType jacobi_type = PC_JACOBI_DIAGONAL;
  PetscBool absolute = PETSC_FALSE;
  FOEHN_PETSC_CHECK(PCJacobiGetType(pc, &jacobi_type));
  FOEHN_PETSC_CHECK(PCJacobiGetUseAbs(pc, &absolute));
  if (jacobi_type != PC_JACOBI_DIAGONAL || absolute) return std::nullopt;
  char kind[32] = "";
  PetscBool kind_set = PETSC_FALSE;
  FOEHN_PETSC_CHECK(PetscOptionsGetString(nullptr, prefix_.empty() ? nullptr : prefix_.c_str(),
                                          "-ksp_chebyshev_kind", kind, sizeof kind, &kind_set));
  if (kind_set && std::string_view(kind) != "first") return std::nullopt;
  PetscBool nonzero_guess = PETSC_FALSE;
  FOEHN_PETSC_CHECK(KSPGetInitialGuessNonzero(ksp_, &nonzero_guess));
  PetscInt max_iterations = 0;
  FOEHN_PETSC_CHECK(KSPGetTolerances(ksp_, nullptr, nullptr, nullptr, &max_iterations));
  PetscInt iterations = max_iterations;
  if (loosest_relative_tolerance > 0 && loosest_relative_tolerance < 1)
    iterations = std::min(
        iterations, chebyshev_iterations_for(fixed_chebyshev_rate_, loosest_relative_tolerance));
  return FixedChebyshevPlan{fixed_chebyshev_lower_, fixed_chebyshev_upper_,
                            static_cast<int>(std::max<PetscInt>(iterations, 1)),
                            nonzero_guess == PETSC_TRUE};
}

SolveResult LinearSolver::solve_loosely(Vec b, Vec x, double relative_tolerance) {
  if (!(relative_tolerance >= 0 && relative_tolerance < 1))
    fail(ErrorCategory::invalid_input, "LinearSolver '", prefix_,
         "': a loosened relative tolerance must be in [0, 1), got ", relative_tolerance);
  if (!ksp_ || relative_tolerance == 0) return solve(b, x);
  PetscReal rtol = 0, atol = 0, dtol = 0;
  PetscInt max_iterations = 0;
  FOEHN_PETSC_CHECK(KSPGetTolerances(ksp_, &rtol, &atol, &dtol, &max_iterations));
  PetscReal loose_rtol = rtol;
  PetscInt loose_max_iterations = max_iterations;
  if (fixed_chebyshev_rate_ > 0)
    loose_max_iterations = std::min(
        max_iterations, chebyshev_iterations_for(fixed_chebyshev_rate_, relative_tolerance));
  else
    loose_rtol = std::max<PetscReal>(rtol, relative_tolerance);
  if (loose_rtol == rtol && loose_max_iterations == max_iterations) return solve(b, x);

  FOEHN_PETSC_CHECK(KSPSetTolerances(ksp_, loose_rtol, atol, dtol, loose_max_iterations));
  SolveResult result;
  try {
    result = solve(b, x);
  } catch (...) {
    FOEHN_PETSC_CHECK(KSPSetTolerances(ksp_, rtol, atol, dtol, max_iterations));
    throw;
  }
  FOEHN_PETSC_CHECK(KSPSetTolerances(ksp_, rtol, atol, dtol, max_iterations));
  return result;
}

}  // namespace foehn::petsc
