// partition_elements (METIS) and partition_stats.

#include <algorithm>
#include <array>
#include <cstdint>
#include <map>
#include <random>
#include <set>
#include <vector>

#include <gtest/gtest.h>

#include "support/error_category.hpp"

#include "foehn/mesh/partition.hpp"
#include "foehn/runtime/error.hpp"
#include "unit/mesh/support/box_mesh.hpp"

namespace {

using foehn::ErrorCategory;

foehn::TetMesh box() {
  return foehn::testing::make_box_mesh({12, 10, 8, 12.0, 10.0, 8.0});
}

using foehn::testing::category_of;

TEST(Partition, MetisPartsAreBalancedNonEmptyAndCutLessThanRandom) {
  const foehn::TetMesh mesh = box();  // 5760 tets
  for (int parts : {2, 4, 7, 16}) {
    SCOPED_TRACE(parts);
    const std::vector<std::int32_t> part = foehn::partition_elements(mesh, parts);
    ASSERT_EQ(part.size(), mesh.tet_count());
    for (std::int32_t p : part) ASSERT_TRUE(p >= 0 && p < parts);
    const foehn::PartitionStats stats = foehn::partition_stats(mesh, part);
    EXPECT_EQ(stats.parts, parts);
    for (std::int64_t count : stats.elements_per_part) EXPECT_GT(count, 0);
    EXPECT_LE(stats.imbalance, 1.05);
    EXPECT_GT(stats.cut_faces, 0);

    // A random assignment with the same part sizes cuts about (1 - 1/parts) of all faces.
    std::vector<std::int32_t> random_part = part;
    std::mt19937_64 random(7);
    std::shuffle(random_part.begin(), random_part.end(), random);
    const foehn::PartitionStats random_stats = foehn::partition_stats(mesh, random_part);
    EXPECT_LT(stats.cut_faces * 4, random_stats.cut_faces);
  }
}

TEST(Partition, SameSeedSamePartition) {
  const foehn::TetMesh mesh = box();
  EXPECT_EQ(foehn::partition_elements(mesh, 5, {1.03, 3}),
            foehn::partition_elements(mesh, 5, {1.03, 3}));
}

TEST(Partition, OnePartIsAllZeros) {
  const foehn::TetMesh mesh = foehn::testing::make_box_mesh({2, 2, 2});
  EXPECT_EQ(foehn::partition_elements(mesh, 1), std::vector<std::int32_t>(mesh.tet_count(), 0));
}

TEST(Partition, AsManyPartsAsTetsIsAllowed) {
  const foehn::TetMesh mesh = foehn::testing::make_box_mesh({1, 1, 1});
  const std::vector<std::int32_t> part = foehn::partition_elements(mesh, 6);
  for (std::int32_t p : part) EXPECT_TRUE(p >= 0 && p < 6);
}

// Element weights: the parts balance the weights' sums, not their tets. A quarter of the box
// weighing 5 a tet holds 5/8 of the weight; two parts of equal weight then hold 4 : 6 of it in
// tets, and both partitioners honour it.
TEST(Partition, ElementWeightsAreWhatThePartsBalance) {
  const foehn::TetMesh mesh = box();  // 5760 tets, x in [0, 12]
  foehn::PartitionOptions options;
  for (const foehn::Tet& tet : mesh.tets) {
    double x = 0;
    for (const std::int32_t n : tet) x += 0.25 * mesh.nodes[static_cast<std::size_t>(n)][0];
    options.element_weights.push_back(x < 3 ? 5 : 1);
  }
  const std::vector<char> avoid(mesh.node_count(), 0);
  for (const bool avoiding : {false, true}) {
    SCOPED_TRACE(avoiding);
    const std::vector<std::int32_t> part =
        avoiding ? foehn::partition_elements_avoiding(mesh, 2, avoid, 100, options)
                 : foehn::partition_elements(mesh, 2, options);
    std::array<double, 2> weight{}, tets{};
    for (std::size_t t = 0; t < part.size(); ++t) {
      weight[static_cast<std::size_t>(part[t])] += options.element_weights[t];
      tets[static_cast<std::size_t>(part[t])] += 1;
    }
    const double total = weight[0] + weight[1];
    EXPECT_LE(std::max(weight[0], weight[1]), 0.5 * total * 1.05);
    // Unweighted halves would put 5/8 of the weight in one part.
    EXPECT_GT(std::max(tets[0], tets[1]), 0.55 * static_cast<double>(mesh.tet_count()));
  }
}

TEST(Partition, BadArgumentsAreInvalidInput) {
  const foehn::TetMesh mesh = foehn::testing::make_box_mesh({1, 1, 1});  // 6 tets
  EXPECT_EQ(category_of([&] { foehn::partition_elements(mesh, 0); }), ErrorCategory::invalid_input);
  EXPECT_EQ(category_of([&] { foehn::partition_elements(mesh, -3); }),
            ErrorCategory::invalid_input);
  EXPECT_EQ(category_of([&] { foehn::partition_elements(mesh, 7); }), ErrorCategory::invalid_input);
  EXPECT_EQ(category_of([&] {
              foehn::partition_elements(mesh, 2, {0.9, 0});
            }),
            ErrorCategory::invalid_input);
  foehn::PartitionOptions weighed;
  weighed.element_weights = {1, 1, 1};  // 3 weights for 6 tets
  EXPECT_EQ(category_of([&] { foehn::partition_elements(mesh, 2, weighed); }),
            ErrorCategory::invalid_input);
  weighed.element_weights = {1, 1, 0, 1, 1, 1};
  EXPECT_EQ(category_of([&] { foehn::partition_elements(mesh, 2, weighed); }),
            ErrorCategory::invalid_input);
  foehn::TetMesh broken = mesh;
  broken.tets[0][1] = 1000;
  EXPECT_EQ(category_of([&] { foehn::partition_elements(broken, 2); }),
            ErrorCategory::invalid_input);
  EXPECT_EQ(category_of([&] { foehn::partition_elements(foehn::TetMesh{}, 1); }),
            ErrorCategory::invalid_input);
}

// The faces between parts that have a node flagged.
std::size_t cut_faces_at(const foehn::TetMesh& mesh, const std::vector<std::int32_t>& part,
                         const std::vector<char>& flagged) {
  std::map<std::array<std::int32_t, 3>, std::vector<std::int32_t>> owners;
  for (std::size_t t = 0; t < mesh.tet_count(); ++t)
    for (int skip = 0; skip < 4; ++skip) {
      std::array<std::int32_t, 3> face{};
      int k = 0;
      for (int c = 0; c < 4; ++c)
        if (c != skip) face[static_cast<std::size_t>(k++)] = mesh.tets[t][c];
      std::sort(face.begin(), face.end());
      owners[face].push_back(part[t]);
    }
  std::size_t count = 0;
  for (const auto& [face, parts] : owners)
    if (parts.size() == 2 && parts[0] != parts[1] &&
        (flagged[face[0]] || flagged[face[1]] || flagged[face[2]]))
      ++count;
  return count;
}

// The parallel remesh's second split: METIS keeps the interfaces off flagged nodes where the
// balance allows. Where the plain split cuts, the nodes are flagged; the second split cuts
// elsewhere, as balanced.
TEST(Partition, AnAvoidingSplitKeepsItsInterfacesOffTheFlaggedNodes) {
  const foehn::TetMesh mesh = box();
  const std::vector<std::int32_t> first = foehn::partition_elements(mesh, 4);
  std::vector<char> frozen(mesh.node_count(), 0);
  std::map<std::int32_t, std::set<std::int32_t>> parts_at_node;
  for (std::size_t t = 0; t < mesh.tet_count(); ++t)
    for (const std::int32_t n : mesh.tets[t]) parts_at_node[n].insert(first[t]);
  for (const auto& [node, parts] : parts_at_node) frozen[node] = parts.size() > 1;
  ASSERT_GT(cut_faces_at(mesh, first, frozen), 100u);
  const std::vector<std::int32_t> second = foehn::partition_elements_avoiding(mesh, 4, frozen);
  const foehn::PartitionStats stats = foehn::partition_stats(mesh, second);
  EXPECT_EQ(stats.parts, 4);
  EXPECT_LE(stats.imbalance, 1.05);
  // Four parts of a box must cross the old interfaces somewhere, along lines: far fewer faces.
  EXPECT_LT(cut_faces_at(mesh, second, frozen) * 4, cut_faces_at(mesh, first, frozen));
  // Nothing flagged: an ordinary balanced split.
  const std::vector<char> none(mesh.node_count(), 0);
  EXPECT_LE(
      foehn::partition_stats(mesh, foehn::partition_elements_avoiding(mesh, 4, none)).imbalance,
      1.05);
  EXPECT_EQ(category_of([&] {
              foehn::partition_elements_avoiding(mesh, 4, {1, 0});
            }),
            ErrorCategory::invalid_input);
  EXPECT_EQ(category_of([&] { foehn::partition_elements_avoiding(mesh, 4, frozen, 0); }),
            ErrorCategory::invalid_input);
}

TEST(PartitionStats, CutOfAPlanarSplitIsTheFacesOnThePlane) {
  const foehn::TetMesh mesh = box();  // 12 x 10 x 8 cubes of 1 m
  std::vector<std::int32_t> part;
  for (const foehn::Tet& tet : mesh.tets) {
    double x = 0;
    for (std::int32_t n : tet) x += mesh.nodes[static_cast<std::size_t>(n)][0] / 4;
    part.push_back(x < 5.0 ? 0 : 1);
  }
  const foehn::PartitionStats stats = foehn::partition_stats(mesh, part);
  EXPECT_EQ(stats.parts, 2);
  EXPECT_EQ(stats.elements_per_part, (std::vector<std::int64_t>{5 * 80 * 6, 7 * 80 * 6}));
  EXPECT_DOUBLE_EQ(stats.imbalance, 7.0 / 6.0);
  EXPECT_EQ(stats.cut_faces, 2 * 10 * 8);  // two triangles per unit square of the plane x = 5
  // Faces: 4 per tet, boundary ones counted once, interior ones shared by two tets.
  EXPECT_EQ(stats.interior_faces,
            static_cast<std::int64_t>(4 * mesh.tet_count() - mesh.boundary_face_count()) / 2);
}

TEST(PartitionStats, BadPartitionIsInvalidInput) {
  const foehn::TetMesh mesh = foehn::testing::make_box_mesh({1, 1, 1});
  EXPECT_EQ(category_of([&] {
              foehn::partition_stats(mesh, {0, 0, 0});
            }),
            ErrorCategory::invalid_input);
  EXPECT_EQ(category_of([&] {
              foehn::partition_stats(mesh, {0, 0, 0, -1, 0, 0});
            }),
            ErrorCategory::invalid_input);
}

}  // namespace
