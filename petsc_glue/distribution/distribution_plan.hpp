#pragma once
// Private to petsc_glue/distribution: what rank 0 decides before anything is sent (which rank
// gets which tet and boundary face, who owns each node, the global numbering) and how it cuts
// one rank's part out of the input mesh.
#include <cstdint>
#include <vector>

#include "foehn/mesh/partition.hpp"
#include "foehn/mesh/tet_mesh.hpp"
#include "foehn/petsc/distributed_mesh.hpp"

namespace foehn::petsc::detail {

struct DistributionPlan {
  int parts = 1;
  std::vector<std::int32_t> part_of_tet;       // METIS part (= rank) of every input tet
  std::vector<std::int32_t> owner_of_node;     // lowest part touching the node
  std::vector<std::int64_t> global_of_node;    // global number of every input node
  std::vector<std::int64_t> ownership_ranges;  // parts + 1 entries
  // Input tets and boundary faces of each part in increasing input number (CSR by part).
  std::vector<std::int64_t> tet_offsets, tets_by_part;
  std::vector<std::int64_t> face_offsets, faces_by_part;
};

// Partitions `input` into `parts` (no METIS call for one part) and derives ownership and the
// global numbering. The mesh must be valid (every node used, every boundary face a face of
// exactly one tet); invalid_input otherwise.
DistributionPlan plan_distribution(const TetMesh& input, int parts,
                                   const PartitionOptions& options);

// Part `part` of the input as the DistributedMesh that rank `part` receives (comm, rank,
// size and input_node_of_global are left for the caller). `scratch` is one int per input
// node, all -1, and is left so (it lets every part be cut in time proportional to its size).
DistributedMesh cut_part(const TetMesh& input, const DistributionPlan& plan, int part,
                         std::vector<std::int32_t>& scratch);

// Input node number of every global node (for rank 0's gathers).
std::vector<std::int64_t> input_node_of_global(const DistributionPlan& plan);

}  // namespace foehn::petsc::detail
