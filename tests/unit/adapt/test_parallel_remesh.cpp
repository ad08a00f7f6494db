// foehn::adapt::remesh_in_parallel: Mmg on METIS parts of the mesh at once, the interfaces
// frozen and moved between passes. Checked against what does not depend on how the mesh was
// split: the result is conforming (every face of the surface is a boundary triangle, every
// other face is shared by exactly two tets), its boundary is the input's bitwise, its edges are
// about unit long in the metric as a serial remesh's are, its quality is no worse than serial
// Mmg's, every region was free in some pass, and the same parts give bitwise the same mesh on
// one thread as on several (the parts' Mmg calls do not disturb each other). Skipped without Mmg.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <limits>
#include <set>
#include <vector>

#include "foehn/adapt/parallel_remesh.hpp"
#include "foehn/adapt/remesh.hpp"
#include "foehn/mesh/geometry.hpp"
#include "foehn/mesh/statistics.hpp"
#include "foehn/mesh/topology.hpp"
#include "foehn/mesh/validate.hpp"
#include "support/error_category.hpp"
#include "support/small_mountain.hpp"
#include "unit/adapt/support/layer_metric.hpp"

namespace foehn::adapt {
namespace {

using testing::edges_of;

// Horizontal edges of 3 km: refinement across every part, so that each pass has work on each
// side of each interface.
const testing::LayerMetric layer{3000.0};

std::vector<Sym3<double>> metric_at_nodes(const TetMesh& mesh) {
  return layer.at_nodes(mesh);
}

// The median metric length of the edges away from the kept boundary.
double median_inner_metric_length(const TetMesh& mesh) {
  const auto edges = edges_of(mesh);
  const auto inner = [&](std::int32_t n) {
    const Point3& p = mesh.nodes[static_cast<std::size_t>(n)];
    return std::fabs(p[0]) < 20000 && std::fabs(p[1]) < 20000 && p[2] > 1000 && p[2] < 12000;
  };
  std::vector<double> lengths;
  for (const auto& [a, b] : edges)
    if (inner(a) && inner(b)) lengths.push_back(layer.length(mesh.nodes[a], mesh.nodes[b]));
  EXPECT_GT(lengths.size(), 1000u);
  std::nth_element(lengths.begin(), lengths.begin() + lengths.size() / 2, lengths.end());
  return lengths[lengths.size() / 2];
}

// Every boundary triangle as its tag and sorted corner coordinates, sorted.
std::vector<std::array<double, 10>> boundary_of(const TetMesh& mesh) {
  std::vector<std::array<double, 10>> faces;
  for (std::size_t f = 0; f < mesh.boundary_faces.size(); ++f) {
    std::array<Point3, 3> corners;
    for (int k = 0; k < 3; ++k) corners[k] = mesh.nodes[mesh.boundary_faces[f][k]];
    std::sort(corners.begin(), corners.end());
    std::array<double, 10> face{static_cast<double>(mesh.boundary_tags[f])};
    for (int k = 0; k < 3; ++k)
      for (int c = 0; c < 3; ++c) face[1 + 3 * k + c] = corners[k][c];
    faces.push_back(face);
  }
  std::sort(faces.begin(), faces.end());
  return faces;
}

// The smallest dihedral angle of each tet, its 1st percentile over the mesh, degrees.
double first_percentile_dihedral(const TetMesh& mesh) {
  std::vector<double> smallest;
  for (const Tet& tet : mesh.tets)
    smallest.push_back(dihedral_angle_range(
        {mesh.nodes[tet[0]], mesh.nodes[tet[1]], mesh.nodes[tet[2]], mesh.nodes[tet[3]]})[0]);
  std::nth_element(smallest.begin(), smallest.begin() + smallest.size() / 100, smallest.end());
  return smallest[smallest.size() / 100];
}

ParallelRemeshOptions four_parts(int threads) {
  ParallelRemeshOptions o;
  o.parts = 4;
  o.threads = threads;
  return o;
}

TEST(AdaptParallelRemesh, IsConformingKeepsTheBoundaryBitwiseAndMeetsTheMetricAsSerialMmgDoes) {
  SKIP_WITHOUT_MMG();
  const TetMesh mesh = testing::small_mountain(12, 12, 10);
  const auto metric = metric_at_nodes(mesh);
  ParallelRemeshReport report;
  TetMesh adapted = remesh_in_parallel(mesh, metric, {}, four_parts(4), &report);
  const TetMesh serial = remesh(mesh, metric);

  MeshCheckResult check = check_mesh(adapted);
  EXPECT_TRUE(check.ok()) << check.summary();
  const FaceTopology faces = build_face_topology(adapted);
  EXPECT_EQ(faces.surface.size(), adapted.boundary_face_count());
  EXPECT_EQ(faces.overshared_face_count, 0u);
  EXPECT_EQ(boundary_of(adapted), boundary_of(mesh));
  EXPECT_EQ(report.nodes, adapted.node_count());
  EXPECT_EQ(report.tets, adapted.tet_count());

  // At least two passes, the last leaving no node frozen in all of them.
  ASSERT_GE(report.passes.size(), 2u);
  EXPECT_EQ(report.passes.back().nodes_frozen_throughout, 0u);
  EXPECT_EQ(report.nodes_never_free, 0u);
  EXPECT_EQ(report.tets_never_free, 0u);
  for (const ParallelRemeshPass& pass : report.passes) {
    EXPECT_EQ(pass.parts, 4);
    EXPECT_GT(pass.interface_faces, 0u);
  }
  // The first pass remeshes every tet; a later one the band around the nodes frozen so far.
  EXPECT_EQ(report.passes[0].remeshed_tets, mesh.tet_count());
  for (std::size_t p = 1; p < report.passes.size(); ++p)
    EXPECT_LT(report.passes[p].remeshed_tets, report.passes[p - 1].tets) << "pass " << p + 1;

  // The same request met as serial Mmg meets it: a median metric edge near 1, about as many nodes,
  // and a worst tail no worse than 0.8 of serial Mmg's.
  const double parallel_median = median_inner_metric_length(adapted);
  const double serial_median = median_inner_metric_length(serial);
  EXPECT_GT(parallel_median, 0.8);
  EXPECT_LT(parallel_median, 1.25);
  EXPECT_NEAR(parallel_median, serial_median, 0.1);
  EXPECT_NEAR(static_cast<double>(adapted.node_count()), static_cast<double>(serial.node_count()),
              0.15 * static_cast<double>(serial.node_count()));
  EXPECT_GT(first_percentile_dihedral(adapted), 0.8 * first_percentile_dihedral(serial));
  EXPECT_GT(dihedral_angle_range(adapted)[0], 0.5 * dihedral_angle_range(serial)[0]);
  std::printf("parallel: %zu passes, nodes frozen throughout", report.passes.size());
  for (const ParallelRemeshPass& pass : report.passes)
    std::printf(" %zu", pass.nodes_frozen_throughout);
  std::printf(
      "; %zu nodes (serial %zu), median metric edge %.3f (serial %.3f), 1st percentile "
      "dihedral %.2f (serial %.2f), smallest %.2f (serial %.2f) degrees\n",
      adapted.node_count(), serial.node_count(), parallel_median, serial_median,
      first_percentile_dihedral(adapted), first_percentile_dihedral(serial),
      dihedral_angle_range(adapted)[0], dihedral_angle_range(serial)[0]);
}

TEST(AdaptParallelRemesh, TheSamePartsGiveBitwiseTheSameMeshOnOneThreadAsOnFour) {
  SKIP_WITHOUT_MMG();
  const TetMesh mesh = testing::small_mountain(8, 8, 6);
  const auto metric = metric_at_nodes(mesh);
  const TetMesh one = remesh_in_parallel(mesh, metric, {}, four_parts(1));
  const TetMesh four = remesh_in_parallel(mesh, metric, {}, four_parts(4));
  EXPECT_EQ(one.nodes, four.nodes);
  EXPECT_EQ(one.tets, four.tets);
  EXPECT_EQ(one.boundary_faces, four.boundary_faces);
  EXPECT_EQ(one.boundary_tags, four.boundary_tags);
}

// Without a band every pass remeshes the whole mesh (the first version's way); with one, the
// passes after the first leave most of it alone. Both end with every node free once, conforming,
// and with the boundary kept.
TEST(AdaptParallelRemesh, ABandOfLayersOrTheWholeMeshInEveryPass) {
  SKIP_WITHOUT_MMG();
  const TetMesh mesh = testing::small_mountain(12, 12, 10);
  const auto metric = metric_at_nodes(mesh);
  for (const int layers : {0, 3}) {
    ParallelRemeshOptions o = four_parts(2);
    o.band_layers = layers;
    ParallelRemeshReport report;
    TetMesh adapted = remesh_in_parallel(mesh, metric, {}, o, &report);
    EXPECT_TRUE(check_mesh(adapted).ok()) << layers << " layers";
    EXPECT_EQ(boundary_of(adapted), boundary_of(mesh)) << layers << " layers";
    EXPECT_EQ(report.nodes_never_free, 0u) << layers << " layers";
    ASSERT_GE(report.passes.size(), 2u);
    std::size_t input_tets = mesh.tet_count();
    for (const ParallelRemeshPass& pass : report.passes) {
      if (layers == 0) {
        EXPECT_EQ(pass.remeshed_tets, input_tets) << "whole mesh in every pass";
      }
      input_tets = pass.tets;
    }
    // The band shrinks from pass to pass: on this small mesh, whose parts are a few tets thick,
    // 3 layers took 14,097 of 20,691 tets in the second pass and 5,674 in the third.
    for (std::size_t p = 1; layers > 0 && p < report.passes.size(); ++p)
      EXPECT_LT(report.passes[p].remeshed_tets,
                p == 1 ? report.passes[0].tets : report.passes[p - 1].remeshed_tets)
          << "pass " << p + 1;
    std::printf("%d layers: %zu passes, tets remeshed", layers, report.passes.size());
    for (const ParallelRemeshPass& pass : report.passes) std::printf(" %zu", pass.remeshed_tets);
    std::printf(", %zu tets made\n", adapted.tet_count());
  }
}

// The shortest edge off the kept boundary, and the nodes at edges off it shorter than `bound`.
struct InnerEdges {
  double shortest = 1e300;
  std::size_t nodes_below = 0;
};

InnerEdges inner_edges(const TetMesh& mesh, double bound) {
  std::vector<char> on_boundary(mesh.node_count(), 0), below(mesh.node_count(), 0);
  for (const Triangle& face : mesh.boundary_faces)
    for (const std::int32_t n : face) on_boundary[static_cast<std::size_t>(n)] = 1;
  InnerEdges inner;
  for (const auto& [a, b] : edges_of(mesh)) {
    if (on_boundary[a] && on_boundary[b]) continue;
    const Point3& p = mesh.nodes[a];
    const Point3& q = mesh.nodes[b];
    const double length = std::hypot(p[0] - q[0], p[1] - q[1], p[2] - q[2]);
    inner.shortest = std::min(inner.shortest, length);
    if (length < bound) below[a] = below[b] = 1;
  }
  inner.nodes_below = static_cast<std::size_t>(std::count(below.begin(), below.end(), 1));
  return inner;
}

// Mmg leaves edges far below the metric's sizes next to frozen triangles; later passes free the
// nodes at edges below the bound, as a best effort (a band's own frozen surface can leave new
// ones; a repair that leaves a shorter edge than it found is undone). What is checked is that
// the report says what is left: its count of such nodes is the result's, and none left means
// none below the bound. Without a bound no pass looks for them.
TEST(AdaptParallelRemesh, EdgesBelowTheBoundAreFreedByLaterPassesAndWhatIsLeftIsReported) {
  SKIP_WITHOUT_MMG();
  const TetMesh mesh = testing::small_mountain(12, 12, 10);
  const auto metric = metric_at_nodes(mesh);
  ParallelRemeshOptions without = four_parts(2);
  without.short_edge_fraction = 0;
  ParallelRemeshReport left;
  const TetMesh unbounded_mesh = remesh_in_parallel(mesh, metric, {}, without, &left);
  const double unbounded = inner_edges(unbounded_mesh, 0).shortest;
  for (const ParallelRemeshPass& pass : left.passes) EXPECT_EQ(pass.short_edge_nodes, 0u);
  for (const double factor : {0.9, 1.2}) {
    ParallelRemeshOptions bounded = without;
    bounded.short_edge = factor * unbounded;
    ParallelRemeshReport report;
    TetMesh adapted = remesh_in_parallel(mesh, metric, {}, bounded, &report);
    EXPECT_TRUE(check_mesh(adapted).ok());
    EXPECT_EQ(boundary_of(adapted), boundary_of(mesh));
    EXPECT_EQ(report.nodes_never_free, 0u);
    const InnerEdges inner = inner_edges(adapted, bounded.short_edge);
    EXPECT_EQ(report.short_edge_nodes_left, inner.nodes_below) << factor;
    if (report.short_edge_nodes_left == 0) {
      EXPECT_GE(inner.shortest, bounded.short_edge);
    }
    std::size_t flagged = 0;
    for (const ParallelRemeshPass& pass : report.passes) flagged += pass.short_edge_nodes;
    if (factor > 1) {
      EXPECT_GT(flagged, 0u);
    }
    std::printf(
        "bound %.1f m: shortest inner edge %.1f m (%.1f m without a bound), %zu nodes "
        "below it left, %zu passes%s\n",
        bounded.short_edge, inner.shortest, unbounded, report.short_edge_nodes_left,
        report.passes.size(), report.passes.back().undone ? ", the last undone" : "");
  }
}

TEST(AdaptParallelRemesh, OnePartIsSerialMmg) {
  SKIP_WITHOUT_MMG();
  const TetMesh mesh = testing::small_mountain(6, 6, 6);
  const auto metric = metric_at_nodes(mesh);
  ParallelRemeshOptions o;
  o.threads = 8;  // the mesh is far below 8 x min_tets_per_part tets: one part
  ParallelRemeshReport report;
  const TetMesh adapted = remesh_in_parallel(mesh, metric, {}, o, &report);
  const TetMesh serial = remesh(mesh, metric);
  EXPECT_TRUE(report.passes.empty());
  EXPECT_EQ(adapted.nodes, serial.nodes);
  EXPECT_EQ(adapted.tets, serial.tets);
}

TEST(AdaptParallelRemesh, BadOptionsAreNamed) {
  const TetMesh mesh = testing::small_mountain(4, 4, 4);
  const auto metric = metric_at_nodes(mesh);
  ParallelRemeshOptions o = four_parts(2);
  o.threads = -1;
  testing::expect_error(ErrorCategory::invalid_input, "threads -1",
                        [&] { remesh_in_parallel(mesh, metric, {}, o); });
  o = four_parts(2);
  o.max_passes = 0;
  testing::expect_error(ErrorCategory::invalid_input, "max_passes 0",
                        [&] { remesh_in_parallel(mesh, metric, {}, o); });
  o = four_parts(2);
  o.short_edge = std::nan("");
  testing::expect_error(ErrorCategory::invalid_input, "short_edge nan",
                        [&] { remesh_in_parallel(mesh, metric, {}, o); });
  o = four_parts(2);
  o.frozen_gradation = std::numeric_limits<double>::infinity();
  testing::expect_error(ErrorCategory::invalid_input, "frozen_gradation inf",
                        [&] { remesh_in_parallel(mesh, metric, {}, o); });
  o = four_parts(2);
  o.band_layers = -1;
  testing::expect_error(ErrorCategory::invalid_input, "band_layers -1",
                        [&] { remesh_in_parallel(mesh, metric, {}, o); });
  RemeshOptions free_boundary;
  free_boundary.keep_boundary = false;
  if (remeshing_available())
    testing::expect_error(ErrorCategory::invalid_input, "need keep_boundary",
                          [&] { remesh_in_parallel(mesh, metric, free_boundary, four_parts(2)); });
  testing::expect_error(ErrorCategory::invalid_input, "metric values for", [&] {
    remesh_in_parallel(mesh, std::vector<Sym3<double>>(3), {}, four_parts(2));
  });
}

}  // namespace
}  // namespace foehn::adapt
