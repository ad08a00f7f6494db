#pragma once
// What MountainWaveModel owns per mesh: the assembler, one PETSc matrix per assembled
// operator (the published set), right-hand sides and work vectors, one LinearSolver per system,
// the Dirichlet rows and the fixed per-node data (boundary kinds, lumped mass, damping rates).
// Created once; a timestep only refreshes values.
#include <array>
#include <memory>
#include <vector>

#include "boundary_conditions.hpp"
#include "foehn/petsc/linear_solver.hpp"
#include "foehn/petsc/matrix_handoff.hpp"
#include "foehn/petsc/node_exchange.hpp"
#include "foehn/petsc/node_numbering.hpp"
#include "foehn/petsc/vector_handoff.hpp"
#include "mountain_wave_model.hpp"
#include "system_assembler.hpp"

namespace foehn::mountainwave {

inline constexpr int transported_count = 1 + tracer_count;  // theta', qv, qc, qr

struct MountainWaveModel::Systems {
  Systems(const petsc::DistributedMesh& mesh, const Numerics& numerics);

  SystemAssembler assembler;
  petsc::NodeNumbering numbering;
  petsc::NodeExchange scalar_exchange, vector_exchange;

  // The assembled operators (rows of Table 10).
  std::array<std::unique_ptr<petsc::PetscMatrix>, transported_count> transport;
  std::unique_ptr<petsc::PetscMatrix> momentum, divergence, pressure, stabilisation, mass;
  std::unique_ptr<petsc::PetscMatrix> gradient;  // G = D's values as 3 x 1 blocks
  std::unique_ptr<petsc::PetscVector> momentum_rhs;

  // One solver per system, each with its own options prefix.
  std::array<std::unique_ptr<petsc::LinearSolver>, transported_count> transport_solvers;
  std::unique_ptr<petsc::LinearSolver> momentum_solver, pressure_solver, projection_solver;

  // Fixed per mesh.
  std::vector<std::uint32_t> kinds;
  DirichletSets dirichlet;
  std::vector<PetscInt> velocity_rows, tracer_rows, pressure_rows;
  std::vector<double> diffusivity_tensor;  // kappa I at every local node (9 per node)
  std::vector<double> shortest_edge;       // per local tet, for the CFL number
  petsc::UniqueVec lumped_mass;            // row sums of M (scalar layout)
  petsc::UniqueVec damping_scalar;         // R m, implicit Rayleigh damping of theta'
  petsc::UniqueVec damping_vector;         // R m on every velocity component
  petsc::UniqueVec damping_target;         // R m U on the x component: damping towards inflow
  petsc::UniqueVec interior;               // 1 at nodes on no boundary, else 0
  std::array<petsc::UniqueVec, transported_count> tracer_boundary_values;
  double stabilisation_length_squared = 1;  // mean tet volume^(2/3), normalises P

  // Host work arrays on the local nodes, swapped with the state's at the end of a step, so a
  // step allocates nothing once the first one has sized them.
  std::vector<double> velocity_iterate, boundary_values, body_force, w_iterate, pressure_local;
  std::array<std::vector<double>, transported_count> transported;

  // Work vectors (scalar layout s_*, vector layout v_*).
  std::array<petsc::UniqueVec, transported_count> transported_old, transported_new;
  petsc::UniqueVec s_rhs, s_work, s_w, pressure_old, pressure_increment, pressure_rhs,
      projection_rhs, projection_solution;
  petsc::UniqueVec v_velocity_star, v_velocity_new, v_gradient, v_increment, v_boundary;
};

}  // namespace foehn::mountainwave
