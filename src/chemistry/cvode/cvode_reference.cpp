// CVODE reference integrator (see cvode_reference.hpp). All SUNDIALS handles live in Impl so that
// the public header stays free of SUNDIALS types; every SUNDIALS return code is checked and turned
// into a foehn::Error that names the call, the cell and the problem size.

#include "foehn/chemistry/cvode_reference.hpp"

#include <cvode/cvode.h>
#include <cvode/cvode_ls.h>
#include <nvector/nvector_serial.h>
#include <sundials/sundials_context.h>
#include <sunlinsol/sunlinsol_dense.h>
#include <sunlinsol/sunlinsol_klu.h>
#include <sunmatrix/sunmatrix_dense.h>
#include <sunmatrix/sunmatrix_sparse.h>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <utility>

#include "foehn/runtime/error.hpp"

namespace foehn::chemistry {

CvodeStatistics& CvodeStatistics::operator+=(const CvodeStatistics& other) {
  steps += other.steps;
  rhs_evaluations += other.rhs_evaluations;
  jacobian_evaluations += other.jacobian_evaluations;
  linear_setups += other.linear_setups;
  error_test_failures += other.error_test_failures;
  nonlinear_iterations += other.nonlinear_iterations;
  nonlinear_failures += other.nonlinear_failures;
  return *this;
}

namespace {

// CVODE and CVLS return codes share numbers but not meanings, so each has its own name lookup.
// Both lookups hand back malloc'ed strings.
std::string flag_name(int flag, bool linear_solver_call) {
  char* name = linear_solver_call ? CVodeGetLinReturnFlagName(flag) : CVodeGetReturnFlagName(flag);
  std::string result = name != nullptr ? name : "unknown flag";
  std::free(name);
  return result;
}

}  // namespace

struct CvodeReferenceSolver::Impl {
  Mechanism mechanism;
  CompiledMechanism compiled;
  CompiledMechanismView view;
  CvodeOptions options;

  SUNContext context = nullptr;
  N_Vector state = nullptr;
  N_Vector absolute_tolerance = nullptr;
  SUNMatrix matrix = nullptr;
  SUNLinearSolver linear_solver = nullptr;
  void* cvode = nullptr;

  // The CSR pattern of the LU fill (a superset of J's), converted once to SUNDIALS' index type.
  std::vector<sunindextype> row_pointers;
  std::vector<sunindextype> column_indices;
  std::vector<double> jacobian_slots;  // dense mode: CSR values before scattering
  std::vector<double> rate_scratch;    // integrate_batch: k of the current cell
  std::vector<double> state_scratch;   // integrate_batch: y of the current cell, compiled order

  // Context for callbacks and messages: the cell being integrated (-1: integrate_cell).
  const double* rate_constants = nullptr;
  std::int64_t cell = -1;
  std::string last_cvode_message;

  Impl(const Mechanism& m, const CompiledMechanism& c, CvodeOptions o)
      : mechanism(m), compiled(c), view(compiled.view()), options(std::move(o)) {}

  Impl(const Impl&) = delete;
  Impl& operator=(const Impl&) = delete;

  ~Impl() {
    // Reverse order of creation; every handle may be null after a failed setup.
    if (cvode != nullptr) CVodeFree(&cvode);
    if (linear_solver != nullptr) SUNLinSolFree(linear_solver);
    if (matrix != nullptr) SUNMatDestroy(matrix);
    if (absolute_tolerance != nullptr) N_VDestroy(absolute_tolerance);
    if (state != nullptr) N_VDestroy(state);
    if (context != nullptr) SUNContext_Free(&context);
  }

  // "mechanism 'robertson' (3 species, 3 reactions, 7 matrix slots, KLU)": appended to messages.
  std::string problem() const {
    return detail::concat("mechanism '", mechanism.name, "' (", view.species_count, " species, ",
                          view.reaction_count, " reactions, ", view.nonzero_count, " matrix slots, ",
                          options.sparse_klu ? "KLU" : "dense LU", ")");
  }

