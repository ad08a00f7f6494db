#pragma once
// Renumbering of nodes and tets. Benchmarks use shuffle_numbering to imitate the unordered
// numbering of an adaptively remeshed mesh, and reorder_for_locality to restore the memory
// locality that assembly and sparse matrix-vector products depend on. The metrics show the
// difference.

#include <cstdint>
#include <span>

#include "foehn/mesh/tet_mesh.hpp"

namespace foehn {

// Renumbers node i as new_of_old[i]: moves coordinates and node_fields and rewrites tets and
// boundary_faces. Orientation is unchanged (only labels change). Throws invalid_input, leaving
// the mesh untouched, unless new_of_old is a permutation of 0 .. node_count-1.
void permute_nodes(TetMesh& mesh, std::span<const std::int32_t> new_of_old);

// Renumbers tet e as new_of_old[e]: moves tets, tet_tags and tet_fields. Throws invalid_input,
// leaving the mesh untouched, unless new_of_old is a permutation of 0 .. tet_count-1.
void permute_tets(TetMesh& mesh, std::span<const std::int32_t> new_of_old);

// Random renumbering of nodes and then tets, the same for the same seed on every platform
// (std::mt19937_64 with Foehn's own Fisher-Yates shuffle, not std::shuffle, whose algorithm
// is left to the standard library).
void shuffle_numbering(TetMesh& mesh, std::uint64_t seed);

// Reverse Cuthill-McKee numbering of the nodes (Boost.Graph, on the graph of tet edges),
// then tets sorted by their node indices (lowest first, ties by the next lowest; stable).
void reorder_for_locality(TetMesh& mesh);

// Largest |i - j| over the tet edges (i, j): the half-bandwidth of the node-based matrix.
std::int64_t node_graph_bandwidth(const TetMesh& mesh);

// Mean over tets of (largest - smallest node index): how far apart in memory the nodes that
// one element gathers lie.
double mean_tet_node_span(const TetMesh& mesh);

}  // namespace foehn
