#include "foehn/mesh/validate.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <sstream>

#include "foehn/mesh/geometry.hpp"
#include "foehn/mesh/topology.hpp"
#include "foehn/runtime/error.hpp"

namespace foehn {

std::string_view to_string(MeshProblem problem) {
  switch (problem) {
    case MeshProblem::inconsistent_sizes: return "inconsistent array sizes";
    case MeshProblem::node_index_out_of_range: return "node index out of range";
    case MeshProblem::repeated_node_in_element: return "repeated node in an element";
    case MeshProblem::non_finite_coordinate: return "NaN or Inf coordinate";
    case MeshProblem::degenerate_element: return "degenerate (zero-volume) tetrahedron";
    case MeshProblem::inverted_element: return "inverted (negative-volume) tetrahedron";
    case MeshProblem::duplicate_element: return "duplicate tetrahedron";
    case MeshProblem::unused_node: return "node used by no tetrahedron";
    case MeshProblem::non_manifold_face: return "face shared by more than two tetrahedra";
    case MeshProblem::non_manifold_boundary: return "non-manifold boundary edge";
    case MeshProblem::boundary_face_not_on_surface: return "boundary triangle not on the mesh surface";
    case MeshProblem::inward_boundary_face: return "boundary triangle oriented inward";
  }
  return "unknown problem";
}

namespace {

// Collects findings: counts every occurrence, remembers the first.
class FindingLog {
 public:
  template <typename... Parts>
  void add(MeshProblem problem, std::size_t index, Parts&&... detail) {
    add_many(problem, 1, index, std::forward<Parts>(detail)...);
  }
  // `occurrences` items share the problem; `index` and the detail describe the first.
  template <typename... Parts>
  void add_many(MeshProblem problem, std::size_t occurrences, std::size_t index,
                Parts&&... detail) {
    auto [it, inserted] = by_problem_.try_emplace(problem, MeshFinding{problem, 0, 0, {}});
    if (inserted) {
      it->second.first = index;
      it->second.first_detail = detail::concat(std::forward<Parts>(detail)...);
      order_.push_back(problem);
    }
    it->second.count += occurrences;
  }
  bool has(MeshProblem problem) const { return by_problem_.count(problem) != 0; }
  std::vector<MeshFinding> take() {
    std::vector<MeshFinding> findings;
    for (MeshProblem p : order_) findings.push_back(by_problem_.at(p));
    return findings;
  }

