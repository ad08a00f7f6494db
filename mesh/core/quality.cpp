#include "foehn/mesh/quality.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <vector>

#include "foehn/mesh/geometry.hpp"
#include "foehn/mesh/statistics.hpp"
#include "foehn/runtime/error.hpp"

namespace foehn {

namespace {

// h_max / (2 sqrt(6) r_in) with r_in = 3|V| / S = |det| / sum|face cross products| (each face
// area is half its cross product, V = det / 6), i.e. h_max sum|cross| / (2 sqrt(6) |det|).
double tet_aspect_ratio(const std::array<Point3, 4>& p) {
  const Point3 e01 = p[1] - p[0], e02 = p[2] - p[0], e03 = p[3] - p[0];
  const Point3 e12 = p[2] - p[1], e13 = p[3] - p[1], e23 = p[3] - p[2];
  const double determinant = std::abs(dot(e01, cross(e02, e03)));
  if (determinant == 0.0) return std::numeric_limits<double>::infinity();
  const double longest_squared = std::max(
      {dot(e01, e01), dot(e02, e02), dot(e03, e03), dot(e12, e12), dot(e13, e13), dot(e23, e23)});
  const double face_sum =
      norm(cross(e01, e02)) + norm(cross(e01, e03)) + norm(cross(e02, e03)) + norm(cross(e12, e13));
  return std::sqrt(longest_squared) * face_sum / (2.0 * std::sqrt(6.0) * determinant);
}

// Nearest rank: the value of rank ceil(percent n / 100) of the n values in increasing order.
// Reorders `values` (nth_element: O(n)).
double nearest_rank_percentile(std::vector<double>& values, std::size_t percent) {
  const std::size_t rank = std::max<std::size_t>(1, (percent * values.size() + 99) / 100);
  const auto at = values.begin() + static_cast<std::ptrdiff_t>(rank - 1);
  std::nth_element(values.begin(), at, values.end());
  return *at;
}

// Unique edges as (smaller node << 32 | larger node), sorted.
std::vector<std::uint64_t> unique_edges(const TetMesh& mesh) {
  constexpr std::array<std::array<std::size_t, 2>, 6> tet_edges{
      {{0, 1}, {0, 2}, {0, 3}, {1, 2}, {1, 3}, {2, 3}}};
  std::vector<std::uint64_t> edges;
  edges.reserve(6 * mesh.tets.size());
  for (const Tet& tet : mesh.tets)
    for (const auto& [a, b] : tet_edges) {
      const auto [low, high] = std::minmax(tet[a], tet[b]);
      edges.push_back(static_cast<std::uint64_t>(low) << 32 | static_cast<std::uint32_t>(high));
    }
  std::sort(edges.begin(), edges.end());
  edges.erase(std::unique(edges.begin(), edges.end()), edges.end());
  return edges;
}

void check_bounds(EdgeBounds bounds) {
  if (!(bounds.shortest >= 0.0) || !(bounds.longest >= 0.0))
    fail(ErrorCategory::invalid_input, "mesh quality: edge bounds must be >= 0 m (0: none), got ",
         bounds.shortest, " m and ", bounds.longest, " m");
}

std::array<Point3, 4> corners_of(const TetMesh& mesh, std::size_t t) {
  std::array<Point3, 4> corners;
  for (std::size_t i = 0; i < 4; ++i) {
    const std::int32_t node = mesh.tets[t][i];
    if (node < 0 || static_cast<std::size_t>(node) >= mesh.nodes.size())
      fail(ErrorCategory::invalid_input, "mesh quality: tet ", t, " uses node ", node, " of ",
           mesh.nodes.size());
    corners[i] = mesh.nodes[static_cast<std::size_t>(node)];
    for (double c : corners[i])
      if (!std::isfinite(c))
        fail(ErrorCategory::invalid_input, "mesh quality: tet ", t, " has node ", node,
             " at a non-finite coordinate (", corners[i][0], ", ", corners[i][1], ", ",
             corners[i][2], ")");
  }
  return corners;
}

// 3 significant digits without trailing zeros (4.1, 19.8, 0.00123), whole numbers from 1000 up
// (9870, 24062: a length in metres reads better unrounded); exponent notation outside
// [1e-3, 1e6).
std::string significant(double value) {
  if (std::isinf(value)) return value > 0 ? "inf" : "-inf";
  if (std::isnan(value)) return "nan";
  if (value == 0.0) return "0";
  char text[64];
  const double magnitude = std::abs(value);
  if (magnitude < 1e-3 || magnitude >= 1e6) {
    std::snprintf(text, sizeof text, "%.3g", value);
    return text;
  }
  const int digits_before_point = static_cast<int>(std::floor(std::log10(magnitude))) + 1;
  std::snprintf(text, sizeof text, "%.*f", std::max(0, 3 - digits_before_point), value);
  std::string result = text;
  if (result.find('.') != std::string::npos) {
    result.erase(result.find_last_not_of('0') + 1);
    if (result.back() == '.') result.pop_back();
  }
  return result;
}

}  // namespace

MeshQuality mesh_quality(const TetMesh& mesh, EdgeBounds bounds) {
  check_bounds(bounds);
  if (mesh.tets.empty())
    fail(ErrorCategory::invalid_input, "mesh quality: the mesh has no tets (", mesh.nodes.size(),
         " nodes)");
  MeshQuality quality;
  quality.tets = mesh.tets.size();
  quality.min_dihedral_degrees = 180.0;
  quality.max_dihedral_degrees = 0.0;
  quality.worst_aspect_ratio = 0.0;
  {  // scoped: the per-tet values are freed before the edges are collected
    std::vector<double> smallest_dihedral(mesh.tets.size()), aspect_ratio(mesh.tets.size());
    for (std::size_t t = 0; t < mesh.tets.size(); ++t) {
      const std::array<Point3, 4> corners = corners_of(mesh, t);
      const std::array<double, 2> dihedral = dihedral_angle_range(corners);
      smallest_dihedral[t] = dihedral[0];
      aspect_ratio[t] = tet_aspect_ratio(corners);
      quality.min_dihedral_degrees = std::min(quality.min_dihedral_degrees, dihedral[0]);
      quality.max_dihedral_degrees = std::max(quality.max_dihedral_degrees, dihedral[1]);
      quality.worst_aspect_ratio = std::max(quality.worst_aspect_ratio, aspect_ratio[t]);
    }
    quality.dihedral_percentile_1_degrees = nearest_rank_percentile(smallest_dihedral, 1);
    quality.aspect_ratio_percentile_99 = nearest_rank_percentile(aspect_ratio, 99);
  }

  const std::vector<std::uint64_t> edges = unique_edges(mesh);
  quality.edges = edges.size();
  quality.shortest_edge = std::numeric_limits<double>::infinity();
  for (const std::uint64_t edge : edges) {
    const double length = norm(mesh.nodes[edge >> 32] - mesh.nodes[edge & 0xffffffffu]);
    quality.shortest_edge = std::min(quality.shortest_edge, length);
    quality.longest_edge = std::max(quality.longest_edge, length);
    if (bounds.shortest > 0.0 && length < bounds.shortest) ++quality.edges_below;
    if (bounds.longest > 0.0 && length > bounds.longest) ++quality.edges_above;
  }
  return quality;
}

std::string describe(const MeshQuality& q, EdgeBounds bounds) {
  std::string line = "min dihedral " + significant(q.min_dihedral_degrees) +
                     " deg (1st percentile " + significant(q.dihedral_percentile_1_degrees) +
                     "), worst aspect ratio " + significant(q.worst_aspect_ratio) +
                     " (99th percentile " + significant(q.aspect_ratio_percentile_99) +
                     "), edges " + significant(q.shortest_edge) + " m .. " +
                     significant(q.longest_edge) + " m";
  std::string counts;
  if (bounds.shortest > 0.0)
    counts = std::to_string(q.edges_below) + " below " + significant(bounds.shortest) + " m";
  if (bounds.longest > 0.0)
    counts += (counts.empty() ? "" : ", ") + std::to_string(q.edges_above) + " above " +
              significant(bounds.longest) + " m";
  if (!counts.empty()) line += " (" + counts + ")";
  return line;
}

}  // namespace foehn
