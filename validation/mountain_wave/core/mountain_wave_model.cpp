#include "mountain_wave_model.hpp"

#include <petscmat.h>

#include <algorithm>
#include <chrono>
#include <cmath>

#include "foehn/fe/operators.hpp"
#include "foehn/mesh/geometry.hpp"
#include "foehn/petsc/device_binding.hpp"
#include "foehn/petsc/device_petsc.hpp"
#include "foehn/petsc/dirichlet.hpp"
#include "foehn/petsc/log_events.hpp"
#include "foehn/petsc/mpi_collective.hpp"
#include "foehn/petsc/petsc_check.hpp"
#include "foehn/runtime/error.hpp"
#include "model_systems.hpp"

namespace foehn::mountainwave {

namespace {

// The solver settings of one system. Transport and momentum: rtol 1e-8 from the previous
// step's solution (a good guess for a flow that changes little per step); the elliptic systems,
// whose errors feed the divergence directly, to 1e-10 (the pressure to 1e-8 on the GPU, below).
// Measured trade-offs: docs/mountain_wave.md.
petsc::SolverSettings settings_of(const LinearSystemRow& system, bool on_device) {
  petsc::SolverSettings settings = petsc::SolverSettings::for_kind(system.kind, on_device);
  const bool elliptic =
      system.kind == petsc::SolverKind::pressure || system.kind == petsc::SolverKind::elliptic;
  settings.relative_tolerance = elliptic ? 1e-10 : 1e-8;
  if (!elliptic) settings.initial_guess_nonzero = true;
  if (system.id == LinearSystem::pressure && on_device) {
    // On the GPU the pressure stops at 1e-7: the scheme's own error is far above what 1e-10
    // adds. The default case's whole hour (issue 54): at 1e-8 on one H200 the w correlations
    // with linear theory (0.965, 0.918), peaks (0.6517 / 0.3037 m/s) and divergence diagnostic
    // (5.0507333e-5) were 1e-10's to the digits shown, 34 -> 29 CG iterations a step; at 1e-7,
    // with the extrapolated start, on two CPU ranks with these solvers
    // (-foehn_solver_defaults device), the same table and divergence (5.038e-5) as at 1e-8,
    // 24.5 -> 22.1 iterations (bench/results/mountainwave-syncs-cpu-20261201). 1e-6 gave the
    // default case the same again (19.5 iterations) but was not run at the published size, so
    // it is not taken. The host keeps 1e-10 (the reference); -pressure_ksp_rtol sets either.
    settings.relative_tolerance = 1e-7;
  }
  // On a fixed mesh the pressure matrix (Laplacian + stabilisation) and the mass matrix never
  // change value, so their preconditioners are built once (-pressure_foehn_pc_rebuild_interval
  // and -projection_foehn_pc_rebuild_interval change that, e.g. for adapted meshes). A
  // preconditioner built once is also what keeps restarts bitwise: rebuilding GAMG on new
  // values reuses its PtAP products, which on several ranks sum in another order than a fresh
  // setup.
  if (system.id == LinearSystem::pressure) {
    // On the host the pressure uses BoomerAMG where PETSc has hypre; on the GPU, GAMG (hypre is
    // CPU-only here).
#if defined(PETSC_HAVE_HYPRE)
    if (!on_device) settings.preconditioner = PCHYPRE;
#endif
    settings.pc_rebuild_interval = 0;
    // The cells are flat (vertical spacing a fraction of the horizontal): GAMG coarsening along
    // the strong vertical couplings only takes the pressure from 114 to 50 CG iterations per
    // step (553 k tets). 0.05 needs 29 there, but its setup fails on the GPU at 5 M tets
    // (PETSc 3.26, a GPU error inside GAMG's setup): docs/mountain_wave.md.
    settings.gamg_threshold = 0.01;
    // On several GPUs the coarse levels go to one rank (from the first level under a million
    // equations a rank): faster at 553 k and 5 M tets on two GPUs (docs/scaling.md). No effect
    // on one rank.
    settings.gamg_process_eq_limit = 1000000;
    // On the GPU CG's three reductions per iteration are host waits: one instead (one H100,
    // 553 k tets: 115 -> 79 waits per step, the same iterations and step time; on the host the
    // solve is unchanged, not measured there). bench/results/mountainwave-levers-h100-20261128b.md
    settings.cg_single_reduction = on_device;
  }
  if (system.id == LinearSystem::projection) {
    // The mass matrix is well conditioned (condition number bounded independently of h):
    // CG + Jacobi converges in a few iterations.
    settings.preconditioner = PCJACOBI;
    settings.pc_rebuild_interval = 0;
    settings.initial_guess_nonzero = true;  // zero, or the previous Picard iteration's du
    // On the GPU: Jacobi-scaled, a P1 mass matrix has its spectrum in [1/2, 5/2] (each
    // element's is), so Chebyshev needs no estimate and no inner product: 20 iterations reduce
    // the error by 2 (0.382)^20 = 9e-9, below the GPU pressure's 1e-7, without CG's 3 host
    // waits per iteration (one H100, 553 k tets, with 25: 426 -> 2 waits and 18.5 -> 6.7 ms per
    // step; bench/results/mountainwave-levers-h100-20261128.md). 25 (7e-11) and 20 gave the
    // default case's hour the same linear-theory table and divergence diagnostic to the digits
    // printed (issue 54, two CPU ranks, -foehn_solver_defaults device). On the host CG's inner
    // products cost little and its fewer iterations win.
    if (on_device) settings.fixed_chebyshev = petsc::SolverSettings::FixedChebyshev{0.5, 2.5, 20};
  }
  // Every diagonal preconditioned by Jacobi here is positive (M/dt, or M itself): PETSc's check
  // for zero entries, which copies the diagonal to the host and back at every set-up, is not
  // needed (-<prefix>pc_jacobi_fixdiagonal true restores it).
  if (system.id != LinearSystem::pressure) settings.jacobi_fix_zero_diagonal = false;
  return settings;
}

}  // namespace

// The block solve's sparse-dense product (cuSPARSE SpMM through PETSc's MatMatMult) reads the
// matrix once for three columns, but on the GPU it ran slower per column than three sparse
// products with vectors once the ranks' shares grew (H200, issue 54, bench/results/
// mountainwave-syncs-*): per step -11% for the default case (50 k rows) and -6% at 558 k tets
// (95 k rows) on one GPU, -25% at 558 k tets on two (50 k rows a rank); the projection 22%
// slower at 5 M tets on four (212 k rows a rank), +7% a step at 5 M on two (425 k), the
// projection 2.4x slower at 20 M on four (850 k). Up to this many rows on every rank the
// exchanges and launches it saves win.
constexpr std::int64_t block_projection_max_rows = 100000;

bool device_solves_for(const Numerics& numerics, MPI_Comm comm) {
  switch (numerics.solves) {
    case SolvePlacement::host:
      return false;
    case SolvePlacement::device:
      if (numerics.backend != Backend::cuda)
        fail(ErrorCategory::invalid_input,
             "mountain-wave core: solves on the GPU need the CUDA "
             "backend (-foehn_backend cuda)");
      if (!petsc::device_solves_available())
        fail(ErrorCategory::unavailable,
             "mountain-wave core: solves on the GPU need a PETSc "
             "built with CUDA (FOEHN_PETSC=cuda, README.md) and Foehn's CUDA backend");
      return true;
    case SolvePlacement::automatic:
      break;
  }
  // Ranks sharing a GPU time-slice it: each Krylov iteration then waits for the others'
  // kernels and for host-staged MPI, which made the GPU-resident step slower than host solves
  // (docs/mountain_wave.md, "Ranks sharing one GPU"), so automatic keeps the solves on the host
  // there.
  return numerics.backend == Backend::cuda && petsc::device_solves_available() &&
         petsc::one_rank_per_device(comm);
}

void MountainWaveModel::choose_projection_solve() {
  // An explicit -projection_foehn_block_solve (true or false) decides; else the size.
  PetscBool given = PETSC_FALSE;
  const std::string prefix(linear_systems[index_of(LinearSystem::projection)].prefix);
  FOEHN_PETSC_CHECK(PetscOptionsHasName(nullptr, prefix.c_str(), "-foehn_block_solve", &given));
  std::int64_t largest = mesh_.owned_nodes;
  MPI_Allreduce(MPI_IN_PLACE, &largest, 1, MPI_INT64_T, MPI_MAX, mesh_.comm);
  project_components_together_ =
      systems_->system(LinearSystem::projection).solver().block_solves() &&
      (given || largest <= block_projection_max_rows);
}

MountainWaveModel::Systems::Systems(const petsc::DistributedMesh& mesh, const Numerics& numerics,
                                    bool on_device)
    : assembler(mesh, numerics.backend, numerics.strategy, on_device),
      fields(assembler.fields()),
      values(assembler.values()),
      numbering(petsc::distributed_numbering(mesh)),
      scalar_exchange(mesh, 1, on_device),
      vector_exchange(mesh, 3, on_device) {}

MountainWaveModel::MountainWaveModel(const petsc::DistributedMesh& mesh,
                                     const MountainMeshOptions& domain, const Physics& physics,
                                     const Numerics& numerics)
    : mesh_(mesh), domain_(domain), physics_(physics), numerics_(numerics) {
  if (!(numerics.dt > 0) || numerics.picard_iterations < 1 ||
      !(numerics.picard_early_rtol >= 0 && numerics.picard_early_rtol < 1) ||
      numerics.theta < 0.5 || numerics.theta > 1 || numerics.stabilisation_interval < 1 ||
      numerics.stabilisation_coefficient < 0)
    fail(ErrorCategory::invalid_input, "mountain-wave numerics: dt ", numerics.dt, ", picard ",
         numerics.picard_iterations, ", early Picard rtol ", numerics.picard_early_rtol, ", theta ",
         numerics.theta, ", stabilisation interval ", numerics.stabilisation_interval,
         ", coefficient ", numerics.stabilisation_coefficient,
         " (need dt > 0, picard >= 1, early rtol in [0, 1), theta in [0.5, 1], interval >= 1, "
         "coefficient >= 0)");
  const bool on_device = device_solves_for(numerics, mesh.comm);
  // The GPU's solver defaults on the host give the GPU run's algorithms (and so its iterations
  // and communication counts) where no GPU is; the host's on the GPU are the user's choice.
  const bool device_defaults = numerics.solver_defaults == SolverDefaults::automatic
                                   ? on_device
                                   : numerics.solver_defaults == SolverDefaults::device;
  systems_ = std::make_unique<Systems>(mesh, numerics, on_device);
  Systems& s = *systems_;
  // Every scalar operator has the transport matrices' layout: on several ranks they share
  // PETSc's COO maps with the first (petsc::PetscMatrix's same_layout constructor), which is
  // built once instead of seven times.
  const petsc::System* scalar_layout = nullptr;
  for (const LinearSystemRow& row : linear_systems) {
    const int size = row.block_size;
    auto& system = s.systems[index_of(row.id)];
    system = std::make_unique<petsc::System>(
        s.assembler, s.numbering,
        petsc::SystemSpec{std::string(row.name), std::string(row.prefix), size, size, size == 3,
                          settings_of(row, device_defaults), std::nullopt},
        size == 1 ? scalar_layout : nullptr);
    if (size == 1 && !scalar_layout) scalar_layout = system.get();
  }
  s.divergence = std::make_unique<petsc::System>(
      s.assembler, s.numbering,
      petsc::SystemSpec{"divergence", "", 1, 3, false, std::nullopt, std::nullopt});
  petsc::MatrixHandoffOptions placement;
  placement.device_matrix = on_device;
  s.gradient =
      std::make_unique<petsc::PetscMatrix>(s.numbering, s.assembler.pattern(), 3, 1, placement);
  s.stabilisation = std::make_unique<petsc::System>(
      s.assembler, s.numbering,
      petsc::SystemSpec{"stabilisation", "", 1, 1, false, std::nullopt, std::nullopt},
      scalar_layout);
  setup_fixed_data();
  choose_projection_solve();
  setup_constraints();
}

MountainWaveModel::~MountainWaveModel() = default;

ModelState MountainWaveModel::initial_state() const {
  const TetMesh& local = mesh_.local;
  ModelState state;
  state.resize(local.node_count());
  for (std::size_t n = 0; n < local.node_count(); ++n) {
    state.velocity[3 * n] = physics_.closed_box ? 0.0 : physics_.inflow_speed;
    const auto& x = local.nodes[n];
    state.tracers[0][n] = physics_.qv_profile(x[2]);
    const double r2 =
        (x[0] * x[0] + x[1] * x[1] + (x[2] - 3000.0) * (x[2] - 3000.0)) / (2000.0 * 2000.0);
    state.theta[n] = physics_.bubble_amplitude * std::exp(-r2);
  }
  std::vector<double> values;
  velocity_boundary_values(boundary_velocity_data(local, systems_->kinds, physics_, domain_),
                           state.velocity, values);
  for (int c = 0; c < 3; ++c)
    for (const std::int32_t node : systems_->dirichlet.velocity_nodes[c])
      state.velocity[3 * static_cast<std::size_t>(node) + c] =
          values[3 * static_cast<std::size_t>(node) + c];
  return state;
}

std::vector<petsc::SystemTimes> MountainWaveModel::system_times() const {
  std::vector<petsc::SystemTimes> times;
  for (const auto& system : systems_->systems) times.push_back(system->times());
  return times;
}

void MountainWaveModel::reset_system_times() {
  for (const auto& system : systems_->systems) system->reset_times();
}

std::vector<std::string> MountainWaveModel::solver_descriptions() const {
  const Systems& s = *systems_;
  std::vector<std::string> lines;
  for (const auto& system : s.systems) lines.push_back(system->solver().description());
  return lines;
}

double MountainWaveModel::integral(const std::vector<double>& local_field) const {
  const TetMesh& local = mesh_.local;
  double sum = 0;
  for (const Tet& tet : local.tets) {
    double mean = 0;
    for (const std::int32_t n : tet) mean += local_field[static_cast<std::size_t>(n)];
    sum += std::abs(signed_volume(local, tet)) * mean / 4.0;
  }
  double total = 0;
  MPI_Allreduce(&sum, &total, 1, MPI_DOUBLE, MPI_SUM, mesh_.comm);
  return total;
}

bool MountainWaveModel::device_solves() const noexcept {
  return systems_->fields.on_device();
}

void MountainWaveModel::set_state(const ModelState& state) {
  Systems& s = *systems_;
  const std::size_t nodes = mesh_.local.node_count();
  // A wrong size on one rank fails every rank (the agreement below is collective).
  petsc::detail::run_collectively(mesh_.comm, [&] {
    if (state.velocity.size() != 3 * nodes || state.pressure.size() != nodes ||
        state.theta.size() != nodes ||
        std::any_of(state.tracers.begin(), state.tracers.end(),
                    [&](const std::vector<double>& q) { return q.size() != nodes; }))
      fail(ErrorCategory::invalid_input,
           "MountainWaveModel::set_state: the state's arrays do not match the ", nodes,
           " local nodes of this rank");
  });
  // step(state) hands the model's own state back at every step: it keeps the history.
  int own_state =
      host_current_ && (&state == &held_ ||
                        (state.step == held_.step && state.time == held_.time &&
                         state.velocity == held_.velocity && state.pressure == held_.pressure &&
                         state.theta == held_.theta && state.tracers == held_.tracers))
          ? 1
          : 0;
  // Every rank keeps the history or none does.
  MPI_Allreduce(MPI_IN_PLACE, &own_state, 1, MPI_INT, MPI_MIN, mesh_.comm);
  if (&state != &held_) held_ = state;  // the uploads read from held_, which outlives them
  s.state.velocity.assign(held_.velocity);
  s.state.pressure.assign(held_.pressure);
  s.state.theta.assign(held_.theta);
  for (int k = 0; k < tracer_count; ++k) {
    s.state.tracers[k].assign(held_.tracers[k]);
    tracer_zero_on_rank_[k] = std::all_of(held_.tracers[k].begin(), held_.tracers[k].end(),
                                          [](double q) { return q == 0; });
  }
  tracer_zero_agreed_ = false;
  if (!own_state) previous_increment_ready_ = previous_velocity_ready_ = false;
  host_current_ = true;
}

const ModelState& MountainWaveModel::state() {
  if (host_current_) return held_;
  const Systems& s = *systems_;
  held_.resize(mesh_.local.node_count());
  s.state.velocity.copy_to_host(held_.velocity);
  s.state.pressure.copy_to_host(held_.pressure);
  s.state.theta.copy_to_host(held_.theta);
  for (int k = 0; k < tracer_count; ++k) s.state.tracers[k].copy_to_host(held_.tracers[k]);
  host_current_ = true;
  return held_;
}

StepReport MountainWaveModel::step(ModelState& state) {
  set_state(state);
  StepReport report = step();
  state = this->state();
  return report;
}

}  // namespace foehn::mountainwave
