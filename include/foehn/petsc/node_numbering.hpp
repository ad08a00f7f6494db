#pragma once
// How the nodes a rank assembles on map to PETSc's global numbering. One rank: local ==
// global. Several ranks: the DistributedMesh's owned-first local numbering and its global
// numbers (owned nodes form the rank's contiguous PETSc ownership range).
//
// A point (node, component) of a field with `components` per node has PETSc row/column
// global_node * components + component: fields are interleaved, as everywhere in Foehn.
#include <mpi.h>

#include <cstdint>
#include <span>

namespace foehn::petsc {

struct DistributedMesh;

struct NodeNumbering {
  MPI_Comm comm = MPI_COMM_NULL;  // not owned
  std::int32_t local_nodes = 0;   // owned + ghost
  std::int32_t owned_nodes = 0;   // local nodes [0, owned_nodes) are owned
  std::int64_t global_nodes = 0;
  std::int64_t first_owned_global = 0;
  std::span<const std::int64_t> global_of_local;  // empty: global == local (one rank)

  std::int64_t global_of(std::int32_t local) const noexcept {
    return global_of_local.empty() ? local : global_of_local[static_cast<std::size_t>(local)];
  }
  bool distributed() const noexcept { return !global_of_local.empty(); }
};

// All `nodes` on a communicator of one rank (throws invalid_input on a larger one, where a
// DistributedMesh is needed).
NodeNumbering serial_numbering(MPI_Comm comm, std::int32_t nodes);
// The numbering of a distributed mesh; refers to `mesh`, which must outlive it. On one rank it
// is the serial numbering.
NodeNumbering distributed_numbering(const DistributedMesh& mesh);

}  // namespace foehn::petsc