 private:
  std::map<MeshProblem, MeshFinding> by_problem_;
  std::vector<MeshProblem> order_;
};

template <std::size_t N>
bool indices_valid(const std::array<std::int32_t, N>& item, std::size_t node_count) {
  for (std::int32_t n : item)
    if (n < 0 || static_cast<std::size_t>(n) >= node_count) return false;
  return true;
}

template <std::size_t N>
bool has_repeated_node(std::array<std::int32_t, N> item) {
  std::sort(item.begin(), item.end());
  return std::adjacent_find(item.begin(), item.end()) != item.end();
}

void check_sizes(const TetMesh& mesh, FindingLog& log) {
  if (!mesh.tet_tags.empty() && mesh.tet_tags.size() != mesh.tets.size())
    log.add(MeshProblem::inconsistent_sizes, 0, mesh.tet_tags.size(), " tet tags for ",
            mesh.tets.size(), " tets");
  if (mesh.boundary_tags.size() != mesh.boundary_faces.size())
    log.add(MeshProblem::inconsistent_sizes, 0, mesh.boundary_tags.size(),
            " boundary tags for ", mesh.boundary_faces.size(), " boundary triangles");
  auto check_fields = [&](const std::vector<MeshField>& fields, std::size_t entities,
                          const char* kind) {
    for (const MeshField& field : fields) {
      if (field.components < 1 ||
          field.values.size() != entities * static_cast<std::size_t>(field.components))
        log.add(MeshProblem::inconsistent_sizes, 0, kind, " field '", field.name, "' has ",
                field.values.size(), " values for ", entities, " entities x ", field.components,
                " components");
    }
  };
  check_fields(mesh.node_fields, mesh.nodes.size(), "node");
  check_fields(mesh.tet_fields, mesh.tets.size(), "tet");
}

bool check_indices(const TetMesh& mesh, FindingLog& log) {
  bool all_valid = true;
  for (std::size_t t = 0; t < mesh.tets.size(); ++t) {
    const Tet& tet = mesh.tets[t];
    if (!indices_valid(tet, mesh.nodes.size())) {
      all_valid = false;
      log.add(MeshProblem::node_index_out_of_range, t, "tet ", t, " has nodes (", tet[0], ", ",
              tet[1], ", ", tet[2], ", ", tet[3], ") but the mesh has ", mesh.nodes.size(),
              " nodes");
    } else if (has_repeated_node(tet)) {
      all_valid = false;
      log.add(MeshProblem::repeated_node_in_element, t, "tet ", t, " has nodes (", tet[0], ", ",
              tet[1], ", ", tet[2], ", ", tet[3], ")");
    }
  }
  for (std::size_t f = 0; f < mesh.boundary_faces.size(); ++f) {
    const Triangle& tri = mesh.boundary_faces[f];
    if (!indices_valid(tri, mesh.nodes.size())) {
      all_valid = false;
      log.add(MeshProblem::node_index_out_of_range, f, "boundary triangle ", f, " has nodes (",
              tri[0], ", ", tri[1], ", ", tri[2], ") but the mesh has ", mesh.nodes.size(),
              " nodes");
    } else if (has_repeated_node(tri)) {
      all_valid = false;
      log.add(MeshProblem::repeated_node_in_element, f, "boundary triangle ", f, " has nodes (",
              tri[0], ", ", tri[1], ", ", tri[2], ")");
    }
  }
  return all_valid;
}

bool check_coordinates(const TetMesh& mesh, FindingLog& log) {
  bool finite = true;
  for (std::size_t n = 0; n < mesh.nodes.size(); ++n) {
    const Point3& p = mesh.nodes[n];
    if (!std::isfinite(p[0]) || !std::isfinite(p[1]) || !std::isfinite(p[2])) {
      finite = false;
      log.add(MeshProblem::non_finite_coordinate, n, "node ", n, " at (", p[0], ", ", p[1], ", ",
              p[2], ")");
    }
  }
  return finite;
}

double longest_edge(const TetMesh& mesh, const Tet& tet) {
  double longest = 0.0;
  for (int i = 0; i < 4; ++i)
    for (int j = i + 1; j < 4; ++j)
      longest = std::max(longest, norm(mesh.nodes[tet[j]] - mesh.nodes[tet[i]]));
  return longest;
}

void check_volumes(TetMesh& mesh, const MeshCheckOptions& options, FindingLog& log,
                   MeshCheckResult& result) {
  for (std::size_t t = 0; t < mesh.tets.size(); ++t) {
    Tet& tet = mesh.tets[t];
    const double volume = signed_volume(mesh, tet);
    const double edge = longest_edge(mesh, tet);
    if (6.0 * std::abs(volume) <= options.degenerate_tolerance * edge * edge * edge) {
      log.add(MeshProblem::degenerate_element, t, "tet ", t, ": volume ", volume,
              " m^3 with longest edge ", edge, " m");
    } else if (volume < 0.0) {
      if (options.fix_orientation) {
        std::swap(tet[2], tet[3]);
        ++result.flipped_tets;
      } else {
        log.add(MeshProblem::inverted_element, t, "tet ", t, ": volume ", volume, " m^3");
      }
    }
  }
}

void check_duplicates_and_usage(const TetMesh& mesh, const MeshCheckOptions& options,
                                FindingLog& log) {
  std::vector<std::pair<Tet, std::int32_t>> sorted;
  sorted.reserve(mesh.tets.size());
  std::vector<char> used(mesh.nodes.size(), 0);
  for (std::size_t t = 0; t < mesh.tets.size(); ++t) {
    Tet key = mesh.tets[t];
    for (std::int32_t n : key) used[n] = 1;
    std::sort(key.begin(), key.end());
    sorted.emplace_back(key, static_cast<std::int32_t>(t));
  }
  std::sort(sorted.begin(), sorted.end());
  for (std::size_t i = 1; i < sorted.size(); ++i) {
    if (sorted[i].first == sorted[i - 1].first)
      log.add(MeshProblem::duplicate_element, sorted[i].second, "tet ", sorted[i].second,
              " repeats tet ", sorted[i - 1].second);
  }
  if (!options.allow_unused_nodes) {
    for (std::size_t n = 0; n < used.size(); ++n)
      if (!used[n]) log.add(MeshProblem::unused_node, n, "node ", n);
  }
}

// Surface checks need valid indices and positive orientation.
void check_surface(TetMesh& mesh, const MeshCheckOptions& options, FindingLog& log,
                   MeshCheckResult& result) {
  const FaceTopology topology = build_face_topology(mesh);
  if (topology.overshared_face_count > 0)
    log.add_many(MeshProblem::non_manifold_face, topology.overshared_face_count,
                 static_cast<std::size_t>(topology.first_overshared_tet), "a face of tet ",
                 topology.first_overshared_tet, " is shared by 3 or more tets");

  // Every surface edge must be used by exactly two surface faces.
  std::vector<std::pair<std::int32_t, std::int32_t>> edges;
  edges.reserve(topology.surface.size() * 3);
  for (const SurfaceFace& face : topology.surface)
    for (int e = 0; e < 3; ++e) {
      std::int32_t a = face.nodes[e], b = face.nodes[(e + 1) % 3];
      edges.emplace_back(std::min(a, b), std::max(a, b));
    }
  std::sort(edges.begin(), edges.end());
  for (std::size_t begin = 0; begin < edges.size();) {
    std::size_t end = begin + 1;
    while (end < edges.size() && edges[end] == edges[begin]) ++end;
    if (end - begin != 2)
      log.add(MeshProblem::non_manifold_boundary, static_cast<std::size_t>(edges[begin].first),
              "surface edge (", edges[begin].first, ", ", edges[begin].second, ") is used by ",
              end - begin, " surface triangles");
    begin = end;
  }

  // Each given boundary triangle must be a surface face, oriented outward.
  std::vector<std::pair<Triangle, std::size_t>> surface_keys;
  surface_keys.reserve(topology.surface.size());
  for (std::size_t s = 0; s < topology.surface.size(); ++s)
    surface_keys.emplace_back(sorted_triangle(topology.surface[s].nodes), s);
  std::sort(surface_keys.begin(), surface_keys.end());
  for (std::size_t f = 0; f < mesh.boundary_faces.size(); ++f) {
    Triangle& tri = mesh.boundary_faces[f];
    const Triangle key = sorted_triangle(tri);
    auto it = std::lower_bound(surface_keys.begin(), surface_keys.end(),
                               std::make_pair(key, std::size_t{0}));
    if (it == surface_keys.end() || it->first != key) {
      log.add(MeshProblem::boundary_face_not_on_surface, f, "boundary triangle ", f, " (", tri[0],
              ", ", tri[1], ", ", tri[2], ")");
      continue;
    }
    const SurfaceFace& owner = topology.surface[it->second];
    const double side = signed_volume(mesh.nodes[tri[0]], mesh.nodes[tri[1]], mesh.nodes[tri[2]],
                                      mesh.nodes[owner.opposite]);
    if (side > 0.0) {  // the owning tet's far node lies on the normal's side: normal points in
      if (options.fix_orientation) {
        std::swap(tri[1], tri[2]);
        ++result.flipped_boundary_faces;
      } else {
        log.add(MeshProblem::inward_boundary_face, f, "boundary triangle ", f,
                " points into tet ", owner.tet);
      }
    }
  }
}

}  // namespace

std::string MeshCheckResult::summary() const {
  if (findings.empty()) return "mesh is valid";
  std::ostringstream out;
  for (std::size_t i = 0; i < findings.size(); ++i) {
    const MeshFinding& f = findings[i];
    if (i) out << "; ";
    out << f.count << " x " << to_string(f.problem);
    if (!f.first_detail.empty()) out << " (first: " << f.first_detail << ")";
  }
  return out.str();
}

MeshCheckResult check_mesh(TetMesh& mesh, const MeshCheckOptions& options) {
  MeshCheckResult result;
  FindingLog log;
  check_sizes(mesh, log);
  const bool indices_ok = check_indices(mesh, log);
  const bool coordinates_ok = check_coordinates(mesh, log);
  if (indices_ok) check_duplicates_and_usage(mesh, options, log);
  if (indices_ok && coordinates_ok) {
    check_volumes(mesh, options, log, result);
    const bool orientation_ok = !log.has(MeshProblem::inverted_element) &&
                                !log.has(MeshProblem::degenerate_element);
    if (orientation_ok) check_surface(mesh, options, log, result);
  }
  result.findings = log.take();
  return result;
}

void validate_mesh(TetMesh& mesh, std::string_view mesh_name, const MeshCheckOptions& options) {
  MeshCheckResult result = check_mesh(mesh, options);
  if (!result.ok())
    fail(ErrorCategory::invalid_input, "mesh '", mesh_name, "' is not valid: ", result.summary());
}

}  // namespace foehn
