#pragma once
// LinearSolver: one PETSc KSP per linear system of a timestep, each with its own options
// prefix, so `-pressure_ksp_type bcgs` changes the pressure solve and nothing else.
//
// The solver kind sets the defaults a user would pick for that system (CG + GAMG for the
// pressure Poisson problem, GMRES + block Jacobi/ILU for transport, ...); they are applied
// BEFORE KSPSetFromOptions, so every PETSc option on the command line overrides them.
//
//   foehn::petsc::LinearSolver pressure(PETSC_COMM_WORLD, "pressure_",
//                                        foehn::petsc::SolverKind::pressure);
//   for (step ...) {
//     assemble(p_matrix, p_rhs);             // new values, same Mat
//     pressure.set_operator(p_matrix);       // once is enough; repeating it is harmless
//     auto result = pressure.solve(p_rhs, p);  // throws foehn::Error if it did not converge
//     log << pressure.prefix() << result.iterations << " its, " << result.reason;
//   }
//
// Foehn's own options (with the solver's prefix, listed by -help):
//   -<prefix>foehn_pc_rebuild_interval N   rebuild the preconditioner every N operator updates
//                                          (1: always, 0: never after the first)
//   -<prefix>foehn_allow_not_converged     return a non-converged result instead of throwing
//   -<prefix>foehn_block_solve false       never solve several right-hand sides together
// See docs/solvers.md for the kinds, their defaults and examples.
//
// The library never calls PetscInitialize: constructing a solver without PETSc initialised
// throws foehn::Error (unavailable).

