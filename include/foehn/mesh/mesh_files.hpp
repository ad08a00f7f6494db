#pragma once
// Reading and writing meshes by file extension: .msh (Gmsh 2.2 / 4.1) and .vtu (VTK XML).

#include <filesystem>

#include "foehn/mesh/gmsh.hpp"
#include "foehn/mesh/tet_mesh.hpp"

namespace foehn {

// Throws foehn::Error (invalid_input) for an unknown extension, naming the file and the
// formats Foehn reads.
TetMesh read_mesh_file(const std::filesystem::path& path);

// `gmsh_format` is used for .msh outputs only.
void write_mesh_file(const TetMesh& mesh, const std::filesystem::path& path,
                     const GmshFormat& gmsh_format = {});

}  // namespace foehn
