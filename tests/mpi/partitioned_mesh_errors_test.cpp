// distributed_mesh_from_partition refuses bad partitions on every rank, with the same message
// naming the rank that found the defect, the node id and the ranks involved, and never leaves
// a rank waiting: a node owned twice, a ghost nobody owns, a halo tet passed as a local one, a
// ghost away from its owner's position, an interface face given as a boundary face, bad arrays
// on one rank only, ranks disagreeing on the options.

#include <algorithm>
#include <array>
#include <cstdint>
#include <initializer_list>
#include <set>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "foehn/mesh/topology.hpp"
#include "foehn/petsc/partitioned_mesh.hpp"
#include "mpi/support/caller_partition.hpp"
#include "mpi/support/mpi_test_support.hpp"

namespace foehn::petsc {
namespace {

using namespace foehn::testing;

TetMesh whole_box() {
  return make_box_mesh({6, 3, 2, 3.0, 2.0, 1.0});
}

// Builds from every rank's (possibly spoilt) piece and expects the same invalid_input error on
// every rank, containing each of `parts`.
void expect_error_everywhere(const CallerPiece& piece, bool owned_first,
                             std::initializer_list<std::string> parts,
                             void (*adjust)(PartitionedMeshArrays&) = nullptr) {
  PartitionedMeshArrays arrays = arrays_of(piece, owned_first);
  if (adjust != nullptr) adjust(arrays);
  const ThrownError error = error_of([&] { distributed_mesh_from_partition(world(), arrays); });
  EXPECT_EQ(reduce_all<std::int32_t>(error.thrown ? 1 : 0, MPI_MIN), 1) << "not thrown everywhere";
  EXPECT_EQ(error.category, ErrorCategory::invalid_input);
  for (const std::string& part : parts)
    EXPECT_NE(error.message.find(part), std::string::npos)
        << "'" << part << "' missing in: " << error.message;
  if (world_size() > 1) {
    EXPECT_EQ(error.message.rfind("rank ", 0), 0u) << error.message;
  }
  // The same message everywhere: its length and first characters agree.
  const auto length = static_cast<std::int64_t>(error.message.size());
  EXPECT_EQ(reduce_all(length, MPI_MIN), reduce_all(length, MPI_MAX));
}

// Appends whole-mesh tet t to the piece, adding its nodes the piece lacks as ghosts.
void add_whole_tet(CallerPiece& piece, const TetMesh& whole, std::size_t t) {
  for (std::int32_t n : whole.tets[t]) {
    auto at = std::find(piece.whole_node.begin(), piece.whole_node.end(), n);
    if (at == piece.whole_node.end()) {
      piece.whole_node.push_back(n);
      piece.ids.push_back(caller_id(static_cast<std::size_t>(n), whole.node_count()));
      const Point3& p = whole.nodes[static_cast<std::size_t>(n)];
      piece.xyz.insert(piece.xyz.end(), p.begin(), p.end());
      piece.owned_flags.push_back(0);
      at = piece.whole_node.end() - 1;
    }
    piece.tets.push_back((at - piece.whole_node.begin()) + piece.base);
  }
}

TEST(PartitionErrors, NodeOwnedByTwoRanks) {
  if (world_size() < 2) GTEST_SKIP() << "needs two ranks";
  const TetMesh whole = whole_box();
  CallerPiece piece = cut_caller_piece(whole, world_rank(), world_size(), {false, 1, true, true});
  if (world_rank() == 0) {  // claim one of rank 0's ghosts (owned by rank 1)
    const auto ghost = std::find(piece.owned_flags.begin(), piece.owned_flags.end(), 0);
    ASSERT_NE(ghost, piece.owned_flags.end());
    *ghost = 1;
  }
  expect_error_everywhere(piece, false, {"node id ", " is owned by rank 0 and by rank 1"});
}

TEST(PartitionErrors, GhostOwnedByNobody) {
  const TetMesh whole = whole_box();
  CallerPiece piece = cut_caller_piece(whole, world_rank(), world_size(), {false, 0, false, true});
  const int last = world_size() - 1;
  std::int64_t orphan = 0;
  if (world_rank() == last) {  // give up one owned node that rank 0 (or this rank) uses
    for (std::size_t n = 0; n < piece.owned_flags.size(); ++n) {
      if (piece.owned_flags[n] == 0) continue;
      piece.owned_flags[n] = 0;
      orphan = piece.ids[n];
      break;
    }
  }
  orphan = reduce_all(orphan, MPI_MAX);
  expect_error_everywhere(piece, false,
                          {"node id " + std::to_string(orphan), "is owned by no rank"});
}

TEST(PartitionErrors, GhostWithAnUnknownId) {
  const TetMesh whole = whole_box();
  CallerPiece piece = cut_caller_piece(whole, world_rank(), world_size(), {});
  if (world_rank() == world_size() - 1) {  // a halo node whose id exists nowhere
    piece.ids.push_back(999999);
    piece.xyz.insert(piece.xyz.end(), {0.5, 0.5, 0.5});
  }
  expect_error_everywhere(piece, true,
                          {"node id 999999, a ghost (not owned) on rank " +
                           std::to_string(world_size() - 1) + ", is owned by no rank"});
}

TEST(PartitionErrors, HaloTetPassedAsALocalTet) {
  if (world_size() < 2) GTEST_SKIP() << "needs two ranks";
  const TetMesh whole = whole_box();
  CallerPiece piece = cut_caller_piece(whole, world_rank(), world_size(), {false, 1, true, true});
  if (world_rank() == 0) {
    const std::vector<int> rank_of_tet = slab_of_tets(whole, world_size());
    const auto other = std::find(rank_of_tet.begin(), rank_of_tet.end(), 1);
    add_whole_tet(piece, whole, static_cast<std::size_t>(other - rank_of_tet.begin()));
  }
  expect_error_everywhere(
      piece, false,
      {"the tet with node ids (", "is on rank 0 and on rank 1", "halo tets must not be passed"});
}

TEST(PartitionErrors, GhostAwayFromItsOwner) {
  if (world_size() < 2) GTEST_SKIP() << "needs two ranks";
  const TetMesh whole = whole_box();
  CallerPiece piece = cut_caller_piece(whole, world_rank(), world_size(), {});
  if (world_rank() == 0) {
    const auto ghost = static_cast<std::size_t>(piece.owned_count);  // the first ghost
    ASSERT_LT(ghost, piece.ids.size());
    piece.xyz[3 * ghost] += 1e-3;
  }
  expect_error_everywhere(piece, true, {"as a ghost on rank 0 but at (", "on its owner, rank 1"});
}

TEST(PartitionErrors, InterfaceFaceGivenAsABoundaryFace) {
  if (world_size() < 2) GTEST_SKIP() << "needs two ranks";
  const TetMesh whole = whole_box();
  CallerPiece piece = cut_caller_piece(whole, world_rank(), world_size(), {});
  if (world_rank() == 0) {  // a face of a rank-0 tet that is also a face of a rank-1 tet
    const std::vector<int> rank_of_tet = slab_of_tets(whole, world_size());
    std::set<Triangle> rank1_faces;
    for (std::size_t t = 0; t < whole.tet_count(); ++t) {
      if (rank_of_tet[t] != 1) continue;
      for (const auto& f : tet_local_faces) {
        const Tet& tet = whole.tets[t];
        rank1_faces.insert(sorted_triangle({tet[f[0]], tet[f[1]], tet[f[2]]}));
      }
    }
    bool found = false;
    for (std::size_t caller_tet = 0; caller_tet < piece.whole_tet.size() && !found; ++caller_tet) {
      const Tet& tet = whole.tets[static_cast<std::size_t>(piece.whole_tet[caller_tet])];
      for (const auto& f : tet_local_faces) {
        if (!rank1_faces.count(sorted_triangle({tet[f[0]], tet[f[1]], tet[f[2]]}))) continue;
        for (int k : f)  // outward from the rank-0 tet, in the caller's numbering
          piece.faces.push_back(piece.tets[4 * caller_tet + static_cast<std::size_t>(k)]);
        piece.face_tags.push_back(7);
        found = true;
        break;
      }
    }
    ASSERT_TRUE(found);
  }
  PartitionedMeshArrays arrays = arrays_of(piece, true);
  give_boundary_faces(piece, arrays);
  const ThrownError error = error_of([&] { distributed_mesh_from_partition(world(), arrays); });
  EXPECT_EQ(reduce_all<std::int32_t>(error.thrown ? 1 : 0, MPI_MIN), 1);
  EXPECT_NE(error.message.find("lies between rank 0 and another rank, not on the domain boundary"),
            std::string::npos)
      << error.message;
}

TEST(PartitionErrors, BadArraysOnOneRankOnly) {
  const TetMesh whole = whole_box();
  CallerPiece piece = cut_caller_piece(whole, world_rank(), world_size(), {});
  const int last = world_size() - 1;
  if (world_rank() == last) piece.tets[4 * 2 + 1] = 0;  // 1-based: below the base
  const std::string where = world_size() > 1 ? "rank " + std::to_string(last) + " of " +
                                                   std::to_string(world_size()) + ": "
                                             : std::string();
  expect_error_everywhere(piece, true,
                          {where + "distributed_mesh_from_partition: local.tets: tet 3 corner 2 "
                                   "is 0, below index_base 1"});
}

TEST(PartitionErrors, RepeatedIdOnARank) {
  const TetMesh whole = whole_box();
  CallerPiece piece = cut_caller_piece(whole, world_rank(), world_size(), {});
  if (world_rank() == 0) piece.ids[4] = piece.ids[1];
  expect_error_everywhere(piece, true, {"node_ids: local nodes 2 and 5 both have id "});
}

TEST(PartitionErrors, OwnershipGivenTwiceOrNotAtAll) {
  const TetMesh whole = whole_box();
  const CallerPiece piece = cut_caller_piece(whole, world_rank(), world_size(), {});
  expect_error_everywhere(piece, true, {"both owned_node_count and owned_flags"},
                          [](PartitionedMeshArrays& a) {
                            static const std::vector<std::int32_t> flags(4096, 1);
                            a.owned_flags = std::span(flags).first(a.node_ids.size());
                          });
  expect_error_everywhere(piece, true, {"neither owned_node_count nor owned_flags"},
                          [](PartitionedMeshArrays& a) { a.owned_node_count = -1; });
  expect_error_everywhere(piece, true, {"owned_node_count is 100000"},
                          [](PartitionedMeshArrays& a) { a.owned_node_count = 100000; });
  expect_error_everywhere(piece, true, {"node_ids has "},
                          [](PartitionedMeshArrays& a) { a.node_ids = a.node_ids.first(3); });
}

TEST(PartitionErrors, RanksDisagreeOnTheOptions) {
  if (world_size() < 2) GTEST_SKIP() << "needs two ranks";
  const TetMesh whole = whole_box();
  const CallerPiece piece = cut_caller_piece(whole, world_rank(), world_size(), {});
  PartitionedMeshArrays arrays = arrays_of(piece, true);
  if (world_rank() == 1) arrays.boundary = BoundaryFaceSource::none;
  const ThrownError error = error_of([&] { distributed_mesh_from_partition(world(), arrays); });
  EXPECT_EQ(reduce_all<std::int32_t>(error.thrown ? 1 : 0, MPI_MIN), 1);
  EXPECT_NE(error.message.find("different `boundary`"), std::string::npos) << error.message;
}

TEST(PartitionErrors, BoundaryFacesWithoutSayingSo) {
  const TetMesh whole = whole_box();
  const CallerPiece piece = cut_caller_piece(whole, world_rank(), world_size(), {});
  expect_error_everywhere(piece, true, {"local.boundary_faces are given but `boundary` is not"},
                          [](PartitionedMeshArrays& a) {
                            static const std::vector<std::int64_t> face{1, 2, 3};
                            a.local.boundary_faces = face;
                          });
}

}  // namespace
}  // namespace foehn::petsc
