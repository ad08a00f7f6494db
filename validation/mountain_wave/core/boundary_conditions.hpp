#pragma once
// Which boundary each node lies on, and the Dirichlet conditions of every system.
//
// The kinds are marked on the input mesh (rank 0) as the node field "boundary_kind" (a bit
// per boundary tag) before it is distributed, so every rank knows the kinds of all its local
// nodes, including owned nodes whose boundary faces went to another rank.
//
// Conditions (open domain; the closed box has walls everywhere):
//   inflow  (x min)  u = (U, 0, 0), theta' = 0, qv = qv(z), qc = qr = 0
//   terrain          w = u dh/dx + v dh/dy  (no normal flow: u . n = 0 with n ~ (-h_x, -h_y, 1)),
//                    with u, v from the latest iterate
//   top              w = 0
//   lateral (y)      v = 0
//   outflow (x max)  natural for velocity and tracers, pressure increment = 0
#include <cstdint>
#include <vector>

#include "case.hpp"
#include "foehn/mesh/tet_mesh.hpp"

namespace foehn::mountainwave {

inline constexpr const char* boundary_kind_field = "boundary_kind";

enum BoundaryBit : std::uint32_t {
  on_terrain = 1u << 0,
  on_top = 1u << 1,
  on_inflow = 1u << 2,
  on_outflow = 1u << 3,
  on_lateral = 1u << 4,
};

// Adds (or replaces) the node field from the boundary faces and their tags. Throws
// invalid_input when the mesh has no boundary tags.
void mark_boundary_kinds(TetMesh& mesh);

// The bits of every local node (from the distributed node field).
std::vector<std::uint32_t> boundary_kinds(const TetMesh& local);

// Local nodes and components constrained in each system, and the prescribed values.
struct DirichletSets {
  std::vector<std::int32_t> velocity_nodes[3];  // per component
  std::vector<std::int32_t> tracer_nodes;       // theta', qv, qc, qr (inflow)
  std::vector<std::int32_t> pressure_nodes;     // outflow
};
DirichletSets dirichlet_sets(const std::vector<std::uint32_t>& kinds, const Physics& physics);

// What the prescribed velocity is made of, per local node: u = inflow_u (U at inflow nodes of
// the open domain, else 0), v = 0, w = slope_x u + slope_y v (the terrain slopes dh/dx, dh/dy at
// terrain nodes, else 0), with u, v from the current iterate (field_updates.hpp,
// BoundaryVelocity).
struct BoundaryVelocityData {
  std::vector<double> inflow_u, slope_x, slope_y;
};
BoundaryVelocityData boundary_velocity_data(const TetMesh& local,
                                            const std::vector<std::uint32_t>& kinds,
                                            const Physics& physics,
                                            const MountainMeshOptions& domain);

// Prescribed velocity at every local node for the constrained components (3 per node; other
// entries unused): inflow U, terrain w from the current u, v, zero elsewhere.
void velocity_boundary_values(const BoundaryVelocityData& data, const std::vector<double>& velocity,
                              std::vector<double>& values);

}  // namespace foehn::mountainwave