  std::string where() const {
    return cell >= 0 ? detail::concat("cell ", cell) : std::string("single cell");
  }

  [[noreturn]] void fail_call(const char* call, int flag, bool linear_solver_call = false) const {
    fail(ErrorCategory::numerical, "CVODE reference solver: ", call, " failed with ",
         flag_name(flag, linear_solver_call), " (", flag, ") in ", where(), " of ", problem(),
         last_cvode_message.empty() ? "" : ": ", last_cvode_message);
  }

  void check(int flag, const char* call) const {
    if (flag != CV_SUCCESS) fail_call(call, flag);
  }
  void check_linear(int flag, const char* call) const {
    if (flag != CVLS_SUCCESS) fail_call(call, flag, true);
  }
  // SUNDIALS constructors report failure (bad arguments, no memory) only by a null handle.
  void check_created(const void* handle, const char* constructor) const {
    if (handle == nullptr) {
      fail(ErrorCategory::numerical, "CVODE reference solver: ", constructor,
           " returned no object for ", problem());
    }
  }

  void validate_setup() const {
    const auto species = static_cast<int>(mechanism.species.size());
    const auto reactions = static_cast<int>(mechanism.reactions.size());
    const auto externals = static_cast<int>(mechanism.external_rate_names.size());
    if (view.species_count != species || view.reaction_count != reactions ||
        view.external_rate_count != externals) {
      fail(ErrorCategory::invalid_input, "CVODE reference solver: the compiled mechanism (",
           view.species_count, " species, ", view.reaction_count, " reactions, ",
           view.external_rate_count, " external rates) does not belong to mechanism '",
           mechanism.name, "' (", species, " species, ", reactions, " reactions, ", externals,
           " external rates)");
    }
    if (species == 0) {
      fail(ErrorCategory::invalid_input, "CVODE reference solver: mechanism '", mechanism.name,
           "' has no species");
    }
    if (!(std::isfinite(options.relative_tolerance) && options.relative_tolerance > 0.0)) {
      fail(ErrorCategory::invalid_input, "CVODE reference solver: relative tolerance ",
           options.relative_tolerance, " must be positive and finite");
    }
    if (options.max_steps <= 0) {
      fail(ErrorCategory::invalid_input, "CVODE reference solver: max_steps ", options.max_steps,
           " must be positive");
    }
    if (!options.absolute_tolerance.empty() &&
        options.absolute_tolerance.size() != static_cast<std::size_t>(species)) {
      fail(ErrorCategory::invalid_input, "CVODE reference solver: ",
           options.absolute_tolerance.size(), " absolute tolerances given for the ", species,
           " species of mechanism '", mechanism.name, "'");
    }
  }

  // Per species in compiled order; a zero tolerance would let CVODE's error weight 1/(rtol|y| +
  // atol) blow up for species that start at 0, so it must be positive.
  std::vector<double> absolute_tolerances() const {
    std::vector<double> tolerances = options.absolute_tolerance;
    if (tolerances.empty()) {
      for (int position = 0; position < view.species_count; ++position) {
        const auto species = static_cast<std::size_t>(compiled.species_order[static_cast<std::size_t>(position)]);
        tolerances.push_back(mechanism.species[species].absolute_tolerance);
      }
    }
    for (std::size_t position = 0; position < tolerances.size(); ++position) {
      if (!(std::isfinite(tolerances[position]) && tolerances[position] > 0.0)) {
        const auto species = static_cast<std::size_t>(compiled.species_order[position]);
        fail(ErrorCategory::invalid_input, "CVODE reference solver: absolute tolerance ",
             tolerances[position], " of species '", mechanism.species[species].name,
             "' (compiled position ", position, ") must be positive and finite");
      }
    }
    return tolerances;
  }

