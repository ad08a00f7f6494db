// MountainWaveModel::step: one timestep of the Picard / projection scheme described in
// mountain_wave_model.hpp.
#include <petscmat.h>

#include <algorithm>
#include <chrono>
#include <cmath>

#include "foehn/fe/operators.hpp"
#include "foehn/petsc/dirichlet.hpp"
#include "foehn/petsc/log_events.hpp"
#include "foehn/petsc/petsc_check.hpp"
#include "foehn/runtime/error.hpp"
#include "model_systems.hpp"

namespace foehn::mountainwave {

namespace {

using Clock = std::chrono::steady_clock;

// Adds the wall time of its scope to `total`.
class PhaseTimer {
 public:
  explicit PhaseTimer(double& total) : total_(total), start_(Clock::now()) {}
  ~PhaseTimer() { total_ += std::chrono::duration<double>(Clock::now() - start_).count(); }
  PhaseTimer(const PhaseTimer&) = delete;
  PhaseTimer& operator=(const PhaseTimer&) = delete;

 private:
  double& total_;
  Clock::time_point start_;
};

void zero_rows(Vec vector, const std::vector<PetscInt>& rows) {
  const std::vector<PetscScalar> zeros(rows.size(), 0.0);
  FOEHN_PETSC_CHECK(VecSetValues(vector, static_cast<PetscInt>(rows.size()), rows.data(),
                                 zeros.data(), INSERT_VALUES));
  FOEHN_PETSC_CHECK(VecAssemblyBegin(vector));
  FOEHN_PETSC_CHECK(VecAssemblyEnd(vector));
}

int solve(petsc::LinearSolver& solver, Mat matrix, Vec rhs, Vec solution, StepTimes& times) {
  solver.set_operator(matrix);
  const petsc::SolveResult result = solver.solve(rhs, solution);
  times.petsc_setup += result.setup_seconds;
  times.petsc_solve += result.solve_seconds;
  return result.iterations;
}

void check_finite(const std::vector<double>& values, const char* what, std::int64_t step) {
  for (const double v : values)
    if (!std::isfinite(v))
      fail(ErrorCategory::internal, "mountain-wave core: ", what, " is not finite after step ",
           step, " (the time step is probably too long for the flow: lower -mw_dt)");
}

}  // namespace

StepReport MountainWaveModel::step(ModelState& state) {
  Systems& s = *systems_;
  StepReport report;
  StepTimes& times = report.times;
  const auto step_start = Clock::now();
  const double dt = numerics_.dt, th = numerics_.theta;
  const TetMesh& local = mesh_.local;
  const std::size_t nodes = local.node_count();
  const petsc::ScopedLogStage stage("MountainWaveStep");

  // CFL number of the state the step starts from.
  double cfl = 0;
  for (std::size_t t = 0; t < local.tets.size(); ++t) {
    double speed = 0;
    for (const std::int32_t n : local.tets[t]) {
      const double* u = &state.velocity[3 * static_cast<std::size_t>(n)];
      speed = std::max(speed, std::sqrt(u[0] * u[0] + u[1] * u[1] + u[2] * u[2]));
    }
    cfl = std::max(cfl, speed * dt / s.shortest_edge[t]);
  }
  MPI_Allreduce(&cfl, &report.cfl, 1, MPI_DOUBLE, MPI_MAX, mesh_.comm);

  // Operators that do not depend on the iterate: once per step.
  {
    PhaseTimer timer(times.projection_matrix);
    s.assembler.assemble(fe::MassOperator{}, *s.mass, nullptr);
  }
  {
    PhaseTimer timer(times.divergence_matrix);
    s.assembler.assemble(fe::DivergenceOperator{}, *s.divergence, nullptr, s.gradient.get());
  }
  if (state.step % numerics_.stabilisation_interval == 0 || state.step == 0 || !stabilisation_ready_) {
    PhaseTimer timer(times.stabilisation_matrix);
    fe::StabilisationOperator op;
    op.scale = numerics_.stabilisation_coefficient / s.stabilisation_length_squared;
    s.assembler.assemble(op, *s.stabilisation, nullptr);
    stabilisation_ready_ = true;
  }
  {
    PhaseTimer timer(times.pressure_matrix);
    s.assembler.assemble(fe::DiffusionOperator{}, *s.pressure, nullptr);  // K, the Laplacian
    FOEHN_PETSC_CHECK(MatAXPY(s.pressure->mat(), 1.0, s.stabilisation->mat(), SAME_NONZERO_PATTERN));
    if (physics_.closed_box) {
      MatNullSpace constants = nullptr;
      FOEHN_PETSC_CHECK(MatNullSpaceCreate(mesh_.comm, PETSC_TRUE, 0, nullptr, &constants));
      FOEHN_PETSC_CHECK(MatSetNullSpace(s.pressure->mat(), constants));
      FOEHN_PETSC_CHECK(MatNullSpaceDestroy(&constants));
    } else {
      FOEHN_PETSC_CHECK(VecSet(s.pressure_increment.get(), 0.0));
      petsc::apply_dirichlet(s.pressure->mat(), s.pressure_rows, s.pressure_increment.get(),
                             s.pressure_rhs.get());
    }
  }

  // Level-n values as PETSc vectors.
  s.scalar_exchange.local_to_global(state.theta, s.transported_old[0].get(), petsc::ExchangeMode::insert);
  for (int k = 0; k < tracer_count; ++k)
    s.scalar_exchange.local_to_global(state.tracers[k], s.transported_old[k + 1].get(),
                                      petsc::ExchangeMode::insert);
  s.scalar_exchange.local_to_global(state.pressure, s.pressure_old.get(), petsc::ExchangeMode::insert);

  std::vector<double>& velocity = s.velocity_iterate;  // the iterate u*
  velocity.assign(state.velocity.begin(), state.velocity.end());
  std::vector<double>& boundary_values = s.boundary_values;
  std::vector<double>& body_force = s.body_force;
  std::vector<double>& w_iterate = s.w_iterate;
  std::array<std::vector<double>, transported_count>& transported = s.transported;
  std::vector<double>& pressure = s.pressure_local;
  body_force.resize(3 * nodes);
  w_iterate.resize(nodes);
  pressure.resize(nodes);
  const double gradient = physics_.background_theta_gradient();

  for (int iteration = 0; iteration < numerics_.picard_iterations; ++iteration) {
    report.iterations.fill(0);
    // 1. theta' and the tracers.
    for (std::size_t n = 0; n < nodes; ++n) w_iterate[n] = velocity[3 * n + 2];
    s.scalar_exchange.local_to_global(w_iterate, s.s_w.get(), petsc::ExchangeMode::insert);
    for (int k = 0; k < transported_count; ++k) {
      double* phase[] = {&times.theta_matrix, &times.qv_matrix, &times.qc_matrix, &times.qr_matrix};
      Mat matrix = s.transport[k]->mat();
      {
        PhaseTimer timer(*phase[k]);
        fe::AdvectionDiffusionOperator op;
        op.inverse_dt = 1.0 / dt;
        op.theta = th;
        op.conservative_form = physics_.closed_box;  // exact tracer mass between walls
        op.velocity = fe::field_ref(velocity);
        op.tensor = fe::field_ref(s.diffusivity_tensor);
        s.assembler.assemble(op, *s.transport[k], nullptr);
      }
      // Explicit part: (M/dt - (1-th) T) q^n = (1/th) M q^n / dt - ((1-th)/th) L q^n.
      Vec old = s.transported_old[k].get();
      FOEHN_PETSC_CHECK(MatMult(s.mass->mat(), old, s.s_rhs.get()));
      FOEHN_PETSC_CHECK(VecScale(s.s_rhs.get(), 1.0 / (th * dt)));
      if (th < 1) {
        FOEHN_PETSC_CHECK(MatMult(matrix, old, s.s_work.get()));
        FOEHN_PETSC_CHECK(VecAXPY(s.s_rhs.get(), -(1 - th) / th, s.s_work.get()));
      }
      if (k == 0) {
        // theta' is forced by the vertical advection of the background: -w dtheta_bar/dz,
        // and relaxed to 0 in the absorbing layers (implicitly).
        FOEHN_PETSC_CHECK(VecPointwiseMult(s.s_work.get(), s.s_w.get(), s.lumped_mass.get()));
        FOEHN_PETSC_CHECK(VecAXPY(s.s_rhs.get(), -gradient, s.s_work.get()));
        FOEHN_PETSC_CHECK(MatDiagonalSet(matrix, s.damping_scalar.get(), ADD_VALUES));
      }
      petsc::DirichletOptions rows_only;
      rows_only.symmetry = petsc::DirichletSymmetry::rows_only;
      petsc::apply_dirichlet(matrix, s.tracer_rows, s.tracer_boundary_values[k].get(),
                             s.s_rhs.get(), rows_only);
      FOEHN_PETSC_CHECK(VecCopy(old, s.transported_new[k].get()));
      report.iterations[k] = solve(*s.transport_solvers[k], matrix, s.s_rhs.get(),
                                   s.transported_new[k].get(), times);
      transported[k].resize(nodes);
      s.scalar_exchange.global_to_local(s.transported_new[k].get(), transported[k]);
    }

    // 2. Momentum predictor.
    velocity_boundary_values(local, s.kinds, physics_, domain_, velocity, boundary_values);
    for (std::size_t n = 0; n < nodes; ++n) {
      for (int c = 0; c < 3; ++c) body_force[3 * n + c] = state.velocity[3 * n + c] / dt;
      body_force[3 * n + 2] += physics_.gravity * transported[0][n] / physics_.theta0;
    }
    {
      PhaseTimer timer(times.momentum_matrix);
      fe::MomentumOperator op;
      op.density_over_dt = 1.0 / dt;
      op.viscosity = physics_.viscosity;
      op.advecting_velocity = fe::field_ref(velocity);
      op.body_force = fe::field_ref(body_force);
      s.assembler.assemble(op, *s.momentum, s.momentum_rhs.get());
    }
    Mat momentum = s.momentum->mat();
    Vec momentum_rhs = s.momentum_rhs->vec();
    // - grad p^n in the strong form G (no boundary term: on sloping walls the Cartesian
    // components left free must not feel a spurious boundary traction).
    FOEHN_PETSC_CHECK(MatMult(s.gradient->mat(), s.pressure_old.get(), s.v_gradient.get()));
    FOEHN_PETSC_CHECK(VecAXPY(momentum_rhs, -1.0, s.v_gradient.get()));
    if (!physics_.closed_box) {
      FOEHN_PETSC_CHECK(MatDiagonalSet(momentum, s.damping_vector.get(), ADD_VALUES));
      FOEHN_PETSC_CHECK(VecAXPY(momentum_rhs, 1.0, s.damping_target.get()));
    }
    s.vector_exchange.local_to_global(boundary_values, s.v_boundary.get(), petsc::ExchangeMode::insert);
    petsc::DirichletOptions rows_only;
    rows_only.symmetry = petsc::DirichletSymmetry::rows_only;
    petsc::apply_dirichlet(momentum, s.velocity_rows, s.v_boundary.get(), momentum_rhs, rows_only);
    s.vector_exchange.local_to_global(velocity, s.v_velocity_star.get(), petsc::ExchangeMode::insert);
    report.iterations[4] = solve(*s.momentum_solver, momentum, momentum_rhs,
                                 s.v_velocity_star.get(), times);

    // 3. Pressure increment: (K + c P / h^2) dp = -(1/dt) D u' - (c / h^2) P p^n.
    FOEHN_PETSC_CHECK(MatMult(s.divergence->mat(), s.v_velocity_star.get(), s.pressure_rhs.get()));
    FOEHN_PETSC_CHECK(VecScale(s.pressure_rhs.get(), -1.0 / dt));
    FOEHN_PETSC_CHECK(MatMult(s.stabilisation->mat(), s.pressure_old.get(), s.s_work.get()));
    FOEHN_PETSC_CHECK(VecAXPY(s.pressure_rhs.get(), -1.0, s.s_work.get()));
    if (physics_.closed_box) {
      MatNullSpace constants = nullptr;
      FOEHN_PETSC_CHECK(MatGetNullSpace(s.pressure->mat(), &constants));
      FOEHN_PETSC_CHECK(MatNullSpaceRemove(constants, s.pressure_rhs.get()));
    } else {
      zero_rows(s.pressure_rhs.get(), s.pressure_rows);
    }
    FOEHN_PETSC_CHECK(VecSet(s.pressure_increment.get(), 0.0));
    report.iterations[5] = solve(*s.pressure_solver, s.pressure->mat(), s.pressure_rhs.get(),
                                 s.pressure_increment.get(), times);

    // 4. Projection: M du = -dt G dp, component by component.
    FOEHN_PETSC_CHECK(MatMult(s.gradient->mat(), s.pressure_increment.get(), s.v_gradient.get()));
    FOEHN_PETSC_CHECK(VecScale(s.v_gradient.get(), -dt));
    for (int c = 0; c < 3; ++c) {
      FOEHN_PETSC_CHECK(VecStrideGather(s.v_gradient.get(), c, s.projection_rhs.get(), INSERT_VALUES));
      FOEHN_PETSC_CHECK(VecSet(s.projection_solution.get(), 0.0));
      report.iterations[6] += solve(*s.projection_solver, s.mass->mat(), s.projection_rhs.get(),
                                    s.projection_solution.get(), times);
      FOEHN_PETSC_CHECK(VecStrideScatter(s.projection_solution.get(), c, s.v_increment.get(), INSERT_VALUES));
    }
    FOEHN_PETSC_CHECK(VecWAXPY(s.v_velocity_new.get(), 1.0, s.v_increment.get(), s.v_velocity_star.get()));
    s.vector_exchange.global_to_local(s.v_velocity_new.get(), velocity);
    for (int c = 0; c < 3; ++c)
      for (const std::int32_t node : s.dirichlet.velocity_nodes[c])
        velocity[3 * static_cast<std::size_t>(node) + c] =
            boundary_values[3 * static_cast<std::size_t>(node) + c];
    report.picard_iterations = iteration + 1;
  }

  // The new state: p^{n+1} = p^n + dp.
  FOEHN_PETSC_CHECK(VecAXPY(s.pressure_old.get(), 1.0, s.pressure_increment.get()));
  s.scalar_exchange.global_to_local(s.pressure_old.get(), pressure);
  state.velocity.swap(velocity);
  state.pressure.swap(pressure);
  state.theta.swap(transported[0]);
  for (int k = 0; k < tracer_count; ++k) state.tracers[k].swap(transported[k + 1]);
  state.time += dt;
  state.step += 1;
  check_finite(state.velocity, "the velocity", state.step);
  check_finite(state.theta, "theta'", state.step);

  // Discrete divergence of the new velocity at interior nodes: max |(D u)_i| / m_i (boundary
  // nodes carry prescribed velocities the projection does not change).
  s.vector_exchange.local_to_global(state.velocity, s.v_velocity_new.get(), petsc::ExchangeMode::insert);
  FOEHN_PETSC_CHECK(MatMult(s.divergence->mat(), s.v_velocity_new.get(), s.s_work.get()));
  FOEHN_PETSC_CHECK(VecPointwiseDivide(s.s_work.get(), s.s_work.get(), s.lumped_mass.get()));
  FOEHN_PETSC_CHECK(VecPointwiseMult(s.s_work.get(), s.s_work.get(), s.interior.get()));
  PetscReal divergence = 0;
  FOEHN_PETSC_CHECK(VecNorm(s.s_work.get(), NORM_INFINITY, &divergence));
  report.max_divergence = divergence;

  times.total = std::chrono::duration<double>(Clock::now() - step_start).count();
  return report;
}

}  // namespace foehn::mountainwave
