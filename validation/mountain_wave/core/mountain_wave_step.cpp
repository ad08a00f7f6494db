// MountainWaveModel::step: one timestep of the Picard / projection scheme described in
// mountain_wave_model.hpp, on the model's resident state. Every array it touches is in the
// memory of its kind (model_systems.hpp): with the solves on the GPU nothing crosses to the host
// but a few scalars (CFL, finite check, residual norms, the divergence diagnostic).
#include <petscmat.h>

#include <algorithm>
#include <chrono>
#include <cmath>

#include "foehn/fe/operators.hpp"
#include "foehn/petsc/device_petsc.hpp"
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

int solve(petsc::LinearSolver& solver, Mat matrix, Vec rhs, Vec solution, StepTimes& times) {
  solver.set_operator(matrix);
  const petsc::SolveResult result = solver.solve(rhs, solution);
  times.petsc_setup += result.setup_seconds;
  times.petsc_solve += result.solve_seconds;
  return result.iterations;
}

void to_global(const petsc::NodeExchange& exchange, const LocalArray<double>& local, Vec global,
               const Stream* stream) {
  if (local.on_device())
    exchange.local_to_global(local.data(), local.size(), global, petsc::ExchangeMode::insert,
                             *stream);
  else
    exchange.local_to_global(std::span<const double>(local.data(), local.size()), global,
                             petsc::ExchangeMode::insert);
}

void to_local(const petsc::NodeExchange& exchange, Vec global, LocalArray<double>& local,
              const Stream* stream) {
  if (local.on_device())
    exchange.global_to_local(global, local.data(), local.size(), *stream);
  else
    exchange.global_to_local(global, std::span<double>(local.data(), local.size()));
}

// The edits of one system's assembled values, in value memory (`on_device`: the CUDA backend).
void add_diagonal(const SystemConstraints& c, double* values, const LocalArray<double>& lumped,
                  const Stream* stream) {
  if (lumped.on_device())
    c.device->add_diagonal(values, lumped.data(), *stream);
  else
    c.host.add_diagonal(std::span<double>(values, c.host.value_count()),
                        std::span<const double>(lumped.data(), lumped.size()));
}

void constrain(const SystemConstraints& c, double* values, bool on_device, const Stream* stream) {
  if (on_device)
    c.device->apply_constraints(values, c.diagonal, *stream);
  else
    c.host.apply_constraints(std::span<double>(values, c.host.value_count()), c.diagonal);
}

// b = diagonal * g at the owned constrained rows of a right-hand side (field memory).
void constrain_rhs(const SystemConstraints& c, Vec rhs, Vec g, const Stream* stream) {
  const petsc::VecArray b(rhs, petsc::VecAccess::read_write, stream);
  const petsc::VecArray prescribed(g, petsc::VecAccess::read, stream);
  if (b.on_device())
    c.device->constrain_rhs(b.data(), prescribed.data(), c.diagonal, *stream);
  else
    c.host.constrain_rhs(std::span<double>(b.data(), b.size()),
                         std::span<const double>(prescribed.data(), prescribed.size()), c.diagonal);
}

}  // namespace

void MountainWaveModel::assemble_pressure(StepTimes& times, bool with_stabilisation,
                                          bool constrain_rows) {
  Systems& s = *systems_;
  const bool on_device = s.assembler.values_on_device();
  const std::size_t count = s.stabilisation_values.size();
  if (with_stabilisation) {
    PhaseTimer timer(times.stabilisation_matrix);
    fe::StabilisationOperator op;
    op.scale = numerics_.stabilisation_coefficient / s.stabilisation_length_squared;
    // P is kept: the pressure matrix adds it to every new Laplacian.
    s.assembler.assemble(op, *s.stabilisation, nullptr, [&](double* values, double*) {
      s.values.copy(StridedCopy{values, 1, s.stabilisation_values.data(), 1}, count);
    });
  }
  PhaseTimer timer(times.pressure_matrix);
  // K, the Laplacian ("pressure correction matrix"), plus P, then the outflow rows.
  s.assembler.assemble(fe::DiffusionOperator{}, *s.pressure, nullptr, [&](double* values, double*) {
    s.values.add(AddArrays{s.stabilisation_values.data(), values}, count);
    if (constrain_rows) constrain(*s.pressure_constraints, values, on_device, s.stream);
  });
  if (physics_.closed_box && constrain_rows) {
    MatNullSpace constants = nullptr;
    FOEHN_PETSC_CHECK(MatNullSpaceCreate(mesh_.comm, PETSC_TRUE, 0, nullptr, &constants));
    FOEHN_PETSC_CHECK(MatSetNullSpace(s.pressure->mat(), constants));
    FOEHN_PETSC_CHECK(MatNullSpaceDestroy(&constants));
  }
}

