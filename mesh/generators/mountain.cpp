#include "foehn/mesh/mountain.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "foehn/mesh/geometry.hpp"
#include "foehn/mesh/topology.hpp"
#include "foehn/runtime/error.hpp"
#include "foehn/runtime/memory_budget.hpp"

namespace foehn {

namespace {

// Cell widths of one horizontal axis for a core spacing h and growth factor g: cell j's centre
// lies d_j = |j + 1/2 - cells/2| cells from the summit; the c/h cells nearest it on each side
// are h wide, the others h g^(distance beyond the core, in cells), so neighbours differ by at
// most the factor g.
struct AxisWidths {
  int cells;
  double core;  // m

  double width(int j, double h, double g) const {
    const double d = std::abs(j + 0.5 - 0.5 * cells);
    return h * std::pow(g, std::max(0.0, d + 0.5 - core / h));
  }
  double total(double h, double g) const {
    double sum = 0;
    for (int j = 0; j < cells; ++j) sum += width(j, h, g);
    return sum;
  }
};

// The x with f(x) = target on [low, high] for f increasing, by bisection to rounding.
template <class F>
double solve_increasing(F f, double target, double low, double high) {
  for (int i = 0; i < 200 && low < high; ++i) {
    const double mid = 0.5 * (low + high);
    if (mid <= low || mid >= high) break;
    (f(mid) < target ? low : high) = mid;
  }
  return 0.5 * (low + high);
}

// Maps zeta in [0, 1] to [0, 1] with slope `grading` at 0 (finest layer at the ground),
// monotone for grading in (0, 1]: s(zeta) = grading zeta + (1 - grading) zeta^2.
double graded_from_ground(double zeta, double grading) {
  return grading * zeta + (1.0 - grading) * zeta * zeta;
}

// The six Kuhn tets of a unit cube: one per permutation of the axes, walking from corner 0
// to corner 7 along edges. Corner c has offsets (c & 1, (c >> 1) & 1, (c >> 2) & 1).
// Odd permutations have negative orientation; their last two nodes are swapped.
constexpr std::array<std::array<int, 4>, 6> kuhn_tets{{
    {{0, 1, 3, 7}},  // x, y, z (even)
    {{0, 1, 7, 5}},  // x, z, y (odd, swapped)
    {{0, 2, 7, 3}},  // y, x, z (odd, swapped)
    {{0, 2, 6, 7}},  // y, z, x (even)
    {{0, 4, 5, 7}},  // z, x, y (even)
    {{0, 4, 7, 6}},  // z, y, x (odd, swapped)
}};

struct GridIndex {
  int nx, ny, nz;  // cells
  std::int32_t node(int i, int j, int k) const {
    return static_cast<std::int32_t>((static_cast<std::int64_t>(i) * (ny + 1) + j) * (nz + 1) + k);
  }
};

std::int32_t tag_of_face(const TetMesh& mesh, const Triangle& face,
                         const MountainMeshOptions& options) {
  // A face lies on a side when all three nodes do; compare logical position via coordinates
  // on the exact side planes (x, y sides are planar; top is planar; terrain is the rest).
  const double half_x = 0.5 * options.length_x, half_y = 0.5 * options.length_y;
  auto all = [&](auto predicate) {
    return predicate(mesh.nodes[face[0]]) && predicate(mesh.nodes[face[1]]) &&
           predicate(mesh.nodes[face[2]]);
  };
  if (all([&](const Point3& p) { return p[0] == -half_x; })) return boundary_inflow;
  if (all([&](const Point3& p) { return p[0] == half_x; })) return boundary_outflow;
  if (all([&](const Point3& p) { return p[1] == -half_y || p[1] == half_y; }))
    return boundary_lateral;
  if (all([&](const Point3& p) { return p[2] == options.height; })) return boundary_top;
  return boundary_terrain;
}

}  // namespace

void check_mountain_options(const MountainMeshOptions& o) {
  auto positive = [](double value, const char* name) {
    if (!(value > 0.0) || !std::isfinite(value))
      fail(ErrorCategory::invalid_input, "mountain mesh: ", name,
           " must be positive and finite, got ", value);
  };
  positive(o.length_x, "length_x");
  positive(o.length_y, "length_y");
  positive(o.height, "height");
  positive(o.mountain_half_width, "mountain_half_width (a)");
  if (!(o.mountain_height >= 0.0) || !(o.mountain_height < o.height))
    fail(ErrorCategory::invalid_input,
         "mountain mesh: mountain_height (h0) must be in [0, height), got ", o.mountain_height);
  if (!(o.vertical_grading > 0.0 && o.vertical_grading <= 1.0))
    fail(ErrorCategory::invalid_input, "mountain mesh: vertical_grading must be in (0, 1], got ",
         o.vertical_grading);
  for (auto [value, name] : {std::pair{o.mountain_spacing, "mountain_spacing"},
                             std::pair{o.mountain_core, "mountain_core"}})
    if (!(value >= 0.0) || !std::isfinite(value))
      fail(ErrorCategory::invalid_input, "mountain mesh: ", name,
           " must be zero or positive and finite, got ", value);
  if (!(o.horizontal_growth >= 1.0 && o.horizontal_growth <= 2.0))
    fail(ErrorCategory::invalid_input, "mountain mesh: horizontal_growth must be in [1, 2], got ",
         o.horizontal_growth);
  for (auto [cells, name] : {std::pair{o.cells_x, "cells_x"}, std::pair{o.cells_y, "cells_y"},
                             std::pair{o.cells_z, "cells_z"}})
    if (cells < 1)
      fail(ErrorCategory::invalid_input, "mountain mesh: ", name, " must be at least 1, got ",
           cells);
  const double nodes = (o.cells_x + 1.0) * (o.cells_y + 1.0) * (o.cells_z + 1.0);
  const double tets = 6.0 * o.cells_x * o.cells_y * o.cells_z;
  if (nodes > std::numeric_limits<std::int32_t>::max() ||
      tets > std::numeric_limits<std::int32_t>::max())
    fail(ErrorCategory::invalid_input, "mountain mesh: ", o.cells_x, " x ", o.cells_y, " x ",
         o.cells_z, " cells give ", tets, " tets: more than 32-bit indices can address");
  // What the mesh itself holds (coordinates and connectivity); callers that build more on it
  // check their own total.
  const double bytes = nodes * sizeof(Point3) + tets * sizeof(Tet);
  check_host_memory(detail::concat("mountain mesh of ", o.cells_x, " x ", o.cells_y, " x ",
                                   o.cells_z, " cells (", tets, " tets)"),
                    bytes);
}

std::vector<double> mountain_axis_coordinates(int cells, double length,
                                              const MountainMeshOptions& o) {
  const AxisWidths axis{cells, o.mountain_core};
  const double uniform = length / cells;
  double h = uniform, g = 1.0;
  if (o.mountain_spacing > 0 && o.mountain_spacing < uniform) {
    h = o.mountain_spacing;
    g = o.horizontal_growth;
    if (axis.total(h, g) >= length)  // the growth needed is at most the limit
      g = solve_increasing([&](double x) { return axis.total(h, x); }, length, 1.0, g);
    else  // too few cells: widen the core cells, growing at the limit
      h = solve_increasing([&](double x) { return axis.total(x, g); }, length, h, uniform);
  }
  // Nodes from the summit outwards, mirrored, then scaled so the ends are exactly +-length/2.
  std::vector<double> x(static_cast<std::size_t>(cells) + 1);
  const int middle = cells / 2;
  double position = (cells % 2 == 0) ? 0.0 : 0.5 * axis.width(middle, h, g);
  if (cells % 2 == 0) x[middle] = 0.0;
  for (int j = (cells + 1) / 2; j < cells; ++j) {
    x[j] = position;
    position += axis.width(j, h, g);
  }
  const double scale = 0.5 * length / position;
  for (int j = (cells + 1) / 2; j < cells; ++j) x[j] *= scale;
  x[cells] = 0.5 * length;
  for (int j = 0; j < (cells + 1) / 2; ++j) x[j] = -x[cells - j];
  return x;
}

MountainMeshOptions mountain_options_for_tets(std::size_t target_tets, MountainMeshOptions base) {
  if (target_tets < 6)
    fail(ErrorCategory::invalid_input, "mountain mesh: at least 6 tets are needed, asked for ",
         target_tets);
  const double default_tets = 6.0 * base.cells_x * base.cells_y * base.cells_z;
  const double scale = std::cbrt(static_cast<double>(target_tets) / default_tets);
  // Check before converting: a huge request must be an error, not an int overflow.
  for (int cells : {base.cells_x, base.cells_y, base.cells_z})
    if (cells * scale > std::numeric_limits<std::int32_t>::max() / 8.0)
      fail(ErrorCategory::invalid_input, "mountain mesh: ", target_tets,
           " tets is more than 32-bit indices can address");
  base.cells_x = std::max(1, static_cast<int>(std::lround(base.cells_x * scale)));
  base.cells_y = std::max(1, static_cast<int>(std::lround(base.cells_y * scale)));
  base.cells_z = std::max(1, static_cast<int>(std::lround(base.cells_z * scale)));
  return base;
}

double mountain_surface_height(const MountainMeshOptions& o, double x, double y) {
  const double r2 = (x * x + y * y) / (o.mountain_half_width * o.mountain_half_width);
  return o.mountain_height / std::pow(1.0 + r2, 1.5);
}

namespace {

// The node planes i_begin..i_end (all columns j, levels k) and the tets of cells i_begin..
// i_end-1, in the whole mesh's order; node (i, j, k) is local node grid.node(i - i_begin, j, k).
TetMesh mountain_block_nodes_and_tets(const MountainMeshOptions& o, const GridIndex& grid,
                                      int i_begin, int i_end) {
  const GridIndex block{i_end - i_begin, grid.ny, grid.nz};
  TetMesh mesh;
  mesh.nodes.resize(static_cast<std::size_t>(block.nx + 1) * (grid.ny + 1) * (grid.nz + 1));
  // Side nodes are exactly +-L/2, so boundary planes are exact in floating point.
  const std::vector<double> xs = mountain_axis_coordinates(grid.nx, o.length_x, o);
  const std::vector<double> ys = mountain_axis_coordinates(grid.ny, o.length_y, o);
  for (int i = i_begin; i <= i_end; ++i) {
    const double x = xs[i];
    for (int j = 0; j <= grid.ny; ++j) {
      const double y = ys[j];
      const double terrain = mountain_surface_height(o, x, y);
      for (int k = 0; k <= grid.nz; ++k) {
        // Gal-Chen terrain-following levels: z = h + s (H - h), s in [0, 1].
        const double s = graded_from_ground(static_cast<double>(k) / grid.nz, o.vertical_grading);
        const double z = (k == 0)         ? terrain
                         : (k == grid.nz) ? o.height
                                          : terrain + s * (o.height - terrain);
        mesh.nodes[block.node(i - i_begin, j, k)] = {x, y, z};
      }
    }
  }

  mesh.tets.reserve(static_cast<std::size_t>(6) * block.nx * grid.ny * grid.nz);
  for (int i = i_begin; i < i_end; ++i)
    for (int j = 0; j < grid.ny; ++j)
      for (int k = 0; k < grid.nz; ++k) {
        // Every cell is the mirror image of its neighbours (the Kuhn cube reflected in each
        // axis whose cell index is odd). Shared faces are split the same way on both sides, so
        // the mesh is conforming, and it is mirror-symmetric about every cell plane, hence
        // about x = 0 and y = 0 for even cell counts: a symmetric flow stays symmetric instead
        // of picking up the one diagonal direction that a uniform Kuhn split prefers.
        const int flip_x = i & 1, flip_y = j & 1, flip_z = k & 1;
        std::array<std::int32_t, 8> corner;
        for (int c = 0; c < 8; ++c)
          corner[c] = block.node(i - i_begin + ((c & 1) ^ flip_x), j + (((c >> 1) & 1) ^ flip_y),
                                 k + (((c >> 2) & 1) ^ flip_z));
        const bool mirrored = ((flip_x + flip_y + flip_z) & 1) != 0;  // reverses orientation
        for (const auto& local : kuhn_tets) {
          if (mirrored)
            mesh.tets.push_back(
                {corner[local[0]], corner[local[1]], corner[local[3]], corner[local[2]]});
          else
            mesh.tets.push_back(
                {corner[local[0]], corner[local[1]], corner[local[2]], corner[local[3]]});
        }
      }
  return mesh;
}

}  // namespace

TetMesh generate_mountain_mesh_block(const MountainMeshOptions& o, int i_begin, int i_end) {
  check_mountain_options(o);
  if (i_begin < 0 || i_end > o.cells_x || i_begin >= i_end)
    fail(ErrorCategory::invalid_input, "mountain mesh block: cells [", i_begin, ", ", i_end,
         ") along x are not a non-empty part of the ", o.cells_x, " cells");
  const GridIndex grid{o.cells_x, o.cells_y, o.cells_z};
  TetMesh mesh = mountain_block_nodes_and_tets(o, grid, i_begin, i_end);
  // A face is on the domain's surface when its three nodes lie on one of the box's six index
  // planes (the block's own cut planes are not among them); the tet's local face is outward.
  const std::int64_t column = grid.nz + 1, plane = static_cast<std::int64_t>(grid.ny + 1) * column;
  auto index_of = [&](std::int32_t node) {
    return std::array<int, 3>{static_cast<int>(node / plane) + i_begin,
                              static_cast<int>(node % plane / column),
                              static_cast<int>(node % column)};
  };
  const std::array<int, 3> last{grid.nx, grid.ny, grid.nz};
  for (const Tet& tet : mesh.tets)
    for (const auto& local : tet_local_faces) {
      const Triangle face{tet[local[0]], tet[local[1]], tet[local[2]]};
      const std::array<std::array<int, 3>, 3> at{index_of(face[0]), index_of(face[1]),
                                                 index_of(face[2])};
      bool on_surface = false;
      for (int axis = 0; axis < 3 && !on_surface; ++axis)
        for (const int side : {0, last[axis]})
          on_surface =
              on_surface || (at[0][axis] == side && at[1][axis] == side && at[2][axis] == side);
      if (!on_surface) continue;
      mesh.boundary_faces.push_back(face);
      mesh.boundary_tags.push_back(tag_of_face(mesh, face, o));
    }
  return mesh;
}

TetMesh generate_mountain_mesh(const MountainMeshOptions& o) {
  check_mountain_options(o);
  const GridIndex grid{o.cells_x, o.cells_y, o.cells_z};
  TetMesh mesh = mountain_block_nodes_and_tets(o, grid, 0, grid.nx);

  // Boundary triangles are the faces used by one tet, already oriented outward.
  const FaceTopology topology = build_face_topology(mesh);
  mesh.boundary_faces.reserve(topology.surface.size());
  mesh.boundary_tags.reserve(topology.surface.size());
  for (const SurfaceFace& face : topology.surface) {
    mesh.boundary_faces.push_back(face.nodes);
    mesh.boundary_tags.push_back(tag_of_face(mesh, face.nodes, o));
  }
  // Keep a deterministic, readable order: by tag, then by lowest node.
  std::vector<std::size_t> order(mesh.boundary_faces.size());
  for (std::size_t f = 0; f < order.size(); ++f) order[f] = f;
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return mesh.boundary_tags[a] < mesh.boundary_tags[b];
  });
  std::vector<Triangle> faces(order.size());
  std::vector<std::int32_t> tags(order.size());
  for (std::size_t f = 0; f < order.size(); ++f) {
    faces[f] = mesh.boundary_faces[order[f]];
    tags[f] = mesh.boundary_tags[order[f]];
  }
  mesh.boundary_faces = std::move(faces);
  mesh.boundary_tags = std::move(tags);
  return mesh;
}

}  // namespace foehn