#include <petscksp.h>

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace foehn::petsc {

enum class SolverKind {
  // Symmetric positive definite (diffusion, implicit elliptic): CG + GAMG.
  elliptic,
  // Pressure Poisson: as elliptic, and the initial guess is the solution vector's content
  // (the previous step's pressure), not zero.
  pressure,
  // Non-symmetric scalar (advection-diffusion of theta or tracers): GMRES + bjacobi/ILU(0).
  advection_diffusion,
  // 3x3-block non-symmetric momentum (MATBAIJ bs 3, or AIJ with block size 3):
  // GMRES + bjacobi with block ILU(0).
  momentum,
  // Small problems and references: preonly + LU (MUMPS on more than one rank).
  direct,
};

std::string_view to_string(SolverKind kind);

// What the code chooses; the command line still overrides every field (see the option names).
struct SolverSettings {
  SolverKind kind = SolverKind::elliptic;
  double relative_tolerance = 1e-8;    // -<prefix>ksp_rtol
  double absolute_tolerance = 1e-50;   // -<prefix>ksp_atol (PETSc's default)
  int max_iterations = 1000;           // -<prefix>ksp_max_it
  bool initial_guess_nonzero = false;  // -<prefix>ksp_initial_guess_nonzero
  int pc_rebuild_interval = 1;         // -<prefix>foehn_pc_rebuild_interval
  bool allow_not_converged = false;    // -<prefix>foehn_allow_not_converged
  // Jacobi (PCJACOBI, the kind's or chosen) replaces zero diagonal entries by 1
  // (-<prefix>pc_jacobi_fixdiagonal). Checking for them reads the diagonal on the host, a copy
  // there and back at every preconditioner set-up on the GPU: a caller that knows its diagonal
  // has no zero turns it off.
  bool jacobi_fix_zero_diagonal = true;
  // PETSc PC type replacing the kind's ("hypre", "jacobi", ...; empty: the kind's), still
  // overridden by -<prefix>pc_type.
  std::string preconditioner;
  // The operators live on the GPU (MATAIJCUSPARSE): the kind's defaults are then ones whose
  // setup and application stay on the GPU (docs/solvers.md, "On the GPU").
  bool on_device = false;
  // GAMG's threshold for dropping weak graph edges when coarsening (-<prefix>pc_gamg_threshold;
  // negative: PETSc's default). On meshes whose cells are much flatter than wide, as in
  // atmospheric models, a small positive value makes coarsening follow the strong (vertical)
  // couplings. Only used when the preconditioner is GAMG.
  double gamg_threshold = -1;
  // GAMG's goal for equations per rank on coarse levels (-<prefix>pc_gamg_process_eq_limit; 0:
  // PETSc's default of 50): below it a coarse level moves to fewer ranks. On several GPUs a
  // large value keeps the coarse levels, whose exchanges and reductions cost more than their
  // work, on one GPU. Only used when the preconditioner is GAMG.
  int gamg_process_eq_limit = 0;
  // CG (the elliptic and pressure kinds) with its two inner products and its norm in one
  // reduction per iteration (-<prefix>ksp_cg_single_reduction): on the GPU one host wait per
  // iteration instead of three (KSPCGUseSingleReduction; no effect on another method). The
  // convergence test then uses the natural norm sqrt(r' B r), which PETSc fuses into that
  // reduction (with the preconditioned norm it adds a VecNorm per iteration);
  // -<prefix>ksp_norm_type preconditioned restores the other.
  bool cg_single_reduction = false;
  // Instead of the kind's Krylov method: a fixed number of Chebyshev iterations for a
  // preconditioned operator whose spectrum is known to lie in [lower, upper] (Jacobi-scaled P1
  // mass matrices: [1/2, 5/2]). No inner product and no norm, so no wait for the GPU; the error
  // falls by about 2 ((sqrt(k) - 1) / (sqrt(k) + 1))^iterations, k = upper / lower. The solve
  // reports CONVERGED_ITS. It runs at most 95% of the iterations after which PETSc's Chebyshev
  // recurrence overflows to NaN (737 on [1/2, 5/2]): a larger -<prefix>ksp_max_it is capped,
  // which changes nothing beyond round-off (reached after 39 there).
  // On the command line: -<prefix>ksp_type, -<prefix>ksp_max_it,
  // -<prefix>ksp_chebyshev_eigenvalues; back to a tolerance with -<prefix>ksp_type cg
  // -<prefix>ksp_norm_type preconditioned -<prefix>ksp_max_it 1000.
  struct FixedChebyshev {
    double lower = 0, upper = 0;
    int iterations = 0;
  };
  std::optional<FixedChebyshev> fixed_chebyshev;

  // The defaults of a kind (the table in docs/solvers.md).
  static SolverSettings for_kind(SolverKind kind, bool on_device = false);
};

struct SolveResult {
  int iterations = 0;
  KSPConvergedReason reason_code = KSP_CONVERGED_ITERATING;
  std::string reason;          // PETSc's name: "CONVERGED_RTOL", "DIVERGED_ITS", ...
  bool converged = false;      // reason_code > 0
  double residual_norm = 0.0;  // KSPGetResidualNorm: the norm of the convergence test
                               // (preconditioned for CG and left-preconditioned GMRES; natural
                               // for single-reduction CG)
  double setup_seconds = 0.0;  // KSPSetUp + KSPSetUpOnBlocks (near 0 when the PC is reused)
  double solve_seconds = 0.0;  // KSPSolve
  bool preconditioner_rebuilt = false;
};

// Totals over the solver's life, for progress output and end-of-run summaries.
struct SolverStatistics {
  long solves = 0;
  long iterations = 0;
  long preconditioner_builds = 0;
  double setup_seconds = 0.0;
  double solve_seconds = 0.0;
};

class LinearSolver {
 public:
  // Creates the KSP on `comm` with options prefix `prefix` ("pressure_"; a leading '-' is
  // dropped and a trailing '_' added when missing; "" means no prefix), applies the kind's
  // defaults, then KSPSetFromOptions and Foehn's options. Collective on `comm`.
  LinearSolver(MPI_Comm comm, std::string_view prefix, SolverKind kind);
  LinearSolver(MPI_Comm comm, std::string_view prefix, const SolverSettings& settings);
  ~LinearSolver();

  LinearSolver(LinearSolver&& other) noexcept;
  LinearSolver& operator=(LinearSolver&& other) noexcept;
  LinearSolver(const LinearSolver&) = delete;
  LinearSolver& operator=(const LinearSolver&) = delete;

  // The operator A and the matrix the preconditioner is built from (A when null). Not owned
  // (PETSc and the solver keep references: the caller may destroy its handles). Operators set
  // on ksp() directly are taken over at the next solve. Changing values of the same Mat needs no
  // new call: each solve notices the change. A different Mat object forces a preconditioner
  // rebuild.
  void set_operator(Mat operator_matrix, Mat preconditioner_matrix = nullptr);

  // Solves A x = b. With a nonzero initial guess, x's content on entry is the guess.
  // Throws foehn::Error (petsc) naming the prefix, the reason, the iterations and the residual
  // when KSP does not converge, unless not-converged results are allowed.
  SolveResult solve(Vec b, Vec x);
  // As solve, to a relative tolerance no tighter than `relative_tolerance` (the solver's own
  // where that is looser; 0: the solver's own): for solves whose result only seeds a later,
  // tighter one, such as the Picard iterations before the last. A fixed Chebyshev solve (no
  // norm, known eigenvalue bounds) runs the iterations that reduce the error by as much instead.
  // The solver's tolerances are what they were afterwards, also when it throws.
  SolveResult solve_loosely(Vec b, Vec x, double relative_tolerance);

  // One line: prefix, KSP and PC types (with the sub-solver of block Jacobi/ASM once set up),
  // tolerances, initial guess and rebuild policy - for progress output.
  std::string description() const;
  // KSPView on `viewer` (stdout of the solver's communicator when null).
  void view(PetscViewer viewer = nullptr) const;

  KSP ksp() const noexcept { return ksp_; }
  const std::string& prefix() const noexcept { return prefix_; }
  SolverKind kind() const noexcept { return kind_; }
  int pc_rebuild_interval() const noexcept { return pc_rebuild_interval_; }
  bool allows_not_converged() const noexcept { return allow_not_converged_; }
  // -<prefix>foehn_block_solve (default true): a caller with several right-hand sides may
  // solve them together (fixed_chebyshev_plan).
  bool block_solves() const noexcept { return block_solves_; }
  const SolverStatistics& statistics() const noexcept { return statistics_; }

  // A fixed Chebyshev solve with Jacobi (KSPCHEBYSHEV of the first kind, no norms, known
  // eigenvalue bounds, the plain diagonal, as
  // SolverSettings::fixed_chebyshev or the options set it up): its bounds and the iterations a
  // solve_loosely(b, x, loosest_relative_tolerance) runs. None for any other method, so a
  // caller that solves several right-hand sides itself (BlockChebyshev) keeps the user's
  // -<prefix>ksp_type and -<prefix>pc_type.
  struct FixedChebyshevPlan {
    double lower = 0, upper = 0;
    int iterations = 0;
    bool nonzero_guess = false;  // the solver starts from the solution's content
  };
  std::optional<FixedChebyshevPlan> fixed_chebyshev_plan(double loosest_relative_tolerance) const;

 private:
  void configure(MPI_Comm comm, const SolverSettings& settings);
  // Parts of configure: the options database over the code's choices (an unknown type named as
  // the user's input), the GAMG settings no option overrides, Foehn's own options.
  void set_from_options();
  void apply_fixed_chebyshev(const SolverSettings::FixedChebyshev& chebyshev);
  // After the options: the error reduction per iteration of a fixed Chebyshev solve, from the
  // eigenvalue bounds given on the command line or in `settings` (none for any other method).
  void note_fixed_chebyshev_rate(const SolverSettings& settings);
  void apply_gamg_settings(const SolverSettings& settings);
  void read_foehn_options(MPI_Comm comm, const SolverSettings& settings);
  // Parts of solve: the set-up (timed into result), the outcome read from the KSP.
  void set_up(PetscBool reuse, SolveResult& result);
  void read_outcome(SolveResult& result);
  [[noreturn]] void fail_not_converged(const SolveResult& result) const;
  bool decide_rebuild();
  void take_snapshot();
  // Runs `action`, adding the solver's prefix and description to a foehn::Error it throws.
  template <class Action>
  void in_context(const char* what, const Action& action) const;
  void pass_reuse_to_blocks(PetscBool reuse) const;
  void destroy() noexcept;

  KSP ksp_ = nullptr;
  std::string prefix_;
  SolverKind kind_ = SolverKind::elliptic;
  int pc_rebuild_interval_ = 1;
  bool allow_not_converged_ = false;
  bool block_solves_ = true;
  // (sqrt(k) - 1) / (sqrt(k) + 1), k = upper / lower, for a fixed Chebyshev solve; 0 otherwise.
  double fixed_chebyshev_rate_ = 0;
  double fixed_chebyshev_lower_ = 0, fixed_chebyshev_upper_ = 0;

  // Preconditioner reuse: operator updates are counted from the state of the preconditioner
  // matrix, which PETSc increases whenever its values change. A reused preconditioner is built
  // from a snapshot of that matrix taken at the build, so that it really stays what it was:
  // parts of PETSc react to the live matrix's state otherwise (the Chebyshev smoothers of GAMG's
  // finest level re-estimate their eigenvalues after every update of the operator).
  Mat operator_ = nullptr;       // not owned
  Mat user_pmat_ = nullptr;      // a reference of ours
  Mat pmat_snapshot_ = nullptr;  // owned; pc_rebuild_interval != 1 only
  PetscObjectId pmat_id_ = 0;
  PetscObjectState pmat_state_seen_ = -1;
  bool pc_built_ = false;
  bool force_rebuild_ = true;
  int updates_since_build_ = 0;

  SolverStatistics statistics_;
};

namespace detail {

// What LinearSolver knows about a preconditioner set-up it is about to run.
struct GamgSetup {
  bool gamg = false;                 // the PC is GAMG
  bool device_operator = false;      // its operator is a cuSPARSE matrix
  bool reuse_interpolation = false;  // -<prefix>pc_gamg_reuse_interpolation
  std::string prefix;                // the solver's options prefix ("pressure_")
  bool several_ranks = false;        // the solver's communicator has more than one rank
};

// One option LinearSolver sets for the duration of a set-up: -name value.
struct OptionPreset {
  std::string name;
  std::string value = "1";
  bool operator==(const OptionPreset&) const = default;
};

// The options LinearSolver puts in PETSc's database for one GAMG set-up only (and clears after),
// each unless `user_gave(name)`: -mat_product_clear (GAMG never reuses its products' buffers
// without reuse_interpolation), and, for an operator on the GPU, -matptap_backend_cpu and
// -matmatmult_backend_cpu (PETSc 3.26's cuSPARSE SpGEMM does not always return) and the coarse
// LU in its natural ordering, -<prefix>mg_coarse_sub_pc_factor_mat_ordering_type natural (a
// permuted cuSPARSE triangular solve waits for the GPU twice per V-cycle): docs/solvers.md.
std::vector<OptionPreset> gamg_setup_presets(const GamgSetup& setup,
                                             const std::function<bool(const char*)>& user_gave);

}  // namespace detail

}  // namespace foehn::petsc