  void setup() {
    validate_setup();
    const std::vector<double> tolerances = absolute_tolerances();
    const auto n = static_cast<sunindextype>(view.species_count);

    if (const int flag = SUNContext_Create(nullptr, &context); flag != 0) {
      fail(ErrorCategory::numerical, "CVODE reference solver: SUNContext_Create failed with ", flag,
           " for ", problem());
    }
    state = N_VNew_Serial(n, context);
    check_created(state, "N_VNew_Serial (state)");
    absolute_tolerance = N_VNew_Serial(n, context);
    check_created(absolute_tolerance, "N_VNew_Serial (absolute tolerances)");
    double* atol = N_VGetArrayPointer(absolute_tolerance);
    for (std::size_t i = 0; i < tolerances.size(); ++i) atol[i] = tolerances[i];
    N_VConst(0.0, state);

    row_pointers.assign(compiled.row_start.begin(), compiled.row_start.end());
    column_indices.assign(compiled.column.begin(), compiled.column.end());
    jacobian_slots.assign(static_cast<std::size_t>(view.nonzero_count), 0.0);
    rate_scratch.assign(static_cast<std::size_t>(view.reaction_count), 0.0);
    state_scratch.assign(static_cast<std::size_t>(view.species_count), 0.0);

    if (options.sparse_klu) {
      matrix = SUNSparseMatrix(n, n, static_cast<sunindextype>(view.nonzero_count), CSR_MAT, context);
      check_created(matrix, "SUNSparseMatrix (CSR)");
      load_pattern(matrix);
      linear_solver = SUNLinSol_KLU(state, matrix, context);
      check_created(linear_solver, "SUNLinSol_KLU");
    } else {
      matrix = SUNDenseMatrix(n, n, context);
      check_created(matrix, "SUNDenseMatrix");
      linear_solver = SUNLinSol_Dense(state, matrix, context);
      check_created(linear_solver, "SUNLinSol_Dense");
    }

    cvode = CVodeCreate(CV_BDF, context);
    check_created(cvode, "CVodeCreate(CV_BDF)");
    // Errors are reported through foehn::Error with CVODE's own message appended, not on stderr.
    check(CVodeSetErrHandlerFn(cvode, &Impl::record_message, this), "CVodeSetErrHandlerFn");
    check(CVodeInit(cvode, &Impl::forcing, 0.0, state), "CVodeInit");
    check(CVodeSetUserData(cvode, this), "CVodeSetUserData");
    check(CVodeSVtolerances(cvode, options.relative_tolerance, absolute_tolerance), "CVodeSVtolerances");
    check(CVodeSetMaxNumSteps(cvode, options.max_steps), "CVodeSetMaxNumSteps");
    check_linear(CVodeSetLinearSolver(cvode, linear_solver, matrix), "CVodeSetLinearSolver");
    check_linear(CVodeSetJacFn(cvode, &Impl::jacobian), "CVodeSetJacFn");
  }

  void load_pattern(SUNMatrix sparse) const {
    sunindextype* pointers = SUNSparseMatrix_IndexPointers(sparse);
    sunindextype* indices = SUNSparseMatrix_IndexValues(sparse);
    for (std::size_t i = 0; i < row_pointers.size(); ++i) pointers[i] = row_pointers[i];
    for (std::size_t s = 0; s < column_indices.size(); ++s) indices[s] = column_indices[s];
  }

  static void record_message(int error_code, const char* module, const char* function, char* message,
                             void* user_data) {
    // Warnings (positive codes, e.g. "t + h = t") do not end the integration: keep them quiet.
    if (error_code >= 0) return;
    auto* self = static_cast<Impl*>(user_data);
    self->last_cvode_message = detail::concat(module != nullptr ? module : "CVODE", "::",
                                              function != nullptr ? function : "?", ": ",
                                              message != nullptr ? message : "");
  }

  static int forcing(sunrealtype /*t*/, N_Vector y, N_Vector ydot, void* user_data) {
    const auto* self = static_cast<const Impl*>(user_data);
    double* f = N_VGetArrayPointer(ydot);
    compute_forcing(self->view, self->rate_constants, N_VGetArrayPointer(y), f);
    // A trial state far off the solution can overflow; a positive return makes CVODE retry with a
    // smaller step instead of propagating inf/NaN into the error test.
    for (int i = 0; i < self->view.species_count; ++i) {
      if (!std::isfinite(f[i])) return 1;
    }
    return 0;
  }

