#pragma once
// What MountainWaveModel owns per mesh: the assembler, one petsc::System per row of
// linear_systems (matrix, Dirichlet rows, KSP), the operators that are only applied, work
// vectors, the fixed per-node data (boundary kinds, lumped mass, damping rates) and the
// resident state. Created once; a timestep only refreshes values.
//
// Two placements: "fields" (the state, work arrays, PETSc vectors) live on the GPU when the
// solves do, "values" (assembled values and what edits them) live where the backend assembles
// (on the GPU for the CUDA backend, also when the solves run on the host).
#include <array>
#include <memory>
#include <vector>

#include "boundary_conditions.hpp"
#include "field_updates.hpp"
#include "foehn/petsc/block_chebyshev.hpp"
#include "foehn/petsc/matrix_handoff.hpp"
#include "foehn/petsc/node_exchange.hpp"
#include "foehn/petsc/node_numbering.hpp"
#include "foehn/petsc/system.hpp"
#include "foehn/petsc/vector_handoff.hpp"
#include "foehn/runtime/placed_array.hpp"
#include "linear_systems.hpp"
#include "mountain_wave_model.hpp"

namespace foehn::mountainwave {

// The prognostic fields on the local nodes, in field memory.
struct ResidentState {
  PlacedArray<double> velocity, pressure, theta;
  std::array<PlacedArray<double>, tracer_count> tracers;
};

struct MountainWaveModel::Systems {
  Systems(const petsc::DistributedMesh& mesh, const Numerics& numerics, bool device_solves);

  petsc::SystemAssembler assembler;
  Placement fields;  // the state, work arrays and PETSc vectors
  Placement values;  // assembled values and what edits them
  petsc::NodeNumbering numbering;
  petsc::NodeExchange scalar_exchange, vector_exchange;

  // One system per row of linear_systems: its matrix (the projection's is the mass matrix M),
  // Dirichlet rows and KSP with the row's options prefix.
  std::array<std::unique_ptr<petsc::System>, linear_system_count> systems;
  petsc::System& system(LinearSystem id) { return *systems[index_of(id)]; }
  Mat mass() const { return systems[index_of(LinearSystem::projection)]->mat(); }
  // Operators that are only applied: D, G (D's values as 3 x 1 blocks) and P (kept for K + P).
  std::unique_ptr<petsc::System> divergence, stabilisation;
  std::unique_ptr<petsc::PetscMatrix> gradient;
  // The projection's three components in one fixed Chebyshev solve (made by the first
  // projection that runs one; project() in mountain_wave_step.cpp).
  std::unique_ptr<petsc::BlockChebyshev> projection_block;

  // Fixed per mesh.
  std::vector<std::uint32_t> kinds;
  DirichletSets dirichlet;
  std::vector<double> diffusivity_host;    // kappa I at every local node (9 per node)
  PlacedArray<double> diffusivity_tensor;  // the same in field memory
  PlacedArray<double> shortest_edge;       // per local tet, for the CFL number (field memory)
  const std::int32_t* cfl_tets = nullptr;  // the connectivity in field memory
  PlacedArray<double> inflow_u, slope_x, slope_y;  // per local node: the boundary velocity
  PlacedArray<std::uint8_t> constrained_velocity;  // per local point (node * 3 + c)
  PlacedArray<double> damping_values_scalar;       // R m per owned node, in value memory
  PlacedArray<double> damping_values_vector;       // R m per owned point (3 per node), value memory
  PlacedArray<double> stabilisation_values;  // P's assembled values, kept for K + P (value memory)
  petsc::UniqueVec lumped_mass;              // row sums of M (scalar layout)
  petsc::UniqueVec inverse_lumped_mass;      // 1 / m for each component (vector layout)
  petsc::UniqueVec damping_scalar;           // R m, implicit Rayleigh damping of theta'
  petsc::UniqueVec damping_target;           // R m U on the x component: damping towards inflow
  petsc::UniqueVec interior;                 // 1 at nodes on no boundary, else 0
  petsc::UniqueVec zero_pressure;            // the prescribed pressure increment (zero)
  std::array<petsc::UniqueVec, transported_count> tracer_boundary_values;
  // Tracer k's boundary values are zero everywhere (checked once, at setup).
  std::array<bool, tracer_count> tracer_boundary_zero{};
  double stabilisation_length_squared = 1;  // mean tet volume^(2/3), normalises P

  ResidentState state;
  // Work arrays on the local nodes (field memory), swapped with the state's at the end of a
  // step, so a step allocates nothing.
  PlacedArray<double> velocity_iterate, boundary_values, body_force, pressure_local;
  // u^{n-1} with -picard_extrapolate (empty otherwise), rotated with the state's velocity.
  PlacedArray<double> velocity_previous;
  std::array<PlacedArray<double>, transported_count> transported;

  // Work vectors (scalar layout s_*, vector layout v_*).
  std::array<petsc::UniqueVec, transported_count> transported_old, transported_new;
  petsc::UniqueVec s_rhs, s_work, s_w, pressure_old, pressure_increment, pressure_rhs,
      projection_rhs, projection_solution;
  petsc::UniqueVec v_velocity_star, v_velocity_new, v_gradient, v_increment, v_boundary;
};

}  // namespace foehn::mountainwave
