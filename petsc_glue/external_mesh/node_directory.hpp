#pragma once
// Private to petsc_glue/external_mesh: who owns each of the caller's node ids, and the global
// number each gets, found without any rank holding all ids. Every id has a home rank (a hash of
// the id); owners register their ids there, ranks holding an id as a ghost ask there. The home
// sees every claim on its ids, so a node owned twice, a ghost nobody owns, a ghost whose
// coordinates differ from its owner's, and a node no tet uses are all found at one place.
#include <mpi.h>

#include <cstdint>
#include <span>
#include <vector>

#include "foehn/mesh/tet_mesh.hpp"

namespace foehn::petsc::detail {

struct CallerNodes {
  std::span<const std::int64_t> ids;    // the caller's global id of each local node
  std::span<const std::uint8_t> owned;  // 1: this rank owns the node
  std::span<const std::uint8_t> used;   // 1: a tet of this rank uses the node
  std::span<const Point3> coordinates;
};

struct NodeOwnership {
  std::vector<std::int64_t> ownership_ranges;  // size + 1: rank r owns [r-th, (r+1)-th)
  std::vector<std::int64_t> global_of_node;    // for each caller-local node
  std::vector<std::int32_t> owner_of_node;     // for each caller-local node
};

// Collective. Owned nodes are numbered rank by rank, within a rank in increasing id. Throws
// foehn::Error (invalid_input) on every rank, naming the id and the ranks, when an id is owned
// by two ranks, a ghost's id is owned by none, a ghost's coordinates differ from the owner's,
// or (unless allow_unused_nodes) an id is used by no tet of any rank. The ids must be unique
// on each rank (checked by the caller).
NodeOwnership resolve_node_ownership(MPI_Comm comm, const CallerNodes& nodes,
                                     bool allow_unused_nodes);

// The rank that is home to `id` on a communicator of `ranks` ranks.
int home_rank_of_id(std::int64_t id, int ranks);

}  // namespace foehn::petsc::detail
