// Uses the installed headers and library: generates a small mountain mesh and validates it.
#include <cstdio>

#include "foehn/config.hpp"
#include "foehn/mesh/mountain.hpp"
#include "foehn/mesh/validate.hpp"
#include "foehn/runtime/error.hpp"

int main() {
  foehn::MountainMeshOptions options;
  options.cells_x = options.cells_y = 6;
  options.cells_z = 4;
  foehn::TetMesh mesh = foehn::generate_mountain_mesh(options);
  foehn::validate_mesh(mesh, "consumer mesh");
  std::printf("Foehn %s: %zu tets\n", FOEHN_VERSION_STRING, mesh.tet_count());
  return mesh.tet_count() == 6u * 6u * 6u * 4u ? 0 : 1;
}
