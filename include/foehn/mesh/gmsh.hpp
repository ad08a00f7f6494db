#pragma once
// Gmsh .msh input and output for TetMesh.
//
// Reading accepts MSH 2.2 and MSH 4.1, ASCII and binary (binary files must have this machine's
// byte order and 8-byte data size; both are checked). Only the linear elements Foehn computes
// on are kept:
//   - tetrahedra (type 4)  -> TetMesh::tets, physical tag in TetMesh::tet_tags
//   - triangles (type 2)   -> TetMesh::boundary_faces, physical tag in TetMesh::boundary_tags
//   - points (15), lines (1) are skipped; any other type is an error (invalid_input).
// The physical tag is the element's first tag in MSH 2.2 and the first physical tag of the
// element's entity (from $Entities) in MSH 4.1; 0 when there is none. An element in several
// physical groups keeps the first group's tag (MSH 2.2 repeats such elements once per group;
// the repeats are dropped). Node order follows the file; Gmsh node tags (arbitrary, sparse)
// are renumbered to 0-based indices. Nodes no element uses are kept. Element node order is
// kept as written: Gmsh writes positively oriented tetrahedra, but the reader does not fix
// orientation (mesh validation reports inverted ones). $PhysicalNames and unknown sections
// are skipped; partitioned MSH 4.1 files are rejected.
//
// Every failure throws foehn::Error: io when the file cannot be opened or read, invalid_input
// for anything wrong inside it; the message names the file and the line (ASCII) or byte offset
// (binary) of the problem.

#include <filesystem>

#include "foehn/mesh/tet_mesh.hpp"

namespace foehn {

enum class GmshVersion {
  msh22,  // MSH 2.2: elements carry their tags (physical, elementary)
  msh41,  // MSH 4.1: tags live on $Entities, elements are grouped in entity blocks
};

struct GmshFormat {
  GmshVersion version = GmshVersion::msh41;
  bool binary = false;
};

// Reads a Gmsh mesh file (see above for what is accepted).
TetMesh read_gmsh(const std::filesystem::path& path);

// Writes nodes (tags 1..N in order), tetrahedra with tet_tags (0 when empty) and boundary
// triangles with boundary_tags (0 when empty) as physical tags. MSH 4.1 gets one entity per
// distinct tag (dimension 3 for tetrahedra, 2 for triangles) so physical tags round-trip;
// element order is kept, so read_gmsh(write_gmsh(m)) returns m's nodes, tets and tags
// unchanged. Throws foehn::Error (invalid_input) for a mesh that cannot be written faithfully
// (no tetrahedra, index out of range, non-finite coordinate, negative tag, tag array of the
// wrong length) and (io) when the file cannot be written. Writes through AtomicOutputFile.
void write_gmsh(const TetMesh& mesh, const std::filesystem::path& path, GmshFormat format = {});

}  // namespace foehn
