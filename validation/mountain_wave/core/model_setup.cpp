// MountainWaveModel's data fixed per mesh: boundary kinds and the Dirichlet edits, the
// diffusivity, the CFL geometry, the lumped mass and the damping terms, the work vectors and the
// resident state, each in the memory it is used in.
#include <petscmat.h>

#include <algorithm>
#include <cmath>

#include "foehn/fe/operators.hpp"
#include "foehn/mesh/geometry.hpp"
#include "foehn/petsc/device_petsc.hpp"
#include "foehn/petsc/dirichlet.hpp"
#include "foehn/petsc/petsc_check.hpp"
#include "foehn/runtime/error.hpp"
#include "model_systems.hpp"

namespace foehn::mountainwave {

namespace {

// One flag per local point (node * components + c) for the given nodes of each component.
std::vector<std::uint8_t> point_mask(std::size_t nodes, int components,
                                     const std::vector<std::int32_t>* per_component) {
  std::vector<std::uint8_t> mask(nodes * components, 0);
  for (int c = 0; c < components; ++c)
    for (const std::int32_t node : per_component[c])
      mask[static_cast<std::size_t>(node) * components + c] = 1;
  return mask;
}

std::vector<double> owned_entries(Vec vec) {
  const PetscScalar* entries = nullptr;
  PetscInt size = 0;
  FOEHN_PETSC_CHECK(VecGetLocalSize(vec, &size));
  FOEHN_PETSC_CHECK(VecGetArrayRead(vec, &entries));
  std::vector<double> copy(entries, entries + size);
  FOEHN_PETSC_CHECK(VecRestoreArrayRead(vec, &entries));
  return copy;
}

void set_owned_entries(Vec vec, const std::vector<double>& values) {
  PetscScalar* entries = nullptr;
  FOEHN_PETSC_CHECK(VecGetArrayWrite(vec, &entries));
  std::copy(values.begin(), values.end(), entries);
  FOEHN_PETSC_CHECK(VecRestoreArrayWrite(vec, &entries));
}

}  // namespace

// The diffusivity tensor (constant: the CUDA backend uploads it once), each tet's shortest edge
// for the CFL number, and the mean tet volume^(2/3) that scales the pressure stabilisation.
void MountainWaveModel::set_up_element_data() {
  Systems& s = *systems_;
  const TetMesh& local = mesh_.local;
  const std::size_t nodes = local.node_count();
  s.diffusivity_host.assign(9 * nodes, 0.0);
  for (std::size_t n = 0; n < nodes; ++n)
    for (int d = 0; d < 3; ++d) s.diffusivity_host[9 * n + 4 * d] = physics_.diffusivity;
  s.diffusivity_tensor = PlacedArray<double>(s.diffusivity_host, s.fields);
  if (!s.fields.on_device())
    s.assembler.declare_constant(std::span<const double>(s.diffusivity_tensor.data(), 9 * nodes));

  std::vector<double> shortest_edge(local.tets.size());
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
    shortest_edge[t] = shortest;
    volume_power_sum += std::pow(std::abs(signed_volume(local, tet)), 2.0 / 3.0);
  }
  s.shortest_edge = PlacedArray<double>(shortest_edge, s.fields);
  static_assert(sizeof(Tet) == 4 * sizeof(std::int32_t), "tets are four packed node indices");
  s.cfl_tets = s.fields.on_device() ? s.assembler.device_tets()
                                    : reinterpret_cast<const std::int32_t*>(local.tets.data());
  double sums[2] = {volume_power_sum, static_cast<double>(local.tets.size())}, totals[2] = {0, 0};
  MPI_Allreduce(sums, totals, 2, MPI_DOUBLE, MPI_SUM, mesh_.comm);
  s.stabilisation_length_squared = totals[0] / std::max(totals[1], 1.0);
}

// The PETSc work vectors (on the GPU with the solves), the resident state and the work arrays.
void MountainWaveModel::create_work_arrays() {
  Systems& s = *systems_;
  const std::size_t nodes = mesh_.local.node_count();
  for (int k = 0; k < transported_count; ++k) {
    s.transported_old[k] = s.scalar_exchange.create_vector();
    s.transported_new[k] = s.scalar_exchange.create_vector();
    s.tracer_boundary_values[k] = s.scalar_exchange.create_vector();
  }
  for (petsc::UniqueVec* v : {&s.lumped_mass, &s.damping_scalar, &s.interior, &s.zero_pressure,
                              &s.s_rhs, &s.s_work, &s.s_w, &s.pressure_old, &s.pressure_increment,
                              &s.pressure_rhs, &s.projection_rhs, &s.projection_solution})
    *v = s.scalar_exchange.create_vector();
  for (petsc::UniqueVec* v : {&s.damping_target, &s.v_velocity_star, &s.v_velocity_new,
                              &s.v_gradient, &s.v_increment, &s.v_boundary, &s.inverse_lumped_mass})
    *v = s.vector_exchange.create_vector();

  for (PlacedArray<double>* field :
       {&s.state.velocity, &s.velocity_iterate, &s.boundary_values, &s.body_force})
    *field = PlacedArray<double>(3 * nodes, s.fields);
  if (numerics_.picard_extrapolate) s.velocity_previous = PlacedArray<double>(3 * nodes, s.fields);
  for (PlacedArray<double>* field : {&s.state.pressure, &s.state.theta, &s.pressure_local})
    *field = PlacedArray<double>(nodes, s.fields);
  for (auto& field : s.state.tracers) field = PlacedArray<double>(nodes, s.fields);
  for (auto& field : s.transported) field = PlacedArray<double>(nodes, s.fields);
}

