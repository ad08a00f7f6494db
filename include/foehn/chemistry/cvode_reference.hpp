#pragma once
// An independent reference integrator for the chemistry: SUNDIALS CVODE (variable-order BDF with
// Newton iterations) on each cell, with the analytic sparse Jacobian of compute_jacobian solved by
// KLU (or SUNDIALS' dense LU). It shares only the forcing and Jacobian kernels with Foehn's own
// Rosenbrock solvers, so agreement between the two checks step control and linear algebra.
//
// Lives in the separate library Foehn::chemistry_cvode: libfoehn itself never links SUNDIALS.
// This header has no SUNDIALS types, so consumers need no SUNDIALS headers.

#include <memory>
#include <vector>

#include "foehn/chemistry/chemistry_batch.hpp"
#include "foehn/chemistry/compiled_mechanism.hpp"
#include "foehn/chemistry/mechanism.hpp"

namespace foehn::chemistry {

struct CvodeOptions {
  double relative_tolerance = 1.0e-4;
  // Per species in COMPILED order; empty: each species' Species::absolute_tolerance.
  std::vector<double> absolute_tolerance;
  long max_steps = 500000;  // per cell and call; running out is a numerical error
  bool sparse_klu = true;   // false: SUNDIALS dense LU (for cross-checking KLU, small mechanisms)
};

// CVODE's counters, summed over the cells of a call.
struct CvodeStatistics {
  long steps = 0;
  long rhs_evaluations = 0;
  long jacobian_evaluations = 0;
  long linear_setups = 0;
  long error_test_failures = 0;
  long nonlinear_iterations = 0;
  long nonlinear_failures = 0;

  CvodeStatistics& operator+=(const CvodeStatistics& other);
};

// Integrates cells independently, one after the other on the calling thread. One CVODE instance
// and one linear solver are reused across cells (CVodeReInit per cell), so a batch costs no
// allocations per cell. Not thread-safe: use one solver per thread. A moved-from solver may only
// be destroyed or assigned to.
class CvodeReferenceSolver {
 public:
  // Copies what it needs from `mechanism` and `compiled` (they may die afterwards). Throws
  // foehn::Error(invalid_input) when they do not belong together or an option is out of range,
  // and numerical when SUNDIALS cannot set itself up.
  CvodeReferenceSolver(const Mechanism& mechanism, const CompiledMechanism& compiled,
                       CvodeOptions options = {});
  ~CvodeReferenceSolver();
  CvodeReferenceSolver(CvodeReferenceSolver&&) noexcept;
  CvodeReferenceSolver& operator=(CvodeReferenceSolver&&) noexcept;
  CvodeReferenceSolver(const CvodeReferenceSolver&) = delete;
  CvodeReferenceSolver& operator=(const CvodeReferenceSolver&) = delete;

  // One cell: `y` in COMPILED species order (species_count values, in/out), `rate_constants`
  // (reaction_count values) already computed, integrated over [0, duration] (s). Values must be
  // finite; small negative concentrations are accepted because CVODE itself may return them.
  // duration == 0 leaves y unchanged. Failures throw foehn::Error naming the cause.
  CvodeStatistics integrate_cell(const double* rate_constants, double* y, double duration);

  // A whole batch (concentrations in MECHANISM order, validated by validate_batch): rate
  // constants per cell from T, P and the external rates, each cell integrated over `duration`,
  // concentrations written back in mechanism order. This is the "CVODE on one core" baseline.
  CvodeStatistics integrate_batch(ChemistryBatch& batch, double duration);

  [[nodiscard]] const CvodeOptions& options() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace foehn::chemistry
