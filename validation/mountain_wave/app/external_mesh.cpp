#include "external_mesh.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <utility>

#include "foehn/mesh/mesh_files.hpp"
#include "foehn/mesh/topology.hpp"
#include "foehn/mesh/validate.hpp"
#include "foehn/runtime/error.hpp"

namespace foehn::mountainwave {

namespace {

std::string quoted(const std::filesystem::path& file) {
  std::string text = "'";  // not "'" + string: GCC 12 warns falsely (-Wrestrict)
  return text.append(file.string()).append("'");
}

std::string describe_point(const Point3& p) {
  return detail::concat("(", p[0], ", ", p[1], ", ", p[2], ")");
}

// The domain's sides, within `tolerance` metres.
struct DomainSides {
  const MountainMeshOptions& domain;
  double tolerance;

  bool near(double a, double b) const { return std::fabs(a - b) <= tolerance; }
  bool on_terrain(const Point3& p) const {
    return near(p[2], mountain_surface_height(domain, p[0], p[1]));
  }
  bool on_side(std::int32_t side, const Point3& p) const {
    switch (side) {
      case boundary_inflow:
        return near(p[0], -0.5 * domain.length_x);
      case boundary_outflow:
        return near(p[0], 0.5 * domain.length_x);
      case boundary_lateral:
        return near(p[1], -0.5 * domain.length_y) || near(p[1], 0.5 * domain.length_y);
      case boundary_top:
        return near(p[2], domain.height);
      default:
        return on_terrain(p);
    }
  }
  // The tag of a surface face from its three corners: the first side all three lie on (a face
  // at an edge of the box has corners on two sides), terrain last; 0 when none.
  std::int32_t tag_of(const std::array<Point3, 3>& corners) const {
    for (const std::int32_t side :
         {boundary_inflow, boundary_outflow, boundary_lateral, boundary_top, boundary_terrain})
      if (std::all_of(corners.begin(), corners.end(),
                      [&](const Point3& p) { return on_side(side, p); }))
        return side;
    return 0;
  }
};

std::string side_name(std::int32_t tag) {
  switch (tag) {
    case boundary_terrain:
      return "terrain";
    case boundary_top:
      return "top, z = height";
    case boundary_inflow:
      return "inflow, x = -length_x/2";
    case boundary_outflow:
      return "outflow, x = +length_x/2";
    case boundary_lateral:
      return "lateral, y = +-length_y/2";
    default:
      return "unknown";
  }
}

void check_bounding_box(const TetMesh& mesh, const DomainSides& sides,
                        const std::filesystem::path& file) {
  Point3 low = mesh.nodes.front(), high = mesh.nodes.front();
  for (const Point3& p : mesh.nodes)
    for (int d = 0; d < 3; ++d) {
      low[d] = std::min(low[d], p[d]);
      high[d] = std::max(high[d], p[d]);
    }
  const MountainMeshOptions& d = sides.domain;
  const bool fits =
      sides.near(low[0], -0.5 * d.length_x) && sides.near(high[0], 0.5 * d.length_x) &&
      sides.near(low[1], -0.5 * d.length_y) && sides.near(high[1], 0.5 * d.length_y) &&
      sides.near(high[2], d.height) && low[2] >= -sides.tolerance;
  if (!fits)
    fail(ErrorCategory::invalid_input, quoted(file), ": spans ", describe_point(low), " to ",
         describe_point(high), " m, not the Mountainwave3D domain [", -0.5 * d.length_x, ", ",
         0.5 * d.length_x, "] x [", -0.5 * d.length_y, ", ", 0.5 * d.length_y, "] x [terrain, ",
         d.height,
         "] (the mountain-wave core's domain is fixed; "
         "-mountain_height and -mountain_half_width describe its terrain)");
}

// The file's boundary triangles, by sorted corners -> tag, when they tag the whole surface
// with 1..5; empty otherwise.
std::map<Triangle, std::int32_t> usable_file_tags(const TetMesh& mesh,
                                                  const std::vector<SurfaceFace>& surface) {
  std::map<Triangle, std::int32_t> tags;
  for (std::size_t f = 0; f < mesh.boundary_faces.size(); ++f) {
    const std::int32_t tag = f < mesh.boundary_tags.size() ? mesh.boundary_tags[f] : 0;
    if (tag < boundary_terrain || tag > boundary_lateral) return {};
    tags.emplace(sorted_triangle(mesh.boundary_faces[f]), tag);
  }
  for (const SurfaceFace& face : surface)
    if (tags.find(sorted_triangle(face.nodes)) == tags.end()) return {};
  return tags;
}

}  // namespace

ExternalMesh read_external_mountain_mesh(const std::filesystem::path& file,
                                         const MountainMeshOptions& domain) {
  ExternalMesh result;
  TetMesh& mesh = result.mesh;
  mesh = read_mesh_file(file);
  if (mesh.tets.empty()) fail(ErrorCategory::invalid_input, quoted(file), ": holds no tetrahedra");
  const double size = std::max({domain.length_x, domain.length_y, domain.height});
  const DomainSides sides{domain, 1e-6 * size};
  check_bounding_box(mesh, sides, file);

  // The surface from the tets themselves (outward for positively oriented tets); the file's
  // triangles only lend their tags. Checked after: inverted tets would give inward faces.
  const FaceTopology topology = build_face_topology(mesh);
  const std::map<Triangle, std::int32_t> file_tags = usable_file_tags(mesh, topology.surface);
  result.tag_source = file_tags.empty() ? "the geometry" : "the file's tags";
  std::vector<Triangle> faces;
  std::vector<std::int32_t> tags;
  faces.reserve(topology.surface.size());
  tags.reserve(topology.surface.size());
  for (std::size_t f = 0; f < topology.surface.size(); ++f) {
    const Triangle& nodes = topology.surface[f].nodes;
    std::int32_t tag = 0;
    if (!file_tags.empty()) {
      tag = file_tags.at(sorted_triangle(nodes));
      // The tags decide the boundary conditions: a file whose terrain and top tags are swapped
      // once ran (the terrain's condition at the top, the top's at the ground). A face tagged with
      // a side of the box must lie on it; one tagged terrain on no side of the box.
      const std::array<Point3, 3> corners{mesh.nodes[nodes[0]], mesh.nodes[nodes[1]],
                                          mesh.nodes[nodes[2]]};
      const bool on_its_side =
          tag == boundary_terrain
              ? sides.tag_of(corners) == boundary_terrain || sides.tag_of(corners) == 0
              : std::all_of(corners.begin(), corners.end(),
                            [&](const Point3& p) { return sides.on_side(tag, p); });
      if (!on_its_side)
        fail(ErrorCategory::invalid_input, quoted(file), ": boundary triangle with corners ",
             describe_point(corners[0]), ", ", describe_point(corners[1]), ", ",
             describe_point(corners[2]), " has tag ", tag, " (", side_name(tag), ") but lies ",
             sides.tag_of(corners) == 0 ? std::string("on no side of the domain")
                                        : "on the " + side_name(sides.tag_of(corners)),
             " (tags: terrain 1, top 2, inflow 3, outflow 4, lateral 5)");
    } else {
      tag = sides.tag_of({mesh.nodes[nodes[0]], mesh.nodes[nodes[1]], mesh.nodes[nodes[2]]});
      if (tag == 0)
        fail(ErrorCategory::invalid_input, quoted(file), ": surface face ", f, " with corners ",
             describe_point(mesh.nodes[nodes[0]]), ", ", describe_point(mesh.nodes[nodes[1]]), ", ",
             describe_point(mesh.nodes[nodes[2]]),
             " lies on no side of the domain (x = +-length_x/2, y = +-length_y/2, z = height) "
             "and not on the terrain h(x, y) of -mountain_height ",
             domain.mountain_height, " and -mountain_half_width ", domain.mountain_half_width,
             " (or give boundary triangles with tags 1..5 for the whole surface)");
    }
    faces.push_back(nodes);
    tags.push_back(tag);
  }
  mesh.boundary_faces = std::move(faces);
  mesh.boundary_tags = std::move(tags);
  validate_mesh(mesh, quoted(file));
  return result;
}

}  // namespace foehn::mountainwave
