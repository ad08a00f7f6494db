#pragma once
// DMPlex <-> DistributedMesh, so a mesh PETSc read (DMPlexCreateFromFile reads Gmsh, Exodus,
// ...) and distributed (DMPlexDistribute) can be assembled by Foehn, and a Foehn mesh handed to
// code that works on DMPlex.
//
//   DM dm;                                                  // 3-D, tetrahedra
//   DMPlexCreateFromFile(comm, "mesh.msh", "mesh", PETSC_TRUE, &dm);
//   DMPlexDistribute(dm, 0, nullptr, &parallel);            // any overlap
//   DistributedMesh mesh = distributed_mesh_from_dmplex(comm, parallel);
//   DM back = dmplex_from_distributed_mesh(mesh);           // caller calls DMDestroy(&back)
//
// From DMPlex: the rank's tets are its cells that are roots of the point SF (overlap cells,
// leaves, belong to other ranks); owned nodes are the vertices that are roots, ghosts the leaf
// vertices its tets use. Global node numbers are DMPlexGetVertexNumbering's (owned vertices of
// rank 0, then rank 1, ..., each in point order), which is also input_node_of_local;
// input_tet_of_local is DMPlexGetCellNumbering's. Coordinates come from DMGetCoordinatesLocal;
// tets are oriented positively from them whatever the cone order. Boundary faces are the
// faces of the whole domain's surface (partitioned_mesh.hpp), tagged from the "Face Sets"
// label where the DM is interpolated and has one (0 elsewhere); tet tags come from "Cell Sets"
// when present. Interpolated or not, any distribution and overlap; periodic (localized)
// coordinates and cells other than tetrahedra are refused.
//
// To DMPlex: DMPlexCreateFromCellListParallelPetsc on the mesh's communicator, each rank
// giving its local tets (cells in local tet order) and the coordinates of its owned nodes
// (vertex numbers = global node numbers). Cones follow DMPlex's convention for tetrahedra
// (DMPlexInvertCell), so DMPlex computes positive volumes. Tet tags become the "Cell Sets"
// label, boundary face tags the "Face Sets" label (interpolated DMs). PETSc chooses the owner of
// a vertex shared by ranks, which may differ from the mesh's owner.
#include <mpi.h>
#include <petscdm.h>

#include "foehn/petsc/distributed_mesh.hpp"

namespace foehn::petsc {

// Collective on `comm`, which must be the DM's communicator or congruent with it (the mesh
// keeps `comm`: the DM's own communicator is PETSc's internal duplicate and may go away with
// the DM). Throws foehn::Error: invalid_input for a DM that is not a 3-D tetrahedral DMPlex,
// petsc when a PETSc call fails. The DM is only read.
DistributedMesh distributed_mesh_from_dmplex(MPI_Comm comm, DM dm);

struct DmPlexExportOptions {
  bool interpolate = true;  // create edges and faces (needed for the "Face Sets" label)
  bool labels = true;       // "Cell Sets" from tet tags, "Face Sets" from boundary tags
};

// Collective on mesh.comm. The caller owns the returned DM and destroys it (DMDestroy) before
// PetscFinalize. Throws foehn::Error on every rank (invalid_input for an inconsistent mesh or
// numbers beyond PetscInt, petsc for a failed PETSc call).
DM dmplex_from_distributed_mesh(const DistributedMesh& mesh,
                                const DmPlexExportOptions& options = {});

}  // namespace foehn::petsc
