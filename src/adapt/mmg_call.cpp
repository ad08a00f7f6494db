#include "mmg_call.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "foehn/mesh/validate.hpp"
#include "foehn/runtime/error.hpp"

#if FOEHN_HAVE_MMG
#include <mmg/mmg3d/libmmg3d.h>
#endif

namespace foehn::adapt::detail {

KeepSignalHandlers::KeepSignalHandlers() {
  for (std::size_t k = 0; k < signals_.size(); ++k) sigaction(signals_[k], nullptr, &saved_[k]);
}

KeepSignalHandlers::~KeepSignalHandlers() {
  for (std::size_t k = 0; k < signals_.size(); ++k) sigaction(signals_[k], &saved_[k], nullptr);
}

double whole_mesh_megabytes(double nodes) {
  return 1024.0 + nodes * 8e3 / (1024.0 * 1024.0);
}

double part_megabytes(const TetMesh& part, double predicted_nodes) {
  const double nodes = static_cast<double>(part.nodes.size());
  const double tets = static_cast<double>(part.tets.size());
  const double room = 2 * std::max(nodes, predicted_nodes) + 0.5 * tets;
  // Mmg's own count: 2 x room x ~1 kB of arrays and tables, the mesh as given, a margin.
  return 64.0 + (2 * room * 1000.0 + 500.0 * nodes + 150.0 * tets) / 1e6;
}

double longest_bounding_side(const TetMesh& mesh) {
  if (mesh.nodes.empty()) return 0;
  Point3 low = mesh.nodes[0], high = low;
  for (const Point3& p : mesh.nodes)
    for (int c = 0; c < 3; ++c) {
      low[c] = std::min(low[c], p[c]);
      high[c] = std::max(high[c], p[c]);
    }
  return std::max({high[0] - low[0], high[1] - low[1], high[2] - low[2]});
}

#if FOEHN_HAVE_MMG

namespace {

// The coordinates of the nodes of every boundary triangle with its tag, sorted: two meshes
// whose lists are equal have the same boundary, whatever their numbering.
std::vector<std::array<double, 10>> boundary_signature(const TetMesh& mesh) {
  std::vector<std::array<double, 10>> faces(mesh.boundary_faces.size());
  for (std::size_t f = 0; f < faces.size(); ++f) {
    std::array<Point3, 3> corners;
    for (int k = 0; k < 3; ++k) corners[k] = mesh.nodes[mesh.boundary_faces[f][k]];
    std::sort(corners.begin(), corners.end());
    faces[f][0] = mesh.boundary_tags[f];
    for (int k = 0; k < 3; ++k)
      for (int c = 0; c < 3; ++c) faces[f][1 + 3 * k + c] = corners[k][c];
  }
  std::sort(faces.begin(), faces.end());
  return faces;
}

std::vector<std::int32_t> nodes_of_faces(const TetMesh& mesh) {
  std::vector<std::int32_t> nodes;
  nodes.reserve(3 * mesh.boundary_faces.size());
  for (const Triangle& face : mesh.boundary_faces)
    nodes.insert(nodes.end(), face.begin(), face.end());
  std::sort(nodes.begin(), nodes.end());
  nodes.erase(std::unique(nodes.begin(), nodes.end()), nodes.end());
  return nodes;
}

// Mmg scales the mesh into the unit cube and back, which moves every node by round-off. The
// kept boundary's nodes get their coordinates back exactly (the terrain and the interfaces
// between parts stay bitwise the same): each is matched to the old boundary node within a
// millionth of the mesh's size. Returns, per new node, the old node it is (-1: a new one).
std::vector<std::int32_t> restore_boundary_coordinates(TetMesh& adapted, const TetMesh& original) {
  const std::vector<std::int32_t> old_nodes = nodes_of_faces(original);
  const std::vector<std::int32_t> new_nodes = nodes_of_faces(adapted);
  if (old_nodes.size() != new_nodes.size())
    fail(ErrorCategory::internal, "adapt::remesh: Mmg returned ", new_nodes.size(),
         " boundary nodes for ", old_nodes.size(), " kept ones");
  Point3 low = original.nodes[0];
  for (const Point3& p : original.nodes)
    for (int c = 0; c < 3; ++c) low[c] = std::min(low[c], p[c]);
  const double cell = 1e-6 * longest_bounding_side(original);
  using Key = std::array<std::int64_t, 3>;
  const auto key_of = [&](const Point3& p) {
    return Key{static_cast<std::int64_t>(std::floor((p[0] - low[0]) / cell)),
               static_cast<std::int64_t>(std::floor((p[1] - low[1]) / cell)),
               static_cast<std::int64_t>(std::floor((p[2] - low[2]) / cell))};
  };
  std::vector<std::pair<Key, std::int32_t>> old_keys;
  old_keys.reserve(old_nodes.size());
  for (const std::int32_t n : old_nodes) old_keys.emplace_back(key_of(original.nodes[n]), n);
  std::sort(old_keys.begin(), old_keys.end());
  std::vector<std::int32_t> kept(adapted.nodes.size(), -1);
  for (const std::int32_t n : new_nodes) {
    Point3& p = adapted.nodes[static_cast<std::size_t>(n)];
    const Key key = key_of(p);
    std::int32_t match = -1;
    double closest = cell;
    for (std::int64_t dx = -1; dx <= 1; ++dx)
      for (std::int64_t dy = -1; dy <= 1; ++dy)
        for (std::int64_t dz = -1; dz <= 1; ++dz) {
          const Key near{key[0] + dx, key[1] + dy, key[2] + dz};
          auto it = std::lower_bound(old_keys.begin(), old_keys.end(),
                                     std::pair<Key, std::int32_t>{near, -1});
          for (; it != old_keys.end() && it->first == near; ++it) {
            const Point3& q = original.nodes[static_cast<std::size_t>(it->second)];
            const double d =
                std::max({std::fabs(p[0] - q[0]), std::fabs(p[1] - q[1]), std::fabs(p[2] - q[2])});
            if (d <= closest) {
              closest = d;
              match = it->second;
            }
          }
        }
    if (match < 0)
      fail(ErrorCategory::internal, "adapt::remesh: Mmg moved boundary node (", p[0], ", ", p[1],
           ", ", p[2], ") although the boundary was to be kept");
    p = original.nodes[static_cast<std::size_t>(match)];
    kept[static_cast<std::size_t>(n)] = match;
  }
  return kept;
}

// Mmg's mesh is checked as any mesh Foehn reads: no inverted or degenerate tet, manifold, every
// boundary triangle a face of the surface. Boundary triangles pointing inwards are turned. A
// kept boundary gets its exact coordinates back first and must then be the old one.
//
// A part of a mesh (remesh_in_parallel) may touch itself along an edge of its surface, where
// four of its surface triangles meet: such non-manifold surface edges are kept as they are, and
// the merged mesh is checked whole instead.
void check_remeshed(TetMesh& adapted, const TetMesh& original, const RemeshOptions& options,
                    bool part_of_a_mesh) {
  const auto acceptable = [&](const MeshCheckResult& check, bool orientation_too) {
    return std::all_of(check.findings.begin(), check.findings.end(), [&](const MeshFinding& f) {
      return (orientation_too && f.problem == MeshProblem::inward_boundary_face) ||
             (part_of_a_mesh && f.problem == MeshProblem::non_manifold_boundary);
    });
  };
  MeshCheckResult check = check_mesh(adapted);
  if (!acceptable(check, true))
    fail(ErrorCategory::internal,
         "adapt::remesh: Mmg returned a mesh that fails the checks: ", check.summary());
  if (!acceptable(check, false)) {
    MeshCheckOptions fix;
    fix.fix_orientation = true;
    check = check_mesh(adapted, fix);
    if (!acceptable(check, false))
      fail(ErrorCategory::internal, "adapt::remesh: Mmg's mesh after turning its boundary ",
           "triangles outwards: ", check.summary());
  }
  if (options.keep_boundary && boundary_signature(adapted) != boundary_signature(original))
    fail(ErrorCategory::internal, "adapt::remesh: Mmg changed the boundary (",
         original.boundary_faces.size(), " triangles before, ", adapted.boundary_faces.size(),
         " after) although it was to be kept");
}

// Owns Mmg's mesh and metric for the length of one call.
class MmgSession {
 public:
  MmgSession() {
    if (MMG3D_Init_mesh(MMG5_ARG_start, MMG5_ARG_ppMesh, &mesh_, MMG5_ARG_ppMet, &metric_,
                        MMG5_ARG_end) != 1)
      fail(ErrorCategory::out_of_memory, "adapt::remesh: Mmg could not set up its mesh");
  }
  ~MmgSession() {
    MMG3D_Free_all(MMG5_ARG_start, MMG5_ARG_ppMesh, &mesh_, MMG5_ARG_ppMet, &metric_, MMG5_ARG_end);
  }
  MmgSession(const MmgSession&) = delete;
  MmgSession& operator=(const MmgSession&) = delete;

