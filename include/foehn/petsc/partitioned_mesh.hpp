#pragma once
// A DistributedMesh built from the caller's own partition, with no rank ever holding the whole
// mesh: each rank passes the nodes it knows (owned and halo), the caller's global id of each,
// which of them it owns, and its tets on its own local node numbers. The result follows
// distribute_mesh's contract exactly (distributed_mesh.hpp), so NodeExchange, the PETSc
// hand-off and the assemblers work on it unchanged:
//
//  * global numbers: rank 0's owned nodes, then rank 1's, ...; within a rank in increasing
//    caller id. Rank r owns [ownership_ranges[r], ownership_ranges[r+1]).
//  * local numbers: owned nodes first (increasing global number), then ghosts (increasing global
//    number). This reorders the caller's local nodes: `caller_local_of_local` keeps the
//    permutation, and to_local_order / to_caller_order move nodal fields both ways.
//  * input_node_of_local: the caller's global id of each local node, as given (any base).
//  * input_tet_of_local: the tet's position in its rank's array plus the number of tets on the
//    lower ranks (0-based, contiguous per rank); local tets keep the caller's order.
//  * boundary faces: derived from the whole domain's surface (a face of exactly one tet over all
//    ranks; the faces between ranks are not boundary faces), or the caller's own, checked to lie
//    on that surface. A boundary face lives on the rank of its tet.
//  * input_node_of_global stays empty (the caller's ids need not be 0..N-1), so
//    gather_to_input_numbering is refused; gather in global numbering or use the ids instead.
//
//   PartitionedMeshArrays part;
//   part.local.coordinates = xyz;  part.local.node_count = nodes_on_rank;   // owned + halo
//   part.local.tets = cells;       part.local.index_base = 1;               // Fortran arrays
//   part.node_ids = global_ids;    part.owned_node_count = owned;           // owned first
//   MeshFromPartition built = distributed_mesh_from_partition(comm, part);
//   CpuAssembler assembler(built.mesh.local);
//   to_local_order(built.caller_local_of_local, caller_field, foehn_field, 1);
//
// Collective. Every check runs on every rank and the ranks agree on failure: an invalid local
// array, a caller id owned by two ranks or by none, a ghost that is not where its owner says,
// raise the same foehn::Error (invalid_input) on every rank, "rank r of n: ..." naming the rank
// that found it, the id and the ranks involved.
#include <mpi.h>

#include <cstdint>
#include <span>
#include <vector>

#include "foehn/mesh/from_arrays.hpp"
#include "foehn/petsc/distributed_mesh.hpp"

namespace foehn::petsc {

enum class BoundaryFaceSource {
  derive,  // every face of the whole domain's surface, tagged derived_boundary_tag
  arrays,  // exactly local.boundary_faces (and tags), checked to lie on the domain's surface
  none     // no boundary faces
};

struct PartitionedMeshArrays {
  // This rank's nodes (owned and halo) and tets, in the caller's local numbering. index_base,
  // orientation and the tags apply as in mesh_from_arrays; allow_unused_nodes applies to the
  // whole mesh (a node no tet of any rank uses), since a rank's halo nodes are often used by
  // no tet of that rank. Every rank needs at least one tet.
  MeshArrays local;
  // The caller's global id of every local node (local.node_count values): any int64 values, any
  // base, not necessarily contiguous per rank; unique on each rank, and owned by exactly one rank.
  std::span<const std::int64_t> node_ids;
  // Which local nodes this rank owns; give exactly one of the two:
  std::int64_t owned_node_count = -1;  // the first owned_node_count local nodes (owned first,
                                       // as Fluidity and MPAS keep them), or
  std::span<const std::int32_t> owned_flags;  // one flag per local node, non-zero = owned
  BoundaryFaceSource boundary = BoundaryFaceSource::derive;
  std::int32_t derived_boundary_tag = 0;
};

struct MeshFromPartition {
  DistributedMesh mesh;
  // Local node l of `mesh` is the caller's local node caller_local_of_local[l] (0-based, whatever
  // the index base): a permutation of the caller's nodes, which are all kept.
  std::vector<std::int32_t> caller_local_of_local;
  std::int64_t flipped_tets = 0;            // over all ranks (OrientationPolicy::fix)
  std::int64_t flipped_boundary_faces = 0;  // over all ranks (BoundaryFaceSource::arrays, fix)
};

MeshFromPartition distributed_mesh_from_partition(MPI_Comm comm,
                                                  const PartitionedMeshArrays& arrays);

// Nodal fields between the caller's local order and the mesh's: `components` interleaved
// values per node; both spans hold caller_local_of_local.size() * components values
// (invalid_input otherwise). Local, not collective.
void to_local_order(std::span<const std::int32_t> caller_local_of_local,
                    std::span<const double> caller_values, std::span<double> local_values,
                    int components);
void to_caller_order(std::span<const std::int32_t> caller_local_of_local,
                     std::span<const double> local_values, std::span<double> caller_values,
                     int components);

}  // namespace foehn::petsc
