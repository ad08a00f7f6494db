#pragma once
// The quality of a tetrahedral mesh in the few numbers that decide whether a solver will cope
// with it: the extreme and near-extreme (percentile) dihedral angles and aspect ratios of its
// tets and the lengths of its edges against the bounds an adaptation asked for. Reported after
// every mesh adaptation; cheap enough for meshes of millions of tets (O(T log T), three arrays
// of one number per tet or edge).
//
// to_json(const MeshQuality&) is in foehn/mesh/quality_json.hpp: libfoehn's public headers do
// not include nlohmann/json.

#include <cstddef>
#include <string>

#include "foehn/mesh/tet_mesh.hpp"

namespace foehn {

struct MeshQuality {
  std::size_t tets = 0, edges = 0;  // edges: unique (node, node) pairs
  // Dihedral angles, degrees (70.53 in a regular tet). dihedral_percentile_1_degrees: the 1st
  // percentile over tets of each tet's smallest dihedral angle.
  double min_dihedral_degrees = 0.0, dihedral_percentile_1_degrees = 0.0;
  double max_dihedral_degrees = 0.0;
  // Verdict's (and VTK's, ParaView's MeshQuality "Aspect Ratio") tet aspect ratio
  // h_max / (2 sqrt(6) r_in): 1 for a regular tet, infinite for a flat one. h_max is the
  // longest edge, r_in = 3 |V| / (sum of the four face areas) the inradius.
  double worst_aspect_ratio = 0.0, aspect_ratio_percentile_99 = 0.0;
  double shortest_edge = 0.0, longest_edge = 0.0;  // over unique edges, m
  // Unique edges shorter than EdgeBounds::shortest / longer than EdgeBounds::longest (0 when
  // that bound is 0).
  std::size_t edges_below = 0, edges_above = 0;
};

// The edge lengths an adaptation aims for (e.g. Mmg's hmin / hmax), m; 0: no bound.
struct EdgeBounds {
  double shortest = 0.0, longest = 0.0;
};

// Percentiles are nearest-rank over the per-tet values sorted in increasing order: the p-th
// is the value of rank ceil(p T / 100). The orientation of a tet does not matter (|V|); a tet
// of zero volume has an infinite aspect ratio. Throws invalid_input for a mesh without tets, a
// node index out of range or a non-finite coordinate (naming the tet), or a negative bound.
MeshQuality mesh_quality(const TetMesh& mesh, EdgeBounds bounds = {});

// One line for a log, numbers to 3 significant digits (whole numbers from 1000 up), e.g.
// "min dihedral 4.1 deg (1st percentile 19.8), worst aspect ratio 9.3 (99th percentile 3.1),
//  edges 71.2 m .. 9870 m (12 below 125 m, 0 above 10000 m)"; the counts only for the bounds
// that are not 0. `bounds` are those the quality was computed with.
std::string describe(const MeshQuality& quality, EdgeBounds bounds = {});

}  // namespace foehn