void MountainWaveModel::setup_fixed_data() {
  Systems& s = *systems_;
  const TetMesh& local = mesh_.local;
  const std::size_t nodes = local.node_count();
  const auto owned = static_cast<std::size_t>(mesh_.owned_nodes);

  s.kinds = boundary_kinds(local);
  s.dirichlet = dirichlet_sets(s.kinds, physics_);
  set_up_element_data();

  const BoundaryVelocityData boundary = boundary_velocity_data(local, s.kinds, physics_, domain_);
  s.inflow_u = PlacedArray<double>(boundary.inflow_u, s.fields);
  s.slope_x = PlacedArray<double>(boundary.slope_x, s.fields);
  s.slope_y = PlacedArray<double>(boundary.slope_y, s.fields);
  const std::vector<std::uint8_t> constrained_velocity =
      point_mask(nodes, 3, s.dirichlet.velocity_nodes);
  s.constrained_velocity = PlacedArray<std::uint8_t>(constrained_velocity, s.fields);
  create_work_arrays();

  // Lumped mass from the assembled mass matrix, and the damping terms built on it: rate * m on
  // the diagonal of theta' and of every velocity component (added to the assembled values, in
  // value memory), rate * m * U towards the inflow on the momentum right-hand side.
  s.system(LinearSystem::projection).assemble(fe::MassOperator{});
  FOEHN_PETSC_CHECK(MatGetRowSum(s.mass(), s.lumped_mass.get()));
  const std::vector<double> lumped = owned_entries(s.lumped_mass.get());
  std::vector<double> damping(owned), damping_vector(3 * owned), target(3 * owned, 0.0),
      interior(owned), inverse_mass(3 * owned);
  for (std::size_t n = 0; n < owned; ++n) {
    const auto& x = local.nodes[n];
    const double rate =
        physics_.closed_box ? 0.0 : sponge_rate_at(physics_, domain_, x[0], x[1], x[2]);
    damping[n] = rate * lumped[n];
    for (int c = 0; c < 3; ++c) {
      damping_vector[3 * n + c] = damping[n];
      // Row sums of a P1 mass matrix are a quarter of the volume of the node's tets: positive
      // on any mesh the checks let through.
      inverse_mass[3 * n + c] = 1.0 / lumped[n];
    }
    target[3 * n] = damping[n] * physics_.inflow_speed;
    interior[n] = s.kinds[n] == 0 ? 1.0 : 0.0;
  }
  set_owned_entries(s.damping_scalar.get(), damping);
  set_owned_entries(s.damping_target.get(), target);
  set_owned_entries(s.interior.get(), interior);
  set_owned_entries(s.inverse_lumped_mass.get(), inverse_mass);
  s.damping_values_scalar = PlacedArray<double>(damping, s.values);
  s.damping_values_vector = PlacedArray<double>(damping_vector, s.values);
  s.stabilisation_values = PlacedArray<double>(s.assembler.pattern()->nnz(), s.values);

  std::vector<double> qv_inflow(owned);
  for (std::size_t n = 0; n < owned; ++n) qv_inflow[n] = physics_.qv_profile(local.nodes[n][2]);
  set_owned_entries(s.tracer_boundary_values[1].get(), qv_inflow);
  for (int k = 0; k < tracer_count; ++k) {
    PetscReal largest = 0;
    FOEHN_PETSC_CHECK(VecNorm(s.tracer_boundary_values[k + 1].get(), NORM_INFINITY, &largest));
    s.tracer_boundary_zero[k] = largest == 0;
  }
}

void MountainWaveModel::setup_constraints() {
  Systems& s = *systems_;
  const std::size_t nodes = mesh_.local.node_count();
  // Constrained rows get a diagonal of the size of their matrix's: the mean lumped mass over dt
  // for transport and momentum (both are M/dt + ...), fixed per mesh so that a restarted run
  // constrains exactly as the uninterrupted one; for the pressure, the mean |diagonal| of
  // K + P, which does not change on a fixed mesh (assembled here before its rows are
  // constrained).
  PetscReal mass_sum = 0;
  FOEHN_PETSC_CHECK(VecSum(s.lumped_mass.get(), &mass_sum));
  const double mean_mass =
      mass_sum / static_cast<double>(std::max<std::int64_t>(mesh_.global_nodes, 1));
  StepTimes unused;
  assemble_pressure(unused, /*with_stabilisation=*/true);
  stabilisation_ready_ = true;
  const double pressure_diagonal = petsc::mean_abs_diagonal(s.system(LinearSystem::pressure).mat());

  const std::vector<std::uint8_t> tracer_rows = point_mask(nodes, 1, &s.dirichlet.tracer_nodes);
  for (int k = 0; k < transported_count; ++k)
    s.system(transported_system(k))
        .constrain(tracer_rows, fe::ConstraintSymmetry::rows_only, mean_mass / numerics_.dt);
  s.system(LinearSystem::momentum)
      .constrain(point_mask(nodes, 3, s.dirichlet.velocity_nodes),
                 fe::ConstraintSymmetry::rows_only, mean_mass / numerics_.dt);
  // Symmetric for the pressure, so that CG still applies; the prescribed increment is zero, so
  // the removed columns carry nothing to the right-hand side.
  s.system(LinearSystem::pressure)
      .constrain(point_mask(nodes, 1, &s.dirichlet.pressure_nodes),
                 fe::ConstraintSymmetry::symmetric, pressure_diagonal);
}

}  // namespace foehn::mountainwave
