#include "foehn/mesh/statistics.hpp"

#include <algorithm>
#include <cmath>
#include <iomanip>
#include <limits>
#include <ostream>

#include "foehn/mesh/geometry.hpp"
#include "foehn/mesh/topology.hpp"

namespace foehn {

namespace {

double mean_ratio_quality(const std::array<Point3, 4>& p, double volume) {
  double sum_squared_edges = 0.0;
  for (int i = 0; i < 4; ++i)
    for (int j = i + 1; j < 4; ++j) {
      const Point3 e = p[j] - p[i];
      sum_squared_edges += dot(e, e);
    }
  return 12.0 * std::cbrt(9.0 * volume * volume) / sum_squared_edges;
}

}  // namespace

std::array<double, 2> dihedral_angle_range(const std::array<Point3, 4>& p) {
  // Face i is opposite corner i; its normal points away from corner i (outward). Faces i and j
  // meet at the edge of the other two corners, at the angle pi - angle(n_i, n_j).
  std::array<Point3, 4> normal;
  for (int i = 0; i < 4; ++i) {
    const Point3& a = p[(i + 1) % 4];
    const Point3& b = p[(i + 2) % 4];
    const Point3& c = p[(i + 3) % 4];
    Point3 n = cross(b - a, c - a);
    if (dot(n, p[i] - a) > 0.0) n = Point3{-n[0], -n[1], -n[2]};
    const double length = norm(n);
    normal[i] = length > 0.0 ? Point3{n[0] / length, n[1] / length, n[2] / length} : n;
  }
  constexpr double degrees = 180.0 / 3.14159265358979323846;
  std::array<double, 2> range{180.0, 0.0};
  for (int i = 0; i < 4; ++i)
    for (int j = i + 1; j < 4; ++j) {
      const double angle = degrees * (3.14159265358979323846 -
                                      std::acos(std::clamp(dot(normal[i], normal[j]), -1.0, 1.0)));
      range[0] = std::min(range[0], angle);
      range[1] = std::max(range[1], angle);
    }
  return range;
}

std::array<double, 2> dihedral_angle_range(const TetMesh& mesh) {
  std::array<double, 2> range{180.0, 0.0};
  for (const Tet& tet : mesh.tets) {
    const std::array<double, 2> one = dihedral_angle_range(
        {mesh.nodes[tet[0]], mesh.nodes[tet[1]], mesh.nodes[tet[2]], mesh.nodes[tet[3]]});
    range[0] = std::min(range[0], one[0]);
    range[1] = std::max(range[1], one[1]);
  }
  return range;
}

MeshStatistics compute_statistics(const TetMesh& mesh) {
  MeshStatistics stats;
  stats.nodes = mesh.nodes.size();
  stats.tets = mesh.tets.size();
  stats.boundary_faces = mesh.boundary_faces.size();
  if (mesh.nodes.empty()) return stats;

  stats.bounding_min = stats.bounding_max = mesh.nodes.front();
  for (const Point3& p : mesh.nodes)
    for (int d = 0; d < 3; ++d) {
      stats.bounding_min[d] = std::min(stats.bounding_min[d], p[d]);
      stats.bounding_max[d] = std::max(stats.bounding_max[d], p[d]);
    }
  // Volumes by the divergence theorem are summed relative to the box centre: it keeps the
  // terms small and the sum accurate to round-off even for kilometre-sized coordinates.
  Point3 centre{};
  for (int d = 0; d < 3; ++d) centre[d] = 0.5 * (stats.bounding_min[d] + stats.bounding_max[d]);

  stats.min_volume = stats.min_edge = stats.min_quality = std::numeric_limits<double>::max();
  stats.max_volume = stats.max_edge = 0.0;
  double quality_sum = 0.0;
  for (const Tet& tet : mesh.tets) {
    std::array<Point3, 4> p;
    for (int i = 0; i < 4; ++i) p[i] = mesh.nodes[tet[i]] - centre;
    const double volume = signed_volume(p[0], p[1], p[2], p[3]);
    stats.total_volume += volume;
    stats.min_volume = std::min(stats.min_volume, volume);
    stats.max_volume = std::max(stats.max_volume, volume);
    for (int i = 0; i < 4; ++i)
      for (int j = i + 1; j < 4; ++j) {
        const double length = norm(p[j] - p[i]);
        stats.min_edge = std::min(stats.min_edge, length);
        stats.max_edge = std::max(stats.max_edge, length);
      }
    const double quality = mean_ratio_quality(p, volume);
    stats.min_quality = std::min(stats.min_quality, quality);
    quality_sum += quality;
  }
  if (!mesh.tets.empty()) stats.mean_quality = quality_sum / static_cast<double>(mesh.tets.size());
  const std::array<double, 2> dihedral = dihedral_angle_range(mesh);
  stats.min_dihedral_degrees = dihedral[0];
  stats.max_dihedral_degrees = dihedral[1];

  for (std::size_t f = 0; f < mesh.boundary_faces.size(); ++f) {
    const Triangle& tri = mesh.boundary_faces[f];
    const Point3 a = mesh.nodes[tri[0]] - centre, b = mesh.nodes[tri[1]] - centre,
                 c = mesh.nodes[tri[2]] - centre;
    stats.enclosed_volume += enclosed_volume_term(a, b, c);
    const std::int32_t tag = f < mesh.boundary_tags.size() ? mesh.boundary_tags[f] : 0;
    ++stats.boundary_faces_by_tag[tag];
    stats.boundary_area_by_tag[tag] += 0.5 * norm(cross(b - a, c - a));
  }

  const FaceTopology topology = build_face_topology(mesh);
  stats.surface_faces = topology.surface.size();
  std::vector<Triangle> tagged;
  tagged.reserve(mesh.boundary_faces.size());
  for (const Triangle& tri : mesh.boundary_faces) tagged.push_back(sorted_triangle(tri));
  std::sort(tagged.begin(), tagged.end());
  for (const SurfaceFace& face : topology.surface)
    if (!std::binary_search(tagged.begin(), tagged.end(), sorted_triangle(face.nodes)))
      ++stats.untagged_surface_faces;
  return stats;
}

void print_statistics(std::ostream& out, const MeshStatistics& s) {
  const auto flags = out.flags();
  const auto precision = out.precision();
  out << "nodes                " << s.nodes << "\n"
      << "tetrahedra           " << s.tets << "\n"
      << "boundary triangles   " << s.boundary_faces << " (surface faces " << s.surface_faces
      << ", untagged " << s.untagged_surface_faces << ")\n";
  for (const auto& [tag, count] : s.boundary_faces_by_tag)
    out << "  tag " << std::setw(3) << tag << "            " << count << " triangles, area "
        << std::setprecision(6) << s.boundary_area_by_tag.at(tag) << " m^2\n";
  out << std::setprecision(6) << "bounding box         [" << s.bounding_min[0] << ", "
      << s.bounding_max[0] << "] x [" << s.bounding_min[1] << ", " << s.bounding_max[1] << "] x ["
      << s.bounding_min[2] << ", " << s.bounding_max[2] << "] m\n"
      << std::setprecision(15) << "volume (tets)        " << s.total_volume << " m^3\n"
      << "volume (boundary)    " << s.enclosed_volume << " m^3\n"
      << std::setprecision(6);
  if (s.total_volume != 0.0)
    out << "relative difference  "
        << std::abs(s.total_volume - s.enclosed_volume) / std::abs(s.total_volume) << "\n";
  out << "tet volume           min " << s.min_volume << ", max " << s.max_volume << " m^3\n"
      << "edge length          min " << s.min_edge << ", max " << s.max_edge << " m\n"
      << "quality (mean ratio) min " << s.min_quality << ", mean " << s.mean_quality << "\n"
      << "dihedral angle       min " << s.min_dihedral_degrees << ", max " << s.max_dihedral_degrees
      << " degrees\n";
  out.flags(flags);
  out.precision(precision);
}

}  // namespace foehn
