#pragma once
// Summary numbers of a mesh, as `foehn-mesh stats` prints them.

#include <array>
#include <cstdint>
#include <iosfwd>
#include <map>

#include "foehn/mesh/tet_mesh.hpp"

namespace foehn {

struct MeshStatistics {
  std::size_t nodes = 0, tets = 0, boundary_faces = 0;
  std::map<std::int32_t, std::size_t> boundary_faces_by_tag;
  std::map<std::int32_t, double> boundary_area_by_tag;  // m^2
  Point3 bounding_min{}, bounding_max{};
  double total_volume = 0.0;     // sum of signed tet volumes, m^3
  double enclosed_volume = 0.0;  // divergence theorem over the boundary triangles, m^3
  double min_volume = 0.0, max_volume = 0.0;
  double min_edge = 0.0, max_edge = 0.0;
  // Mean-ratio quality 12 (3|V|)^(2/3) / sum(l^2): 1 for a regular tet, -> 0 when degenerate.
  double min_quality = 0.0, mean_quality = 0.0;
  // Dihedral angles (between the two faces at an edge), degrees: 70.53 in a regular tet; a
  // sliver has one near 0 and one near 180.
  double min_dihedral_degrees = 0.0, max_dihedral_degrees = 0.0;
  std::size_t surface_faces = 0;           // faces used by exactly one tet
  std::size_t untagged_surface_faces = 0;  // surface faces with no boundary triangle
};

// The mesh must be valid (validate_mesh) for the numbers to be meaningful.
MeshStatistics compute_statistics(const TetMesh& mesh);

// The smallest and largest dihedral angle of a tet, and of all tets of a mesh, degrees.
std::array<double, 2> dihedral_angle_range(const std::array<Point3, 4>& corners);
std::array<double, 2> dihedral_angle_range(const TetMesh& mesh);

void print_statistics(std::ostream& out, const MeshStatistics& stats);

}  // namespace foehn
