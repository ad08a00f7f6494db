// MountainWaveModel::step: one timestep of the Picard / projection scheme described in
// mountain_wave_model.hpp, on the model's resident state. Every array it touches is in the
// memory of its kind (model_systems.hpp): with the solves on the GPU nothing crosses to the host
// but a few scalars (CFL, finite check, residual norms, the divergence diagnostic).
#include <petscmat.h>

#include <algorithm>
#include <cmath>

#include "foehn/fe/operators.hpp"
#include "foehn/petsc/device_petsc.hpp"
#include "foehn/petsc/log_events.hpp"
#include "foehn/petsc/petsc_check.hpp"
#include "foehn/runtime/error.hpp"
#include "foehn/runtime/for_each.hpp"
#include "foehn/runtime/stopwatch.hpp"
#include "model_systems.hpp"
#include "placed_exchange.hpp"

namespace foehn::mountainwave {

namespace {

// Solves one system, adding its time to the step's PETSc totals; returns its iterations.
// `loosest_rtol`: as petsc::System::solve.
int solve(petsc::System& system, Vec rhs, Vec solution, StepTimes& times, double loosest_rtol) {
  const petsc::SolveResult result = system.solve(rhs, solution, loosest_rtol);
  times[TimedPhase::petsc_setup] += result.setup_seconds;
  times[TimedPhase::petsc_solve] += result.solve_seconds;
  return result.iterations;
}

// True in the Picard iterations after the first when they start from the previous one's
// solutions (-picard_warm_start); report.picard_iterations counts the iterations done.
bool starts_warm(const Numerics& numerics, const StepReport& report) {
  return numerics.picard_warm_start && report.picard_iterations > 0;
}

// The loosest relative tolerance of the current Picard iteration's solves: -picard_early_rtol
// before the last iteration, 0 (each system's own) in the last.
double picard_rtol(const Numerics& numerics, const StepReport& report) {
  return report.picard_iterations + 1 < numerics.picard_iterations ? numerics.picard_early_rtol
                                                                   : 0.0;
}

}  // namespace

void MountainWaveModel::assemble_pressure(StepTimes& times, bool with_stabilisation) {
  Systems& s = *systems_;
  const std::size_t count = s.stabilisation_values.size();
  if (with_stabilisation) {
    ScopedSeconds timer(times[TimedPhase::stabilisation_matrix]);
    fe::StabilisationOperator op;
    op.scale = numerics_.stabilisation_coefficient / s.stabilisation_length_squared;
    // P is kept: the pressure matrix adds it to every new Laplacian.
    s.stabilisation->assemble(op, nullptr, [&](double* values, double*) {
      for_each(s.values, count, StridedCopy{values, 1, s.stabilisation_values.data(), 1});
    });
  }
  ScopedSeconds timer(times.matrix_of(LinearSystem::pressure));
  // K, the Laplacian ("pressure correction matrix"), plus P, then the outflow rows.
  petsc::System& pressure = s.system(LinearSystem::pressure);
  pressure.assemble(fe::DiffusionOperator{}, nullptr, [&](double* values, double*) {
    for_each(s.values, count, AddArrays{s.stabilisation_values.data(), values});
  });
  if (physics_.closed_box) {
    MatNullSpace constants = nullptr;
    FOEHN_PETSC_CHECK(MatNullSpaceCreate(mesh_.comm, PETSC_TRUE, 0, nullptr, &constants));
    FOEHN_PETSC_CHECK(MatSetNullSpace(pressure.mat(), constants));
    FOEHN_PETSC_CHECK(MatNullSpaceDestroy(&constants));
  }
}

// On a fixed mesh M, D (and G) and K do not change: they are assembled by the model's first
// step, and K + P again whenever P is (every -stabilisation_interval steps, as the published
// model re-assembles its stabilisation). Assembling M and K + P every step cost 0.15 and 0.23 ms
// per step on one H100 at 553 k tets, D besides (bench/results/mountainwave-levers-h100-
// 20261128b.md).
void MountainWaveModel::assemble_step_operators(StepTimes& times) {
  Systems& s = *systems_;
  if (!constant_operators_ready_) {
    {
      ScopedSeconds timer(times.matrix_of(LinearSystem::projection));
      s.system(LinearSystem::projection).assemble(fe::MassOperator{});
    }
    ScopedSeconds timer(times[TimedPhase::divergence_matrix]);
    s.divergence->assemble(fe::DivergenceOperator{}, nullptr, {}, s.gradient.get());
  }
  const bool stabilisation_due = held_.step % numerics_.stabilisation_interval == 0 ||
                                 held_.step == 0 || !stabilisation_ready_;
  // The constraints of the pressure's outflow rows reach its matrix at its first assembly here
  // (setup_constraints assembles it before they are set).
  if (stabilisation_due || !constant_operators_ready_) assemble_pressure(times, stabilisation_due);
  stabilisation_ready_ = true;
  constant_operators_ready_ = true;
}

void MountainWaveModel::agree_on_zero_tracers() {
  std::array<int, tracer_count> zero{};
  for (int k = 0; k < tracer_count; ++k)
    zero[k] = tracer_zero_on_rank_[k] && systems_->tracer_boundary_zero[k] ? 1 : 0;
  MPI_Allreduce(MPI_IN_PLACE, zero.data(), tracer_count, MPI_INT, MPI_LAND, mesh_.comm);
  for (int k = 0; k < tracer_count; ++k) tracer_stays_zero_[k] = zero[k] != 0;
  tracer_zero_agreed_ = true;
}

void MountainWaveModel::transport(StepReport& report) {
  Systems& s = *systems_;
  const double dt = numerics_.dt, th = numerics_.theta;
  const auto owned = static_cast<std::size_t>(mesh_.owned_nodes);
  const PlacedArray<double>& velocity = s.velocity_iterate;
  {
    const petsc::VecArray w(s.s_w.get(), petsc::VecAccess::write, s.fields.stream_or_null());
    for_each(s.fields, owned, StridedCopy{velocity.data() + 2, 3, w.data(), 1});
  }
  for (int k = 0; k < transported_count; ++k) {
    if (k > 0 && tracer_stays_zero_[k - 1]) {
      // No source, zero boundary values: the solve would return zero (agree_on_zero_tracers).
      for_each(s.fields, s.transported[k].size(), Fill{s.transported[k].data(), 0.0});
      continue;
    }
    petsc::System& system = s.system(transported_system(k));
    {
      ScopedSeconds timer(report.times.matrix_of(transported_system(k)));
      // T(u*) = M/dt + th (A(u*) + kappa K), theta' relaxed to 0 in the absorbing layers.
      fe::AdvectionDiffusionOperator op;
      op.inverse_dt = 1.0 / dt;
      op.theta = th;
      op.conservative_form = physics_.closed_box;  // exact tracer mass between walls
      // Open domains: the skew-symmetric form keeps time-centred transport from growing
      // variance where the projected velocity is not exactly divergence-free.
      op.skew_symmetric = numerics_.skew_symmetric_transport && !physics_.closed_box;
      op.velocity = fe::field_ref(velocity.data(), static_cast<std::int64_t>(velocity.size()));
      op.tensor = fe::field_ref(s.diffusivity_tensor.data(),
                                static_cast<std::int64_t>(s.diffusivity_tensor.size()));
      system.assemble(op, k == 0 ? s.damping_values_scalar.data() : nullptr);
    }
    // b = (1/th) M q^n / dt - ((1-th)/th) T q^n  [- gradient M w_th for theta'].
    Vec old = s.transported_old[k].get();
    FOEHN_PETSC_CHECK(MatMult(s.mass(), old, s.s_rhs.get()));
    FOEHN_PETSC_CHECK(VecScale(s.s_rhs.get(), 1.0 / (th * dt)));
    if (th < 1) {
      FOEHN_PETSC_CHECK(MatMult(system.mat(), old, s.s_work.get()));
      FOEHN_PETSC_CHECK(VecAXPY(s.s_rhs.get(), -(1 - th) / th, s.s_work.get()));
    }
    if (k == 0) add_background_forcing();
    system.constrain_rhs(s.s_rhs.get(), s.tracer_boundary_values[k].get());
    // T(u*) q^{n+1} = b, from q^n (or from the previous Picard iteration's q^{n+1}).
    if (!starts_warm(numerics_, report))
      FOEHN_PETSC_CHECK(VecCopy(old, s.transported_new[k].get()));
    report.iterations_of(transported_system(k)) +=
        solve(system, s.s_rhs.get(), s.transported_new[k].get(), report.times,
              picard_rtol(numerics_, report));
    to_local(s.scalar_exchange, s.transported_new[k].get(), s.transported[k]);
  }
}

// theta' is forced by the vertical advection of the background, -w dtheta_bar/dz, with w
// time-weighted like the transport and the buoyancy, and the consistent mass matrix that weights
// the buoyancy in the momentum equation: the two exchange terms are then each other's transpose,
// so the exchange of kinetic and potential energy is exact. Reads w* from s_w.
void MountainWaveModel::add_background_forcing() {
  Systems& s = *systems_;
  const double th = numerics_.theta;
  const auto owned = static_cast<std::size_t>(mesh_.owned_nodes);
  {
    const petsc::VecArray w_old(s.s_work.get(), petsc::VecAccess::write, s.fields.stream_or_null());
    for_each(s.fields, owned, StridedCopy{s.state.velocity.data() + 2, 3, w_old.data(), 1});
  }
  // b -= dtheta_bar/dz M (th w* + (1 - th) w^n)
  FOEHN_PETSC_CHECK(VecAXPBY(s.s_work.get(), th, 1 - th, s.s_w.get()));
  FOEHN_PETSC_CHECK(MatMult(s.mass(), s.s_work.get(), s.s_w.get()));
  FOEHN_PETSC_CHECK(VecAXPY(s.s_rhs.get(), -physics_.background_theta_gradient(), s.s_w.get()));
}

void MountainWaveModel::momentum_predictor(StepReport& report) {
  Systems& s = *systems_;
  const double dt = numerics_.dt;
  const std::size_t nodes = mesh_.local.node_count();
  PlacedArray<double>& velocity = s.velocity_iterate;
  petsc::System& momentum = s.system(LinearSystem::momentum);
  for_each(s.fields, nodes,
           BoundaryVelocity{velocity.data(), s.inflow_u.data(), s.slope_x.data(), s.slope_y.data(),
                            s.boundary_values.data()});
  for_each(s.fields, nodes,
           BodyForce{s.state.velocity.data(), s.state.theta.data(), s.transported[0].data(),
                     s.body_force.data(), dt, numerics_.theta, physics_.gravity, physics_.theta0});
  {
    ScopedSeconds timer(report.times.matrix_of(LinearSystem::momentum));
    // (M/dt + A(u*) + nu S) u' = M (u^n/dt + g theta'_th / theta0 z) + R m U, damped rows.
    fe::MomentumOperator op;
    op.density_over_dt = 1.0 / dt;
    op.viscosity = physics_.viscosity;
    op.advecting_velocity =
        fe::field_ref(velocity.data(), static_cast<std::int64_t>(velocity.size()));
    op.body_force =
        fe::field_ref(s.body_force.data(), static_cast<std::int64_t>(s.body_force.size()));
    momentum.assemble(op, physics_.closed_box ? nullptr : s.damping_values_vector.data());
  }
  Vec rhs = momentum.rhs();
  // b -= G p^n in the strong form (no boundary term: on sloping walls the Cartesian components
  // left free must not feel a spurious boundary traction).
  FOEHN_PETSC_CHECK(MatMult(s.gradient->mat(), s.pressure_old.get(), s.v_gradient.get()));
  FOEHN_PETSC_CHECK(VecAXPY(rhs, -1.0, s.v_gradient.get()));
  if (!physics_.closed_box) FOEHN_PETSC_CHECK(VecAXPY(rhs, 1.0, s.damping_target.get()));
  to_global(s.vector_exchange, s.boundary_values, s.v_boundary.get());
  momentum.constrain_rhs(rhs, s.v_boundary.get());
  to_global(s.vector_exchange, velocity, s.v_velocity_star.get());
  report.iterations_of(LinearSystem::momentum) +=
      solve(momentum, rhs, s.v_velocity_star.get(), report.times, picard_rtol(numerics_, report));
}

void MountainWaveModel::pressure_increment(StepReport& report) {
  Systems& s = *systems_;
  petsc::System& pressure = s.system(LinearSystem::pressure);
  // (K + c P / h^2) dp = -(1/dt) D u' - (c / h^2) P p^n, dp = 0 at the outflow.
  FOEHN_PETSC_CHECK(MatMult(s.divergence->mat(), s.v_velocity_star.get(), s.pressure_rhs.get()));
  FOEHN_PETSC_CHECK(VecScale(s.pressure_rhs.get(), -1.0 / numerics_.dt));
  FOEHN_PETSC_CHECK(MatMult(s.stabilisation->mat(), s.pressure_old.get(), s.s_work.get()));
  FOEHN_PETSC_CHECK(VecAXPY(s.pressure_rhs.get(), -1.0, s.s_work.get()));
  if (physics_.closed_box) {
    MatNullSpace constants = nullptr;
    FOEHN_PETSC_CHECK(MatGetNullSpace(pressure.mat(), &constants));
    FOEHN_PETSC_CHECK(MatNullSpaceRemove(constants, s.pressure_rhs.get()));
  } else {
    pressure.constrain_rhs(s.pressure_rhs.get(), s.zero_pressure.get());
  }
  // From zero (or from the previous Picard iteration's dp, or in the first from the previous
  // step's with -pressure_guess_previous).
  const bool from_previous_step = report.picard_iterations == 0 &&
                                  numerics_.pressure_guess_previous && previous_increment_ready_;
  if (!starts_warm(numerics_, report) && !from_previous_step)
    FOEHN_PETSC_CHECK(VecSet(s.pressure_increment.get(), 0.0));
  report.iterations_of(LinearSystem::pressure) +=
      solve(pressure, s.pressure_rhs.get(), s.pressure_increment.get(), report.times,
            picard_rtol(numerics_, report));
}

// The three components of M du = -dt G dp in one BlockChebyshev solve: one sparse product and
// halo exchange per iteration for all three, where three solves exchange three times. Used where
// the projection's solver is a fixed Chebyshev iteration with Jacobi (the GPU default; the same
// iterations and bounds) and choose_projection_solve chose it (-projection_foehn_block_solve
// true|false decides over the size rule). Returns false (nothing done) otherwise.
bool MountainWaveModel::project_together(StepReport& report) {
  Systems& s = *systems_;
  petsc::System& projection = s.system(LinearSystem::projection);
  const auto plan = projection.solver().fixed_chebyshev_plan(picard_rtol(numerics_, report));
  if (!plan || !project_components_together_) return false;
  const Stream* stream = s.fields.stream_or_null();
  if (!s.projection_block)
    s.projection_block =
        std::make_unique<petsc::BlockChebyshev>(s.mass(), 3, plan->lower, plan->upper, stream);
  petsc::BlockChebyshev& block = *s.projection_block;
  const auto rows = static_cast<std::size_t>(block.local_rows());
  {
    const petsc::VecArray gradient(s.v_gradient.get(), petsc::VecAccess::read, stream);
    const petsc::VecArray rhs(block.rhs(), petsc::VecAccess::write, stream);
    for_each(s.fields, 3 * rows, ToColumns{gradient.data(), rhs.data(), rows});
  }
  // From zero (or from the previous Picard iteration's du).
  const bool warm = starts_warm(numerics_, report) && plan->nonzero_guess;
  if (warm) {
    const petsc::VecArray increment(s.v_increment.get(), petsc::VecAccess::read, stream);
    const petsc::VecArray guess(block.solution(), petsc::VecAccess::write, stream);
    for_each(s.fields, 3 * rows, ToColumns{increment.data(), guess.data(), rows});
  }
  const petsc::SolveResult result = projection.record_solve([&] {
    const Stopwatch clock;
    block.solve(plan->iterations, warm);
    petsc::SolveResult done;
    done.iterations = plan->iterations;
    done.converged = true;
    done.reason_code = KSP_CONVERGED_ITS;
    done.reason = "CONVERGED_ITS";
    done.solve_seconds = clock.seconds();
    return done;
  });
  report.times[TimedPhase::petsc_solve] += result.solve_seconds;
  report.iterations_of(LinearSystem::projection) += result.iterations;
  const petsc::VecArray solution(block.solution(), petsc::VecAccess::read, stream);
  const petsc::VecArray increment(s.v_increment.get(), petsc::VecAccess::write, stream);
  for_each(s.fields, 3 * rows, FromColumns{solution.data(), increment.data(), rows});
  return true;
}

void MountainWaveModel::project(StepReport& report) {
  Systems& s = *systems_;
  const auto owned = static_cast<std::size_t>(mesh_.owned_nodes);
  const Stream* stream = s.fields.stream_or_null();
  // M du = -dt G dp, component by component; u* = u' + du, boundary values restored.
  FOEHN_PETSC_CHECK(MatMult(s.gradient->mat(), s.pressure_increment.get(), s.v_gradient.get()));
  FOEHN_PETSC_CHECK(VecScale(s.v_gradient.get(), -numerics_.dt));
  // Lumped: du = -dt M_L^-1 G dp, one pointwise product (no iteration, exchange or reduction).
  const bool lumped = numerics_.projection_mass == ProjectionMass::lumped;
  if (lumped)
    FOEHN_PETSC_CHECK(
        VecPointwiseMult(s.v_increment.get(), s.v_gradient.get(), s.inverse_lumped_mass.get()));
  const bool together = lumped || project_together(report);
  for (int c = 0; c < 3 && !together; ++c) {
    {
      const petsc::VecArray gradient(s.v_gradient.get(), petsc::VecAccess::read, stream);
      const petsc::VecArray rhs(s.projection_rhs.get(), petsc::VecAccess::write, stream);
      for_each(s.fields, owned, StridedCopy{gradient.data() + c, 3, rhs.data(), 1});
    }
    // From zero (or from the previous Picard iteration's du, component c).
    if (starts_warm(numerics_, report)) {
      const petsc::VecArray increment(s.v_increment.get(), petsc::VecAccess::read, stream);
      const petsc::VecArray guess(s.projection_solution.get(), petsc::VecAccess::write, stream);
      for_each(s.fields, owned, StridedCopy{increment.data() + c, 3, guess.data(), 1});
    } else {
      FOEHN_PETSC_CHECK(VecSet(s.projection_solution.get(), 0.0));
    }
    report.iterations_of(LinearSystem::projection) +=
        solve(s.system(LinearSystem::projection), s.projection_rhs.get(),
              s.projection_solution.get(), report.times, picard_rtol(numerics_, report));
    const petsc::VecArray solution(s.projection_solution.get(), petsc::VecAccess::read, stream);
    const petsc::VecArray increment(s.v_increment.get(), petsc::VecAccess::read_write, stream);
    for_each(s.fields, owned, StridedCopy{solution.data(), 1, increment.data() + c, 3});
  }
  FOEHN_PETSC_CHECK(
      VecWAXPY(s.v_velocity_new.get(), 1.0, s.v_increment.get(), s.v_velocity_star.get()));
  to_local(s.vector_exchange, s.v_velocity_new.get(), s.velocity_iterate);
  for_each(s.fields, 3 * mesh_.local.node_count(),
           RestoreBoundary{s.constrained_velocity.data(), s.boundary_values.data(),
                           s.velocity_iterate.data()});
}

StepReport MountainWaveModel::step() {
  Systems& s = *systems_;
  StepReport report;
  const Stopwatch step_clock;
  // The first step of a run builds every preconditioner (GAMG coarsens on the host, once): a
  // stage of its own keeps -log_view's MountainWaveStep to the steady state of a run.
  const petsc::ScopedLogStage stage(first_step_done_ ? "MountainWaveStep"
                                                     : "MountainWaveFirstStep");
  first_step_done_ = true;
  s.assembler.reset_times();

  // CFL number of the state the step starts from.
  const double cfl =
      max_of(s.fields, mesh_.local.tets.size(),
             TetCfl{s.state.velocity.data(), s.cfl_tets, s.shortest_edge.data(), numerics_.dt});
  MPI_Allreduce(&cfl, &report.cfl, 1, MPI_DOUBLE, MPI_MAX, mesh_.comm);

  // M, D (and G), K + P: they do not depend on the iterate.
  assemble_step_operators(report.times);
  if (!tracer_zero_agreed_) agree_on_zero_tracers();
  // Level-n values as PETSc vectors; the first iterate u* = u^n.
  to_global(s.scalar_exchange, s.state.theta, s.transported_old[0].get());
  for (int k = 0; k < tracer_count; ++k)
    to_global(s.scalar_exchange, s.state.tracers[k], s.transported_old[k + 1].get());
  to_global(s.scalar_exchange, s.state.pressure, s.pressure_old.get());
  const std::size_t velocity_values = 3 * mesh_.local.node_count();
  if (numerics_.picard_extrapolate && previous_velocity_ready_)
    for_each(s.fields, velocity_values,
             Extrapolate{s.state.velocity.data(), s.velocity_previous.data(),
                         s.velocity_iterate.data()});
  else
    for_each(s.fields, velocity_values,
             StridedCopy{s.state.velocity.data(), 1, s.velocity_iterate.data(), 1});

  for (int iteration = 0; iteration < numerics_.picard_iterations; ++iteration) {
    transport(report);           // theta', qv, qc, qr at n+1 with u*
    momentum_predictor(report);  // u' with u* and theta'^{n+1}
    pressure_increment(report);  // dp from D u'
    project(report);             // u* = u' - dt M^-1 G dp
    report.picard_iterations = iteration + 1;
  }

  // The new state: p^{n+1} = p^n + dp, u^{n+1} = u*, q^{n+1}.
  FOEHN_PETSC_CHECK(VecAXPY(s.pressure_old.get(), 1.0, s.pressure_increment.get()));
  to_local(s.scalar_exchange, s.pressure_old.get(), s.pressure_local);
  if (numerics_.picard_extrapolate) {
    s.velocity_previous.swap(s.state.velocity);  // u^{n-1} <- u^n
    previous_velocity_ready_ = true;
  }
  s.state.velocity.swap(s.velocity_iterate);
  s.state.pressure.swap(s.pressure_local);
  s.state.theta.swap(s.transported[0]);
  for (int k = 0; k < tracer_count; ++k) s.state.tracers[k].swap(s.transported[k + 1]);
  previous_increment_ready_ = true;
  held_.time += numerics_.dt;
  held_.step += 1;
  host_current_ = false;
  check_state_finite();
  report.max_divergence = interior_divergence();

  report.times.assembly = s.assembler.times().assembly;
  report.times.handoff = s.assembler.times().handoff;
  report.times.total = step_clock.seconds();
  return report;
}

// Discrete divergence of the state's velocity at interior nodes: max |(D u)_i| / m_i (boundary
// nodes carry prescribed velocities the projection does not change).
double MountainWaveModel::interior_divergence() {
  Systems& s = *systems_;
  to_global(s.vector_exchange, s.state.velocity, s.v_velocity_new.get());
  FOEHN_PETSC_CHECK(MatMult(s.divergence->mat(), s.v_velocity_new.get(), s.s_work.get()));
  FOEHN_PETSC_CHECK(VecPointwiseDivide(s.s_work.get(), s.s_work.get(), s.lumped_mass.get()));
  FOEHN_PETSC_CHECK(VecPointwiseMult(s.s_work.get(), s.s_work.get(), s.interior.get()));
  PetscReal divergence = 0;
  FOEHN_PETSC_CHECK(VecNorm(s.s_work.get(), NORM_INFINITY, &divergence));
  return divergence;
}

void MountainWaveModel::check_state_finite() const {
  const Systems& s = *systems_;
  const auto report = [&](const PlacedArray<double>& field, const char* what) {
    if (count_where(s.fields, field.size(), NonFinite{field.data()}) > 0)
      fail(ErrorCategory::internal, "mountain-wave core: ", what, " is not finite after step ",
           held_.step, " (the time step is probably too long for the flow: lower -dt)");
  };
  report(s.state.velocity, "the velocity");
  report(s.state.theta, "theta'");
}

}  // namespace foehn::mountainwave
