#include "mountain_wave_model.hpp"

#include <petscmat.h>

#include <algorithm>
#include <chrono>
#include <cmath>

#include "foehn/fe/operators.hpp"
#include "foehn/mesh/geometry.hpp"
#include "foehn/petsc/dirichlet.hpp"
#include "foehn/petsc/log_events.hpp"
#include "foehn/petsc/petsc_check.hpp"
#include "foehn/runtime/error.hpp"
#include "model_systems.hpp"

namespace foehn::mountainwave {

namespace {

// Transport and momentum: rtol 1e-8 from the previous step's solution (a good guess for
// a flow that changes little per step); the elliptic systems, whose errors feed the
// divergence directly, to 1e-10. Measured trade-offs: docs/mountain_wave.md.
petsc::SolverSettings settings_for(petsc::SolverKind kind) {
  petsc::SolverSettings settings = petsc::SolverSettings::for_kind(kind);
  const bool elliptic = kind == petsc::SolverKind::pressure || kind == petsc::SolverKind::elliptic;
  settings.relative_tolerance = elliptic ? 1e-10 : 1e-8;
  if (!elliptic) settings.initial_guess_nonzero = true;
  return settings;
}

std::vector<PetscInt> rows_of(const petsc::NodeNumbering& numbering,
                              const std::vector<std::int32_t>& nodes, int components, int component) {
  const int which[] = {component};
  return petsc::owned_dirichlet_rows(numbering, nodes, components, which);
}


}  // namespace

MountainWaveModel::Systems::Systems(const petsc::DistributedMesh& mesh, const Numerics& numerics)
    : assembler(mesh, numerics.backend, numerics.strategy),
      numbering(petsc::distributed_numbering(mesh)),
      scalar_exchange(mesh, 1),
      vector_exchange(mesh, 3) {}

MountainWaveModel::MountainWaveModel(const petsc::DistributedMesh& mesh,
                                     const MountainMeshOptions& domain, const Physics& physics,
                                     const Numerics& numerics)
    : mesh_(mesh), domain_(domain), physics_(physics), numerics_(numerics) {
  if (!(numerics.dt > 0) || numerics.picard_iterations < 1 || numerics.theta < 0.5 ||
      numerics.theta > 1 || numerics.stabilisation_interval < 1 ||
      numerics.stabilisation_coefficient < 0)
    fail(ErrorCategory::invalid_input, "mountain-wave numerics: dt ", numerics.dt, ", picard ",
         numerics.picard_iterations, ", theta ", numerics.theta, ", stabilisation interval ",
         numerics.stabilisation_interval, ", coefficient ", numerics.stabilisation_coefficient,
         " (need dt > 0, picard >= 1, theta in [0.5, 1], interval >= 1, coefficient >= 0)");
  systems_ = std::make_unique<Systems>(mesh, numerics);
  Systems& s = *systems_;
  const TetMesh& local = mesh.local;
  const std::size_t nodes = local.node_count();
  const auto& pattern = s.assembler.pattern();

  petsc::MatrixHandoffOptions options;
  for (int k = 0; k < transported_count; ++k) {
    static constexpr const char* prefixes[] = {"theta_", "qv_", "qc_", "qr_"};
    s.transport[k] = std::make_unique<petsc::PetscMatrix>(
        s.numbering, pattern, 1, 1, petsc::matrix_handoff_options_from_database(mesh.comm, prefixes[k]));
    s.transport_solvers[k] = std::make_unique<petsc::LinearSolver>(
        mesh.comm, prefixes[k], settings_for(petsc::SolverKind::advection_diffusion));
  }
  s.momentum = std::make_unique<petsc::PetscMatrix>(
      s.numbering, pattern, 3, 3, petsc::matrix_handoff_options_from_database(mesh.comm, "momentum_"));
  s.momentum_rhs = std::make_unique<petsc::PetscVector>(s.numbering, 3);
  s.divergence = std::make_unique<petsc::PetscMatrix>(s.numbering, pattern, 1, 3, options);
  s.gradient = std::make_unique<petsc::PetscMatrix>(s.numbering, pattern, 3, 1, options);
  s.pressure = std::make_unique<petsc::PetscMatrix>(
      s.numbering, pattern, 1, 1, petsc::matrix_handoff_options_from_database(mesh.comm, "pressure_"));
  s.stabilisation = std::make_unique<petsc::PetscMatrix>(s.numbering, pattern, 1, 1, options);
  s.mass = std::make_unique<petsc::PetscMatrix>(s.numbering, pattern, 1, 1, options);
  s.momentum_solver = std::make_unique<petsc::LinearSolver>(mesh.comm, "momentum_",
                                                            settings_for(petsc::SolverKind::momentum));
  // BoomerAMG for the pressure: rebuilding GAMG on a matrix with new values reuses its PtAP
  // products, which on several ranks sums in another order than a fresh setup, so a restarted
  // run (fresh solvers) would differ in the last bits; BoomerAMG's setup does not.
  // On a fixed mesh the pressure matrix (Laplacian + stabilisation) and the mass matrix never
  // change value, so their preconditioners are built once (-pressure_foehn_pc_rebuild_interval
  // and -projection_foehn_pc_rebuild_interval change that, e.g. for adapted meshes).
  petsc::SolverSettings pressure_settings = settings_for(petsc::SolverKind::pressure);
  pressure_settings.preconditioner = PCHYPRE;
  pressure_settings.pc_rebuild_interval = 0;
  s.pressure_solver = std::make_unique<petsc::LinearSolver>(mesh.comm, "pressure_", pressure_settings);
  // The mass matrix is well conditioned (condition number bounded independently of h):
  // CG + Jacobi converges in a few iterations.
  petsc::SolverSettings projection_settings = settings_for(petsc::SolverKind::elliptic);
  projection_settings.preconditioner = PCJACOBI;
  projection_settings.pc_rebuild_interval = 0;
  s.projection_solver = std::make_unique<petsc::LinearSolver>(mesh.comm, "projection_",
                                                              projection_settings);

  // Boundary conditions.
  s.kinds = boundary_kinds(local);
  s.dirichlet = dirichlet_sets(s.kinds, physics);
  for (int c = 0; c < 3; ++c) {
    const auto rows = rows_of(s.numbering, s.dirichlet.velocity_nodes[c], 3, c);
    s.velocity_rows.insert(s.velocity_rows.end(), rows.begin(), rows.end());
  }
  s.tracer_rows = rows_of(s.numbering, s.dirichlet.tracer_nodes, 1, 0);
  s.pressure_rows = rows_of(s.numbering, s.dirichlet.pressure_nodes, 1, 0);

  // Fixed per-node data.
  s.diffusivity_tensor.assign(9 * nodes, 0.0);
  for (std::size_t n = 0; n < nodes; ++n)
    for (int d = 0; d < 3; ++d) s.diffusivity_tensor[9 * n + 4 * d] = physics.diffusivity;
  s.assembler.declare_constant(s.diffusivity_tensor);
  s.shortest_edge.resize(local.tets.size());
  double volume_power_sum = 0;
  for (std::size_t t = 0; t < local.tets.size(); ++t) {
    const Tet& tet = local.tets[t];
    double shortest = INFINITY;
    for (int a = 0; a < 4; ++a)
      for (int b = a + 1; b < 4; ++b) {
        double l2 = 0;
        for (int d = 0; d < 3; ++d) {
          const double e = local.nodes[tet[a]][d] - local.nodes[tet[b]][d];
          l2 += e * e;
        }
        shortest = std::min(shortest, std::sqrt(l2));
      }
    s.shortest_edge[t] = shortest;
    volume_power_sum += std::pow(std::abs(signed_volume(local, tet)), 2.0 / 3.0);
  }
  double sums[2] = {volume_power_sum, static_cast<double>(local.tets.size())}, totals[2] = {0, 0};
  MPI_Allreduce(sums, totals, 2, MPI_DOUBLE, MPI_SUM, mesh.comm);
  s.stabilisation_length_squared = totals[0] / std::max(totals[1], 1.0);

  // Vectors.
  for (int k = 0; k < transported_count; ++k) {
    s.transported_old[k] = s.scalar_exchange.create_vector();
    s.transported_new[k] = s.scalar_exchange.create_vector();
    s.tracer_boundary_values[k] = s.scalar_exchange.create_vector();
  }
  for (petsc::UniqueVec* v : {&s.lumped_mass, &s.damping_scalar, &s.interior, &s.s_rhs, &s.s_work, &s.s_w,
                              &s.pressure_old, &s.pressure_increment, &s.pressure_rhs,
                              &s.projection_rhs, &s.projection_solution})
    *v = s.scalar_exchange.create_vector();
  for (petsc::UniqueVec* v : {&s.damping_vector, &s.damping_target, &s.v_velocity_star,
                              &s.v_velocity_new, &s.v_gradient, &s.v_increment, &s.v_boundary})
    *v = s.vector_exchange.create_vector();

  // Lumped mass from the assembled mass matrix, and the damping terms built on it.
  s.assembler.assemble(fe::MassOperator{}, *s.mass, nullptr);
  FOEHN_PETSC_CHECK(MatGetRowSum(s.mass->mat(), s.lumped_mass.get()));
  std::vector<double> rate(nodes), qv_inflow(nodes, 0.0), interior(nodes);
  for (std::size_t n = 0; n < nodes; ++n) {
    const auto& x = local.nodes[n];
    interior[n] = s.kinds[n] == 0 ? 1.0 : 0.0;
    rate[n] = physics.closed_box ? 0.0 : sponge_rate_at(physics, domain, x[0], x[1], x[2]);
    qv_inflow[n] = physics.qv_profile(x[2]);
  }
  s.scalar_exchange.local_to_global(interior, s.interior.get(), petsc::ExchangeMode::insert);
  s.scalar_exchange.local_to_global(rate, s.damping_scalar.get(), petsc::ExchangeMode::insert);
  FOEHN_PETSC_CHECK(VecPointwiseMult(s.damping_scalar.get(), s.damping_scalar.get(),
                                     s.lumped_mass.get()));
  for (int c = 0; c < 3; ++c)
    FOEHN_PETSC_CHECK(VecStrideScatter(s.damping_scalar.get(), c, s.damping_vector.get(), INSERT_VALUES));
  FOEHN_PETSC_CHECK(VecSet(s.damping_target.get(), 0.0));
  FOEHN_PETSC_CHECK(VecStrideScatter(s.damping_scalar.get(), 0, s.damping_target.get(), INSERT_VALUES));
  FOEHN_PETSC_CHECK(VecScale(s.damping_target.get(), physics.inflow_speed));
  for (int k = 0; k < transported_count; ++k)
    FOEHN_PETSC_CHECK(VecSet(s.tracer_boundary_values[k].get(), 0.0));
  s.scalar_exchange.local_to_global(qv_inflow, s.tracer_boundary_values[1].get(),
                                    petsc::ExchangeMode::insert);
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
    const double r2 = (x[0] * x[0] + x[1] * x[1] + (x[2] - 3000.0) * (x[2] - 3000.0)) / (2000.0 * 2000.0);
    state.theta[n] = physics_.bubble_amplitude * std::exp(-r2);
  }
  std::vector<double> values;
  velocity_boundary_values(local, systems_->kinds, physics_, domain_, state.velocity, values);
  for (int c = 0; c < 3; ++c)
    for (const std::int32_t node : systems_->dirichlet.velocity_nodes[c])
      state.velocity[3 * static_cast<std::size_t>(node) + c] = values[3 * static_cast<std::size_t>(node) + c];
  return state;
}

std::vector<std::string> MountainWaveModel::solver_descriptions() const {
  const Systems& s = *systems_;
  std::vector<std::string> lines;
  for (const auto& solver : s.transport_solvers) lines.push_back(solver->description());
  for (const auto* solver : {s.momentum_solver.get(), s.pressure_solver.get(), s.projection_solver.get()})
    lines.push_back(solver->description());
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

}  // namespace foehn::mountainwave
