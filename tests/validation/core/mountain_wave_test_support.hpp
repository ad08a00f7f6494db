#pragma once
// A small Mountainwave3D setup for the core's tests: a coarse mesh distributed over the
// communicator, boundary kinds marked, and the default physics with a shorter time step.
#include <mpi.h>

#include <ostream>
#include <string>

#include "boundary_conditions.hpp"
#include "foehn/mesh/mountain.hpp"
#include "foehn/mesh/reorder.hpp"
#include "foehn/petsc/device_petsc.hpp"
#include "foehn/petsc/distributed_mesh.hpp"
#include "foehn/runtime/device.hpp"
#include "mountain_wave_model.hpp"
#include "support/small_mountain.hpp"

namespace foehn::mountainwave::testing {

inline MountainMeshOptions small_domain(int cells = 8) {
  return foehn::testing::small_mountain_options(cells, cells, 3 * cells / 4);
}

// `keep_input`: rank 0 also gets the mesh it distributed (what tracer parcels move through).
inline petsc::DistributedMesh distributed_small_mesh(const MountainMeshOptions& domain,
                                                     MPI_Comm comm, TetMesh* keep_input = nullptr) {
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

// Where the core's physics tests run (one test source for every backend): the CPU reference,
// and where a GPU exists the CUDA assembly with the solves on the host and, with a CUDA PETSc,
// on the GPU.
struct CorePlacement {
  const char* name;
  Backend backend;
  SolvePlacement solves;
};
inline constexpr CorePlacement core_placements[] = {
    {"cpu", Backend::cpu, SolvePlacement::host},
    {"cuda_host_solves", Backend::cuda, SolvePlacement::host},
    {"cuda_device_solves", Backend::cuda, SolvePlacement::device}};

// Test names show the placement's name (not its bytes).
inline void PrintTo(const CorePlacement& placement, std::ostream* os) {
  *os << placement.name;
}

// Why the placement cannot run on this machine, or "" when it can.
inline std::string unavailable_reason(const CorePlacement& placement) {
  if (placement.backend == Backend::cuda && cuda_device_count() == 0)
    return "no CUDA device on this machine";
  if (placement.solves == SolvePlacement::device && !petsc::device_solves_available())
    return "this PETSc is built without CUDA";
  return "";
}

// The numerics of the core's tests (dt = 30 s) on `placement`.
inline Numerics numerics_on(const CorePlacement& placement) {
  Numerics numerics;
  numerics.dt = 30;
  numerics.backend = placement.backend;
  numerics.solves = placement.solves;
  return numerics;
}

inline double max_abs_difference(const std::vector<double>& a, const std::vector<double>& b) {
  double worst = 0;
  for (std::size_t i = 0; i < a.size(); ++i) worst = std::max(worst, std::abs(a[i] - b[i]));
  return worst;
}

}  // namespace foehn::mountainwave::testing