StepReport MountainWaveModel::step() {
  Systems& s = *systems_;
  StepReport report;
  StepTimes& times = report.times;
  const auto step_start = Clock::now();
  const double dt = numerics_.dt, th = numerics_.theta;
  const TetMesh& local = mesh_.local;
  const std::size_t nodes = local.node_count();
  const auto owned = static_cast<std::size_t>(mesh_.owned_nodes);
  const bool values_on_device = s.assembler.values_on_device();
  const Stream* stream = s.stream;
  // The first step of a run builds every preconditioner (GAMG coarsens on the host, once): a
  // stage of its own keeps -log_view's MountainWaveStep to the steady state of a run.
  const petsc::ScopedLogStage stage(first_step_done_ ? "MountainWaveStep"
                                                     : "MountainWaveFirstStep");
  first_step_done_ = true;
  s.assembler.reset_times();

  // CFL number of the state the step starts from.
  const double cfl = s.fields.max_cfl(
      TetCfl{s.state.velocity.data(), s.cfl_tets, s.shortest_edge.data(), dt}, local.tets.size());
  MPI_Allreduce(&cfl, &report.cfl, 1, MPI_DOUBLE, MPI_MAX, mesh_.comm);

  // Operators that do not depend on the iterate: once per step.
  {
    PhaseTimer timer(times.projection_matrix);
    s.assembler.assemble(fe::MassOperator{}, *s.mass, nullptr);
  }
  {
    PhaseTimer timer(times.divergence_matrix);
    s.assembler.assemble(fe::DivergenceOperator{}, *s.divergence, nullptr, {}, s.gradient.get());
  }
  const bool stabilisation_due = held_.step % numerics_.stabilisation_interval == 0 ||
                                 held_.step == 0 || !stabilisation_ready_;
  assemble_pressure(times, stabilisation_due, true);
  stabilisation_ready_ = true;

  // Level-n values as PETSc vectors.
  to_global(s.scalar_exchange, s.state.theta, s.transported_old[0].get(), stream);
  for (int k = 0; k < tracer_count; ++k)
    to_global(s.scalar_exchange, s.state.tracers[k], s.transported_old[k + 1].get(), stream);
  to_global(s.scalar_exchange, s.state.pressure, s.pressure_old.get(), stream);

  LocalArray<double>& velocity = s.velocity_iterate;  // the iterate u*
  s.fields.copy(StridedCopy{s.state.velocity.data(), 1, velocity.data(), 1}, 3 * nodes);
  const double gradient = physics_.background_theta_gradient();

  for (int iteration = 0; iteration < numerics_.picard_iterations; ++iteration) {
    // 1. theta' and the tracers.
    {
      const petsc::VecArray w(s.s_w.get(), petsc::VecAccess::write, stream);
      s.fields.copy(StridedCopy{velocity.data() + 2, 3, w.data(), 1}, owned);
    }
    for (int k = 0; k < transported_count; ++k) {
      double* phase[] = {&times.theta_matrix, &times.qv_matrix, &times.qc_matrix, &times.qr_matrix};
      Mat matrix = s.transport[k]->mat();
      {
        PhaseTimer timer(*phase[k]);
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
        s.assembler.assemble(op, *s.transport[k], nullptr, [&](double* values, double*) {
          // theta' is relaxed to 0 in the absorbing layers, implicitly.
          if (k == 0) add_diagonal(*s.tracer_constraints, values, s.damping_values_scalar, stream);
          constrain(*s.tracer_constraints, values, values_on_device, stream);
        });
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
        // theta' is forced by the vertical advection of the background, -w dtheta_bar/dz, with
        // w time-weighted like the transport and the buoyancy, and the consistent mass matrix
        // that weights the buoyancy in the momentum equation: the two exchange terms are then
        // each other's transpose, so the exchange of kinetic and potential energy is exact.
        {
          const petsc::VecArray w_old(s.s_work.get(), petsc::VecAccess::write, stream);
          s.fields.copy(StridedCopy{s.state.velocity.data() + 2, 3, w_old.data(), 1}, owned);
        }
        FOEHN_PETSC_CHECK(VecAXPBY(s.s_work.get(), th, 1 - th, s.s_w.get()));
        FOEHN_PETSC_CHECK(MatMult(s.mass->mat(), s.s_work.get(), s.s_w.get()));
        FOEHN_PETSC_CHECK(VecAXPY(s.s_rhs.get(), -gradient, s.s_w.get()));
      }
      constrain_rhs(*s.tracer_constraints, s.s_rhs.get(), s.tracer_boundary_values[k].get(),
                    stream);
      FOEHN_PETSC_CHECK(VecCopy(old, s.transported_new[k].get()));
      report.iterations[k] +=
          solve(*s.transport_solvers[k], matrix, s.s_rhs.get(), s.transported_new[k].get(), times);
      to_local(s.scalar_exchange, s.transported_new[k].get(), s.transported[k], stream);
    }

    // 2. Momentum predictor.
    s.fields.boundary_velocity(
        BoundaryVelocity{velocity.data(), s.inflow_u.data(), s.slope_x.data(), s.slope_y.data(),
                         s.boundary_values.data()},
        nodes);
    s.fields.body_force(
        BodyForce{s.state.velocity.data(), s.state.theta.data(), s.transported[0].data(),
                  s.body_force.data(), dt, th, physics_.gravity, physics_.theta0},
        nodes);
    {
      PhaseTimer timer(times.momentum_matrix);
      fe::MomentumOperator op;
      op.density_over_dt = 1.0 / dt;
      op.viscosity = physics_.viscosity;
      op.advecting_velocity =
          fe::field_ref(velocity.data(), static_cast<std::int64_t>(velocity.size()));
      op.body_force =
          fe::field_ref(s.body_force.data(), static_cast<std::int64_t>(s.body_force.size()));
      s.assembler.assemble(op, *s.momentum, s.momentum_rhs.get(), [&](double* values, double*) {
        if (!physics_.closed_box)
          add_diagonal(*s.velocity_constraints, values, s.damping_values_vector, stream);
        constrain(*s.velocity_constraints, values, values_on_device, stream);
      });
    }
    Mat momentum = s.momentum->mat();
    Vec momentum_rhs = s.momentum_rhs->vec();
    // - grad p^n in the strong form G (no boundary term: on sloping walls the Cartesian
    // components left free must not feel a spurious boundary traction).
    FOEHN_PETSC_CHECK(MatMult(s.gradient->mat(), s.pressure_old.get(), s.v_gradient.get()));
    FOEHN_PETSC_CHECK(VecAXPY(momentum_rhs, -1.0, s.v_gradient.get()));
    if (!physics_.closed_box) FOEHN_PETSC_CHECK(VecAXPY(momentum_rhs, 1.0, s.damping_target.get()));
    to_global(s.vector_exchange, s.boundary_values, s.v_boundary.get(), stream);
    constrain_rhs(*s.velocity_constraints, momentum_rhs, s.v_boundary.get(), stream);
    to_global(s.vector_exchange, velocity, s.v_velocity_star.get(), stream);
    report.iterations[4] +=
        solve(*s.momentum_solver, momentum, momentum_rhs, s.v_velocity_star.get(), times);

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
      constrain_rhs(*s.pressure_constraints, s.pressure_rhs.get(), s.zero_pressure.get(), stream);
    }
    FOEHN_PETSC_CHECK(VecSet(s.pressure_increment.get(), 0.0));
    report.iterations[5] += solve(*s.pressure_solver, s.pressure->mat(), s.pressure_rhs.get(),
                                  s.pressure_increment.get(), times);

    // 4. Projection: M du = -dt G dp, component by component.
    FOEHN_PETSC_CHECK(MatMult(s.gradient->mat(), s.pressure_increment.get(), s.v_gradient.get()));
    FOEHN_PETSC_CHECK(VecScale(s.v_gradient.get(), -dt));
    for (int c = 0; c < 3; ++c) {
      {
        const petsc::VecArray gradient_values(s.v_gradient.get(), petsc::VecAccess::read, stream);
        const petsc::VecArray rhs(s.projection_rhs.get(), petsc::VecAccess::write, stream);
        s.fields.copy(StridedCopy{gradient_values.data() + c, 3, rhs.data(), 1}, owned);
      }
      FOEHN_PETSC_CHECK(VecSet(s.projection_solution.get(), 0.0));
      report.iterations[6] += solve(*s.projection_solver, s.mass->mat(), s.projection_rhs.get(),
                                    s.projection_solution.get(), times);
      const petsc::VecArray solution(s.projection_solution.get(), petsc::VecAccess::read, stream);
      const petsc::VecArray increment(s.v_increment.get(), petsc::VecAccess::read_write, stream);
      s.fields.copy(StridedCopy{solution.data(), 1, increment.data() + c, 3}, owned);
    }
    FOEHN_PETSC_CHECK(
        VecWAXPY(s.v_velocity_new.get(), 1.0, s.v_increment.get(), s.v_velocity_star.get()));
    to_local(s.vector_exchange, s.v_velocity_new.get(), velocity, stream);
    s.fields.restore_boundary(
        RestoreBoundary{s.constrained_velocity.data(), s.boundary_values.data(), velocity.data()},
        3 * nodes);
    report.picard_iterations = iteration + 1;
  }

  // The new state: p^{n+1} = p^n + dp.
  FOEHN_PETSC_CHECK(VecAXPY(s.pressure_old.get(), 1.0, s.pressure_increment.get()));
  to_local(s.scalar_exchange, s.pressure_old.get(), s.pressure_local, stream);
  s.state.velocity.swap(velocity);
  s.state.pressure.swap(s.pressure_local);
  s.state.theta.swap(s.transported[0]);
  for (int k = 0; k < tracer_count; ++k) s.state.tracers[k].swap(s.transported[k + 1]);
  held_.time += dt;
  held_.step += 1;
  host_current_ = false;
  check_state_finite();

  // Discrete divergence of the new velocity at interior nodes: max |(D u)_i| / m_i (boundary
  // nodes carry prescribed velocities the projection does not change).
  to_global(s.vector_exchange, s.state.velocity, s.v_velocity_new.get(), stream);
  FOEHN_PETSC_CHECK(MatMult(s.divergence->mat(), s.v_velocity_new.get(), s.s_work.get()));
  FOEHN_PETSC_CHECK(VecPointwiseDivide(s.s_work.get(), s.s_work.get(), s.lumped_mass.get()));
  FOEHN_PETSC_CHECK(VecPointwiseMult(s.s_work.get(), s.s_work.get(), s.interior.get()));
  PetscReal divergence = 0;
  FOEHN_PETSC_CHECK(VecNorm(s.s_work.get(), NORM_INFINITY, &divergence));
  report.max_divergence = divergence;

  times.assembly = s.assembler.times().assembly;
  times.handoff = s.assembler.times().handoff;
  times.total = std::chrono::duration<double>(Clock::now() - step_start).count();
  return report;
}

void MountainWaveModel::check_state_finite() const {
  const Systems& s = *systems_;
  const auto report = [&](const LocalArray<double>& field, const char* what) {
    if (s.fields.count_non_finite(field.data(), field.size()) > 0)
      fail(ErrorCategory::internal, "mountain-wave core: ", what, " is not finite after step ",
           held_.step, " (the time step is probably too long for the flow: lower -dt)");
  };
  report(s.state.velocity, "the velocity");
  report(s.state.theta, "theta'");
}

}  // namespace foehn::mountainwave
