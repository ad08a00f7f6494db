#pragma once
// Private to petsc_glue/distribution: a DistributedMesh part as one byte buffer, so that rank
// 0 sends each rank everything in one transfer whose size the receiver learns first.
#include <cstddef>
#include <span>
#include <vector>

#include "foehn/petsc/distributed_mesh.hpp"

namespace foehn::petsc::detail {

// Everything but comm, rank, size and input_node_of_global (set by the receiver).
std::vector<std::byte> pack_part(const DistributedMesh& part);
// Throws internal when the buffer is truncated or has bytes left over (a bug, not bad input).
DistributedMesh unpack_part(std::span<const std::byte> bytes);

}  // namespace foehn::petsc::detail