  static int jacobian(sunrealtype /*t*/, N_Vector y, N_Vector /*fy*/, SUNMatrix jacobian_matrix,
                      void* user_data, N_Vector /*tmp1*/, N_Vector /*tmp2*/, N_Vector /*tmp3*/) {
    auto* self = static_cast<Impl*>(user_data);
    const CompiledMechanismView& m = self->view;
    const double* state_values = N_VGetArrayPointer(y);
    if (self->options.sparse_klu) {
      if (SUNSparseMatrix_NNZ(jacobian_matrix) < static_cast<sunindextype>(m.nonzero_count)) return -1;
      // CVLS zeroes the whole sparse matrix, index arrays included, before each call: restore the
      // pattern, then the slots of compute_jacobian are exactly the CSR data array.
      self->load_pattern(jacobian_matrix);
      compute_jacobian(m, self->rate_constants, state_values, SUNSparseMatrix_Data(jacobian_matrix));
      return 0;
    }
    compute_jacobian(m, self->rate_constants, state_values, self->jacobian_slots.data());
    SUNMatZero(jacobian_matrix);
    for (int row = 0; row < m.species_count; ++row) {
      for (int s = m.row_start[row]; s < m.row_start[row + 1]; ++s) {
        SM_ELEMENT_D(jacobian_matrix, row, m.column[s]) = self->jacobian_slots[static_cast<std::size_t>(s)];
      }
    }
    return 0;
  }

  void validate_cell(const double* k, const double* y, double duration) const {
    if (k == nullptr || y == nullptr) {
      fail(ErrorCategory::invalid_input, "CVODE reference solver: null ",
           k == nullptr ? "rate constant" : "concentration", " pointer for ", where(), " of ", problem());
    }
    if (!(std::isfinite(duration) && duration >= 0.0)) {
      fail(ErrorCategory::invalid_input, "CVODE reference solver: duration ", duration,
           " s must be finite and >= 0 (", where(), " of ", problem(), ")");
    }
    for (int r = 0; r < view.reaction_count; ++r) {
      if (!std::isfinite(k[r])) {
        const Reaction& reaction = mechanism.reactions[static_cast<std::size_t>(r)];
        fail(ErrorCategory::invalid_input, "CVODE reference solver: rate constant of reaction ", r,
             " '", reaction.name, "' (", mechanism.equation(reaction), ") is ", k[r], " in ", where(),
             " of ", problem());
      }
    }
    for (int i = 0; i < view.species_count; ++i) {
      if (!std::isfinite(y[i])) {
        const auto species = static_cast<std::size_t>(compiled.species_order[static_cast<std::size_t>(i)]);
        fail(ErrorCategory::invalid_input, "CVODE reference solver: concentration of '",
             mechanism.species[species].name, "' (compiled position ", i, ") is ", y[i], " in ",
             where(), " of ", problem());
      }
    }
  }

  CvodeStatistics integrate(const double* k, double* y, double duration) {
    validate_cell(k, y, duration);
    if (duration == 0.0) return {};
    rate_constants = k;
    last_cvode_message.clear();
    double* state_values = N_VGetArrayPointer(state);
    for (int i = 0; i < view.species_count; ++i) state_values[i] = y[i];

    check(CVodeReInit(cvode, 0.0, state), "CVodeReInit");
    // Without a stop time CVODE steps past `duration` and interpolates back; stopping exactly
    // there keeps the result independent of how far the last step would have overshot.
    check(CVodeSetStopTime(cvode, duration), "CVodeSetStopTime");
    sunrealtype reached = 0.0;
    const int flag = CVode(cvode, duration, state, &reached, CV_NORMAL);
    if (flag < 0) {
      fail(ErrorCategory::numerical, "CVODE reference solver: CVode failed with ",
           flag_name(flag, false), " (", flag, ") at t = ", reached, " of ", duration, " s in ",
           where(), " of ", problem(), last_cvode_message.empty() ? "" : ": ", last_cvode_message);
    }
    for (int i = 0; i < view.species_count; ++i) y[i] = state_values[i];
    return statistics();
  }

