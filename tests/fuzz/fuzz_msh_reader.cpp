// libFuzzer target: the Gmsh .msh reader (MSH 2.2 and 4.1, ASCII and binary), through
// read_gmsh on a file as applications call it. Bad input must throw foehn::Error; a mesh that
// comes back must keep the reader's promises (mesh_checks.hpp). Anything else is a finding.

#include <cstddef>
#include <cstdint>

#include "foehn/mesh/gmsh.hpp"
#include "foehn/runtime/error.hpp"
#include "fuzz_support.hpp"
#include "mesh_checks.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static foehn::fuzz::InputFile input("msh");
  try {
    const foehn::TetMesh mesh = foehn::read_gmsh(input.write(data, size));
    foehn::fuzz::require_consistent_mesh(mesh);
    foehn::fuzz::require_finite_nodes(mesh);
    foehn::fuzz::require(!mesh.tets.empty(), "at least one tetrahedron");
    foehn::fuzz::require(mesh.tet_tags.size() == mesh.tet_count(), "a physical tag per tet");
  } catch (const foehn::Error&) {
    // The documented answer to bad input.
  }
  return 0;
}
