// distributed_mesh_from_partition at 1, 2 and 3 ranks: a box cut by hand into x-slabs, held
// as a dynamical core holds it (its own 1-based scrambled ids, shuffled local nodes, owner =
// highest touching rank), becomes a DistributedMesh with distribute_mesh's layout; every node,
// tet and boundary face is the whole mesh's, and the P1 mass matrix assembled per rank and
// handed to PETSc sums to the box's volume, as for distribute_mesh's mesh.

#include <algorithm>
#include <array>
#include <cstdint>
#include <map>
#include <set>
#include <vector>

#include <gtest/gtest.h>

#include "foehn/mesh/topology.hpp"
#include "foehn/petsc/distributed_mesh.hpp"
#include "foehn/petsc/node_exchange.hpp"
#include "foehn/petsc/partitioned_mesh.hpp"
#include "mpi/support/caller_partition.hpp"
#include "mpi/support/mpi_test_support.hpp"

namespace foehn::petsc {
namespace {

using namespace foehn::testing;

constexpr double box_volume = 3.0 * 2.0 * 1.0;
constexpr double box_area = 2 * (3.0 * 2.0 + 3.0 * 1.0 + 2.0 * 1.0);

TetMesh whole_box() {
  TetMesh mesh = make_box_mesh({6, 3, 2, 3.0, 2.0, 1.0});
  add_test_fields(mesh);  // tet tags
  mesh.node_fields.clear();
  mesh.tet_fields.clear();
  return mesh;
}

using FaceIds = std::array<std::int64_t, 3>;

FaceIds sorted_ids(const Triangle& face, const std::vector<std::int64_t>& id_of_node) {
  FaceIds ids{};
  for (std::size_t k = 0; k < 3; ++k) ids[k] = id_of_node[static_cast<std::size_t>(face[k])];
  std::sort(ids.begin(), ids.end());
  return ids;
}

// The whole mesh's boundary faces by caller ids, with their tags.
std::map<FaceIds, std::int32_t> whole_faces_by_ids(const TetMesh& whole) {
  std::vector<std::int64_t> ids(whole.node_count());
  for (std::size_t n = 0; n < ids.size(); ++n) ids[n] = caller_id(n, whole.node_count());
  std::map<FaceIds, std::int32_t> faces;
  for (std::size_t f = 0; f < whole.boundary_face_count(); ++f)
    faces[sorted_ids(whole.boundary_faces[f], ids)] = whole.boundary_tags[f];
  return faces;
}

// Each boundary face is a face of one local tet and points away from its far node.
void expect_outward(const TetMesh& local) {
  std::map<std::array<std::int32_t, 3>, std::int32_t> far_node;
  for (const Tet& tet : local.tets)
    for (std::size_t f = 0; f < 4; ++f)
      far_node[sorted_triangle({tet[tet_local_faces[f][0]], tet[tet_local_faces[f][1]],
                                tet[tet_local_faces[f][2]]})] = tet[f];
  for (const Triangle& face : local.boundary_faces) {
    const auto it = far_node.find(sorted_triangle(face));
    ASSERT_NE(it, far_node.end());
    EXPECT_LT(signed_volume(local.nodes[static_cast<std::size_t>(face[0])],
                            local.nodes[static_cast<std::size_t>(face[1])],
                            local.nodes[static_cast<std::size_t>(face[2])],
                            local.nodes[static_cast<std::size_t>(it->second)]),
              0.0);
  }
}

void expect_matches_whole(const TetMesh& whole, const CallerPiece& piece,
                          const MeshFromPartition& built) {
  const DistributedMesh& mesh = built.mesh;
  expect_distributed_layout(mesh);
  EXPECT_EQ(mesh.global_nodes, static_cast<std::int64_t>(whole.node_count()));
  EXPECT_EQ(mesh.global_tets, static_cast<std::int64_t>(whole.tet_count()));
  EXPECT_TRUE(mesh.input_node_of_global.empty());

  // Nodes: the caller's, permuted; each id owned once; one global number per id everywhere.
  const std::size_t local_nodes = static_cast<std::size_t>(mesh.local_nodes());
  ASSERT_EQ(built.caller_local_of_local.size(), local_nodes);
  std::vector<std::int64_t> owned_times(whole.node_count(), 0);
  std::vector<std::int64_t> low(whole.node_count(), mesh.global_nodes),
      high(whole.node_count(), -1);
  for (std::size_t l = 0; l < local_nodes; ++l) {
    const auto caller = static_cast<std::size_t>(built.caller_local_of_local[l]);
    const auto n = static_cast<std::size_t>(piece.whole_node[caller]);
    EXPECT_EQ(mesh.input_node_of_local[l], piece.ids[caller]);
    EXPECT_EQ(mesh.local.nodes[l], whole.nodes[n]);
    if (l < static_cast<std::size_t>(mesh.owned_nodes)) ++owned_times[n];
    low[n] = mesh.global_of_local[l];
    high[n] = mesh.global_of_local[l];
    if (l > 0 && l < static_cast<std::size_t>(mesh.owned_nodes)) {
      EXPECT_LT(mesh.input_node_of_local[l - 1], mesh.input_node_of_local[l]);  // by caller id
    }
  }
  owned_times = reduce_all(owned_times, MPI_SUM);
  low = reduce_all(low, MPI_MIN);
  high = reduce_all(high, MPI_MAX);
  for (std::size_t n = 0; n < whole.node_count(); ++n) {
    EXPECT_EQ(owned_times[n], 1) << "node " << n;
    EXPECT_EQ(low[n], high[n]) << "node " << n;
  }

  // Tets: the caller's, in the caller's order, with their tags, numbered rank by rank.
  const std::vector<std::int64_t> tets_per_rank = gather_all<std::int64_t>(mesh.local_tets());
  std::int64_t below = 0;
  for (int r = 0; r < mesh.rank; ++r) below += tets_per_rank[static_cast<std::size_t>(r)];
  ASSERT_EQ(mesh.local.tets.size(), piece.whole_tet.size());
  for (std::size_t t = 0; t < mesh.local.tets.size(); ++t) {
    const Tet& original = whole.tets[static_cast<std::size_t>(piece.whole_tet[t])];
    std::multiset<Point3> expected, got;
    for (std::size_t k = 0; k < 4; ++k) {
      expected.insert(whole.nodes[static_cast<std::size_t>(original[k])]);
      got.insert(mesh.local.nodes[static_cast<std::size_t>(mesh.local.tets[t][k])]);
    }
    EXPECT_EQ(got, expected) << "tet " << t;
    EXPECT_EQ(mesh.input_tet_of_local[t], below + static_cast<std::int64_t>(t));
    EXPECT_EQ(mesh.local.tet_tags[t], whole.tet_tags[static_cast<std::size_t>(piece.whole_tet[t])]);
  }
  EXPECT_NEAR(reduce_all(local_volume(mesh.local), MPI_SUM), box_volume, 1e-12);

  // Boundary faces: exactly the whole mesh's, outward, none on the interfaces between ranks.
  EXPECT_EQ(mesh.global_boundary_faces, static_cast<std::int64_t>(whole.boundary_face_count()));
  const std::map<FaceIds, std::int32_t> whole_faces = whole_faces_by_ids(whole);
  for (const Triangle& face : mesh.local.boundary_faces)
    EXPECT_EQ(whole_faces.count(sorted_ids(face, mesh.input_node_of_local)), 1u);
  EXPECT_NEAR(reduce_all(boundary_area(mesh.local), MPI_SUM), box_area, 1e-12);
  expect_outward(mesh.local);
}

class FromPartition : public ::testing::TestWithParam<PartitionStyle> {};

TEST_P(FromPartition, MatchesTheWholeMeshAndAssemblesItsVolume) {
  const PartitionStyle style = GetParam();
  const TetMesh whole = whole_box();
  const CallerPiece piece = cut_caller_piece(whole, world_rank(), world_size(), style);
  const MeshFromPartition built =
      distributed_mesh_from_partition(world(), arrays_of(piece, style.owned_first));
  expect_matches_whole(whole, piece, built);
  EXPECT_EQ(built.flipped_tets, 0);
  for (std::int32_t tag : built.mesh.local.boundary_tags) EXPECT_EQ(tag, 0);

  // The same counts and matrix as distribute_mesh's mesh of the whole box.
  const DistributedMesh reference = distribute_mesh(world(), world_rank() == 0 ? &whole : nullptr);
  EXPECT_EQ(built.mesh.global_nodes, reference.global_nodes);
  EXPECT_EQ(built.mesh.global_tets, reference.global_tets);
  EXPECT_EQ(built.mesh.global_boundary_faces, reference.global_boundary_faces);
  const double sum = mass_matrix_sum(built.mesh);
  EXPECT_NEAR(sum, box_volume, 1e-12 * box_volume);
  EXPECT_NEAR(sum, mass_matrix_sum(reference), 1e-12 * box_volume);
}

TEST_P(FromPartition, FieldsMoveBetweenCallerAndLocalOrder) {
  const PartitionStyle style = GetParam();
  const TetMesh whole = whole_box();
  const CallerPiece piece = cut_caller_piece(whole, world_rank(), world_size(), style);
  const MeshFromPartition built =
      distributed_mesh_from_partition(world(), arrays_of(piece, style.owned_first));
  const auto value = [](const Point3& p, int c) { return c == 0 ? p[0] + 2 * p[1] : p[2] - 1; };
  const std::size_t nodes = piece.ids.size();
  std::vector<double> caller(2 * nodes), local(2 * nodes), back(2 * nodes);
  for (std::size_t n = 0; n < nodes; ++n)
    for (int c = 0; c < 2; ++c)
      caller[2 * n + static_cast<std::size_t>(c)] =
          value({piece.xyz[3 * n], piece.xyz[3 * n + 1], piece.xyz[3 * n + 2]}, c);
  to_local_order(built.caller_local_of_local, caller, local, 2);
  for (std::size_t l = 0; l < nodes; ++l)
    for (int c = 0; c < 2; ++c)
      EXPECT_EQ(local[2 * l + static_cast<std::size_t>(c)], value(built.mesh.local.nodes[l], c));
  to_caller_order(built.caller_local_of_local, local, back, 2);
  EXPECT_EQ(back, caller);
  EXPECT_THROW(to_local_order(built.caller_local_of_local, caller, back, 3), Error);
  std::vector<double> short_array(2 * nodes - 1);
  EXPECT_THROW(to_caller_order(built.caller_local_of_local, local, short_array, 2), Error);

  // Ghosts know their owners' global numbers: the caller id, set by the owners, arrives at
  // every ghost through NodeExchange.
  NodeExchange exchange(built.mesh, 1);
  const UniqueVec ids = exchange.create_vector();
  for (std::int32_t l = 0; l < built.mesh.owned_nodes; ++l) {
    const PetscInt row =
        static_cast<PetscInt>(built.mesh.global_of_local[static_cast<std::size_t>(l)]);
    ASSERT_EQ(VecSetValue(
                  ids.get(), row,
                  static_cast<double>(built.mesh.input_node_of_local[static_cast<std::size_t>(l)]),
                  INSERT_VALUES),
              0);
  }
  ASSERT_EQ(VecAssemblyBegin(ids.get()), 0);
  ASSERT_EQ(VecAssemblyEnd(ids.get()), 0);
  std::vector<double> at_local(exchange.local_value_count());
  exchange.global_to_local(ids.get(), at_local);
  for (std::size_t l = 0; l < at_local.size(); ++l)
    EXPECT_EQ(at_local[l], static_cast<double>(built.mesh.input_node_of_local[l]));
}

INSTANTIATE_TEST_SUITE_P(
    Styles, FromPartition,
    ::testing::Values(PartitionStyle{true, 1, true, true},     // Fortran: owned first, int64
                      PartitionStyle{false, 0, false, true},   // C: flags, int32
                      PartitionStyle{true, 0, true, false}));  // in whole-mesh order

TEST(FromPartitionBoundary, GivenFacesKeepTheirTagsAndAreTurnedOutward) {
  const TetMesh whole = whole_box();
  CallerPiece piece = cut_caller_piece(whole, world_rank(), world_size(), {});
  // Every other given triangle inward: fixed, and counted over all ranks.
  std::int64_t turned = 0;
  for (std::size_t f = 0; f < piece.face_tags.size(); f += 2, ++turned)
    std::swap(piece.faces[3 * f + 1], piece.faces[3 * f + 2]);
  PartitionedMeshArrays arrays = arrays_of(piece, true);
  give_boundary_faces(piece, arrays);
  EXPECT_THROW(distributed_mesh_from_partition(world(), arrays), Error);  // check: inward
  arrays.local.orientation = OrientationPolicy::fix;
  const MeshFromPartition built = distributed_mesh_from_partition(world(), arrays);
  expect_matches_whole(whole, piece, built);
  EXPECT_EQ(built.flipped_boundary_faces, reduce_all(turned, MPI_SUM));
  const std::map<FaceIds, std::int32_t> whole_faces = whole_faces_by_ids(whole);
  for (std::size_t f = 0; f < built.mesh.local.boundary_faces.size(); ++f) {
    const auto it = whole_faces.find(
        sorted_ids(built.mesh.local.boundary_faces[f], built.mesh.input_node_of_local));
    ASSERT_NE(it, whole_faces.end());
    EXPECT_EQ(built.mesh.local.boundary_tags[f], it->second);
  }
  // none: no boundary faces at all; derive with a tag of the caller's choice.
  PartitionedMeshArrays plain = arrays_of(piece, true);
  plain.boundary = BoundaryFaceSource::none;
  EXPECT_EQ(distributed_mesh_from_partition(world(), plain).mesh.global_boundary_faces, 0);
  plain.boundary = BoundaryFaceSource::derive;
  plain.derived_boundary_tag = 42;
  const MeshFromPartition tagged = distributed_mesh_from_partition(world(), plain);
  for (std::int32_t tag : tagged.mesh.local.boundary_tags) EXPECT_EQ(tag, 42);
}

TEST(FromPartitionOrientation, InvertedTetsAreFixedAndCounted) {
  const TetMesh whole = whole_box();
  CallerPiece piece = cut_caller_piece(whole, world_rank(), world_size(), {});
  std::int64_t inverted = 0;
  for (std::size_t t = 0; t < piece.whole_tet.size(); t += 5, ++inverted)
    std::swap(piece.tets[4 * t], piece.tets[4 * t + 1]);
  PartitionedMeshArrays arrays = arrays_of(piece, true);
  const ThrownError error = error_of([&] { distributed_mesh_from_partition(world(), arrays); });
  EXPECT_TRUE(error.thrown);
  EXPECT_NE(error.message.find("local.tets: "), std::string::npos) << error.message;
  EXPECT_NE(error.message.find("are inverted"), std::string::npos) << error.message;
  arrays.local.orientation = OrientationPolicy::fix;
  const MeshFromPartition built = distributed_mesh_from_partition(world(), arrays);
  EXPECT_EQ(built.flipped_tets, reduce_all(inverted, MPI_SUM));
  expect_matches_whole(whole, piece, built);
}

TEST(FromPartitionUnusedNodes, AreAnErrorUnlessAllowed) {
  const TetMesh whole = whole_box();
  CallerPiece piece = cut_caller_piece(whole, world_rank(), world_size(), {false, 1, true, true});
  if (world_rank() == 0) {  // a node of rank 0's own that no tet uses
    piece.ids.push_back(-17);
    piece.xyz.insert(piece.xyz.end(), {9.0, 9.0, 9.0});
    piece.owned_flags.push_back(1);
    piece.whole_node.push_back(-1);
  }
  PartitionedMeshArrays arrays = arrays_of(piece, false);
  const ThrownError error = error_of([&] { distributed_mesh_from_partition(world(), arrays); });
  EXPECT_TRUE(error.thrown);
  EXPECT_NE(error.message.find("node id -17, owned by rank 0, is used by no tet of any rank"),
            std::string::npos)
      << error.message;
  arrays.local.allow_unused_nodes = true;
  const MeshFromPartition built = distributed_mesh_from_partition(world(), arrays);
  EXPECT_EQ(built.mesh.global_nodes, static_cast<std::int64_t>(whole.node_count()) + 1);
  EXPECT_NEAR(mass_matrix_sum(built.mesh), box_volume, 1e-12 * box_volume);
}

}  // namespace
}  // namespace foehn::petsc
