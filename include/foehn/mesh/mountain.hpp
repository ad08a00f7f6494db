#pragma once
// The built-in Mountainwave3D mesh: a 60 km x 60 km x 16 km box over a bell-shaped mountain
// h(x, y) = h0 / (1 + (x^2 + y^2) / a^2)^(3/2), with terrain-following levels graded towards
// the ground and horizontal spacing graded towards the mountain. Every hexahedral cell is
// split into six tetrahedra (Kuhn/Freudenthal split: all share the cell's main diagonal), which
// is conforming across cells and keeps every tet positively oriented under the terrain map.

#include <cstddef>
#include <vector>

#include "foehn/mesh/tet_mesh.hpp"

namespace foehn {

struct MountainMeshOptions {
  double length_x = 60000.0;  // domain [-length_x/2, length_x/2], m
  double length_y = 60000.0;
  double height = 16000.0;                       // model top, m
  double mountain_height = 400.0;                // h0, m
  double mountain_half_width = 1000.0;           // a, m
  int cells_x = 48, cells_y = 48, cells_z = 40;  // default: ~98k nodes, ~553k tets
  // Horizontal grading, the same along x and y (mountain_axis_coordinates): cells of
  // `mountain_spacing` metres within `mountain_core` metres of the summit, then widths growing
  // by the factor `horizontal_growth` from cell to cell out to the lateral boundaries. When the
  // cells are too few for that, the core cells are widened just enough (the growth factor is
  // never exceeded); when they are many, the spacing is uniform and finer. mountain_spacing 0:
  // uniform spacing.
  double mountain_spacing = 250.0;
  double mountain_core = 1000.0;  // the default mountain's half-width a
  double horizontal_growth = 1.15;
  // Ratio of the lowest layer's thickness to the mean layer thickness; 1 = uniform.
  double vertical_grading = 0.25;
};

// The cells + 1 node coordinates along one horizontal axis of length `length`, centred on the
// summit, symmetric about it and exactly +-length/2 at the ends (the grading described above).
std::vector<double> mountain_axis_coordinates(int cells, double length,
                                              const MountainMeshOptions& options);

// Checks the options (positive sizes, gradings in range, mountain lower than the top) and
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

// The slab of cells [i_begin, i_end) along x of that mesh, for building it in parts (one MPI
// rank each) without any process holding all of it: node (i, j, k) of the whole mesh is local
// node ((i - i_begin) * (cells_y + 1) + j) * (cells_z + 1) + k, i.e. the whole mesh's node
// minus i_begin * (cells_y + 1) * (cells_z + 1); the tets are the whole mesh's tets
// 6 * i_begin * cells_y * cells_z onwards, in its order. Boundary triangles: the slab's faces on
// the domain's surface (not its cut planes), tagged as above and oriented outward, in tet order.
// Throws invalid_input for a range outside [0, cells_x) or empty.
TetMesh generate_mountain_mesh_block(const MountainMeshOptions& options, int i_begin, int i_end);

}  // namespace foehn