  // CVodeReInit resets CVODE's counters (CVLS resets its own on the first step), so these are
  // the counts of the cell just integrated.
  CvodeStatistics statistics() const {
    CvodeStatistics s;
    check(CVodeGetNumSteps(cvode, &s.steps), "CVodeGetNumSteps");
    check(CVodeGetNumRhsEvals(cvode, &s.rhs_evaluations), "CVodeGetNumRhsEvals");
    check_linear(CVodeGetNumJacEvals(cvode, &s.jacobian_evaluations), "CVodeGetNumJacEvals");
    check(CVodeGetNumLinSolvSetups(cvode, &s.linear_setups), "CVodeGetNumLinSolvSetups");
    check(CVodeGetNumErrTestFails(cvode, &s.error_test_failures), "CVodeGetNumErrTestFails");
    check(CVodeGetNumNonlinSolvIters(cvode, &s.nonlinear_iterations), "CVodeGetNumNonlinSolvIters");
    check(CVodeGetNumNonlinSolvConvFails(cvode, &s.nonlinear_failures), "CVodeGetNumNonlinSolvConvFails");
    return s;
  }
};

CvodeReferenceSolver::CvodeReferenceSolver(const Mechanism& mechanism, const CompiledMechanism& compiled,
                                           CvodeOptions options)
    : impl_(std::make_unique<Impl>(mechanism, compiled, std::move(options))) {
  impl_->setup();  // on failure impl_ frees whatever was created so far
}

CvodeReferenceSolver::~CvodeReferenceSolver() = default;
CvodeReferenceSolver::CvodeReferenceSolver(CvodeReferenceSolver&&) noexcept = default;
CvodeReferenceSolver& CvodeReferenceSolver::operator=(CvodeReferenceSolver&&) noexcept = default;

const CvodeOptions& CvodeReferenceSolver::options() const { return impl_->options; }

CvodeStatistics CvodeReferenceSolver::integrate_cell(const double* rate_constants, double* y,
                                                     double duration) {
  impl_->cell = -1;
  return impl_->integrate(rate_constants, y, duration);
}

// Cells are written back as they finish: when one fails, the cells before it already hold their
// new concentrations and the failing cell and those after it their old ones.
CvodeStatistics CvodeReferenceSolver::integrate_batch(ChemistryBatch& batch, double duration) {
  Impl& impl = *impl_;
  if (!(std::isfinite(duration) && duration >= 0.0)) {
    fail(ErrorCategory::invalid_input, "CVODE reference solver: duration ", duration,
         " s must be finite and >= 0 (batch of ", batch.cell_count, " cells, ", impl.problem(), ")");
  }
  validate_batch(impl.mechanism, batch);
  const auto species = static_cast<std::size_t>(impl.view.species_count);
  const auto rates = static_cast<std::size_t>(impl.view.external_rate_count);
  const std::vector<int>& order = impl.compiled.species_order;
  CvodeStatistics total;
  for (std::int64_t cell = 0; cell < batch.cell_count; ++cell) {
    const auto c = static_cast<std::size_t>(cell);
    impl.cell = cell;
    // external_rates may be empty (no external rates): then no rate law reads the pointer.
    compute_rate_constants(impl.view, batch.temperature[c], batch.pressure[c],
                           batch.external_rates.data() + c * rates, impl.rate_scratch.data());
    double* concentrations = batch.concentrations.data() + c * species;
    for (std::size_t i = 0; i < species; ++i) {
      impl.state_scratch[i] = concentrations[static_cast<std::size_t>(order[i])];
    }
    total += impl.integrate(impl.rate_scratch.data(), impl.state_scratch.data(), duration);
    for (std::size_t i = 0; i < species; ++i) {
      concentrations[static_cast<std::size_t>(order[i])] = impl.state_scratch[i];
    }
  }
  impl.cell = -1;
  return total;
}

}  // namespace foehn::chemistry
