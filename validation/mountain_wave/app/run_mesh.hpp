#pragma once
// foehn-mountainwave's mesh: rank 0's whole mesh, generated or read from -mesh, or the
// generated mesh built in slabs, one per rank; distributed over the ranks.
#include <mpi.h>

#include <string>

#include "foehn/mesh/tet_mesh.hpp"
#include "foehn/petsc/distributed_mesh.hpp"
#include "run_options.hpp"

namespace foehn::mountainwave {

// The host memory the whole run needs, from the peak resident size of the default case on
// one CPU rank (3 kB per tet, PETSc and MPI included); out_of_memory naming `request` if the
// node has less.
void check_model_memory(const std::string& request, double tets);
// Rank 0's whole mesh: generated, or read from -mesh (checked, tagged). Prints its size.
TetMesh whole_mesh(const RunOptions& o);
// whole_mesh reordered for locality and with boundary kinds, as the run distributes it (and as
// a restart or an overlapped adaptation's resumed remesh reads an adapted mesh back).
TetMesh prepared_whole_mesh(const RunOptions& o);
// Collective: the distributed mesh. `keep_input`: rank 0 keeps the mesh it distributed; it
// stays empty when the mesh is built in slabs.
petsc::DistributedMesh make_mesh(const RunOptions& o, MPI_Comm comm, int rank,
                                 TetMesh* keep_input = nullptr);

}  // namespace foehn::mountainwave
