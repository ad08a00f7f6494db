#include "foehn/adapt/remesh.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "foehn/adapt/metric.hpp"
#include "foehn/mesh/validate.hpp"
#include "foehn/runtime/error.hpp"
#include "foehn/runtime/stopwatch.hpp"

#if FOEHN_HAVE_MMG
#include <mmg/mmg3d/libmmg3d.h>

#include <csignal>
#endif

namespace foehn::adapt {

namespace {

void check_remesh_input(const TetMesh& mesh, std::span<const Sym3<double>> metric,
                        const RemeshOptions& options) {
  constexpr auto most = static_cast<std::size_t>(std::numeric_limits<std::int32_t>::max() / 8);
  if (mesh.tets.empty() || mesh.nodes.size() < 4)
    fail(ErrorCategory::invalid_input, "adapt::remesh: the mesh has ", mesh.nodes.size(),
         " nodes and ", mesh.tets.size(), " tets; it needs at least 4 nodes and one tet");
  if (mesh.nodes.size() > most || mesh.tets.size() > most || mesh.boundary_faces.size() > most)
    fail(ErrorCategory::invalid_input, "adapt::remesh: ", mesh.nodes.size(), " nodes, ",
         mesh.tets.size(),
         " tets: Mmg numbers with 32-bit integers and grows the mesh, so at "
         "most ",
         most, " of each are taken");
  if (metric.size() != mesh.nodes.size())
    fail(ErrorCategory::invalid_input, "adapt::remesh: ", metric.size(), " metric values for ",
         mesh.nodes.size(), " nodes");
  if (!mesh.tet_tags.empty() && mesh.tet_tags.size() != mesh.tets.size())
    fail(ErrorCategory::invalid_input, "adapt::remesh: ", mesh.tet_tags.size(), " tet tags for ",
         mesh.tets.size(), " tets");
  // Mmg would also return the triangles between regions, which are not boundary triangles.
  if (!mesh.tet_tags.empty() &&
      std::any_of(mesh.tet_tags.begin(), mesh.tet_tags.end(),
                  [&](std::int32_t tag) { return tag != mesh.tet_tags.front(); }))
    fail(ErrorCategory::invalid_input, "adapt::remesh: the tets carry more than one region tag; ",
         "a mesh of one region is remeshed (the regions' interfaces are not kept)");
  if (mesh.boundary_tags.size() != mesh.boundary_faces.size())
    fail(ErrorCategory::invalid_input, "adapt::remesh: ", mesh.boundary_tags.size(),
         " boundary tags for ", mesh.boundary_faces.size(), " boundary triangles");
  if (options.keep_boundary && mesh.boundary_faces.empty())
    fail(ErrorCategory::invalid_input,
         "adapt::remesh: keep_boundary needs the mesh's boundary triangles, and it has none");
  // Positive definite by Sylvester's criterion: the leading minors are positive.
  for (std::size_t n = 0; n < metric.size(); ++n) {
    const Sym3<double>& m = metric[n];
    const double minor2 = m.xx * m.yy - m.xy * m.xy;
    const double det = m.xx * (m.yy * m.zz - m.yz * m.yz) - m.xy * (m.xy * m.zz - m.yz * m.xz) +
                       m.xz * (m.xy * m.yz - m.yy * m.xz);
    if (!(m.xx > 0 && minor2 > 0 && det > 0) || !std::isfinite(det))
      fail(ErrorCategory::invalid_input, "adapt::remesh: the metric at node ", n, " (xx ", m.xx,
           ", yy ", m.yy, ", zz ", m.zz, ", xy ", m.xy, ", xz ", m.xz, ", yz ", m.yz,
           ") is not finite and positive definite");
  }
  if (!(options.gradation == 0 || (options.gradation > 1 && options.gradation <= 10)))
    fail(ErrorCategory::invalid_input, "adapt::remesh: gradation ", options.gradation,
         " is neither 0 (off) nor in (1, 10]");
  if (!(options.hausdorff >= 0) || !std::isfinite(options.hausdorff))
    fail(ErrorCategory::invalid_input, "adapt::remesh: hausdorff ", options.hausdorff,
         " m is not a distance");
  if (options.verbosity < -1 || options.verbosity > 10)
    fail(ErrorCategory::invalid_input, "adapt::remesh: verbosity ", options.verbosity,
         " is not in [-1, 10]");
  if (!(options.max_nodes >= 0) || !std::isfinite(options.max_nodes))
    fail(ErrorCategory::invalid_input, "adapt::remesh: max_nodes ", options.max_nodes,
         " is neither 0 (no limit) nor a node count");
  if (!(options.nodes_per_complexity > 0) || !std::isfinite(options.nodes_per_complexity))
    fail(ErrorCategory::invalid_input, "adapt::remesh: nodes_per_complexity ",
         options.nodes_per_complexity, " is not positive");
}

// Refused before Mmg runs: a metric whose predicted node count is above options.max_nodes.
// Mmg would otherwise spend minutes and gigabytes on it (a metric of 1 cm edges over a 60 km
// domain asks for 1e19 nodes).
void check_predicted_size(const NodePrediction& predicted, const TetMesh& mesh,
                          const RemeshOptions& options) {
  if (options.max_nodes > 0 && predicted.nodes > options.max_nodes)
    fail(ErrorCategory::invalid_input, "adapt::remesh: the metric asks for about ", predicted.nodes,
         " nodes (", predicted.boundary_nodes, " kept boundary nodes + ",
         options.nodes_per_complexity, " x complexity ", predicted.complexity, ") on a mesh of ",
         mesh.nodes.size(), " nodes, more than max_nodes ", options.max_nodes, "; Mmg was not run");
}

#if FOEHN_HAVE_MMG

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

// Mmg scales the mesh into the unit cube and back, which moves every node by round-off. The
// kept boundary's nodes get their coordinates back exactly (the terrain stays bitwise the
// same): each is matched to the old boundary node within a millionth of the domain's size.
void restore_boundary_coordinates(TetMesh& adapted, const TetMesh& original) {
  std::vector<std::int32_t> old_nodes, new_nodes;
  for (const Triangle& face : original.boundary_faces)
    old_nodes.insert(old_nodes.end(), face.begin(), face.end());
  for (const Triangle& face : adapted.boundary_faces)
    new_nodes.insert(new_nodes.end(), face.begin(), face.end());
  for (auto* nodes : {&old_nodes, &new_nodes}) {
    std::sort(nodes->begin(), nodes->end());
    nodes->erase(std::unique(nodes->begin(), nodes->end()), nodes->end());
  }
  if (old_nodes.size() != new_nodes.size())
    fail(ErrorCategory::internal, "adapt::remesh: Mmg returned ", new_nodes.size(),
         " boundary nodes for ", old_nodes.size(), " kept ones");
  Point3 low = original.nodes[0], high = low;
  for (const Point3& p : original.nodes)
    for (int c = 0; c < 3; ++c) {
      low[c] = std::min(low[c], p[c]);
      high[c] = std::max(high[c], p[c]);
    }
  const double cell = 1e-6 * std::max({high[0] - low[0], high[1] - low[1], high[2] - low[2]});
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
  }
}

// Mmg's mesh is checked as any mesh Foehn reads: no inverted or degenerate tet, manifold, every
// boundary triangle a face of the surface. Boundary triangles pointing inwards are turned. A
// kept boundary gets its exact coordinates back first and must then be the old one.
void check_remeshed(TetMesh& adapted, const TetMesh& original, const RemeshOptions& options) {
  if (options.keep_boundary) restore_boundary_coordinates(adapted, original);
  MeshCheckResult check = check_mesh(adapted);
  const bool only_orientation = std::all_of(
      check.findings.begin(), check.findings.end(),
      [](const MeshFinding& f) { return f.problem == MeshProblem::inward_boundary_face; });
  if (!only_orientation)
    fail(ErrorCategory::internal,
         "adapt::remesh: Mmg returned a mesh that fails the checks: ", check.summary());
  if (!check.ok()) {
    MeshCheckOptions fix;
    fix.fix_orientation = true;
    check = check_mesh(adapted, fix);
    if (!check.ok())
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

// MMG3D_mmg3dlib installs its own handlers for SIGABRT, SIGFPE, SIGILL, SIGSEGV, SIGTERM and
// SIGINT and leaves them at SIG_DFL when it returns: PETSc's (stack trace, MPI_Abort) and the
// MPI library's would be gone after the first remesh. They are put back however the call ends.
class KeepSignalHandlers {
 public:
  KeepSignalHandlers() {
    for (std::size_t k = 0; k < signals_.size(); ++k) sigaction(signals_[k], nullptr, &saved_[k]);
  }
  ~KeepSignalHandlers() {
    for (std::size_t k = 0; k < signals_.size(); ++k) sigaction(signals_[k], &saved_[k], nullptr);
  }
  KeepSignalHandlers(const KeepSignalHandlers&) = delete;
  KeepSignalHandlers& operator=(const KeepSignalHandlers&) = delete;

 private:
  static constexpr std::array<int, 6> signals_{SIGABRT, SIGFPE, SIGILL, SIGSEGV, SIGTERM, SIGINT};
  std::array<struct sigaction, 6> saved_{};
};

// Mmg's setters and getters return 1 on success.
void check_mmg(int status, const char* call) {
  if (status != 1) fail(ErrorCategory::internal, "adapt::remesh: Mmg's ", call, " failed");
}

void give_to_mmg(const MmgSession& mmg, const TetMesh& mesh, std::span<const Sym3<double>> metric,
                 const RemeshOptions& options) {
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
  check_mmg(MMG3D_Set_solSize(mmg.mesh(), mmg.metric(), MMG5_Vertex, nodes, MMG5_Tensor),
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
  // Mmg has no time or iteration bound. Its memory bound (MMG3D_IPARAM_mem) caps the points it
  // can allocate: measured with Mmg 5.8, it needs 600-1000 MB whatever the mesh (below that a
  // 1.5k-node mesh fails at once, "Hashing problem") and about 2.5 kB per node it makes. With
  // max_nodes, the cap is 1 GB plus 8 kB per node of the larger of max_nodes and the input's
  // count: room for Mmg's intermediate meshes, while a metric asking for several times more
  // than was predicted ends in Mmg's failure (an error) instead of taking the host's memory.
  if (options.max_nodes > 0) {
    const double most = std::max(options.max_nodes, static_cast<double>(mesh.nodes.size()));
    const double megabytes = 1024.0 + most * 8e3 / (1024.0 * 1024.0);
    check_mmg(MMG3D_Set_iparameter(mmg.mesh(), mmg.metric(), MMG3D_IPARAM_mem,
                                   static_cast<int>(std::min(megabytes, 1e9))),
              "MMG3D_Set_iparameter(mem)");
  }
}

TetMesh take_from_mmg(const MmgSession& mmg, bool with_tet_tags) {
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

#endif  // FOEHN_HAVE_MMG

}  // namespace

bool remeshing_available() noexcept {
  return FOEHN_HAVE_MMG != 0;
}

NodePrediction predict_nodes(const TetMesh& mesh, std::span<const Sym3<double>> metric,
                             bool keep_boundary, double nodes_per_complexity) {
  if (metric.size() != mesh.nodes.size())
    fail(ErrorCategory::invalid_input, "adapt::predict_nodes: ", metric.size(),
         " metric values for ", mesh.nodes.size(), " nodes");
  std::vector<char> on_boundary(mesh.nodes.size(), 0);
  if (keep_boundary)
    for (const Triangle& face : mesh.boundary_faces)
      for (const std::int32_t n : face) on_boundary[static_cast<std::size_t>(n)] = 1;
  NodePrediction predicted;
  predicted.boundary_nodes =
      static_cast<double>(std::count(on_boundary.begin(), on_boundary.end(), 1));
  predicted.complexity = complexity(metric, lumped_volumes(mesh));
  predicted.nodes = predicted.boundary_nodes + nodes_per_complexity * predicted.complexity;
  return predicted;
}

double shortest_edge_length(const TetMesh& mesh) {
  double shortest = std::numeric_limits<double>::infinity();
  for (const Tet& tet : mesh.tets)
    for (int a = 0; a < 4; ++a)
      for (int b = a + 1; b < 4; ++b) {
        const Point3& p = mesh.nodes[static_cast<std::size_t>(tet[a])];
        const Point3& q = mesh.nodes[static_cast<std::size_t>(tet[b])];
        shortest = std::min(shortest, std::hypot(p[0] - q[0], p[1] - q[1], p[2] - q[2]));
      }
  return shortest;
}

TetMesh remesh(const TetMesh& mesh, std::span<const Sym3<double>> metric,
               const RemeshOptions& options, RemeshReport* report) {
  const Stopwatch watch;
  check_remesh_input(mesh, metric, options);
  const NodePrediction predicted =
      predict_nodes(mesh, metric, options.keep_boundary, options.nodes_per_complexity);
  check_predicted_size(predicted, mesh, options);
#if FOEHN_HAVE_MMG
  TetMesh adapted;
  bool incomplete = false;
  {
    const MmgSession mmg;
    give_to_mmg(mmg, mesh, metric, options);
    int status = MMG5_STRONGFAILURE;
    {
      const KeepSignalHandlers handlers;
      status = MMG3D_mmg3dlib(mmg.mesh(), mmg.metric());
    }
    if (status == MMG5_STRONGFAILURE)
      fail(ErrorCategory::internal, "adapt::remesh: Mmg failed and left no usable mesh (",
           mesh.nodes.size(), " nodes, ", mesh.tets.size(), " tets in)");
    incomplete = status == MMG5_LOWFAILURE;
    adapted = take_from_mmg(mmg, !mesh.tet_tags.empty());
  }
  check_remeshed(adapted, mesh, options);
  if (report != nullptr) {
    report->nodes = adapted.nodes.size();
    report->tets = adapted.tets.size();
    report->boundary_faces = adapted.boundary_faces.size();
    report->incomplete = incomplete;
    report->predicted_nodes = predicted.nodes;
    report->shortest_edge = shortest_edge_length(adapted);
    report->seconds = watch.seconds();
  }
  return adapted;
#else
  (void)report;
  fail(ErrorCategory::unavailable,
       "adapt::remesh: this build of Foehn has no Mmg (configure with FOEHN_MMG_DIR, which "
       "scripts/setup-mmg.sh provides)");
#endif
}

}  // namespace foehn::adapt
