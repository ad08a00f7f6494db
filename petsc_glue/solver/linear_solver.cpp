#include "foehn/petsc/linear_solver.hpp"

// PetscObjectStateGet (a counter PETSc increases whenever an object's values change) has a
// public manual page but is declared only in PETSc's "private" header.
#include <petsc/private/petscimpl.h>

#include <cmath>
#include <cstdio>
#include <sstream>
#include <utility>

#include "foehn/petsc/log_events.hpp"
#include "foehn/petsc/option_table.hpp"
#include "foehn/petsc/petsc_check.hpp"
#include "foehn/runtime/error.hpp"
#include "foehn/runtime/stopwatch.hpp"
#include "gamg_setup_options.hpp"

namespace foehn::petsc {

namespace {

// PETSc wants "pressure_" (no leading hyphen); users write "-pressure_" or "pressure" too.
std::string normalised_prefix(std::string_view prefix) {
  while (!prefix.empty() && prefix.front() == '-') prefix.remove_prefix(1);
  std::string result(prefix);
  if (!result.empty() && result.back() != '_') result += '_';
  return result;
}

// Residual norms in messages: three digits say enough and stay readable.
std::string scientific(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%.3e", value);
  return text;
}

std::string label_of(const std::string& prefix) {
  return prefix.empty() ? std::string("(no prefix)") : "'" + prefix + "'";
}

// The kind's KSP and PC types on the GPU. What runs there: CG, GMRES, BiCGStab and their
// vector work (cuBLAS and PETSc's CUDA kernels), SpMV (cuSPARSE), Jacobi (setup and
// application), GAMG's solve phase with Chebyshev/Jacobi smoothing (its setup coarsens on the
// host, once when the preconditioner is built once). What does not: point-block Jacobi and ILU
// set up on the host (a PBJacobi rebuild copies the matrix back), hypre is CPU-only here.
void apply_device_kind_types(KSP ksp, PC pc, SolverKind kind) {
  switch (kind) {
    case SolverKind::elliptic:
    case SolverKind::pressure:
      FOEHN_PETSC_CHECK(KSPSetType(ksp, KSPCG));
      FOEHN_PETSC_CHECK(PCSetType(pc, PCGAMG));
      return;
    case SolverKind::advection_diffusion:
    case SolverKind::momentum:
      // Mass-dominated at the time steps of an atmospheric core (M/dt on the diagonal): a
      // diagonal preconditioner converges in a few dozen iterations and costs one vector
      // operation. GMRES over BiCGStab: more iterations but fewer reductions each, and each
      // reduction waits for the device (measured: docs/solvers.md).
      FOEHN_PETSC_CHECK(KSPSetType(ksp, KSPGMRES));
      FOEHN_PETSC_CHECK(PCSetType(pc, PCJACOBI));
      return;
    case SolverKind::direct:
      FOEHN_PETSC_CHECK(KSPSetType(ksp, KSPPREONLY));
      FOEHN_PETSC_CHECK(PCSetType(pc, PCLU));
      return;
  }
}

// The kind's KSP and PC types; tolerances and the initial guess come from SolverSettings.
void apply_kind_types(KSP ksp, [[maybe_unused]] MPI_Comm comm, SolverKind kind, bool on_device) {
  PC pc = nullptr;
  FOEHN_PETSC_CHECK(KSPGetPC(ksp, &pc));
  if (on_device) {
    apply_device_kind_types(ksp, pc, kind);
    return;
  }
  switch (kind) {
    case SolverKind::elliptic:
    case SolverKind::pressure:
      FOEHN_PETSC_CHECK(KSPSetType(ksp, KSPCG));
      FOEHN_PETSC_CHECK(PCSetType(pc, PCGAMG));
      break;
    case SolverKind::advection_diffusion:
    case SolverKind::momentum:
      // Block Jacobi's sub-solver defaults to preonly + ILU(0): on MATSEQBAIJ/MATMPIBAIJ with
      // bs 3 that is block ILU(0) with 3x3 kernels; on AIJ with a 3x3-blocked pattern point
      // ILU(0) yields the same factors, because the pattern is closed under in-block fill.
      FOEHN_PETSC_CHECK(KSPSetType(ksp, KSPGMRES));
      FOEHN_PETSC_CHECK(PCSetType(pc, PCBJACOBI));
      break;
    case SolverKind::direct: {
      FOEHN_PETSC_CHECK(KSPSetType(ksp, KSPPREONLY));
      FOEHN_PETSC_CHECK(PCSetType(pc, PCLU));
#if defined(PETSC_HAVE_MUMPS)
      int ranks = 1;
      MPI_Comm_size(comm, &ranks);  // MPI's default handler aborts on a bad communicator
      // PETSc's own LU is sequential only.
      if (ranks > 1) FOEHN_PETSC_CHECK(PCFactorSetMatSolverType(pc, MATSOLVERMUMPS));
#endif
      break;
    }
  }
}

std::string type_name(PetscObject object) {
  const char* name = nullptr;
  FOEHN_PETSC_CHECK(PetscObjectGetType(object, &name));
  return name ? name : "unset";
}

// The sub-solvers of block Jacobi and ASM: they exist once the outer PC has been set up.
bool get_block_solvers(PC pc, PetscInt* count, KSP** blocks) {
  PetscBool is_bjacobi = PETSC_FALSE;
  PetscBool is_asm = PETSC_FALSE;
  FOEHN_PETSC_CHECK(
      PetscObjectTypeCompare(reinterpret_cast<PetscObject>(pc), PCBJACOBI, &is_bjacobi));
  FOEHN_PETSC_CHECK(PetscObjectTypeCompare(reinterpret_cast<PetscObject>(pc), PCASM, &is_asm));
  *count = 0;
  *blocks = nullptr;
  if (is_bjacobi) FOEHN_PETSC_CHECK(PCBJacobiGetSubKSP(pc, count, nullptr, blocks));
  if (is_asm) FOEHN_PETSC_CHECK(PCASMGetSubKSP(pc, count, nullptr, blocks));
  return is_bjacobi || is_asm;
}

}  // namespace

std::string_view to_string(SolverKind kind) {
  switch (kind) {
    case SolverKind::elliptic:
      return "elliptic";
    case SolverKind::pressure:
      return "pressure";
    case SolverKind::advection_diffusion:
      return "advection_diffusion";
    case SolverKind::momentum:
      return "momentum";
    case SolverKind::direct:
      return "direct";
  }
  return "unknown";
}

SolverSettings SolverSettings::for_kind(SolverKind kind, bool on_device) {
  SolverSettings settings;
  settings.kind = kind;
  settings.on_device = on_device;
  // The previous step's pressure is close to this step's: start from it.
  if (kind == SolverKind::pressure) settings.initial_guess_nonzero = true;
  return settings;
}

LinearSolver::LinearSolver(MPI_Comm comm, std::string_view prefix, SolverKind kind)
    : LinearSolver(comm, prefix, SolverSettings::for_kind(kind)) {}

LinearSolver::LinearSolver(MPI_Comm comm, std::string_view prefix, const SolverSettings& settings)
    : prefix_(normalised_prefix(prefix)), kind_(settings.kind) {
  if (!detail::petsc_is_running())
    fail(ErrorCategory::unavailable, "LinearSolver ", label_of(prefix_),
         " needs PETSc, which is not initialised: the application calls PetscInitialize "
         "before creating solvers (Foehn never initialises PETSc itself)");
  try {
    configure(comm, settings);
  } catch (...) {
    destroy();
    throw;
  }
}

void LinearSolver::configure(MPI_Comm comm, const SolverSettings& settings) {
  if (settings.pc_rebuild_interval < 0)
    fail(ErrorCategory::invalid_input, "LinearSolver ", label_of(prefix_),
         ": pc_rebuild_interval must be >= 0, got ", settings.pc_rebuild_interval);
  if (std::isnan(settings.gamg_threshold))
    fail(ErrorCategory::invalid_input, "LinearSolver ", label_of(prefix_),
         ": gamg_threshold is NaN");
  if (settings.gamg_process_eq_limit < 0)
    fail(ErrorCategory::invalid_input, "LinearSolver ", label_of(prefix_),
         ": gamg_process_eq_limit must be >= 0, got ", settings.gamg_process_eq_limit);
  register_log_events();
  FOEHN_PETSC_CHECK(KSPCreate(comm, &ksp_));
  if (!prefix_.empty()) FOEHN_PETSC_CHECK(KSPSetOptionsPrefix(ksp_, prefix_.c_str()));

  // The code's choices first, so that KSPSetFromOptions lets the command line override them.
  apply_kind_types(ksp_, comm, settings.kind, settings.on_device);
  PC pc = nullptr;
  FOEHN_PETSC_CHECK(KSPGetPC(ksp_, &pc));
  if (!settings.preconditioner.empty())
    FOEHN_PETSC_CHECK(PCSetType(pc, settings.preconditioner.c_str()));
  // Does nothing for another PC type.
  if (!settings.jacobi_fix_zero_diagonal)
    FOEHN_PETSC_CHECK(PCJacobiSetFixDiagonal(pc, PETSC_FALSE));
  FOEHN_PETSC_CHECK(KSPSetTolerances(ksp_, settings.relative_tolerance, settings.absolute_tolerance,
                                     PETSC_DEFAULT, settings.max_iterations));
  FOEHN_PETSC_CHECK(
      KSPSetInitialGuessNonzero(ksp_, settings.initial_guess_nonzero ? PETSC_TRUE : PETSC_FALSE));
  if (settings.cg_single_reduction) {
    FOEHN_PETSC_CHECK(KSPCGUseSingleReduction(ksp_, PETSC_TRUE));
    // PETSc's single-reduction CG fuses its inner products with the norm of the convergence
    // test only for the natural norm sqrt(r' B r): with the preconditioned norm (CG's default)
    // it makes a second reduction, a VecNorm, in every iteration (KSPSolve_CG_SingleReduction).
    // -<prefix>ksp_norm_type overrides.
    FOEHN_PETSC_CHECK(KSPSetNormType(ksp_, KSP_NORM_NATURAL));
  }
  if (settings.fixed_chebyshev) apply_fixed_chebyshev(*settings.fixed_chebyshev);
  set_from_options();
  note_fixed_chebyshev_rate(settings);
  apply_gamg_settings(settings);
  read_foehn_options(comm, settings);

  // A direct solve chosen on the command line (-pressure_ksp_type preonly -pressure_pc_type
  // lu) would otherwise fail on the pressure kind's nonzero guess.
  PetscBool is_preonly = PETSC_FALSE;
  FOEHN_PETSC_CHECK(
      PetscObjectTypeCompare(reinterpret_cast<PetscObject>(ksp_), KSPPREONLY, &is_preonly));
  if (is_preonly) FOEHN_PETSC_CHECK(KSPSetInitialGuessNonzero(ksp_, PETSC_FALSE));
}

void LinearSolver::apply_fixed_chebyshev(const SolverSettings::FixedChebyshev& chebyshev) {
  const auto& [lower, upper, iterations] = chebyshev;
  if (!(lower > 0 && upper > lower && std::isfinite(upper)) || iterations < 1)
    fail(ErrorCategory::invalid_input, "LinearSolver ", label_of(prefix_),
         ": fixed Chebyshev needs 0 < lower < upper (finite) and at least one iteration, got [",
         lower, ", ", upper, "] and ", iterations);
  FOEHN_PETSC_CHECK(KSPSetType(ksp_, KSPCHEBYSHEV));
  FOEHN_PETSC_CHECK(KSPChebyshevSetEigenvalues(ksp_, upper, lower));
  FOEHN_PETSC_CHECK(KSPSetNormType(ksp_, KSP_NORM_NONE));
  PetscReal rtol = 0, atol = 0, dtol = 0;
  FOEHN_PETSC_CHECK(KSPGetTolerances(ksp_, &rtol, &atol, &dtol, nullptr));
  FOEHN_PETSC_CHECK(KSPSetTolerances(ksp_, rtol, atol, dtol, iterations));
}

void LinearSolver::set_from_options() {
  const PetscErrorCode code = KSPSetFromOptions(ksp_);
  if (code != PETSC_ERR_ARG_UNKNOWN_TYPE) {
    FOEHN_PETSC_CHECK(code);
    return;
  }
  // A misspelt -<prefix>ksp_type or -<prefix>pc_type (or a type of a package this PETSc lacks)
  // is the user's input: one line naming the options given, exit 2.
  const char* options_prefix = prefix_.empty() ? nullptr : prefix_.c_str();
  std::string given;
  for (const char* option : {"-ksp_type", "-pc_type"}) {
    char value[256] = "";
    PetscBool set = PETSC_FALSE;
    FOEHN_PETSC_CHECK(
        PetscOptionsGetString(nullptr, options_prefix, option, value, sizeof value, &set));
    if (set)
      given += std::string(given.empty() ? "" : ", ") + "-" + prefix_ + (option + 1) + " " + value;
  }
  fail(ErrorCategory::invalid_input, "linear solver ", label_of(prefix_), ": ",
       given.empty() ? std::string("a type in its options") : given, ": ",
       foehn::detail::petsc_error_text(code), " (-help lists the types this PETSc has)");
}

// After the command line, so that they also reach a GAMG chosen there (-<prefix>pc_type gamg
// over a BoomerAMG default); explicit -<prefix>pc_gamg_threshold and
// -<prefix>pc_gamg_process_eq_limit still win.
void LinearSolver::apply_gamg_settings(const SolverSettings& settings) {
  const char* options_prefix = prefix_.empty() ? nullptr : prefix_.c_str();
  PC pc = nullptr;
  FOEHN_PETSC_CHECK(KSPGetPC(ksp_, &pc));
  PetscBool gamg = PETSC_FALSE, threshold_given = PETSC_FALSE, eq_limit_given = PETSC_FALSE;
  FOEHN_PETSC_CHECK(PetscObjectTypeCompare(reinterpret_cast<PetscObject>(pc), PCGAMG, &gamg));
  FOEHN_PETSC_CHECK(
      PetscOptionsHasName(nullptr, options_prefix, "-pc_gamg_threshold", &threshold_given));
  FOEHN_PETSC_CHECK(
      PetscOptionsHasName(nullptr, options_prefix, "-pc_gamg_process_eq_limit", &eq_limit_given));
  if (gamg && settings.gamg_threshold >= 0 && !threshold_given) {
    PetscReal threshold = settings.gamg_threshold;
    FOEHN_PETSC_CHECK(PCGAMGSetThreshold(pc, &threshold, 1));
  }
  if (gamg && settings.gamg_process_eq_limit > 0 && !eq_limit_given)
    FOEHN_PETSC_CHECK(PCGAMGSetProcEqLim(pc, settings.gamg_process_eq_limit));
}

// Foehn's options with the solver's prefix, listed by -help beside PETSc's.
void LinearSolver::read_foehn_options(MPI_Comm comm, const SolverSettings& settings) {
  int rebuild_interval = settings.pc_rebuild_interval;
  bool allow = settings.allow_not_converged;
  bool block = true;
  OptionTable table(comm, "Foehn linear solver options", prefix_);
  table
      .integer("-foehn_pc_rebuild_interval",
               "Rebuild the preconditioner every N operator updates (1: every update, 0: never "
               "after the first build)",
               &rebuild_interval, {0, 1 << 30})
      .flag("-foehn_allow_not_converged",
            "Return a solve that did not converge instead of throwing", &allow)
      .flag("-foehn_block_solve",
            "Where the caller has several right-hand sides of this operator and the method allows "
            "(a fixed Chebyshev iteration with Jacobi), solve them together: one sparse product "
            "and halo exchange per iteration for all (default true)",
            &block);
  table.read();
  pc_rebuild_interval_ = rebuild_interval;
  allow_not_converged_ = allow;
  block_solves_ = block;

  // PETSc's own -<prefix>ksp_reuse_preconditioner means "never rebuild": honour it, since
  // solve() sets the reuse flag itself before every setup.
  PetscBool petsc_reuse = PETSC_FALSE;
  FOEHN_PETSC_CHECK(KSPGetReusePreconditioner(ksp_, &petsc_reuse));
  if (petsc_reuse) pc_rebuild_interval_ = 0;
}

LinearSolver::~LinearSolver() {
  destroy();
}

void LinearSolver::destroy() noexcept {
  // After PetscFinalize the KSP is gone with PETSc's memory; destroying it would crash.
  if (ksp_ && detail::petsc_is_running()) (void)KSPDestroy(&ksp_);
  if (pmat_snapshot_ && detail::petsc_is_running()) (void)MatDestroy(&pmat_snapshot_);
  if (user_pmat_ && detail::petsc_is_running()) (void)MatDestroy(&user_pmat_);
  ksp_ = nullptr;
  pmat_snapshot_ = nullptr;
  user_pmat_ = nullptr;
}

LinearSolver::LinearSolver(LinearSolver&& other) noexcept
    : ksp_(std::exchange(other.ksp_, nullptr)),
      prefix_(std::move(other.prefix_)),
      kind_(other.kind_),
      pc_rebuild_interval_(other.pc_rebuild_interval_),
      allow_not_converged_(other.allow_not_converged_),
      block_solves_(other.block_solves_),
      fixed_chebyshev_rate_(other.fixed_chebyshev_rate_),
      fixed_chebyshev_lower_(other.fixed_chebyshev_lower_),
      fixed_chebyshev_upper_(other.fixed_chebyshev_upper_),
      operator_(std::exchange(other.operator_, nullptr)),
      user_pmat_(std::exchange(other.user_pmat_, nullptr)),
      pmat_snapshot_(std::exchange(other.pmat_snapshot_, nullptr)),
      pmat_id_(other.pmat_id_),
      pmat_state_seen_(other.pmat_state_seen_),
      pc_built_(other.pc_built_),
      force_rebuild_(other.force_rebuild_),
      updates_since_build_(other.updates_since_build_),
      statistics_(other.statistics_) {}

LinearSolver& LinearSolver::operator=(LinearSolver&& other) noexcept {
  if (this != &other) {
    destroy();
    ksp_ = std::exchange(other.ksp_, nullptr);
    prefix_ = std::move(other.prefix_);
    kind_ = other.kind_;
    pc_rebuild_interval_ = other.pc_rebuild_interval_;
    allow_not_converged_ = other.allow_not_converged_;
    block_solves_ = other.block_solves_;
    fixed_chebyshev_rate_ = other.fixed_chebyshev_rate_;
    fixed_chebyshev_lower_ = other.fixed_chebyshev_lower_;
    fixed_chebyshev_upper_ = other.fixed_chebyshev_upper_;
    operator_ = std::exchange(other.operator_, nullptr);
    user_pmat_ = std::exchange(other.user_pmat_, nullptr);
    pmat_snapshot_ = std::exchange(other.pmat_snapshot_, nullptr);
    pmat_id_ = other.pmat_id_;
    pmat_state_seen_ = other.pmat_state_seen_;
    pc_built_ = other.pc_built_;
    force_rebuild_ = other.force_rebuild_;
    updates_since_build_ = other.updates_since_build_;
    statistics_ = other.statistics_;
  }
  return *this;
}

void LinearSolver::set_operator(Mat operator_matrix, Mat preconditioner_matrix) {
  if (!ksp_) fail(ErrorCategory::invalid_input, "LinearSolver used after being moved from");
  if (!operator_matrix)
    fail(ErrorCategory::invalid_input, "LinearSolver ", label_of(prefix_),
         ": set_operator needs a matrix, got a null Mat");
  Mat pmat = preconditioner_matrix ? preconditioner_matrix : operator_matrix;
  operator_ = operator_matrix;
  // Our own reference: once a snapshot is taken the KSP no longer holds this matrix, and
  // decide_rebuild still reads its state.
  FOEHN_PETSC_CHECK(PetscObjectReference(reinterpret_cast<PetscObject>(pmat)));
  if (user_pmat_) FOEHN_PETSC_CHECK(MatDestroy(&user_pmat_));
  user_pmat_ = pmat;
  // Ids are unique for the whole run, unlike addresses, which a new Mat may reuse.
  PetscObjectId id = 0;
  FOEHN_PETSC_CHECK(PetscObjectGetId(reinterpret_cast<PetscObject>(pmat), &id));
  if (id != pmat_id_) {
    pmat_id_ = id;
    force_rebuild_ = true;
    if (pmat_snapshot_) FOEHN_PETSC_CHECK(MatDestroy(&pmat_snapshot_));
  }
  // A reused preconditioner keeps seeing its snapshot (taken when it is built).
  FOEHN_PETSC_CHECK(KSPSetOperators(ksp_, operator_matrix,
                                    pmat_snapshot_ && !force_rebuild_ ? pmat_snapshot_ : pmat));
}

void LinearSolver::take_snapshot() {
  if (pmat_snapshot_) {
    // A copy on whichever side the matrices live (MatCopy of GPU matrices goes through the
    // host): zero, then add the same pattern.
    FOEHN_PETSC_CHECK(MatZeroEntries(pmat_snapshot_));
    FOEHN_PETSC_CHECK(MatAXPY(pmat_snapshot_, 1.0, user_pmat_, SAME_NONZERO_PATTERN));
  } else {
    FOEHN_PETSC_CHECK(MatDuplicate(user_pmat_, MAT_COPY_VALUES, &pmat_snapshot_));
  }
  FOEHN_PETSC_CHECK(KSPSetOperators(ksp_, operator_, pmat_snapshot_));
}

template <class Action>
void LinearSolver::in_context(const char* what, const Action& action) const {
  try {
    action();
  } catch (const Error& error) {
    // PETSc's message says what failed; add which system and with what.
    fail(error.category(), "linear solver ", label_of(prefix_), " (", description(), ") failed ",
         what, ": ", error.what());
  }
}

bool LinearSolver::decide_rebuild() {
  PetscObjectState state = 0;
  FOEHN_PETSC_CHECK(PetscObjectStateGet(reinterpret_cast<PetscObject>(user_pmat_), &state));
  const bool updated = state != pmat_state_seen_;
  pmat_state_seen_ = state;
  if (!pc_built_ || force_rebuild_) return true;
  // Unchanged operator: PETSc keeps the preconditioner whatever the flag says.
  if (!updated) return false;
  ++updates_since_build_;
  if (pc_rebuild_interval_ == 0) return false;
  return updates_since_build_ >= pc_rebuild_interval_;
}

void LinearSolver::pass_reuse_to_blocks(PetscBool reuse) const {
  // Block Jacobi and ASM set up their blocks in KSPSetUpOnBlocks with their own KSPs, which
  // see the changed matrix and would refactor even when the outer PC is reused (PETSc hands
  // the flag down only later, in PCApply). Pass it down before the blocks are set up.
  PC pc = nullptr;
  FOEHN_PETSC_CHECK(KSPGetPC(ksp_, &pc));
  PetscInt count = 0;
  KSP* blocks = nullptr;
  if (!get_block_solvers(pc, &count, &blocks)) return;
  for (PetscInt i = 0; i < count; ++i)
    FOEHN_PETSC_CHECK(KSPSetReusePreconditioner(blocks[i], reuse));
}

SolveResult LinearSolver::solve(Vec b, Vec x) {
  if (!ksp_) fail(ErrorCategory::invalid_input, "LinearSolver used after being moved from");
  PetscBool has_operator = PETSC_FALSE;
  FOEHN_PETSC_CHECK(KSPGetOperatorsSet(ksp_, &has_operator, nullptr));
  if (!has_operator)
    fail(ErrorCategory::invalid_input, "LinearSolver ", label_of(prefix_),
         ": solve() called before set_operator()");
  if (!b || !x)
    fail(ErrorCategory::invalid_input, "LinearSolver ", label_of(prefix_),
         ": solve() needs a right-hand side and a solution vector, got a null Vec");

  // Operators set through ksp() directly rather than set_operator: adopt them.
  Mat current_operator = nullptr, current_pmat = nullptr;
  FOEHN_PETSC_CHECK(KSPGetOperators(ksp_, &current_operator, &current_pmat));
  if (current_pmat != user_pmat_ && current_pmat != pmat_snapshot_)
    set_operator(current_operator, current_pmat);

  SolveResult result;
  result.preconditioner_rebuilt = decide_rebuild();
  if (result.preconditioner_rebuilt && pc_rebuild_interval_ != 1) take_snapshot();
  const PetscBool reuse = result.preconditioner_rebuilt ? PETSC_FALSE : PETSC_TRUE;
  FOEHN_PETSC_CHECK(KSPSetReusePreconditioner(ksp_, reuse));

  set_up(reuse, result);
  const Stopwatch solve_clock;
  {
    ScopedLogEvent event(LogEvent::solve, reinterpret_cast<PetscObject>(ksp_),
                         reinterpret_cast<PetscObject>(b));
    in_context("solving", [&] { FOEHN_PETSC_CHECK(KSPSolve(ksp_, b, x)); });
  }
  result.solve_seconds = solve_clock.seconds();
  read_outcome(result);
  if (!result.converged && !allow_not_converged_) fail_not_converged(result);
  return result;
}

void LinearSolver::set_up(PetscBool reuse, SolveResult& result) {
  const Stopwatch setup_clock;
  {
    ScopedLogEvent event(LogEvent::solver_setup, reinterpret_cast<PetscObject>(ksp_));
    const GamgSetupOptions gamg_options(ksp_, prefix_);
    in_context("setting up", [&] {
      // An inner solver's type (-<prefix>mg_levels_pc_type, -<prefix>sub_ksp_type, ...) is
      // read only here: unknown, it is the user's input as at KSPSetFromOptions.
      if (const PetscErrorCode code = KSPSetUp(ksp_); code == PETSC_ERR_ARG_UNKNOWN_TYPE)
        fail(ErrorCategory::invalid_input,
             "an inner solver's type in the options: ", foehn::detail::petsc_error_text(code),
             " (-help lists the types this PETSc has)");
      else
        FOEHN_PETSC_CHECK(code);
      pass_reuse_to_blocks(reuse);
      FOEHN_PETSC_CHECK(KSPSetUpOnBlocks(ksp_));
    });
  }
  result.setup_seconds = setup_clock.seconds();
  if (result.preconditioner_rebuilt) {
    pc_built_ = true;
    force_rebuild_ = false;
    updates_since_build_ = 0;
    ++statistics_.preconditioner_builds;
  }
}

void LinearSolver::read_outcome(SolveResult& result) {
  PetscInt iterations = 0;
  PetscReal residual = 0.0;
  const char* reason_name = nullptr;
  FOEHN_PETSC_CHECK(KSPGetIterationNumber(ksp_, &iterations));
  FOEHN_PETSC_CHECK(KSPGetConvergedReason(ksp_, &result.reason_code));
  FOEHN_PETSC_CHECK(KSPGetConvergedReasonString(ksp_, &reason_name));
  FOEHN_PETSC_CHECK(KSPGetResidualNorm(ksp_, &residual));
  result.iterations = static_cast<int>(iterations);
  result.reason = reason_name ? reason_name : "UNKNOWN";
  result.converged = result.reason_code > 0;
  result.residual_norm = static_cast<double>(residual);

  ++statistics_.solves;
  statistics_.iterations += result.iterations;
  statistics_.setup_seconds += result.setup_seconds;
  statistics_.solve_seconds += result.solve_seconds;
}

void LinearSolver::fail_not_converged(const SolveResult& result) const {
  PC pc = nullptr;
  PCFailedReason pc_failure = PC_NOERROR;
  FOEHN_PETSC_CHECK(KSPGetPC(ksp_, &pc));
  FOEHN_PETSC_CHECK(PCGetFailedReason(pc, &pc_failure));
  const std::string pc_note = pc_failure != PC_NOERROR ? std::string(", preconditioner failed: ") +
                                                             PCFailedReasons[pc_failure]
                                                       : std::string();
  fail(ErrorCategory::petsc, "linear solve ", label_of(prefix_),
       " did not converge: ", result.reason, " after ", result.iterations,
       " iterations, residual norm ", scientific(result.residual_norm), pc_note, " [",
       description(), "]; -", prefix_, "ksp_monitor and -", prefix_,
       "ksp_converged_reason show more, -", prefix_,
       "foehn_allow_not_converged accepts such solves");
}

std::string LinearSolver::description() const {
  if (!ksp_) return "LinearSolver (moved from)";
  PC pc = nullptr;
  FOEHN_PETSC_CHECK(KSPGetPC(ksp_, &pc));
  std::ostringstream out;
  out << (prefix_.empty() ? std::string("(no prefix)") : prefix_) << ": "
      << type_name(reinterpret_cast<PetscObject>(ksp_)) << " + "
      << type_name(reinterpret_cast<PetscObject>(pc));
  if (pc_built_) {
    PetscInt count = 0;
    KSP* blocks = nullptr;
    if (get_block_solvers(pc, &count, &blocks) && count > 0) {
      PC sub_pc = nullptr;
      FOEHN_PETSC_CHECK(KSPGetPC(blocks[0], &sub_pc));
      out << " (blocks: " << type_name(reinterpret_cast<PetscObject>(blocks[0])) << " + "
          << type_name(reinterpret_cast<PetscObject>(sub_pc)) << ")";
    }
  }
  PetscReal rtol = 0.0, atol = 0.0, dtol = 0.0;
  PetscInt max_it = 0;
  PetscBool nonzero_guess = PETSC_FALSE;
  FOEHN_PETSC_CHECK(KSPGetTolerances(ksp_, &rtol, &atol, &dtol, &max_it));
  FOEHN_PETSC_CHECK(KSPGetInitialGuessNonzero(ksp_, &nonzero_guess));
  out << ", rtol " << rtol << ", atol " << atol << ", max_it " << max_it
      << (nonzero_guess ? ", nonzero initial guess" : ", zero initial guess");
  if (pc_rebuild_interval_ == 1)
    out << ", pc rebuilt on every operator update";
  else if (pc_rebuild_interval_ == 0)
    out << ", pc built once";
  else
    out << ", pc rebuilt every " << pc_rebuild_interval_ << " operator updates";
  return out.str();
}

void LinearSolver::view(PetscViewer viewer) const {
  if (!ksp_) fail(ErrorCategory::invalid_input, "LinearSolver used after being moved from");
  FOEHN_PETSC_CHECK(KSPView(
      ksp_, viewer ? viewer
                   : PETSC_VIEWER_STDOUT_(PetscObjectComm(reinterpret_cast<PetscObject>(ksp_)))));
}

}  // namespace foehn::petsc
