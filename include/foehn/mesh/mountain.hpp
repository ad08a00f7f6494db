#pragma once
// The built-in Mountainwave3D mesh: a 60 km x 60 km x 16 km box over a bell-shaped mountain
// h(x, y) = h0 / (1 + (x^2 + y^2) / a^2)^(3/2), with terrain-following levels graded towards
// the ground and horizontal spacing graded towards the mountain. Every hexahedral cell is
// split into six tetrahedra (Kuhn/Freudenthal split: all share the cell's main diagonal), which
// is conforming across cells and keeps every tet positively oriented under the terrain map.

#include <cstddef>

#include "foehn/mesh/tet_mesh.hpp"

namespace foehn {

struct MountainMeshOptions {
  double length_x = 60000.0;  // domain [-length_x/2, length_x/2], m
  double length_y = 60000.0;
  double height = 16000.0;    // model top, m
  double mountain_height = 400.0;      // h0, m
  double mountain_half_width = 1000.0; // a, m
  int cells_x = 48, cells_y = 48, cells_z = 40;  // default: ~98k nodes, ~553k tets
  // Ratio of the spacing at the mountain (x = 0) to the mean spacing; 1 = uniform.
  double horizontal_grading = 0.25;
  // Ratio of the lowest layer's thickness to the mean layer thickness; 1 = uniform.
  double vertical_grading = 0.25;
};

// Checks the options (positive sizes, grading in (0, 1], mountain lower than the top) and
// throws foehn::Error (invalid_input) naming the offending option.
void check_mountain_options(const MountainMeshOptions& options);

// Cell counts scaled uniformly from the defaults so the mesh has about `target_tets` tets.
MountainMeshOptions mountain_options_for_tets(std::size_t target_tets,
                                              MountainMeshOptions base = {});

double mountain_surface_height(const MountainMeshOptions& options, double x, double y);

// Nodes are numbered column by column (z fastest), tets cell by cell. Boundary triangles are
// tagged boundary_terrain / top / inflow (x min) / outflow (x max) / lateral (y min and max)
// and oriented outward.
TetMesh generate_mountain_mesh(const MountainMeshOptions& options = {});

}  // namespace foehn
