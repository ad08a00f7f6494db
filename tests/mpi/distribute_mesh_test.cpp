// distribute_mesh at 1, 2 and 4 ranks: ownership, numbering, tets, boundary faces and fields
// of every part against the input, which every rank generates itself to compare with.

#include <algorithm>
#include <array>
#include <cstdint>
#include <set>
#include <vector>

#include <gtest/gtest.h>

#include "foehn/mesh/geometry.hpp"
#include "foehn/mesh/validate.hpp"
#include "foehn/petsc/distributed_mesh.hpp"
#include "mpi/support/distributed_layout.hpp"
#include "mpi/support/mpi_test_support.hpp"

namespace foehn::petsc {
namespace {

using foehn::testing::gather_all;
using foehn::testing::make_box_mesh;
using foehn::testing::reduce_all;
using foehn::testing::world;
using foehn::testing::world_rank;
using foehn::testing::world_size;

DistributedMesh distribute_from_rank0(const TetMesh& input,
                                      const DistributionOptions& options = {}) {
  return distribute_mesh(world(), world_rank() == 0 ? &input : nullptr, options);
}

// Global layout: sizes, contiguous ranges in rank order, owned numbers, ghost order.
void check_layout(const TetMesh& input, const DistributedMesh& mesh) {
  EXPECT_EQ(mesh.global_nodes, static_cast<std::int64_t>(input.node_count()));
  EXPECT_EQ(mesh.global_tets, static_cast<std::int64_t>(input.tet_count()));
  EXPECT_EQ(mesh.global_boundary_faces, static_cast<std::int64_t>(input.boundary_face_count()));
  foehn::testing::expect_distributed_layout(mesh);
}

// Each input node owned once, by the lowest rank touching it; ghosts know owner and number.
void check_ownership(const TetMesh& input, const DistributedMesh& mesh) {
  const std::size_t nodes = input.node_count();
  std::vector<std::int32_t> owned_times(nodes, 0), owner(nodes, -1),
      lowest_toucher(nodes, mesh.size);
  std::vector<std::int64_t> global(nodes, -1);
  for (std::size_t l = 0; l < static_cast<std::size_t>(mesh.local_nodes()); ++l) {
    const auto n = static_cast<std::size_t>(mesh.input_node_of_local[l]);
    lowest_toucher[n] = mesh.rank;
    if (l < static_cast<std::size_t>(mesh.owned_nodes)) {
      owned_times[n] = 1;
      owner[n] = mesh.rank;
      global[n] = mesh.global_of_local[l];
    }
  }
  owned_times = reduce_all(owned_times, MPI_SUM);
  owner = reduce_all(owner, MPI_MAX);
  lowest_toucher = reduce_all(lowest_toucher, MPI_MIN);
  global = reduce_all(global, MPI_MAX);
  for (std::size_t n = 0; n < nodes; ++n) {
    EXPECT_EQ(owned_times[n], 1) << "input node " << n;
    EXPECT_EQ(owner[n], lowest_toucher[n]) << "input node " << n;
  }
  std::vector<char> global_seen(nodes, 0);
  for (std::int64_t g : global) {
    ASSERT_TRUE(g >= 0 && g < static_cast<std::int64_t>(nodes));
    global_seen[static_cast<std::size_t>(g)] = 1;
  }
  EXPECT_EQ(std::count(global_seen.begin(), global_seen.end(), 1),
            static_cast<std::ptrdiff_t>(nodes));
  for (std::size_t l = 0; l < static_cast<std::size_t>(mesh.local_nodes()); ++l) {
    const auto n = static_cast<std::size_t>(mesh.input_node_of_local[l]);
    EXPECT_EQ(mesh.owner_of_local[l], owner[n]) << "local node " << l;
    EXPECT_EQ(mesh.global_of_local[l], global[n]) << "local node " << l;
    EXPECT_EQ(mesh.local.nodes[l], input.nodes[n]) << "local node " << l;
  }
  if (mesh.rank == 0) {
    ASSERT_EQ(mesh.input_node_of_global.size(), nodes);
    for (std::size_t n = 0; n < nodes; ++n)
      EXPECT_EQ(mesh.input_node_of_global[static_cast<std::size_t>(global[n])],
                static_cast<std::int64_t>(n));
  } else {
    EXPECT_TRUE(mesh.input_node_of_global.empty());
  }
}

// Every input tet on exactly one rank, same nodes in the same order, same tags and fields,
// positive volume; the local mesh passes validation but for surfaces between ranks.
void check_tets(const TetMesh& input, const DistributedMesh& mesh) {
  const TetMesh& local = mesh.local;
  ASSERT_EQ(mesh.input_tet_of_local.size(), local.tet_count());
  std::vector<std::int32_t> times(input.tet_count(), 0);
  for (std::size_t t = 0; t < local.tet_count(); ++t) {
    const auto in = static_cast<std::size_t>(mesh.input_tet_of_local[t]);
    ++times[in];
    if (t > 0) {
      EXPECT_LT(mesh.input_tet_of_local[t - 1], mesh.input_tet_of_local[t]);
    }
    for (std::size_t k = 0; k < 4; ++k)
      EXPECT_EQ(mesh.input_node_of_local[static_cast<std::size_t>(local.tets[t][k])],
                input.tets[in][k])
          << "local tet " << t;
    EXPECT_GT(signed_volume(local, local.tets[t]), 0.0) << "local tet " << t;
    if (!input.tet_tags.empty()) {
      EXPECT_EQ(local.tet_tags[t], input.tet_tags[in]);
    }
  }
  times = reduce_all(times, MPI_SUM);
  EXPECT_EQ(std::count(times.begin(), times.end(), 1),
            static_cast<std::ptrdiff_t>(input.tet_count()));

  const auto check_fields = [](const std::vector<MeshField>& part,
                               const std::vector<MeshField>& whole,
                               const std::vector<std::int64_t>& input_of_local) {
    ASSERT_EQ(part.size(), whole.size());
    for (std::size_t f = 0; f < part.size(); ++f) {
      EXPECT_EQ(part[f].name, whole[f].name);
      ASSERT_EQ(part[f].components, whole[f].components);
      const auto c = static_cast<std::size_t>(part[f].components);
      ASSERT_EQ(part[f].values.size(), input_of_local.size() * c);
      for (std::size_t i = 0; i < input_of_local.size(); ++i)
        for (std::size_t k = 0; k < c; ++k)
          EXPECT_EQ(part[f].values[i * c + k],
                    whole[f].values[static_cast<std::size_t>(input_of_local[i]) * c + k]);
    }
  };
  check_fields(local.node_fields, input.node_fields, mesh.input_node_of_local);
  check_fields(local.tet_fields, input.tet_fields, mesh.input_tet_of_local);

  TetMesh copy = local;
  for (const MeshFinding& finding : check_mesh(copy).findings)
    EXPECT_EQ(finding.problem, MeshProblem::non_manifold_boundary) << finding.first_detail;
}

// Every boundary face on exactly one rank, the rank of the tet it is a face of, with its tag
// and orientation.
void check_boundary(const TetMesh& input, const DistributedMesh& mesh) {
  const TetMesh& local = mesh.local;
  ASSERT_EQ(local.boundary_faces.size(), mesh.input_boundary_face_of_local.size());
  ASSERT_EQ(local.boundary_tags.size(), local.boundary_faces.size());
  std::set<std::array<std::int32_t, 3>> local_tet_faces;
  for (const Tet& tet : local.tets)
    for (std::size_t skip = 0; skip < 4; ++skip) {
      std::array<std::int32_t, 3> face{};
      for (std::size_t i = 0, k = 0; i < 4; ++i)
        if (i != skip) face[k++] = tet[i];
      std::sort(face.begin(), face.end());
      local_tet_faces.insert(face);
    }
  std::vector<std::int32_t> times(input.boundary_face_count(), 0);
  for (std::size_t f = 0; f < local.boundary_faces.size(); ++f) {
    const auto in = static_cast<std::size_t>(mesh.input_boundary_face_of_local[f]);
    ++times[in];
    if (f > 0) {
      EXPECT_LT(mesh.input_boundary_face_of_local[f - 1], mesh.input_boundary_face_of_local[f]);
    }
    EXPECT_EQ(local.boundary_tags[f], input.boundary_tags[in]);
    std::array<std::int32_t, 3> sorted = local.boundary_faces[f];
    for (std::size_t k = 0; k < 3; ++k)
      EXPECT_EQ(mesh.input_node_of_local[static_cast<std::size_t>(sorted[k])],
                input.boundary_faces[in][k]);
    std::sort(sorted.begin(), sorted.end());
    EXPECT_TRUE(local_tet_faces.count(sorted))
        << "boundary face " << f << " is no face of a local tet";
  }
  times = reduce_all(times, MPI_SUM);
  EXPECT_EQ(std::count(times.begin(), times.end(), 1),
            static_cast<std::ptrdiff_t>(input.boundary_face_count()));
}

void check_distribution(const TetMesh& input, const DistributedMesh& mesh) {
  check_layout(input, mesh);
  check_ownership(input, mesh);
  check_tets(input, mesh);
  check_boundary(input, mesh);
}

TEST(DistributeMesh, BoxPartsCoverTheInputExactlyOnce) {
  const TetMesh input = foehn::testing::make_small_box();
  const DistributedMesh mesh = distribute_from_rank0(input);
  check_distribution(input, mesh);
  // Rank 0 owns everything it touches (lowest rank wins), the others have ghosts.
  if (mesh.rank == 0) {
    EXPECT_EQ(mesh.ghost_nodes(), 0);
  }
  if (mesh.size > 1) {
    EXPECT_GT(reduce_all<std::int64_t>(mesh.ghost_nodes(), MPI_SUM), 0);
  }
}

TEST(DistributeMesh, MountainPartsCoverTheInputExactlyOnce) {
  const TetMesh input = foehn::testing::make_small_mountain();
  check_distribution(input, distribute_from_rank0(input));
}

TEST(DistributeMesh, AsFewTetsAsRanksStillWorks) {
  TetMesh input = make_box_mesh({1, 1, 1});  // 6 tets
  foehn::testing::add_test_fields(input);
  check_distribution(input, distribute_from_rank0(input));
}

TEST(DistributeMesh, OtherRanksInputIsIgnored) {
  const TetMesh input = foehn::testing::make_small_box();
  const TetMesh other = make_box_mesh({1, 1, 1});
  const DistributedMesh mesh = distribute_mesh(world(), world_rank() == 0 ? &input : &other);
  check_distribution(input, mesh);
}

TEST(DistributeMesh, SameInputGivesTheSameParts) {
  const TetMesh input = foehn::testing::make_small_mountain();
  const DistributedMesh first = distribute_from_rank0(input);
  const DistributedMesh second = distribute_from_rank0(input);
  EXPECT_EQ(first.global_of_local, second.global_of_local);
  EXPECT_EQ(first.input_tet_of_local, second.input_tet_of_local);
  EXPECT_EQ(first.local.tets, second.local.tets);
  EXPECT_EQ(first.input_boundary_face_of_local, second.input_boundary_face_of_local);
}

// On a communicator of one rank (every rank alone here) the part is the input itself.
TEST(DistributeMesh, OneRankIsTheIdentity) {
  const TetMesh input = foehn::testing::make_small_box();
  const DistributedMesh mesh = distribute_mesh(PETSC_COMM_SELF, &input);
  EXPECT_EQ(mesh.size, 1);
  EXPECT_EQ(mesh.owned_nodes, static_cast<std::int32_t>(input.node_count()));
  EXPECT_EQ(mesh.ghost_nodes(), 0);
  EXPECT_EQ(mesh.first_owned_global, 0);
  for (std::size_t n = 0; n < input.node_count(); ++n) {
    EXPECT_EQ(mesh.global_of_local[n], static_cast<std::int64_t>(n));
    EXPECT_EQ(mesh.input_node_of_local[n], static_cast<std::int64_t>(n));
    EXPECT_EQ(mesh.input_node_of_global[n], static_cast<std::int64_t>(n));
  }
  EXPECT_EQ(mesh.local.nodes, input.nodes);
  EXPECT_EQ(mesh.local.tets, input.tets);
  EXPECT_EQ(mesh.local.tet_tags, input.tet_tags);
  EXPECT_EQ(mesh.local.boundary_faces, input.boundary_faces);
  EXPECT_EQ(mesh.local.boundary_tags, input.boundary_tags);
  ASSERT_EQ(mesh.local.node_fields.size(), input.node_fields.size());
  for (std::size_t f = 0; f < input.node_fields.size(); ++f)
    EXPECT_EQ(mesh.local.node_fields[f].values, input.node_fields[f].values);
  ASSERT_EQ(mesh.local.tet_fields.size(), input.tet_fields.size());
  for (std::size_t f = 0; f < input.tet_fields.size(); ++f)
    EXPECT_EQ(mesh.local.tet_fields[f].values, input.tet_fields[f].values);
}

// Errors: raised on every rank with the same message, naming the reporting rank.
void expect_error_everywhere(const foehn::testing::ThrownError& error, const std::string& text) {
  EXPECT_TRUE(error.thrown) << "rank " << world_rank() << " did not throw";
  EXPECT_EQ(error.category, ErrorCategory::invalid_input) << error.message;
  EXPECT_NE(error.message.find(text), std::string::npos) << error.message;
  if (world_size() > 1) {
    EXPECT_NE(error.message.find("rank 0 of "), std::string::npos) << error.message;
  }
}

TEST(DistributeMeshErrors, RankZeroWithoutMesh) {
  const TetMesh other = make_box_mesh({1, 1, 1});
  const auto error = foehn::testing::error_of(
      [&] { distribute_mesh(world(), world_rank() == 0 ? nullptr : &other); });
  expect_error_everywhere(error, "rank 0 has no input mesh");
}

TEST(DistributeMeshErrors, FewerTetsThanRanks) {
  // One tet for 2 or 4 ranks; an empty mesh for one rank.
  TetMesh input;
  if (world_size() > 1) {
    input.nodes = {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {0, 0, 1}};
    input.tets = {{0, 1, 2, 3}};
  }
  const auto error = foehn::testing::error_of([&] { distribute_from_rank0(input); });
  expect_error_everywhere(error, "cannot give each of");
}

TEST(DistributeMeshErrors, InvalidMesh) {
  TetMesh input = foehn::testing::make_small_box();
  std::swap(input.tets[5][2], input.tets[5][3]);  // inverted
  const auto error = foehn::testing::error_of([&] { distribute_from_rank0(input); });
  expect_error_everywhere(error, "inverted");
}

TEST(DistributeMeshErrors, NullCommunicator) {
  const TetMesh input = make_box_mesh({1, 1, 1});
  const auto error = foehn::testing::error_of([&] { distribute_mesh(MPI_COMM_NULL, &input); });
  EXPECT_TRUE(error.thrown);
  EXPECT_NE(error.message.find("MPI_COMM_NULL"), std::string::npos) << error.message;
}

}  // namespace
}  // namespace foehn::petsc
