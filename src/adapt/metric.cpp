#include "foehn/adapt/metric.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "foehn/fe/csr_pattern.hpp"
#include "foehn/mesh/geometry.hpp"
#include "foehn/runtime/error.hpp"

namespace foehn::adapt {

namespace {

// The nodes sharing a tet with each node, sorted, without the node itself: the node pattern's
// rows less their diagonal.
std::vector<std::vector<std::int32_t>> neighbours_of(const TetMesh& mesh) {
  const fe::CsrPattern pattern = fe::build_node_pattern(mesh);
  std::vector<std::vector<std::int32_t>> neighbours(mesh.node_count());
  for (std::size_t n = 0; n < neighbours.size(); ++n)
    for (std::int32_t k = pattern.row_offsets[n]; k < pattern.row_offsets[n + 1]; ++k)
      if (pattern.column_indices[static_cast<std::size_t>(k)] != static_cast<std::int32_t>(n))
        neighbours[n].push_back(pattern.column_indices[static_cast<std::size_t>(k)]);
  return neighbours;
}

void check_sizes(const char* what, std::size_t got, std::size_t expected, const char* per) {
  if (got != expected)
    fail(ErrorCategory::invalid_input, "adapt::", what, ": ", got, " values for ", expected, " ",
         per);
}

}  // namespace

namespace {

// True when the points of `patch` around `centre` determine a quadratic (fit_quadratic's normal
// equations are not singular); the field values do not matter for that.
bool determines_quadratic(const TetMesh& mesh, std::size_t centre,
                          const std::vector<std::int32_t>& patch) {
  const auto point = [&](int j, double d[3], double& r) {
    const auto m = static_cast<std::size_t>(patch[static_cast<std::size_t>(j)]);
    for (int c = 0; c < 3; ++c) d[c] = mesh.nodes[m][c] - mesh.nodes[centre][c];
    r = 0;
  };
  QuadraticFit<double> unused{};
  return fit_quadratic<double>(static_cast<int>(patch.size()), point, unused);
}

}  // namespace

NodePatches node_patches(const TetMesh& mesh, int min_points) {
  if (min_points < 9)
    fail(ErrorCategory::invalid_input, "adapt::node_patches: min_points ", min_points,
         " (a quadratic in 3-D needs at least 9 points)");
  const auto neighbours = neighbours_of(mesh);
  NodePatches patches;
  patches.offsets.reserve(mesh.node_count() + 1);
  patches.offsets.push_back(0);
  std::vector<std::int32_t> patch;
  for (std::size_t n = 0; n < mesh.node_count(); ++n) {
    patch = neighbours[n];
    // Boundary nodes: their neighbours lie on two layers only along the normal, which leaves
    // the second derivative across the boundary undetermined.
    if (static_cast<int>(patch.size()) < min_points || !determines_quadratic(mesh, n, patch)) {
      for (const std::int32_t m : neighbours[n]) {
        const auto& second = neighbours[static_cast<std::size_t>(m)];
        patch.insert(patch.end(), second.begin(), second.end());
      }
      std::sort(patch.begin(), patch.end());
      patch.erase(std::unique(patch.begin(), patch.end()), patch.end());
      patch.erase(std::remove(patch.begin(), patch.end(), static_cast<std::int32_t>(n)),
                  patch.end());
    }
    patches.nodes.insert(patches.nodes.end(), patch.begin(), patch.end());
    patches.offsets.push_back(static_cast<std::int64_t>(patches.nodes.size()));
  }
  return patches;
}

std::vector<Sym3<double>> recover_hessians(const TetMesh& mesh, const NodePatches& patches,
                                           std::span<const double> field) {
  check_sizes("recover_hessians", field.size(), mesh.node_count(), "nodes");
  check_sizes("recover_hessians (patch offsets)", patches.offsets.size(), mesh.node_count() + 1,
              "nodes + 1");
  std::vector<Sym3<double>> hessians(mesh.node_count());
  for (std::size_t n = 0; n < mesh.node_count(); ++n) {
    if (!std::isfinite(field[n]))
      fail(ErrorCategory::invalid_input, "adapt::recover_hessians: the field is ", field[n],
           " at node ", n);
    const std::int64_t begin = patches.offsets[n];
    const auto count = static_cast<int>(patches.offsets[n + 1] - begin);
    const Point3& centre = mesh.nodes[n];
    const auto point = [&](int j, double d[3], double& r) {
      const auto m = static_cast<std::size_t>(patches.nodes[static_cast<std::size_t>(begin + j)]);
      for (int c = 0; c < 3; ++c) d[c] = mesh.nodes[m][c] - centre[c];
      r = field[m] - field[n];
    };
    QuadraticFit<double> fit{};
    if (!fit_quadratic<double>(count, point, fit))
      fail(ErrorCategory::invalid_input, "adapt::recover_hessians: the ", count,
           " patch points of node ", n, " do not determine a quadratic (a degenerate mesh?)");
    hessians[n] = fit.hessian;
  }
  return hessians;
}

std::vector<double> lumped_volumes(const TetMesh& mesh) {
  std::vector<double> volumes(mesh.node_count(), 0.0);
  for (const Tet& tet : mesh.tets) {
    const double quarter = 0.25 * std::abs(signed_volume(mesh, tet));
    for (const std::int32_t n : tet) volumes[static_cast<std::size_t>(n)] += quarter;
  }
  return volumes;
}

void check_metric_options(const MetricOptions& options) {
  const MetricBounds<double>& b = options.bounds;
  if (!(b.h_min > 0 && b.h_max >= b.h_min && std::isfinite(b.h_max) && b.max_anisotropy >= 1))
    fail(ErrorCategory::invalid_input, "adapt::metric_from_hessians: h_min ", b.h_min, ", h_max ",
         b.h_max, ", max_anisotropy ", b.max_anisotropy,
         " (need 0 < h_min <= h_max, finite, and max_anisotropy >= 1)");
  if (!(options.target_complexity > 0 && std::isfinite(options.target_complexity)))
    fail(ErrorCategory::invalid_input, "adapt::metric_from_hessians: target complexity ",
         options.target_complexity, " (need a positive number, about the vertices wanted)");
  if (!(options.norm_order >= 1))
    fail(ErrorCategory::invalid_input, "adapt::metric_from_hessians: L^p order ",
         options.norm_order, " (need p >= 1 or infinity)");
}

std::vector<Sym3<double>> metric_from_hessians(std::span<const Sym3<double>> hessians,
                                               std::span<const double> volumes,
                                               const MetricOptions& options) {
  check_sizes("metric_from_hessians (volumes)", volumes.size(), hessians.size(), "Hessians");
  check_metric_options(options);
  // det|H| = |det H| per node (the product of the absolute eigenvalues).
  std::vector<double> abs_determinant(hessians.size());
  double total_density = 0;
  for (std::size_t n = 0; n < hessians.size(); ++n) {
    if (!fe::detail::all_finite(hessians[n]))
      fail(ErrorCategory::invalid_input, "adapt::metric_from_hessians: the Hessian at node ", n,
           " is not finite");
    abs_determinant[n] = std::fabs(fe::determinant(hessians[n].to_mat()));
    total_density += volumes[n] * lp_density(abs_determinant[n], options.norm_order);
  }
  // A field whose Hessian vanishes everywhere asks for nothing: h_max everywhere.
  const double global_scale =
      total_density > 0 ? std::pow(options.target_complexity / total_density, 2.0 / 3.0) : 0.0;
  std::vector<Sym3<double>> metric(hessians.size());
  for (std::size_t n = 0; n < hessians.size(); ++n) {
    const double scale = global_scale * lp_weight(abs_determinant[n], options.norm_order);
    if (!metric_from_hessian(hessians[n], scale, options.bounds, metric[n]))
      fail(ErrorCategory::internal, "adapt::metric_from_hessians: node ", n,
           ": no metric from a finite Hessian");
  }
  return metric;
}

std::vector<Sym3<double>> intersect(std::span<const Sym3<double>> a,
                                    std::span<const Sym3<double>> b) {
  check_sizes("intersect", b.size(), a.size(), "nodes of the first metric");
  std::vector<Sym3<double>> out(a.size());
  for (std::size_t n = 0; n < a.size(); ++n)
    if (!intersect_metrics(a[n], b[n], out[n]))
      fail(ErrorCategory::invalid_input, "adapt::intersect: the metrics at node ", n,
           " are not both positive definite");
  return out;
}

double complexity(std::span<const Sym3<double>> metric, std::span<const double> volumes) {
  check_sizes("complexity", volumes.size(), metric.size(), "metric nodes");
  double sum = 0;
  for (std::size_t n = 0; n < metric.size(); ++n)
    sum += volumes[n] * std::sqrt(std::fmax(fe::determinant(metric[n].to_mat()), 0.0));
  return sum;
}

double max_relative_difference(std::span<const Sym3<double>> a,
                               std::span<const Sym3<double>> reference) {
  check_sizes("max_relative_difference", a.size(), reference.size(), "reference nodes");
  double worst = 0;
  for (std::size_t n = 0; n < reference.size(); ++n) {
    const Sym3<double>& r = reference[n];
    const Sym3<double>& x = a[n];
    const double ref[6] = {r.xx, r.yy, r.zz, r.xy, r.xz, r.yz};
    const double got[6] = {x.xx, x.yy, x.zz, x.xy, x.xz, x.yz};
    double scale = 1e-300;
    for (const double v : ref) scale = std::fmax(scale, std::fabs(v));
    for (int k = 0; k < 6; ++k) worst = std::fmax(worst, std::fabs(got[k] - ref[k]) / scale);
  }
  return worst;
}

}  // namespace foehn::adapt
