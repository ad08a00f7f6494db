#pragma once
// The small Mountainwave3D domain the tests start from (one fixture, not one per folder): the
// terrain-following, graded mesh of the main job at a few cells per direction. Suites that need
// other sizes or fields start from these options and change what they need.
#include "foehn/mesh/mountain.hpp"

namespace foehn::testing {

// cells_x x cells_y x cells_z cells over the default domain (6 x 6 x 4: 245 nodes, 864 tets).
inline MountainMeshOptions small_mountain_options(int cells_x = 6, int cells_y = 6,
                                                  int cells_z = 4) {
  MountainMeshOptions options;
  options.cells_x = cells_x;
  options.cells_y = cells_y;
  options.cells_z = cells_z;
  return options;
}

inline TetMesh small_mountain(int cells_x = 6, int cells_y = 6, int cells_z = 4) {
  return generate_mountain_mesh(small_mountain_options(cells_x, cells_y, cells_z));
}

}  // namespace foehn::testing
