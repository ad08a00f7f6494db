#pragma once
// Internal to adapt::remesh_in_parallel (parallel_remesh.cpp): the merged mesh of a pass, and the
// band of tets a later pass remeshes (parallel_remesh_band.cpp).
#include <cstddef>
#include <cstdint>
#include <span>
#include <utility>
#include <vector>

#include "foehn/adapt/metric_math.hpp"
#include "foehn/adapt/parallel_remesh.hpp"
#include "foehn/mesh/tet_mesh.hpp"

namespace foehn::adapt::detail {

// The whole mesh after a pass.
struct Merged {
  TetMesh mesh;
  std::vector<Sym3<double>> metric;
  // The nodes frozen between parts in this pass and in every pass before: never free to move.
  std::vector<char> frozen_throughout;
  // For each input node, the merged node it is (kept), or -1 (removed by Mmg).
  std::vector<std::int32_t> node_of_input;
};

// The boundary triangles found by their corners, whatever their order: a face's triangle index
// or -1. Used for a part's and a band's surface.
class BoundaryLookup {
 public:
  explicit BoundaryLookup(const TetMesh& mesh);
  std::int32_t find(const Triangle& corners) const;

 private:
  std::vector<std::pair<Triangle, std::int32_t>> sorted_;
};

// The tets within `layers` layers of a flagged node (layer 1: the tets at one; layer k + 1: the
// tets at a node of layer k). Every node of a tet outside is `layers` edges or more from a
// flagged node, so the band's surface keeps off the flagged nodes.
std::vector<char> band_around(const TetMesh& mesh, std::vector<char> near, int layers);

// A later pass's band as a mesh of its own: its tets, the whole mesh's boundary triangles on
// them, and its surface against the tets kept as they are, tagged interface_tag and oriented out
// of the band (frozen, as an interface between parts is).
struct Band {
  TetMesh mesh;
  std::vector<std::int32_t> whole_node;  // the node of the whole mesh each of its nodes is
  std::vector<Sym3<double>> metric;
  std::vector<char> frozen;               // the whole mesh's frozen_throughout at its nodes
  std::vector<char> to_free;              // the nodes the band is around (avoided by its split)
  std::vector<char> boundary_face_taken;  // per boundary triangle of the whole mesh: in the band
};

Band cut_band(const Merged& whole, const std::vector<char>& in_band,
              const std::vector<char>& to_free, std::int32_t interface_tag);

// The band's parts, up to `most` (o.parts, or one per min_tets_per_part tets, as in the first
// pass), with their interfaces kept off the nodes to free and, with o.balance_work, balanced in
// work_weights. *parts: how many.
std::vector<std::int32_t> split_band(const Band& band, int most, const ParallelRemeshOptions& o,
                                     int* parts);

// The whole mesh again: its tets outside the band as they were, then the remeshed band. Kept
// nodes keep their order; the band's new nodes follow.
Merged splice_band(const Merged& whole, const std::vector<char>& in_band, const Band& band,
                   const Merged& remeshed);

// Each tet's expected Mmg work for METIS to balance: 4 for the tet itself plus 4 per tet the
// metric asks for in it (its volume in the metric, vol sqrt(det M) averaged over its corners, over
// a unit regular tet's sqrt(2) / 12), at most 10^6.
std::vector<std::int32_t> work_weights(const TetMesh& mesh, std::span<const Sym3<double>> metric);

// The smallest edge length the metric asks for anywhere (1 / sqrt of its largest eigenvalue), m.
double smallest_requested_edge(std::span<const Sym3<double>> metric);

// Flags in `flags` the nodes at an edge shorter than `bound` that is not on the boundary at both
// ends (the kept boundary's edges cannot change); returns how many nodes it flagged anew, and in
// *shortest the shortest such edge of all.
std::size_t flag_short_edges(const TetMesh& mesh, double bound, std::vector<char>& flags,
                             double* shortest);

}  // namespace foehn::adapt::detail
