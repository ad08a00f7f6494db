#pragma once
// Metric fields for anisotropic mesh adaptation, from nodal solution fields, on the host (the
// reference; the pointwise mathematics is foehn/adapt/metric_math.hpp, FOEHN_HD, for the GPU
// path to share). On a whole mesh (adaptation gathers it on one rank):
//
//   const auto patches = foehn::adapt::node_patches(mesh);
//   const auto volumes = foehn::adapt::lumped_volumes(mesh);
//   auto speed = foehn::adapt::recover_hessians(mesh, patches, speed_field);
//   auto theta = foehn::adapt::recover_hessians(mesh, patches, theta_field);
//   foehn::adapt::MetricOptions options;  // bounds, target complexity, L^p order
//   options.bounds = {125.0, 10000.0, 100.0};
//   options.target_complexity = 100000;
//   auto metric = foehn::adapt::intersect(
//       foehn::adapt::metric_from_hessians(speed, volumes, options),
//       foehn::adapt::metric_from_hessians(theta, volumes, options));
//
// Bad input (sizes that do not match the mesh, bounds out of order, a complexity that is not
// positive, non-finite values) is an Error naming it.
#include <cstdint>
#include <span>
#include <vector>

#include "foehn/adapt/metric_math.hpp"
#include "foehn/mesh/tet_mesh.hpp"

namespace foehn::adapt {

// Each node's patch: the points its Hessian is fitted through, in CSR form (never the node
// itself).
struct NodePatches {
  std::vector<std::int64_t> offsets;  // node_count + 1
  std::vector<std::int32_t> nodes;
};

// The nodes sharing a tet with each node; where those are fewer than `min_points` or do not
// determine a quadratic (boundary nodes: their neighbours lie on two layers across the
// boundary), the neighbours' neighbours as well.
NodePatches node_patches(const TetMesh& mesh, int min_points = 12);

// The Hessian of `field` (one value per node) at every node, by fit_quadratic on its patch:
// exact for a quadratic field. A patch that does not determine a quadratic (a degenerate mesh)
// is an Error naming the node.
std::vector<Sym3<double>> recover_hessians(const TetMesh& mesh, const NodePatches& patches,
                                           std::span<const double> field);

// A quarter of the volume of every tet, summed at its nodes.
std::vector<double> lumped_volumes(const TetMesh& mesh);

struct MetricOptions {
  MetricBounds<double> bounds;
  // About the number of vertices the adapted mesh should have: sum_i m_i sqrt(det M_i).
  double target_complexity = 0;
  // p of the L^p normalisation (1 <= p, infinity allowed): larger p refines less where the
  // Hessian is large, in favour of a uniform interpolation error.
  double norm_order = 2;
};

// invalid_input, naming the option, for bounds out of order or not finite, a target complexity
// that is not positive, p < 1: the checks of metric_from_hessians on either backend.
void check_metric_options(const MetricOptions& options);

// The metric of a Hessian field normalised to options.target_complexity in L^p, then held to
// the bounds (where they bite the complexity moves away from the target).
std::vector<Sym3<double>> metric_from_hessians(std::span<const Sym3<double>> hessians,
                                               std::span<const double> volumes,
                                               const MetricOptions& options);

// intersect_metrics node by node: the finer of two requests in every direction.
std::vector<Sym3<double>> intersect(std::span<const Sym3<double>> a,
                                    std::span<const Sym3<double>> b);

// sum_i volumes_i sqrt(det M_i): the continuous mesh's number of vertices.
double complexity(std::span<const Sym3<double>> metric, std::span<const double> volumes);

// The largest difference between two tensor fields, each node's relative to the largest entry
// of its `reference` tensor: how two backends' Hessians or metrics are compared.
double max_relative_difference(std::span<const Sym3<double>> a,
                               std::span<const Sym3<double>> reference);

}  // namespace foehn::adapt
