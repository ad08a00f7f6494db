#pragma once
// -mesh FILE: a .msh or .vtu mesh of the Mountainwave3D domain made elsewhere (for example by
// the gmsh program with a size field around the mountain) instead of the generated one.

#include <filesystem>
#include <string>

#include "foehn/mesh/mountain.hpp"
#include "foehn/mesh/tet_mesh.hpp"

namespace foehn::mountainwave {

struct ExternalMesh {
  TetMesh mesh;
  // "the file's tags" or "the geometry": where the boundary tags came from, for the run log.
  std::string tag_source;
};

// Reads `file` and makes it a mesh the core can run on, or throws invalid_input naming the
// file and what is wrong:
// - a valid tet mesh (no inverted, degenerate or unused items; inverted tets are refused, not
//   flipped: a mesh made for another code may number them the other way, and silently
//   flipping would hide a misread file);
// - its bounding box is the domain of `domain` ([-length_x/2, length_x/2] x [-length_y/2,
//   length_y/2] x [terrain, height], within 1e-6 of the domain size);
// - boundary tags: the file's, when its boundary triangles cover the whole surface with tags 1
//   to 5 (terrain, top, inflow, outflow, lateral: Gmsh physical groups with those numbers);
//   otherwise from the geometry: faces on x = -length_x/2 are inflow, on x = length_x/2
//   outflow, on y = +-length_y/2 lateral, on z = height top, and faces whose nodes lie on the
//   terrain h(x, y) (within 1e-6 of the height) terrain. A surface face on none of these is an
//   error naming it.
ExternalMesh read_external_mountain_mesh(const std::filesystem::path& file,
                                         const MountainMeshOptions& domain);

}  // namespace foehn::mountainwave
