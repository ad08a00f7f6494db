#pragma once
// Helpers of the bring-your-own-mesh tests: a whole mesh cut by hand into x-slabs the way a
// dynamical core would hold it (its own ids, 1-based, not contiguous per rank; owned nodes by a
// rule unlike distribute_mesh's; local nodes shuffled), and properties every DistributedMesh
// must have, whoever built it.
#include <petscmat.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <numeric>
#include <ostream>
#include <random>
#include <vector>

#include <gtest/gtest.h>

#include "foehn/fe/cpu_assembler.hpp"
#include "foehn/mesh/geometry.hpp"
#include "foehn/petsc/matrix_handoff.hpp"
#include "foehn/petsc/node_exchange.hpp"
#include "foehn/petsc/partitioned_mesh.hpp"
#include "mpi/support/distributed_layout.hpp"
#include "mpi/support/mpi_test_support.hpp"

namespace foehn::testing {

// A whole-mesh node's id in the caller's numbering: 1-based, strided and scrambled, so neither
// contiguous per rank nor increasing along x.
inline std::int64_t caller_id(std::size_t node, std::size_t nodes) {
  return 5 + 3 * static_cast<std::int64_t>((node * 7919) % nodes);  // 7919 is prime
}

struct PartitionStyle {
  bool owned_first = true;  // owned_node_count (owned first) or owned_flags (any order)
  int base = 1;
  bool int64_indices = true;
  bool shuffle = true;
};

// GoogleTest's name for a style (instead of a dump of the struct's bytes).
inline void PrintTo(const PartitionStyle& s, std::ostream* out) {
  *out << (s.owned_first ? "owned first" : "owned flags") << ", base " << s.base
       << (s.int64_indices ? ", int64" : ", int32") << (s.shuffle ? ", shuffled" : "");
}

// One rank's piece of the whole mesh as a dynamical core holds it.
struct CallerPiece {
  std::vector<double> xyz;
  std::vector<std::int64_t> ids;
  std::vector<std::int32_t> owned_flags;
  std::int64_t owned_count = 0;
  std::vector<std::int64_t> tets;  // in the style's base
  std::vector<std::int32_t> tets32;
  std::vector<std::int32_t> tet_tags;
  std::vector<std::int64_t> faces;  // the whole mesh's boundary faces of this rank's tets
  std::vector<std::int32_t> faces32;
  std::vector<std::int32_t> face_tags;
  std::vector<std::int64_t> whole_node;  // whole-mesh node of each caller-local node
  std::vector<std::int64_t> whole_tet;   // whole-mesh tet of each caller tet
  int base = 1;
  bool int64_indices = true;
};

inline Point3 centroid(const TetMesh& mesh, const Tet& tet) {
  Point3 c{};
  for (std::int32_t n : tet)
    for (std::size_t d = 0; d < 3; ++d) c[d] += mesh.nodes[static_cast<std::size_t>(n)][d] / 4;
  return c;
}

// Tets by x-slab of their centroid; a node is owned by the highest rank touching it.
inline std::vector<int> slab_of_tets(const TetMesh& whole, int ranks) {
  double x_max = 0;
  for (const Point3& p : whole.nodes) x_max = std::max(x_max, p[0]);
  std::vector<int> rank_of(whole.tet_count());
  for (std::size_t t = 0; t < whole.tet_count(); ++t) {
    const double x = centroid(whole, whole.tets[t])[0];
    rank_of[t] = std::min(ranks - 1, static_cast<int>(x / x_max * ranks));
  }
  return rank_of;
}

inline CallerPiece cut_caller_piece(const TetMesh& whole, int rank, int ranks,
                                    const PartitionStyle& style) {
  const std::vector<int> rank_of_tet = slab_of_tets(whole, ranks);
  std::vector<int> owner(whole.node_count(), -1);
  for (std::size_t t = 0; t < whole.tet_count(); ++t)
    for (std::int32_t n : whole.tets[t])
      owner[static_cast<std::size_t>(n)] =
          std::max(owner[static_cast<std::size_t>(n)], rank_of_tet[t]);

  CallerPiece piece;
  piece.base = style.base;
  piece.int64_indices = style.int64_indices;
  std::vector<std::int64_t> owned, ghosts;
  std::vector<char> seen(whole.node_count(), 0);
  for (std::size_t t = 0; t < whole.tet_count(); ++t) {
    if (rank_of_tet[t] != rank) continue;
    piece.whole_tet.push_back(static_cast<std::int64_t>(t));
    for (std::int32_t n : whole.tets[t]) {
      if (seen[static_cast<std::size_t>(n)]++ != 0) continue;
      (owner[static_cast<std::size_t>(n)] == rank ? owned : ghosts).push_back(n);
    }
  }
  std::mt19937 random(1234u + static_cast<unsigned>(rank));
  if (style.shuffle) {
    std::shuffle(owned.begin(), owned.end(), random);
    std::shuffle(ghosts.begin(), ghosts.end(), random);
    std::shuffle(piece.whole_tet.begin(), piece.whole_tet.end(), random);
  }
  piece.whole_node = owned;
  piece.whole_node.insert(piece.whole_node.end(), ghosts.begin(), ghosts.end());
  piece.owned_count = static_cast<std::int64_t>(owned.size());
  piece.owned_flags.assign(piece.whole_node.size(), 0);
  std::fill_n(piece.owned_flags.begin(), owned.size(), 1);
  if (!style.owned_first && style.shuffle) {  // owned and ghost nodes mixed
    std::vector<std::size_t> order(piece.whole_node.size());
    std::iota(order.begin(), order.end(), std::size_t{0});
    std::shuffle(order.begin(), order.end(), random);
    std::vector<std::int64_t> nodes;
    std::vector<std::int32_t> flags;
    for (std::size_t i : order) {
      nodes.push_back(piece.whole_node[i]);
      flags.push_back(piece.owned_flags[i]);
    }
    piece.whole_node = nodes;
    piece.owned_flags = flags;
  }

  std::vector<std::int64_t> caller_of_whole(whole.node_count(), -1);
  for (std::size_t l = 0; l < piece.whole_node.size(); ++l) {
    const auto n = static_cast<std::size_t>(piece.whole_node[l]);
    caller_of_whole[n] = static_cast<std::int64_t>(l);
    piece.ids.push_back(caller_id(n, whole.node_count()));
    piece.xyz.insert(piece.xyz.end(), whole.nodes[n].begin(), whole.nodes[n].end());
  }
  std::vector<char> mine(whole.tet_count(), 0);
  for (std::int64_t t : piece.whole_tet) {
    mine[static_cast<std::size_t>(t)] = 1;
    for (std::int32_t n : whole.tets[static_cast<std::size_t>(t)])
      piece.tets.push_back(caller_of_whole[static_cast<std::size_t>(n)] + style.base);
    if (!whole.tet_tags.empty())
      piece.tet_tags.push_back(whole.tet_tags[static_cast<std::size_t>(t)]);
  }
  // The whole mesh's boundary faces that lie on this rank's tets.
  for (std::size_t f = 0; f < whole.boundary_face_count(); ++f) {
    const Triangle& face = whole.boundary_faces[f];
    for (std::int64_t t : piece.whole_tet) {
      const Tet& tet = whole.tets[static_cast<std::size_t>(t)];
      const auto has = [&](std::int32_t n) {
        return std::find(tet.begin(), tet.end(), n) != tet.end();
      };
      if (!(has(face[0]) && has(face[1]) && has(face[2]))) continue;
      for (std::int32_t n : face)
        piece.faces.push_back(caller_of_whole[static_cast<std::size_t>(n)] + style.base);
      piece.face_tags.push_back(whole.boundary_tags[f]);
      break;
    }
  }
  piece.tets32.assign(piece.tets.begin(), piece.tets.end());
  piece.faces32.assign(piece.faces.begin(), piece.faces.end());
  return piece;
}

// The arrays of `piece` (which must outlive them), boundary faces derived.
inline petsc::PartitionedMeshArrays arrays_of(const CallerPiece& piece, bool owned_first) {
  petsc::PartitionedMeshArrays a;
  a.local.coordinates = piece.xyz.data();
  a.local.node_count = static_cast<std::int64_t>(piece.ids.size());
  if (piece.int64_indices)
    a.local.tets = piece.tets;
  else
    a.local.tets = piece.tets32;
  a.local.tet_tags = piece.tet_tags;
  a.local.index_base = piece.base;
  a.node_ids = piece.ids;
  if (owned_first)
    a.owned_node_count = piece.owned_count;
  else
    a.owned_flags = piece.owned_flags;
  return a;
}

// The caller's boundary faces and tags in `a` (BoundaryFaceSource::arrays).
inline void give_boundary_faces(const CallerPiece& piece, petsc::PartitionedMeshArrays& a) {
  a.boundary = petsc::BoundaryFaceSource::arrays;
  if (piece.int64_indices)
    a.local.boundary_faces = piece.faces;
  else
    a.local.boundary_faces = piece.faces32;
  a.local.boundary_tags = piece.face_tags;
}

inline double local_volume(const TetMesh& mesh) {
  double volume = 0;
  for (const Tet& tet : mesh.tets) volume += signed_volume(mesh, tet);
  return volume;
}

inline double boundary_area(const TetMesh& mesh) {
  double area = 0;
  for (const Triangle& f : mesh.boundary_faces) {
    const Point3& a = mesh.nodes[static_cast<std::size_t>(f[0])];
    area += norm(cross(mesh.nodes[static_cast<std::size_t>(f[1])] - a,
                       mesh.nodes[static_cast<std::size_t>(f[2])] - a)) /
            2;
  }
  return area;
}

// Sum of all entries of the P1 mass matrix assembled on each rank's tets and handed to PETSc:
// the domain's volume (the mass matrix applied to ones integrates 1).
inline double mass_matrix_sum(const petsc::DistributedMesh& mesh) {
  fe::CpuAssembler assembler(mesh.local);
  fe::BlockCsrMatrix values = assembler.create_matrix<fe::MassOperator>();
  assembler.assemble(fe::MassOperator{}, values);
  petsc::PetscMatrix matrix(petsc::distributed_numbering(mesh), assembler.pattern(), 1, 1);
  matrix.set_values(values);
  petsc::NodeExchange exchange(mesh, 1);
  const petsc::UniqueVec ones = exchange.create_vector();
  const petsc::UniqueVec product = exchange.create_vector();
  PetscScalar sum = 0;
  EXPECT_EQ(VecSet(ones.get(), 1.0), 0);
  EXPECT_EQ(MatMult(matrix.mat(), ones.get(), product.get()), 0);
  EXPECT_EQ(VecSum(product.get(), &sum), 0);
  return PetscRealPart(sum);
}

}  // namespace foehn::testing
