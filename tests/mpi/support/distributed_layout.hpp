#pragma once
// The layout every DistributedMesh has, whichever way it was made (distribute_mesh, the caller's
// partition, DMPlex): checked the same way by each of their tests. Collective.
#include <cstdint>
#include <vector>

#include <gtest/gtest.h>

#include "foehn/mesh/geometry.hpp"
#include "foehn/petsc/distributed_mesh.hpp"
#include "mpi/support/mpi_test_support.hpp"

namespace foehn::testing {

// Layout every DistributedMesh has (distributed_mesh.hpp): contiguous ranges in rank order,
// owned nodes first by global number, then ghosts by global number with their owners.
inline void expect_distributed_layout(const petsc::DistributedMesh& mesh) {
  const int size = world_size();
  EXPECT_EQ(mesh.rank, world_rank());
  EXPECT_EQ(mesh.size, size);
  EXPECT_EQ(reduce_all<std::int64_t>(mesh.owned_nodes, MPI_SUM), mesh.global_nodes);
  EXPECT_EQ(reduce_all<std::int64_t>(mesh.local_tets(), MPI_SUM), mesh.global_tets);
  EXPECT_EQ(reduce_all<std::int64_t>(static_cast<std::int64_t>(mesh.local.boundary_face_count()),
                                     MPI_SUM),
            mesh.global_boundary_faces);
  const std::vector<std::int64_t> firsts = gather_all<std::int64_t>(mesh.first_owned_global);
  const std::vector<std::int64_t> counts = gather_all<std::int64_t>(mesh.owned_nodes);
  ASSERT_EQ(mesh.ownership_ranges.size(), static_cast<std::size_t>(size) + 1);
  EXPECT_EQ(mesh.ownership_ranges.front(), 0);
  EXPECT_EQ(mesh.ownership_ranges.back(), mesh.global_nodes);
  for (std::size_t r = 0; r < static_cast<std::size_t>(size); ++r) {
    EXPECT_EQ(mesh.ownership_ranges[r], firsts[r]);
    EXPECT_EQ(mesh.ownership_ranges[r + 1], firsts[r] + counts[r]);
  }
  const auto local_nodes = static_cast<std::size_t>(mesh.local_nodes());
  ASSERT_EQ(mesh.local.nodes.size(), local_nodes);
  ASSERT_EQ(mesh.owner_of_local.size(), local_nodes);
  ASSERT_EQ(mesh.input_node_of_local.size(), local_nodes);
  ASSERT_EQ(mesh.input_tet_of_local.size(), mesh.local.tets.size());
  ASSERT_EQ(mesh.input_boundary_face_of_local.size(), mesh.local.boundary_faces.size());
  ASSERT_EQ(mesh.local.boundary_tags.size(), mesh.local.boundary_faces.size());
  for (std::int32_t l = 0; l < mesh.owned_nodes; ++l) {
    EXPECT_EQ(mesh.global_of_local[static_cast<std::size_t>(l)], mesh.first_owned_global + l);
    EXPECT_EQ(mesh.owner_of_local[static_cast<std::size_t>(l)], mesh.rank);
  }
  for (std::size_t l = static_cast<std::size_t>(mesh.owned_nodes); l < local_nodes; ++l) {
    const std::int64_t g = mesh.global_of_local[l];
    EXPECT_NE(mesh.owner_of_local[l], mesh.rank) << "ghost " << l;
    EXPECT_EQ(mesh.owner_of_global(g), mesh.owner_of_local[l]) << "ghost " << l;
    if (l > static_cast<std::size_t>(mesh.owned_nodes)) {
      EXPECT_LT(mesh.global_of_local[l - 1], g);
    }
  }
  for (const Tet& tet : mesh.local.tets) EXPECT_GT(signed_volume(mesh.local, tet), 0.0);
}

}  // namespace foehn::testing
