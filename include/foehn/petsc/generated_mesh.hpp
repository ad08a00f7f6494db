#pragma once
// The built-in mountain mesh generated in parallel: each rank of `comm` builds its own slab of
// cells along x (generate_mountain_mesh_block) and nothing is partitioned, gathered or sent, so
// set-up costs one rank's share and no rank ever holds the whole mesh. Slab widths differ by at
// most one cell, so the tets are balanced to one cell column per rank. The cut between two
// slabs is one node plane ((cells_y + 1) (cells_z + 1) nodes), as small as a graph
// partitioner's for a handful of ranks; with many ranks per cells_x the slabs get thin and
// METIS's partition (distribute_mesh) exchanges fewer halo values.
//
//   DistributedMesh mesh = distribute_generated_mountain_mesh(comm, options);
//
// The result follows distribute_mesh's contract (distributed_mesh.hpp); its input numbering is
// generate_mountain_mesh's own (no reordering), and since each slab owns a contiguous range of
// those node numbers, global numbers equal input numbers: rank 0's input_node_of_global is the
// identity, so gathers to the input numbering work as after distribute_mesh. Collective; a
// mesh with fewer cells along x than ranks, or bad options, raise invalid_input on every rank.
#include <mpi.h>

#include "foehn/mesh/mountain.hpp"
#include "foehn/petsc/distributed_mesh.hpp"

namespace foehn::petsc {

// The x-cells [begin, end) of `rank`'s slab out of `ranks` (widths differ by at most one).
struct CellRange {
  int begin = 0;
  int end = 0;
};
CellRange slab_of_rank(int cells, int ranks, int rank);

DistributedMesh distribute_generated_mountain_mesh(MPI_Comm comm,
                                                   const MountainMeshOptions& options);

}  // namespace foehn::petsc
