#pragma once
// Options of foehn-mesh, read from the PETSc options database.

#include <string>

#include "foehn/mesh/gmsh.hpp"
#include "foehn/mesh/mountain.hpp"
#include "foehn/mesh/quality.hpp"

namespace foehn::app {

enum class Numbering { natural, shuffled, reordered };

struct MeshToolOptions {
  std::string input;             // -i: mesh to read (convert, check, stats, quality)
  std::string output;            // -o: mesh to write (generate, convert)
  std::string boundary_output;   // -boundary_o: boundary triangles as .vtu
  MountainMeshOptions mountain;  // generate
  long long target_tets = 0;     // generate: scale cell counts to about this many tets
  Numbering numbering = Numbering::natural;
  long long seed = 1;               // for -numbering shuffled
  int partitions = 0;               // METIS parts written as the cell field "partition"
  GmshFormat gmsh_format;           // -msh_version, -msh_binary
  bool fix_orientation = false;     // check/convert: repair inverted tets and inward faces
  bool allow_unused_nodes = false;  // check/convert: accept nodes no tet uses
  EdgeBounds quality_bounds;        // quality: -shortest_edge, -longest_edge (0: none)
};

// Reads every option (so -help lists them all) and checks their values.
MeshToolOptions read_mesh_tool_options(const std::string& command);

}  // namespace foehn::app
