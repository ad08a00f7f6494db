#pragma once
// A small Mountainwave3D setup for the core's tests: a coarse mesh distributed over the
// communicator, boundary kinds marked, and the default physics with a shorter time step.
#include <mpi.h>

#include "boundary_conditions.hpp"
#include "foehn/mesh/mountain.hpp"
#include "foehn/mesh/reorder.hpp"
#include "foehn/petsc/distributed_mesh.hpp"
#include "mountain_wave_model.hpp"

namespace foehn::mountainwave::testing {

inline MountainMeshOptions small_domain(int cells = 8) {
  MountainMeshOptions domain;
  domain.cells_x = domain.cells_y = cells;
  domain.cells_z = 3 * cells / 4;
  return domain;
}

// `keep_input`: rank 0 also gets the mesh it distributed (what tracer parcels move through).
inline petsc::DistributedMesh distributed_small_mesh(const MountainMeshOptions& domain, MPI_Comm comm,
                                                     TetMesh* keep_input = nullptr) {
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  TetMesh whole;
  if (rank == 0) {
    whole = generate_mountain_mesh(domain);
    reorder_for_locality(whole);
    mark_boundary_kinds(whole);
  }
  petsc::DistributedMesh mesh = petsc::distribute_mesh(comm, rank == 0 ? &whole : nullptr);
  if (keep_input != nullptr && rank == 0) *keep_input = std::move(whole);
  return mesh;
}

inline double max_abs_difference(const std::vector<double>& a, const std::vector<double>& b) {
  double worst = 0;
  for (std::size_t i = 0; i < a.size(); ++i) worst = std::max(worst, std::abs(a[i] - b[i]));
  return worst;
}

}  // namespace foehn::mountainwave::testing