  MMG5_pMesh mesh() const { return mesh_; }
  MMG5_pSol metric() const { return metric_; }

 private:
  MMG5_pMesh mesh_ = nullptr;
  MMG5_pSol metric_ = nullptr;
};

// Mmg's setters and getters return 1 on success.
void check_mmg(int status, const char* call) {
  if (status != 1) fail(ErrorCategory::internal, "adapt::remesh: Mmg's ", call, " failed");
}

void give_mesh(const MmgSession& mmg, const TetMesh& mesh, const MmgCallLimits& limits) {
  // Mmg has no time or iteration bound; its memory is capped (whole_mesh_megabytes,
  // part_megabytes) so that a runaway ends in its failure, not in the host's memory. The cap
  // comes first: MMG3D_Set_meshSize sizes every array from it (without one, for 6 million tets
  // whatever the mesh), and a cap set afterwards is checked against arrays already that large.
  if (limits.memory_megabytes > 0)
    check_mmg(MMG3D_Set_iparameter(mmg.mesh(), mmg.metric(), MMG3D_IPARAM_mem,
                                   static_cast<int>(std::min(limits.memory_megabytes, 1e9))),
              "MMG3D_Set_iparameter(mem)");
  const auto nodes = static_cast<MMG5_int>(mesh.nodes.size());
  const auto tets = static_cast<MMG5_int>(mesh.tets.size());
  const auto faces = static_cast<MMG5_int>(mesh.boundary_faces.size());
  check_mmg(MMG3D_Set_meshSize(mmg.mesh(), nodes, tets, 0, faces, 0, 0), "MMG3D_Set_meshSize");
  {
    std::vector<double> coordinates(3 * mesh.nodes.size());
    for (std::size_t n = 0; n < mesh.nodes.size(); ++n)
      for (int c = 0; c < 3; ++c) coordinates[3 * n + c] = mesh.nodes[n][c];
    std::vector<MMG5_int> refs(mesh.nodes.size(), 0);
    check_mmg(MMG3D_Set_vertices(mmg.mesh(), coordinates.data(), refs.data()),
              "MMG3D_Set_vertices");
  }
  {
    // Mmg numbers from 1.
    std::vector<MMG5_int> corners(4 * mesh.tets.size()), refs(mesh.tets.size(), 0);
    for (std::size_t t = 0; t < mesh.tets.size(); ++t) {
      for (int k = 0; k < 4; ++k) corners[4 * t + k] = mesh.tets[t][k] + 1;
      if (!mesh.tet_tags.empty()) refs[t] = mesh.tet_tags[t];
    }
    check_mmg(MMG3D_Set_tetrahedra(mmg.mesh(), corners.data(), refs.data()),
              "MMG3D_Set_tetrahedra");
  }
  if (faces > 0) {
    std::vector<MMG5_int> corners(3 * mesh.boundary_faces.size());
    std::vector<MMG5_int> refs(mesh.boundary_tags.begin(), mesh.boundary_tags.end());
    for (std::size_t f = 0; f < mesh.boundary_faces.size(); ++f)
      for (int k = 0; k < 3; ++k) corners[3 * f + k] = mesh.boundary_faces[f][k] + 1;
    check_mmg(MMG3D_Set_triangles(mmg.mesh(), corners.data(), refs.data()), "MMG3D_Set_triangles");
  }
  // The interfaces between parts: their triangles and nodes are required (never modified).
  if (limits.interface_tag >= 0)
    for (std::size_t f = 0; f < mesh.boundary_faces.size(); ++f) {
      if (mesh.boundary_tags[f] != limits.interface_tag) continue;
      check_mmg(MMG3D_Set_requiredTriangle(mmg.mesh(), static_cast<MMG5_int>(f + 1)),
                "MMG3D_Set_requiredTriangle");
      for (const std::int32_t n : mesh.boundary_faces[f])
        check_mmg(MMG3D_Set_requiredVertex(mmg.mesh(), static_cast<MMG5_int>(n + 1)),
                  "MMG3D_Set_requiredVertex");
    }
}

void give_metric_and_options(const MmgSession& mmg, std::span<const Sym3<double>> metric,
                             const RemeshOptions& options, const MmgCallLimits& limits) {
  check_mmg(MMG3D_Set_solSize(mmg.mesh(), mmg.metric(), MMG5_Vertex,
                              static_cast<MMG5_int>(metric.size()), MMG5_Tensor),
            "MMG3D_Set_solSize");
  {
    std::vector<double> values(6 * metric.size());
    for (std::size_t n = 0; n < metric.size(); ++n) {
      const Sym3<double>& m = metric[n];
      const double row_major_upper[6] = {m.xx, m.xy, m.xz, m.yy, m.yz, m.zz};
      std::copy(row_major_upper, row_major_upper + 6, values.begin() + 6 * n);
    }
    check_mmg(MMG3D_Set_tensorSols(mmg.metric(), values.data()), "MMG3D_Set_tensorSols");
  }
  check_mmg(MMG3D_Set_iparameter(mmg.mesh(), mmg.metric(), MMG3D_IPARAM_verbose, options.verbosity),
            "MMG3D_Set_iparameter(verbose)");
  check_mmg(MMG3D_Set_iparameter(mmg.mesh(), mmg.metric(), MMG3D_IPARAM_nosurf,
                                 options.keep_boundary ? 1 : 0),
            "MMG3D_Set_iparameter(nosurf)");
  check_mmg(MMG3D_Set_dparameter(mmg.mesh(), mmg.metric(), MMG3D_DPARAM_hgrad,
                                 options.gradation > 0 ? options.gradation : -1.0),
            "MMG3D_Set_dparameter(hgrad)");
  if (options.hausdorff > 0)
    check_mmg(MMG3D_Set_dparameter(mmg.mesh(), mmg.metric(), MMG3D_DPARAM_hausd, options.hausdorff),
              "MMG3D_Set_dparameter(hausd)");
  if (limits.frozen_gradation != 0)
    check_mmg(MMG3D_Set_dparameter(mmg.mesh(), mmg.metric(), MMG3D_DPARAM_hgradreq,
                                   limits.frozen_gradation > 0 ? limits.frozen_gradation : -1.0),
              "MMG3D_Set_dparameter(hgradreq)");
}

TetMesh take_mesh(const MmgSession& mmg, bool with_tet_tags) {
  MMG5_int nodes = 0, tets = 0, prisms = 0, faces = 0, quads = 0, edges = 0;
  check_mmg(MMG3D_Get_meshSize(mmg.mesh(), &nodes, &tets, &prisms, &faces, &quads, &edges),
            "MMG3D_Get_meshSize");
  if (nodes < 4 || tets < 1 || prisms != 0 || quads != 0)
    fail(ErrorCategory::internal, "adapt::remesh: Mmg returned ", nodes, " nodes, ", tets,
         " tets, ", prisms, " prisms and ", quads, " quadrilaterals");
  TetMesh adapted;
  {
    std::vector<double> coordinates(3 * static_cast<std::size_t>(nodes));
    std::vector<MMG5_int> refs(static_cast<std::size_t>(nodes));
    std::vector<int> corner(static_cast<std::size_t>(nodes)), required(corner.size());
    check_mmg(MMG3D_Get_vertices(mmg.mesh(), coordinates.data(), refs.data(), corner.data(),
                                 required.data()),
              "MMG3D_Get_vertices");
    adapted.nodes.resize(static_cast<std::size_t>(nodes));
    for (std::size_t n = 0; n < adapted.nodes.size(); ++n)
      adapted.nodes[n] = {coordinates[3 * n], coordinates[3 * n + 1], coordinates[3 * n + 2]};
  }
  const auto to_index = [nodes](MMG5_int one_based) {
    if (one_based < 1 || one_based > nodes)
      fail(ErrorCategory::internal, "adapt::remesh: Mmg returned node ", one_based, " of ", nodes);
    return static_cast<std::int32_t>(one_based - 1);
  };
  {
    std::vector<MMG5_int> corners(4 * static_cast<std::size_t>(tets));
    std::vector<MMG5_int> refs(static_cast<std::size_t>(tets));
    std::vector<int> required(refs.size());
    check_mmg(MMG3D_Get_tetrahedra(mmg.mesh(), corners.data(), refs.data(), required.data()),
              "MMG3D_Get_tetrahedra");
    adapted.tets.resize(refs.size());
    for (std::size_t t = 0; t < refs.size(); ++t)
      for (int k = 0; k < 4; ++k) adapted.tets[t][k] = to_index(corners[4 * t + k]);
    if (with_tet_tags) adapted.tet_tags.assign(refs.begin(), refs.end());
  }
  {
    std::vector<MMG5_int> corners(3 * static_cast<std::size_t>(faces));
    std::vector<MMG5_int> refs(static_cast<std::size_t>(faces));
    std::vector<int> required(refs.size());
    if (faces > 0)
      check_mmg(MMG3D_Get_triangles(mmg.mesh(), corners.data(), refs.data(), required.data()),
                "MMG3D_Get_triangles");
    adapted.boundary_faces.resize(refs.size());
    for (std::size_t f = 0; f < refs.size(); ++f)
      for (int k = 0; k < 3; ++k) adapted.boundary_faces[f][k] = to_index(corners[3 * f + k]);
    adapted.boundary_tags.assign(refs.begin(), refs.end());
  }
  return adapted;
}

std::vector<Sym3<double>> take_metric(const MmgSession& mmg, std::size_t nodes) {
  std::vector<double> values(6 * nodes);
  check_mmg(MMG3D_Get_tensorSols(mmg.metric(), values.data()), "MMG3D_Get_tensorSols");
  std::vector<Sym3<double>> metric(nodes);
  for (std::size_t n = 0; n < nodes; ++n) {
    const double* v = values.data() + 6 * n;
    metric[n] = Sym3<double>{v[0], v[3], v[5], v[1], v[2], v[4]};
  }
  return metric;
}

}  // namespace

MmgCallResult call_mmg(const TetMesh& mesh, std::span<const Sym3<double>> metric,
                       const RemeshOptions& options, const MmgCallLimits& limits) {
  MmgCallResult result;
  {
    const MmgSession mmg;
    give_mesh(mmg, mesh, limits);
    give_metric_and_options(mmg, metric, options, limits);
    const int status = MMG3D_mmg3dlib(mmg.mesh(), mmg.metric());
    if (status == MMG5_STRONGFAILURE)
      fail(ErrorCategory::internal, "adapt::remesh: Mmg failed and left no usable mesh (",
           mesh.nodes.size(), " nodes, ", mesh.tets.size(), " tets in)");
    result.incomplete = status == MMG5_LOWFAILURE;
    result.mesh = take_mesh(mmg, !mesh.tet_tags.empty());
    result.metric = take_metric(mmg, result.mesh.nodes.size());
  }
  if (options.keep_boundary)
    result.kept_input_node = restore_boundary_coordinates(result.mesh, mesh);
  else
    result.kept_input_node.assign(result.mesh.nodes.size(), -1);
  check_remeshed(result.mesh, mesh, options, limits.interface_tag >= 0);
  return result;
}

#else

MmgCallResult call_mmg(const TetMesh&, std::span<const Sym3<double>>, const RemeshOptions&,
                       const MmgCallLimits&) {
  fail(ErrorCategory::unavailable,
       "adapt::remesh: this build of Foehn has no Mmg (configure with FOEHN_MMG_DIR, which "
       "scripts/setup-mmg.sh provides)");
}

#endif  // FOEHN_HAVE_MMG

}  // namespace foehn::adapt::detail
