// foehn::adapt::remesh (Mmg) against what a metric asks for: the edges of the adapted mesh
// measured in an analytic metric are about of unit length; a boundary layer's metric gives short
// vertical edges in the layer and long ones away from it; the boundary (terrain and tags) is kept
// exactly; the mesh passes check_mesh. Skipped in builds without Mmg.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <csignal>
#include <set>
#include <vector>

#include "foehn/adapt/metric.hpp"
#include "foehn/adapt/remesh.hpp"
#include "foehn/mesh/geometry.hpp"
#include "foehn/mesh/validate.hpp"
#include "support/error_category.hpp"
#include "support/small_mountain.hpp"
#include "unit/adapt/support/layer_metric.hpp"

namespace foehn::adapt {
namespace {

using testing::edges_of;

// Horizontal edges of 4 km.
const testing::LayerMetric layer;

std::vector<Sym3<double>> metric_at_nodes(const TetMesh& mesh) {
  return layer.at_nodes(mesh);
}

double metric_length(const Point3& a, const Point3& b) {
  return layer.length(a, b);
}

double tet_volume_sum(const TetMesh& mesh) {
  double sum = 0;
  for (const Tet& tet : mesh.tets) sum += signed_volume(mesh, tet);
  return sum;
}

TEST(AdaptRemesh, EdgesAreAboutUnitLongInTheMetricAndTheBoundaryIsKept) {
  SKIP_WITHOUT_MMG();
  TetMesh mesh = testing::small_mountain(8, 8, 10);
  RemeshReport report;
  TetMesh adapted = remesh(mesh, metric_at_nodes(mesh), {}, &report);
  EXPECT_EQ(report.nodes, adapted.node_count());
  EXPECT_EQ(report.tets, adapted.tet_count());
  EXPECT_FALSE(report.incomplete);
  EXPECT_TRUE(check_mesh(adapted).ok()) << check_mesh(adapted).summary();

  // The boundary is the old one: the same triangles (by coordinates) with the same tags, so the
  // enclosed volume is the same.
  EXPECT_EQ(adapted.boundary_face_count(), mesh.boundary_face_count());
  std::multiset<std::int32_t> tags_before(mesh.boundary_tags.begin(), mesh.boundary_tags.end());
  std::multiset<std::int32_t> tags_after(adapted.boundary_tags.begin(),
                                         adapted.boundary_tags.end());
  EXPECT_EQ(tags_before, tags_after);
  EXPECT_NEAR(tet_volume_sum(adapted), tet_volume_sum(mesh), 1e-12 * tet_volume_sum(mesh));

  // Edges away from the boundary (whose nodes are the old mesh's, 7.5 km apart) are about unit
  // long in the metric: the bulk within [1/sqrt 2, sqrt 2], as remeshers aim for.
  const auto inner = [&](std::int32_t n) {
    const Point3& p = adapted.nodes[static_cast<std::size_t>(n)];
    return std::fabs(p[0]) < 20000 && std::fabs(p[1]) < 20000 && p[2] > 1000 && p[2] < 12000;
  };
  std::vector<double> lengths;
  for (const auto& [a, b] : edges_of(adapted))
    if (inner(a) && inner(b)) lengths.push_back(metric_length(adapted.nodes[a], adapted.nodes[b]));
  ASSERT_GT(lengths.size(), 1000u);
  const auto within = std::count_if(lengths.begin(), lengths.end(), [](double l) {
    return l >= 1 / std::sqrt(2.0) && l <= std::sqrt(2.0);
  });
  EXPECT_GT(static_cast<double>(within) / static_cast<double>(lengths.size()), 0.75);
  std::sort(lengths.begin(), lengths.end());
  const double median = lengths[lengths.size() / 2];
  EXPECT_GT(median, 0.8);
  EXPECT_LT(median, 1.25);
}

// The metric recovered from a tanh layer in theta, through the whole pipeline: short vertical
// edges in the layer, horizontal ones many times longer; long edges far from it.
TEST(AdaptRemesh, ABoundaryLayerIsResolvedAnisotropically) {
  SKIP_WITHOUT_MMG();
  const TetMesh mesh = testing::small_mountain(8, 8, 16);
  std::vector<double> theta(mesh.node_count());
  for (std::size_t n = 0; n < theta.size(); ++n)
    theta[n] = std::tanh((mesh.nodes[n][2] - 3000.0) / 200.0);
  MetricOptions options;
  options.bounds = {50.0, 8000.0, 40.0};
  options.target_complexity = 3000;
  const auto metric = metric_from_hessians(recover_hessians(mesh, node_patches(mesh), theta),
                                           lumped_volumes(mesh), options);
  const TetMesh adapted = remesh(mesh, metric);
  double layer_vertical = 0, layer_horizontal = 0, far_length = 0;
  int layer_edges = 0, far_edges = 0;
  for (const auto& [a, b] : edges_of(adapted)) {
    const Point3 e = adapted.nodes[b] - adapted.nodes[a];
    const double za = adapted.nodes[a][2], zb = adapted.nodes[b][2];
    if (std::fabs(za - 3000) < 250 && std::fabs(zb - 3000) < 250) {
      layer_vertical += std::fabs(e[2]);
      layer_horizontal += std::hypot(e[0], e[1]);
      ++layer_edges;
    }
    if (std::min(za, zb) > 9000) {
      far_length += norm(e);
      ++far_edges;
    }
  }
  ASSERT_GT(layer_edges, 100);
  ASSERT_GT(far_edges, 100);
  EXPECT_LT(layer_vertical / layer_edges, 200.0);
  EXPECT_GT(layer_horizontal / layer_vertical, 5.0);
  EXPECT_GT(far_length / far_edges, 3000.0);
}

// With the boundary adapted too, the planar sides stay planar and keep their tags, and the
// enclosed volume changes only where the terrain is curved (Mmg places new terrain nodes on its
// own smooth reconstruction of the old surface, not on the analytic terrain).
TEST(AdaptRemesh, AnAdaptedBoundaryKeepsItsPlanesAndTags) {
  SKIP_WITHOUT_MMG();
  const MountainMeshOptions domain = testing::small_mountain_options(8, 8, 10);
  const TetMesh mesh = generate_mountain_mesh(domain);
  RemeshOptions options;
  options.keep_boundary = false;
  options.hausdorff = 20;
  const TetMesh adapted = remesh(mesh, metric_at_nodes(mesh), options);
  EXPECT_TRUE(check_mesh(const_cast<TetMesh&>(adapted)).ok());
  EXPECT_NE(adapted.boundary_face_count(), mesh.boundary_face_count());
  EXPECT_NEAR(tet_volume_sum(adapted), tet_volume_sum(mesh), 1e-3 * tet_volume_sum(mesh));
  for (std::size_t f = 0; f < adapted.boundary_faces.size(); ++f)
    for (const std::int32_t n : adapted.boundary_faces[f]) {
      const Point3& p = adapted.nodes[static_cast<std::size_t>(n)];
      switch (adapted.boundary_tags[f]) {
        case boundary_top:
          EXPECT_NEAR(p[2], domain.height, 1e-6);
          break;
        case boundary_inflow:
          EXPECT_NEAR(p[0], -domain.length_x / 2, 1e-6);
          break;
        case boundary_outflow:
          EXPECT_NEAR(p[0], domain.length_x / 2, 1e-6);
          break;
        case boundary_lateral:
          EXPECT_NEAR(std::fabs(p[1]), domain.length_y / 2, 1e-6);
          break;
        case boundary_terrain:
          break;  // Mmg's reconstruction of it: see docs/adaptivity.md
        default:
          ADD_FAILURE() << "tag " << adapted.boundary_tags[f];
      }
    }
}

// Mmg installs its own signal handlers while it runs and resets them to SIG_DFL when it returns;
// remesh puts the caller's back (PETSc's and MPI's, in a real run).
TEST(AdaptRemesh, TheCallersSignalHandlersSurviveARemesh) {
  SKIP_WITHOUT_MMG();
  struct sigaction mine {
  }, before{}, after{};
  mine.sa_handler = [](int) {};
  sigemptyset(&mine.sa_mask);
  ASSERT_EQ(sigaction(SIGTERM, &mine, &before), 0);
  const TetMesh mesh = testing::small_mountain(4, 4, 3);
  remesh(mesh, metric_at_nodes(mesh));
  ASSERT_EQ(sigaction(SIGTERM, &before, &after), 0);
  EXPECT_EQ(after.sa_handler, mine.sa_handler);
}

TEST(AdaptRemesh, BadInputIsNamed) {
  const TetMesh mesh = testing::small_mountain(2, 2, 2);
  auto metric = metric_at_nodes(mesh);
  // Checked before Mmg is needed: the same errors without it.
  testing::expect_error(ErrorCategory::invalid_input, "metric values",
                        [&] { remesh(mesh, std::span(metric).first(metric.size() - 1)); });
  auto indefinite = metric;
  indefinite[5].zz = -1;
  testing::expect_error(ErrorCategory::invalid_input, "metric at node 5",
                        [&] { remesh(mesh, indefinite); });
  auto not_finite = metric;
  not_finite[2].xy = NAN;
  testing::expect_error(ErrorCategory::invalid_input, "metric at node 2",
                        [&] { remesh(mesh, not_finite); });
  RemeshOptions options;
  options.gradation = 0.5;
  testing::expect_error(ErrorCategory::invalid_input, "gradation",
                        [&] { remesh(mesh, metric, options); });
  TetMesh regions = mesh;
  regions.tet_tags.assign(mesh.tet_count(), 1);
  regions.tet_tags[3] = 2;
  testing::expect_error(ErrorCategory::invalid_input, "more than one region",
                        [&] { remesh(regions, metric); });
  TetMesh untagged = mesh;
  untagged.boundary_tags.pop_back();
  testing::expect_error(ErrorCategory::invalid_input, "boundary tags",
                        [&] { remesh(untagged, metric); });
  if (!remeshing_available())
    testing::expect_error(ErrorCategory::unavailable, "FOEHN_MMG_DIR",
                          [&] { remesh(mesh, metric); });
}

}  // namespace
}  // namespace foehn::adapt
