#include "foehn/petsc/node_numbering.hpp"

#include "foehn/petsc/distributed_mesh.hpp"
#include "foehn/runtime/error.hpp"

namespace foehn::petsc {

NodeNumbering serial_numbering(MPI_Comm comm, std::int32_t nodes) {
  int size = 0;
  if (MPI_Comm_size(comm, &size) != MPI_SUCCESS)
    fail(ErrorCategory::invalid_input, "serial_numbering: not a valid MPI communicator");
  if (size != 1)
    fail(ErrorCategory::invalid_input, "serial_numbering: the communicator has ", size,
         " ranks; distribute the mesh (distribute_mesh) and use distributed_numbering");
  if (nodes < 0) fail(ErrorCategory::invalid_input, "serial_numbering: ", nodes, " nodes");
  NodeNumbering numbering;
  numbering.comm = comm;
  numbering.local_nodes = nodes;
  numbering.owned_nodes = nodes;
  numbering.global_nodes = nodes;
  return numbering;
}

NodeNumbering distributed_numbering(const DistributedMesh& mesh) {
  NodeNumbering numbering;
  numbering.comm = mesh.comm;
  numbering.local_nodes = mesh.local_nodes();
  numbering.owned_nodes = mesh.owned_nodes;
  numbering.global_nodes = mesh.global_nodes;
  numbering.first_owned_global = mesh.first_owned_global;
  if (mesh.size > 1) numbering.global_of_local = mesh.global_of_local;
  return numbering;
}

}  // namespace foehn::petsc
