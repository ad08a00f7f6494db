#include "foehn/adapt/remesh.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <limits>
#include <utility>
#include <vector>

#include "foehn/adapt/metric.hpp"
#include "foehn/runtime/error.hpp"
#include "foehn/runtime/stopwatch.hpp"
#include "mmg_call.hpp"

namespace foehn::adapt {

namespace detail {

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

}  // namespace detail

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
  detail::check_remesh_input(mesh, metric, options);
  const NodePrediction predicted =
      predict_nodes(mesh, metric, options.keep_boundary, options.nodes_per_complexity);
  detail::check_predicted_size(predicted, mesh, options);
  if (!remeshing_available())
    fail(ErrorCategory::unavailable,
         "adapt::remesh: this build of Foehn has no Mmg (configure with FOEHN_MMG_DIR, which "
         "scripts/setup-mmg.sh provides)");
  detail::MmgCallLimits limits;
  if (options.max_nodes > 0)
    limits.memory_megabytes = detail::whole_mesh_megabytes(
        std::max(options.max_nodes, static_cast<double>(mesh.nodes.size())));
  detail::MmgCallResult result;
  {
    const detail::KeepSignalHandlers handlers;
    result = detail::call_mmg(mesh, metric, options, limits);
  }
  if (report != nullptr) {
    report->nodes = result.mesh.nodes.size();
    report->tets = result.mesh.tets.size();
    report->boundary_faces = result.mesh.boundary_faces.size();
    report->incomplete = result.incomplete;
    report->predicted_nodes = predicted.nodes;
    report->shortest_edge = shortest_edge_length(result.mesh);
    report->seconds = watch.seconds();
  }
  return std::move(result.mesh);
}

}  // namespace foehn::adapt
