// What bounds an adaptation: adapt::predict_nodes against the nodes Mmg actually makes (the
// calibration of mmg_nodes_per_complexity, for isotropic, graded and layered metrics), a metric
// predicted above RemeshOptions::max_nodes refused before Mmg runs, and the edge lengths Mmg
// leaves where the metric asks for its finest size (Mmg's sizes are requests: it collapses
// edges shorter than 0.6 in the metric, not every edge shorter than 1). Skipped without Mmg,
// except the refusals, which come before Mmg is needed.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <set>
#include <vector>

#include "foehn/adapt/metric.hpp"
#include "foehn/adapt/remesh.hpp"
#include "foehn/mesh/geometry.hpp"
#include "support/error_category.hpp"
#include "support/small_mountain.hpp"

namespace foehn::adapt {
namespace {

#define SKIP_WITHOUT_MMG() \
  if (!remeshing_available()) GTEST_SKIP() << "this build has no Mmg (FOEHN_MMG_DIR)"

Sym3<double> isotropic(double h) {
  return {1 / (h * h), 1 / (h * h), 1 / (h * h), 0, 0, 0};
}

std::vector<Sym3<double>> metric_of(const TetMesh& mesh,
                                    const std::function<Sym3<double>(const Point3&)>& at) {
  std::vector<Sym3<double>> metric(mesh.node_count());
  for (std::size_t n = 0; n < metric.size(); ++n) metric[n] = at(mesh.nodes[n]);
  return metric;
}

std::vector<char> boundary_nodes_of(const TetMesh& mesh) {
  std::vector<char> on_boundary(mesh.node_count(), 0);
  for (const Triangle& face : mesh.boundary_faces)
    for (const std::int32_t n : face) on_boundary[static_cast<std::size_t>(n)] = 1;
  return on_boundary;
}

// The mountain domain (60 x 60 x 16 km) at 5 km horizontal and 2 km vertical spacing: a
// boundary fine enough that the interior is not dominated by its grading.
TetMesh start_mesh() {
  return testing::small_mountain(12, 12, 8);
}

using SizeField = std::function<Sym3<double>(const Point3&)>;

// Mmg's interior nodes per unit of complexity (the calibration of mmg_nodes_per_complexity):
// within 40% of the constant for metrics about as fine as the kept boundary or coarser inside,
// isotropic or graded. Where the metric is much finer than the kept boundary, Mmg grades from
// the boundary's sizes (gradation 1.3) and makes fewer nodes than predicted: the prediction
// errs on the side of refusing, never of a runaway.
TEST(AdaptRemeshBounds, ThePredictedNodeCountIsCalibratedAgainstMmgs) {
  SKIP_WITHOUT_MMG();
  const TetMesh mesh = start_mesh();
  struct Case {
    const char* name;
    SizeField at;
    bool as_fine_as_the_boundary;
  };
  const std::vector<Case> cases = {
      {"isotropic 5000 m", [](const Point3&) { return isotropic(5000); }, true},
      {"isotropic 4000 m", [](const Point3&) { return isotropic(4000); }, true},
      {"graded 800 to 5000 m",
       [](const Point3& p) {
         const double r = std::hypot(p[0], p[1], p[2] - 3000) / 10000;
         return isotropic(800 + 4200 * std::min(1.0, r));
       },
       true},
      {"isotropic 1800 m", [](const Point3&) { return isotropic(1800); }, false},
      {"layer 300 m by 4 km",
       [](const Point3& p) {
         const double hz = 300 + 2700 * std::min(1.0, std::fabs(p[2] - 5000) / 3000);
         return Sym3<double>{1 / 16e6, 1 / 16e6, 1 / (hz * hz), 0, 0, 0};
       },
       false},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    const auto metric = metric_of(mesh, c.at);
    const NodePrediction predicted = predict_nodes(mesh, metric, true);
    RemeshReport report;
    remesh(mesh, metric, {}, &report);
    const double made = static_cast<double>(report.nodes);
    const double per_complexity = (made - predicted.boundary_nodes) / predicted.complexity;
    std::printf("%s: complexity %.0f, predicted %.0f nodes, Mmg made %.0f (%.3f per complexity)\n",
                c.name, predicted.complexity, predicted.nodes, made, per_complexity);
    EXPECT_DOUBLE_EQ(report.predicted_nodes, predicted.nodes);
    if (c.as_fine_as_the_boundary) {
      EXPECT_GT(per_complexity, mmg_nodes_per_complexity / 1.4);
      EXPECT_LT(per_complexity, mmg_nodes_per_complexity * 1.4);
    } else {
      EXPECT_LT(made, predicted.nodes);
    }
  }
}

// The prediction's parts against their closed forms: a uniform metric of edge h over the
// domain has complexity volume / h^3, and the kept boundary's nodes are counted once each.
TEST(AdaptRemeshBounds, ThePredictionOfAUniformMetricIsItsClosedForm) {
  const TetMesh mesh = testing::small_mountain(6, 6, 4);
  double volume = 0;
  for (const Tet& tet : mesh.tets) volume += signed_volume(mesh, tet);
  const std::vector<Sym3<double>> metric(mesh.node_count(), isotropic(2000));
  const NodePrediction kept = predict_nodes(mesh, metric, true, 1.5);
  EXPECT_NEAR(kept.complexity, volume / 8e9, 1e-9 * kept.complexity);
  // 7 x 7 x 5 nodes, of which 5 x 5 x 3 inside.
  EXPECT_EQ(kept.boundary_nodes, 245.0 - 75.0);
  EXPECT_NEAR(kept.nodes, 170 + 1.5 * volume / 8e9, 1e-9 * kept.nodes);
  const NodePrediction adapted_boundary = predict_nodes(mesh, metric, false, 1.5);
  EXPECT_EQ(adapted_boundary.boundary_nodes, 0.0);
  testing::expect_error(ErrorCategory::invalid_input, "metric values",
                        [&] { predict_nodes(mesh, std::span(metric).first(10), true); });
}

// A metric that asks for more than max_nodes is refused naming the numbers, before Mmg runs
// (so the same error without Mmg): centimetre edges over the domain, and one just over the limit.
TEST(AdaptRemeshBounds, AMetricPredictedAboveMaxNodesIsRefusedBeforeMmgRuns) {
  const TetMesh mesh = testing::small_mountain(6, 6, 4);
  RemeshOptions options;
  options.max_nodes = 1e5;
  for (const double h : {1e-2, 1.0, 10.0, 150.0}) {
    SCOPED_TRACE(h);
    const std::vector<Sym3<double>> metric(mesh.node_count(), isotropic(h));
    testing::expect_error(ErrorCategory::invalid_input, "more than max_nodes 100000",
                          [&] { remesh(mesh, metric, options); });
  }
  const std::vector<Sym3<double>> fits(mesh.node_count(), isotropic(8000));
  const NodePrediction predicted = predict_nodes(mesh, fits, true);
  options.max_nodes = std::floor(predicted.nodes) - 1;
  testing::expect_error(ErrorCategory::invalid_input, "Mmg was not run",
                        [&] { remesh(mesh, fits, options); });
  options.max_nodes = -1;
  testing::expect_error(ErrorCategory::invalid_input, "max_nodes -1",
                        [&] { remesh(mesh, fits, options); });
  options.max_nodes = 0;
  options.nodes_per_complexity = 0;
  testing::expect_error(ErrorCategory::invalid_input, "nodes_per_complexity",
                        [&] { remesh(mesh, fits, options); });
}

// Within max_nodes Mmg runs as before (its memory capped in proportion).
TEST(AdaptRemeshBounds, AMetricWithinMaxNodesIsRemeshed) {
  SKIP_WITHOUT_MMG();
  const TetMesh mesh = start_mesh();
  const std::vector<Sym3<double>> metric(mesh.node_count(), isotropic(2500));
  RemeshOptions options;
  options.max_nodes = 1.2 * predict_nodes(mesh, metric, true).nodes;
  RemeshReport report;
  remesh(mesh, metric, options, &report);
  EXPECT_FALSE(report.incomplete);
  EXPECT_LT(static_cast<double>(report.nodes), 2 * options.max_nodes);
}

// Where the metric asks for its finest size h (a ball of h = 1 km, 5 km across, in a mesh of
// 2-5 km), Mmg leaves interior edges shorter than h: it collapses only edges it measures below
// 0.6 (MMG3D_LOPTS). Measured: 0.625 h here, 0.63-0.79 h on box meshes, 0.57 h in the
// held-out -adapt_hmin 125 run; the test holds 0.45 h. The report's shortest edge is the mesh's.
TEST(AdaptRemeshBounds, EdgesWhereTheMetricIsFinestAreShorterThanAskedButNotMuch) {
  SKIP_WITHOUT_MMG();
  const TetMesh mesh = start_mesh();
  constexpr double finest = 1000, radius = 5000;
  const auto size_at = [](const Point3& p) {
    const double r = std::hypot(p[0], p[1], p[2] - 6000);
    return r < radius ? finest : std::min(4000.0, finest + 0.3 * (r - radius));
  };
  const auto metric = metric_of(mesh, [&](const Point3& p) { return isotropic(size_at(p)); });
  RemeshReport report;
  const TetMesh adapted = remesh(mesh, metric, {}, &report);
  const std::vector<char> on_boundary = boundary_nodes_of(adapted);
  std::set<std::pair<std::int32_t, std::int32_t>> edges;
  for (const Tet& tet : adapted.tets)
    for (int a = 0; a < 4; ++a)
      for (int b = a + 1; b < 4; ++b)
        edges.insert({std::min(tet[a], tet[b]), std::max(tet[a], tet[b])});
  double shortest = INFINITY, shortest_interior = INFINITY;
  std::vector<double> ball;
  for (const auto& [a, b] : edges) {
    const Point3& p = adapted.nodes[static_cast<std::size_t>(a)];
    const Point3& q = adapted.nodes[static_cast<std::size_t>(b)];
    const double length = norm(q - p);
    shortest = std::min(shortest, length);
    if (!on_boundary[static_cast<std::size_t>(a)] && !on_boundary[static_cast<std::size_t>(b)])
      shortest_interior = std::min(shortest_interior, length);
    if (size_at(p) == finest && size_at(q) == finest) ball.push_back(length);
  }
  std::sort(ball.begin(), ball.end());
  ASSERT_GT(ball.size(), 500u);
  std::printf("shortest edge %.1f m, shortest interior %.1f m (%.3f h), ball median %.1f m\n",
              shortest, shortest_interior, shortest_interior / finest, ball[ball.size() / 2]);
  EXPECT_EQ(report.shortest_edge, shortest);
  EXPECT_GT(shortest_interior, 0.45 * finest);
  EXPECT_LT(ball.front(), finest);  // shorter than asked: a request, not a bound
  EXPECT_GT(ball[ball.size() / 2], 0.8 * finest);
  EXPECT_LT(ball[ball.size() / 2], 1.6 * finest);
}

}  // namespace
}  // namespace foehn::adapt
