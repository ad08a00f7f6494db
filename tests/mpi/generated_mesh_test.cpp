// The mountain mesh generated in slabs, one per rank (distribute_generated_mountain_mesh), at
// 1 to 4 ranks against the whole mesh that generate_mountain_mesh builds on every rank here:
// the same nodes (coordinates bitwise) under the same numbers, the same tets in the same order,
// the same boundary triangles and tags; the layout of every DistributedMesh; rank 0 able to put
// gathered values back into the input numbering; too few cells refused on every rank.
#include <algorithm>
#include <array>
#include <cstdint>
#include <map>
#include <vector>

#include <gtest/gtest.h>

#include "foehn/mesh/mountain.hpp"
#include "foehn/petsc/generated_mesh.hpp"
#include "foehn/petsc/node_exchange.hpp"
#include "mpi/support/distributed_layout.hpp"
#include "mpi/support/mpi_test_support.hpp"

namespace foehn::petsc {
namespace {

using foehn::testing::reduce_all;
using foehn::testing::world;
using foehn::testing::world_rank;
using foehn::testing::world_size;

MountainMeshOptions small_options() {
  MountainMeshOptions options;
  options.cells_x = 9;  // not a multiple of 2, 3 or 4 ranks: slabs of unequal width
  options.cells_y = 5;
  options.cells_z = 4;
  return options;
}

TEST(GeneratedMesh, SlabsCoverTheCellsWithWidthsWithinOne) {
  for (const int ranks : {1, 2, 3, 7, 9}) {
    int covered = 0, narrowest = 1 << 30, widest = 0;
    for (int r = 0; r < ranks; ++r) {
      const CellRange slab = slab_of_rank(9, ranks, r);
      EXPECT_EQ(slab.begin, covered);
      covered = slab.end;
      narrowest = std::min(narrowest, slab.end - slab.begin);
      widest = std::max(widest, slab.end - slab.begin);
    }
    EXPECT_EQ(covered, 9);
    EXPECT_LE(widest - narrowest, 1);
  }
}

TEST(GeneratedMesh, EverySlabIsTheWholeMeshsPart) {
  const MountainMeshOptions options = small_options();
  const TetMesh whole = generate_mountain_mesh(options);
  const DistributedMesh mesh = distribute_generated_mountain_mesh(world(), options);
  foehn::testing::expect_distributed_layout(mesh);
  EXPECT_EQ(mesh.global_nodes, static_cast<std::int64_t>(whole.node_count()));
  EXPECT_EQ(mesh.global_tets, static_cast<std::int64_t>(whole.tet_count()));
  EXPECT_EQ(mesh.global_boundary_faces, static_cast<std::int64_t>(whole.boundary_face_count()));
  // Nodes: the input numbers are the whole mesh's, and global numbers equal them.
  for (std::size_t l = 0; l < static_cast<std::size_t>(mesh.local_nodes()); ++l) {
    const auto input = static_cast<std::size_t>(mesh.input_node_of_local[l]);
    ASSERT_LT(input, whole.node_count());
    EXPECT_EQ(mesh.local.nodes[l], whole.nodes[input]) << "local node " << l;
    EXPECT_EQ(mesh.global_of_local[l], mesh.input_node_of_local[l]);
  }
  // Tets: contiguous runs of the whole mesh's tets, the same corners in the same order.
  for (std::size_t t = 0; t < mesh.local.tets.size(); ++t) {
    const Tet& expected = whole.tets[static_cast<std::size_t>(mesh.input_tet_of_local[t])];
    for (int c = 0; c < 4; ++c)
      EXPECT_EQ(mesh.input_node_of_local[static_cast<std::size_t>(mesh.local.tets[t][c])],
                expected[c])
          << "tet " << t << " corner " << c;
    if (t > 0) {
      EXPECT_EQ(mesh.input_tet_of_local[t], mesh.input_tet_of_local[t - 1] + 1);
    }
  }
  // Boundary triangles: the whole mesh's (as node sets, with their tags), each on one rank.
  std::map<std::array<std::int64_t, 3>, std::int32_t> expected_tags;
  for (std::size_t f = 0; f < whole.boundary_faces.size(); ++f) {
    std::array<std::int64_t, 3> key{whole.boundary_faces[f][0], whole.boundary_faces[f][1],
                                    whole.boundary_faces[f][2]};
    std::sort(key.begin(), key.end());
    expected_tags[key] = whole.boundary_tags[f];
  }
  std::int64_t matched = 0;
  for (std::size_t f = 0; f < mesh.local.boundary_faces.size(); ++f) {
    std::array<std::int64_t, 3> key{};
    for (int c = 0; c < 3; ++c)
      key[c] = mesh.input_node_of_local[static_cast<std::size_t>(mesh.local.boundary_faces[f][c])];
    std::sort(key.begin(), key.end());
    const auto found = expected_tags.find(key);
    ASSERT_NE(found, expected_tags.end()) << "boundary face " << f << " is not the whole mesh's";
    EXPECT_EQ(mesh.local.boundary_tags[f], found->second);
    ++matched;
  }
  EXPECT_EQ(reduce_all(matched, MPI_SUM), static_cast<std::int64_t>(whole.boundary_face_count()));
  // The local mesh is positively oriented with outward boundary triangles (validate_mesh ran in
  // the construction); rank 0 can gather to the input numbering.
  std::vector<double> x(static_cast<std::size_t>(mesh.local_nodes()));
  for (std::size_t l = 0; l < x.size(); ++l) x[l] = mesh.local.nodes[l][0];
  const std::vector<double> gathered = gather_to_input_numbering(mesh, x, 1);
  if (world_rank() == 0) {
    ASSERT_EQ(gathered.size(), whole.node_count());
    for (std::size_t n = 0; n < gathered.size(); ++n) EXPECT_EQ(gathered[n], whole.nodes[n][0]);
  }
}

TEST(GeneratedMesh, FewerCellsThanRanksAreRefusedOnEveryRank) {
  if (world_size() < 2) GTEST_SKIP() << "needs two ranks";
  MountainMeshOptions options = small_options();
  options.cells_x = 1;
  try {
    (void)distribute_generated_mountain_mesh(world(), options);
    FAIL() << "1 cell along x was split over " << world_size() << " ranks";
  } catch (const Error& error) {
    EXPECT_EQ(error.category(), ErrorCategory::invalid_input);
    EXPECT_NE(std::string(error.what()).find("cannot be split over"), std::string::npos)
        << error.what();
  }
}

}  // namespace
}  // namespace foehn::petsc
