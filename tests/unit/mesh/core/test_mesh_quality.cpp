// mesh_quality against closed forms (regular tet, corner tet, sliver), against a brute-force
// sort of the per-tet values (percentiles) and against edge counts known from the mesh's
// construction; describe() and to_json() as a log and a script read them.

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <limits>
#include <random>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "foehn/mesh/geometry.hpp"
#include "foehn/mesh/mountain.hpp"
#include "foehn/mesh/quality.hpp"
#include "foehn/mesh/quality_json.hpp"
#include "foehn/mesh/statistics.hpp"
#include "support/error_category.hpp"
#include "unit/mesh/support/box_mesh.hpp"

namespace foehn {
namespace {

constexpr double degrees = 180.0 / M_PI;

TetMesh one_tet(const std::array<Point3, 4>& corners) {
  TetMesh mesh;
  mesh.nodes.assign(corners.begin(), corners.end());
  mesh.tets = {{0, 1, 2, 3}};
  return mesh;
}

// The aspect ratio h_max / (2 sqrt(6) r_in), r_in = 3 |V| / S, computed another way than
// mesh_quality does: face areas by Heron's formula from the edge lengths.
double aspect_ratio_by_heron(const std::array<Point3, 4>& p) {
  auto length = [&](int i, int j) { return norm(p[j] - p[i]); };
  auto heron = [&](int i, int j, int k) {
    const double a = length(i, j), b = length(j, k), c = length(k, i), s = 0.5 * (a + b + c);
    return std::sqrt(s * (s - a) * (s - b) * (s - c));
  };
  double longest = 0.0;
  for (int i = 0; i < 4; ++i)
    for (int j = i + 1; j < 4; ++j) longest = std::max(longest, length(i, j));
  const double area = heron(1, 2, 3) + heron(0, 2, 3) + heron(0, 1, 3) + heron(0, 1, 2);
  const double inradius = 3.0 * std::abs(signed_volume(p[0], p[1], p[2], p[3])) / area;
  return longest / (2.0 * std::sqrt(6.0) * inradius);
}

// Nearest rank by its definition: the smallest rank k with k / n >= percent / 100.
double brute_force_percentile(std::vector<double> values, std::size_t percent) {
  std::sort(values.begin(), values.end());
  std::size_t rank = 1;
  while (rank * 100 < percent * values.size()) ++rank;
  return values[rank - 1];
}

TEST(MeshQuality, RegularTet) {
  const double s = 3.0;  // alternate corners of an s-cube: every edge s sqrt(2)
  const MeshQuality q = mesh_quality(one_tet({Point3{0, 0, 0}, {s, s, 0}, {s, 0, s}, {0, s, s}}));
  const double regular_dihedral = std::acos(1.0 / 3.0) * degrees;  // 70.5288 degrees
  EXPECT_EQ(q.tets, 1u);
  EXPECT_EQ(q.edges, 6u);
  EXPECT_NEAR(q.min_dihedral_degrees, regular_dihedral, 1e-12);
  EXPECT_NEAR(q.max_dihedral_degrees, regular_dihedral, 1e-12);
  EXPECT_NEAR(q.dihedral_percentile_1_degrees, regular_dihedral, 1e-12);
  EXPECT_NEAR(q.worst_aspect_ratio, 1.0, 1e-14);
  EXPECT_NEAR(q.aspect_ratio_percentile_99, 1.0, 1e-14);
  EXPECT_NEAR(q.shortest_edge, s * std::sqrt(2.0), 1e-14);
  EXPECT_NEAR(q.longest_edge, s * std::sqrt(2.0), 1e-14);
}

// The corner tet of the unit cube. Dihedral angles: 90 degrees at the three edges through the
// origin, acos(1/sqrt 3) = 54.7356 degrees at the three of the slanted face. Aspect ratio:
// h_max = sqrt 2; faces 3 (1/2) + sqrt(3)/2 = (3 + sqrt 3)/2; V = 1/6, so
// r_in = 3 V / S = 1 / (3 + sqrt 3) and h_max / (2 sqrt(6) r_in) = sqrt(2) (3 + sqrt 3) / (2 sqrt
// 6) = (3 + sqrt 3) / (2 sqrt 3) = (1 + sqrt 3) / 2 = 1.3660254. Either orientation.
TEST(MeshQuality, CornerTet) {
  const Point3 o{0, 0, 0}, x{1, 0, 0}, y{0, 1, 0}, z{0, 0, 1};
  for (const std::array<Point3, 4>& corners :
       {std::array<Point3, 4>{o, x, y, z}, std::array<Point3, 4>{o, y, x, z}}) {
    const MeshQuality q = mesh_quality(one_tet(corners));
    EXPECT_NEAR(q.min_dihedral_degrees, std::acos(1.0 / std::sqrt(3.0)) * degrees, 1e-12);
    EXPECT_NEAR(q.max_dihedral_degrees, 90.0, 1e-12);
    EXPECT_NEAR(q.worst_aspect_ratio, (1.0 + std::sqrt(3.0)) / 2.0, 1e-14);
    EXPECT_NEAR(q.shortest_edge, 1.0, 1e-15);
    EXPECT_NEAR(q.longest_edge, std::sqrt(2.0), 1e-15);
    EXPECT_EQ(q.edges, 6u);
  }
}

// Four nearly coplanar corners of a square, lifted by eps: one dihedral angle near 0, one
// near 180, and aspect ratio about sqrt(2) * 4 * (1/2) * 2 / (2 sqrt(6) eps) = 2 / (sqrt(3) eps)
// (|det| = eps, the four faces' cross products about 1 each). Flat: infinite.
TEST(MeshQuality, SliverAndFlatTet) {
  const double eps = 1e-3;
  const MeshQuality sliver =
      mesh_quality(one_tet({Point3{0, 0, 0}, {1, 0, 0}, {1, 1, eps}, {0, 1, 0}}));
  EXPECT_LT(sliver.min_dihedral_degrees, 0.2);
  EXPECT_GT(sliver.max_dihedral_degrees, 179.8);
  EXPECT_NEAR(sliver.worst_aspect_ratio, 2.0 / (std::sqrt(3.0) * eps),
              1e-3 * sliver.worst_aspect_ratio);
  const MeshQuality flat =
      mesh_quality(one_tet({Point3{0, 0, 0}, {1, 0, 0}, {1, 1, 0}, {0, 1, 0}}));
  EXPECT_EQ(flat.worst_aspect_ratio, std::numeric_limits<double>::infinity());
}

// Boxes of unit cubes with every node moved at random (all tets different): the extremes and
// the nearest-rank percentiles against every tet's values sorted. 600 tets: ranks 6 and 594
// exactly; 720 tets: 1% and 99% fall between ranks (7.2 -> 8, 712.8 -> 713).
TEST(MeshQuality, PercentilesAgainstABruteForceSort) {
  for (const testing::BoxSize box :
       {testing::BoxSize{10, 10, 1, 10, 10, 1}, testing::BoxSize{6, 5, 4, 6, 5, 4}}) {
    TetMesh mesh = testing::make_box_mesh(box);
    std::mt19937 random(17);
    std::uniform_real_distribution<double> shift(-0.2, 0.2);
    for (Point3& node : mesh.nodes)
      for (double& c : node) c += shift(random);
    std::vector<double> smallest_dihedral, aspect_ratio;
    double largest_dihedral = 0.0;
    for (const Tet& tet : mesh.tets) {
      const std::array<Point3, 4> p{mesh.nodes[tet[0]], mesh.nodes[tet[1]], mesh.nodes[tet[2]],
                                    mesh.nodes[tet[3]]};
      const std::array<double, 2> range = dihedral_angle_range(p);
      smallest_dihedral.push_back(range[0]);
      largest_dihedral = std::max(largest_dihedral, range[1]);
      aspect_ratio.push_back(aspect_ratio_by_heron(p));
    }
    ASSERT_EQ(std::set<double>(aspect_ratio.begin(), aspect_ratio.end()).size(),
              mesh.tets.size());  // no ties: each rank is one tet

    const MeshQuality q = mesh_quality(mesh);
    const std::string label = std::to_string(mesh.tets.size()) + " tets";
    EXPECT_EQ(q.tets, mesh.tets.size()) << label;
    EXPECT_EQ(q.min_dihedral_degrees,
              *std::min_element(smallest_dihedral.begin(), smallest_dihedral.end()))
        << label;
    EXPECT_EQ(q.max_dihedral_degrees, largest_dihedral) << label;
    EXPECT_EQ(q.dihedral_percentile_1_degrees, brute_force_percentile(smallest_dihedral, 1))
        << label;
    const double worst = *std::max_element(aspect_ratio.begin(), aspect_ratio.end());
    EXPECT_NEAR(q.worst_aspect_ratio, worst, 1e-12 * worst) << label;
    const double p99 = brute_force_percentile(aspect_ratio, 99);
    EXPECT_NEAR(q.aspect_ratio_percentile_99, p99, 1e-12 * p99) << label;
    EXPECT_LT(q.aspect_ratio_percentile_99, q.worst_aspect_ratio) << label;
    EXPECT_GT(q.dihedral_percentile_1_degrees, q.min_dihedral_degrees) << label;
  }
}

// A 4 x 3 x 2 box of unit cubes, six tets each sharing the cube's main diagonal: its unique
// edges are the grid's axis edges (length 1), one diagonal per cube face (sqrt 2) and one per
// cube (sqrt 3). Axis: 4*4*3 + 5*3*3 + 5*4*2 = 133; faces: 4*3*3 + 4*4*2 + 5*3*2 = 98; cubes 24.
TEST(MeshQuality, EdgesCountedAgainstBounds) {
  const TetMesh mesh = testing::make_box_mesh({4, 3, 2, 4.0, 3.0, 2.0});
  const MeshQuality q = mesh_quality(mesh, {1.2, 1.5});
  EXPECT_EQ(q.tets, 144u);
  EXPECT_EQ(q.edges, 133u + 98u + 24u);
  EXPECT_NEAR(q.shortest_edge, 1.0, 1e-15);
  EXPECT_NEAR(q.longest_edge, std::sqrt(3.0), 1e-15);
  EXPECT_EQ(q.edges_below, 133u);
  EXPECT_EQ(q.edges_above, 24u);
  EXPECT_EQ(describe(q, {1.2, 1.5}).substr(describe(q, {1.2, 1.5}).find("edges")),
            "edges 1 m .. 1.73 m (133 below 1.2 m, 24 above 1.5 m)");

  const MeshQuality above_only = mesh_quality(mesh, {0.0, 1.0});  // strictly longer than 1 m
  EXPECT_EQ(above_only.edges_below, 0u);
  EXPECT_EQ(above_only.edges_above, 98u + 24u);
  EXPECT_NE(describe(above_only, {0.0, 1.0}).find("(122 above 1 m)"), std::string::npos)
      << describe(above_only, {0.0, 1.0});
  const MeshQuality unbounded = mesh_quality(mesh);
  EXPECT_EQ(unbounded.edges_below + unbounded.edges_above, 0u);
  EXPECT_EQ(describe(unbounded).find(" below "), std::string::npos) << describe(unbounded);
  EXPECT_EQ(describe(unbounded).find(" above "), std::string::npos) << describe(unbounded);
}

// The small mountain mesh agrees with compute_statistics where both report the same thing.
TEST(MeshQuality, MountainMeshAgreesWithStatistics) {
  MountainMeshOptions options;
  options.cells_x = options.cells_y = 6;
  options.cells_z = 4;
  const TetMesh mesh = generate_mountain_mesh(options);
  const MeshQuality q = mesh_quality(mesh);
  const MeshStatistics stats = compute_statistics(mesh);
  EXPECT_EQ(q.tets, 6u * 6u * 6u * 4u);
  EXPECT_EQ(q.min_dihedral_degrees, stats.min_dihedral_degrees);
  EXPECT_EQ(q.max_dihedral_degrees, stats.max_dihedral_degrees);
  EXPECT_NEAR(q.shortest_edge, stats.min_edge, 1e-12 * stats.min_edge);
  EXPECT_NEAR(q.longest_edge, stats.max_edge, 1e-12 * stats.max_edge);
  EXPECT_GE(q.worst_aspect_ratio, q.aspect_ratio_percentile_99);
  EXPECT_GE(q.aspect_ratio_percentile_99, 1.0);
}

TEST(MeshQuality, RefusesMeshesItCannotMeasure) {
  using testing::expect_error;
  expect_error(ErrorCategory::invalid_input, "no tets", [] { mesh_quality(TetMesh{}); });
  TetMesh mesh = one_tet({Point3{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {0, 0, 1}});
  expect_error(ErrorCategory::invalid_input, "edge bounds", [&] { mesh_quality(mesh, {-1, 0}); });
  mesh.nodes[2][1] = std::numeric_limits<double>::quiet_NaN();
  expect_error(ErrorCategory::invalid_input, "non-finite", [&] { mesh_quality(mesh); });
  mesh.tets[0][0] = 4;  // checked before the coordinates of the later corners
  expect_error(ErrorCategory::invalid_input, "uses node 4 of 4", [&] { mesh_quality(mesh); });
}

TEST(MeshQuality, DescribesInOneLine) {
  MeshQuality q;
  q.min_dihedral_degrees = 4.1;
  q.dihedral_percentile_1_degrees = 19.8;
  q.worst_aspect_ratio = 9.3;
  q.aspect_ratio_percentile_99 = 3.1;
  q.shortest_edge = 71.2;
  q.longest_edge = 9870.0;
  q.edges_below = 12;
  EXPECT_EQ(describe(q, {125.0, 10000.0}),
            "min dihedral 4.1 deg (1st percentile 19.8), worst aspect ratio 9.3 (99th percentile "
            "3.1), edges 71.2 m .. 9870 m (12 below 125 m, 0 above 10000 m)");
  q.worst_aspect_ratio = std::numeric_limits<double>::infinity();
  q.shortest_edge = 0.000123456;
  q.longest_edge = 12345678.0;
  EXPECT_EQ(describe(q),
            "min dihedral 4.1 deg (1st percentile 19.8), worst aspect ratio inf (99th percentile "
            "3.1), edges 0.000123 m .. 1.23e+07 m");
}

TEST(MeshQuality, JsonKeysAreTheMemberNames) {
  const MeshQuality q = mesh_quality(testing::make_box_mesh({2, 2, 2, 2.0, 2.0, 2.0}), {1.2, 1.5});
  const nlohmann::json json = to_json(q);
  std::set<std::string> keys;
  for (const auto& item : json.items()) keys.insert(item.key());
  EXPECT_EQ(keys, (std::set<std::string>{
                      "tets", "edges", "min_dihedral_degrees", "dihedral_percentile_1_degrees",
                      "max_dihedral_degrees", "worst_aspect_ratio", "aspect_ratio_percentile_99",
                      "shortest_edge", "longest_edge", "edges_below", "edges_above"}));
  EXPECT_EQ(json.at("tets").get<std::size_t>(), q.tets);
  EXPECT_EQ(json.at("edges_above").get<std::size_t>(), q.edges_above);
  EXPECT_EQ(json.at("worst_aspect_ratio").get<double>(), q.worst_aspect_ratio);
  // Round trip of every double through the text a script reads.
  const nlohmann::json parsed = nlohmann::json::parse(json.dump());
  EXPECT_EQ(parsed.at("dihedral_percentile_1_degrees").get<double>(),
            q.dihedral_percentile_1_degrees);
  EXPECT_EQ(parsed.at("longest_edge").get<double>(), q.longest_edge);
}

}  // namespace
}  // namespace foehn
