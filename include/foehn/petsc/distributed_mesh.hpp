#pragma once
// A tetrahedral mesh distributed over the ranks of an MPI communicator, in the layout PETSc
// expects: METIS splits the elements (METIS_PartMeshDual, ncommon = 3); every node is owned by
// exactly one rank; each rank's owned nodes get a contiguous range of global numbers
// [first_owned_global, first_owned_global + owned_nodes), ranks in order; the nodes a rank's
// elements touch but another rank owns are its ghosts.
//
// Ownership rule: a node is owned by the lowest rank among the ranks whose tets touch it.
// Global numbers: rank 0's owned nodes first, then rank 1's, ...; within a rank in increasing
// input node number. Every tet lives on exactly one rank (its METIS part); a boundary face lives
// on the rank of the one tet it is a face of, so no face is duplicated.
//
// Local numbering on each rank: owned nodes first (0 .. owned_nodes-1, in increasing global
// number), then ghosts (in increasing global number). Local tets and boundary faces keep the
// order of the input (increasing input number), so results do not depend on timing. `local` is
// an ordinary TetMesh on that numbering, so the CPU and CUDA assemblers run on it unchanged;
// its node and tet fields, tet tags, boundary faces and tags are those of the input restricted
// to the rank. Its surface includes the faces between ranks (which are not boundary faces) and
// may be non-manifold where METIS parts touch along an edge; volumes and orientation are the
// input's.
//
//   TetMesh whole = ...;                                   // needed on rank 0 only
//   DistributedMesh mesh = distribute_mesh(comm, rank == 0 ? &whole : nullptr);
//   CpuAssembler assembler(mesh.local);                    // this rank's elements
//
// See docs/distribution.md. A mesh the caller has partitioned already, or a DMPlex, becomes a
// DistributedMesh without any rank holding it whole: partitioned_mesh.hpp, dmplex_mesh.hpp
// (docs/bring_your_own_mesh.md).
#include <mpi.h>

#include <algorithm>
#include <cstdint>
#include <vector>

#include "foehn/mesh/partition.hpp"
#include "foehn/mesh/tet_mesh.hpp"

namespace foehn::petsc {

struct DistributedMesh {
  MPI_Comm comm = MPI_COMM_NULL;  // not owned (the caller's communicator)
  int rank = 0;
  int size = 1;

  TetMesh local;                  // this rank's tets on local node numbers
  std::int32_t owned_nodes = 0;   // local nodes [0, owned_nodes) are owned here
  std::int64_t global_nodes = 0;  // over all ranks
  std::int64_t global_tets = 0;
  std::int64_t global_boundary_faces = 0;
  std::int64_t first_owned_global = 0;  // global number of local node 0

  // size + 1 entries: rank r owns the global nodes [ownership_ranges[r], ownership_ranges[r+1])
  // (PETSc's VecGetOwnershipRanges, in nodes rather than values).
  std::vector<std::int64_t> ownership_ranges;

  std::vector<std::int64_t> global_of_local;               // every local node (owned and ghost)
  std::vector<std::int64_t> input_node_of_local;           // its number in the input mesh
  std::vector<std::int64_t> input_tet_of_local;            // every local tet's number in the input
  std::vector<std::int64_t> input_boundary_face_of_local;  // every local boundary face's
  std::vector<std::int32_t> owner_of_local;                // rank owning each local node

  // Rank 0 only (empty elsewhere): the input number of every global node, so that rank 0 can
  // put gathered values back into the input numbering (gather_to_input_numbering).
  std::vector<std::int64_t> input_node_of_global;

  std::int32_t local_nodes() const noexcept {
    return static_cast<std::int32_t>(global_of_local.size());
  }
  std::int32_t ghost_nodes() const noexcept { return local_nodes() - owned_nodes; }
  std::int32_t local_tets() const noexcept { return static_cast<std::int32_t>(local.tets.size()); }

  // Rank owning global node `global` (which must be in [0, global_nodes)).
  int owner_of_global(std::int64_t global) const noexcept {
    const auto after = std::upper_bound(ownership_ranges.begin(), ownership_ranges.end(), global);
    return static_cast<int>(after - ownership_ranges.begin()) - 1;
  }
};

struct DistributionOptions {
  PartitionOptions partition;  // METIS tolerance and seed
  // Rank 0 runs validate_mesh on the input first (default checks: no unused nodes, no
  // inverted or degenerate tets, boundary faces on the surface and outward). Switch off only
  // for a mesh validated already: the distribution relies on it.
  bool validate_input = true;
};

// Partitions `input` (read on rank 0 only; other ranks may pass nullptr, and whatever they
// pass is ignored) over the ranks of `comm` and sends each rank its part. Collective. On one
// rank the result is the input with global == local == input numbering, and METIS is not
// called. Throws foehn::Error: invalid_input when rank 0 has no mesh, the mesh is invalid, or
// there are fewer tets than ranks; the error is raised on every rank (the ranks agree on
// failure instead of deadlocking), its message naming the rank that found it.
DistributedMesh distribute_mesh(MPI_Comm comm, const TetMesh* input,
                                const DistributionOptions& options = {});

}  // namespace foehn::petsc
