#pragma once
// Remeshing on every host core: the mesh is split into parts (METIS), Mmg remeshes each part on
// its own thread with the interfaces between parts frozen (required triangles and nodes), the
// parts are merged, and the nodes that were frozen are freed in later passes (ParMmg's iterative
// algorithm, on threads and on Mmg's library: ParMmg is in no package reachable here). A later
// pass remeshes only a band of tets around the nodes frozen so far, split again with its
// interfaces kept off those nodes, and leaves the rest of the mesh as the first pass made it;
// the passes end once no node has been frozen in every pass.
//
//   foehn::adapt::ParallelRemeshOptions parallel;   // all the host's cores
//   foehn::adapt::ParallelRemeshReport report;
//   foehn::TetMesh adapted = foehn::adapt::remesh_in_parallel(mesh, metric, {}, parallel, &report);
//
// The result is conforming (a frozen interface is the same triangles on both sides) and keeps
// the boundary bitwise, as adapt::remesh does; the nodes and tets differ from a serial remesh's
// (another mesh for the same metric). It depends on the number of parts, not of threads: the
// same parts on 1 or 32 threads give bitwise the same mesh. The parts' Mmg calls run at once in
// one process: why that is safe with Mmg 5.8 is in src/adapt/mmg_call.hpp.
#include <cstddef>
#include <span>
#include <vector>

#include "foehn/adapt/remesh.hpp"

namespace foehn::adapt {

struct ParallelRemeshOptions {
  int threads = 0;  // host threads running Mmg at once; 0: std::thread::hardware_concurrency()
  int parts = 0;    // parts of the mesh; 0: one per thread, fewer on a small mesh (below)
  // Fewer parts than threads when parts would hold fewer tets than this each: a part's frozen
  // interface grows against its volume, and Mmg's set-up costs the same however small the part.
  std::size_t min_tets_per_part = 4000;
  // Passes at most. A pass after the first remeshes a band around the nodes frozen in every pass
  // so far and those at too short an edge (below), split by METIS told that cutting a face at
  // such a node costs avoid_cost faces; the passes stop once there are none. The passes after
  // the third are small (a few hundred tets on the default case at 16 parts).
  int max_passes = 8;
  int avoid_cost = 100;
  // A pass after the first remeshes the tets within this many layers of a node to free (layer
  // 1: the tets at such a node; layer k + 1: the tets at a node of layer k), with the band's
  // surface frozen too; the rest of the mesh is kept as it is. Remeshing an already adapted
  // region again costs as much Mmg time as the first time and grows it (Mmg's gradation applied
  // again). 2 layers was the fastest of 2, 3, 5 and the whole mesh (0) on the default case's
  // metric at 16 parts; 5 layers and the whole mesh keep better angles (docs/adaptivity.md).
  int band_layers = 2;
  // Edges shorter than this fraction of the smallest edge the metric asks for anywhere (its
  // -adapt_hmin where that bounds it) are freed by a later pass as frozen nodes are: Mmg leaves
  // such edges next to frozen triangles (43 m at -adapt_hmin 125 on 16 parts), where it keeps
  // them above about 0.6 hmin elsewhere (mmg_shortest_edge_fraction). 0: not looked for.
  double short_edge_fraction = mmg_shortest_edge_fraction;
  // The same bound in metres, where the caller knows its hmin (the mountain wave's adaptation
  // passes mmg_shortest_edge_fraction x -adapt_hmin, the bound its CFL check assumes): > 0
  // replaces short_edge_fraction's.
  double short_edge = 0;
  // METIS balances the parts' expected Mmg work (the tets they hold plus the tets the metric asks
  // for in them), not their tets: where the metric refines, a part of as many tets does more.
  // False: their tets.
  bool balance_work = true;
  // Cap Mmg's memory for each part near what the part needs (detail::part_megabytes): Mmg sizes
  // and fills its arrays from the cap, for 6 million tets without one, which costs a part of a
  // few thousand tets more than its remesh where page faults are slow. False: Mmg's default.
  bool cap_part_memory = true;
  // How fast Mmg lets cells grow away from a part's frozen triangles (its -hgradreq; Mmg sizes
  // the cells at a frozen node from its frozen edges): > 0 the value, 0 Mmg's default (2.3),
  // < 0 none. Measured at 16 parts on the default case's step-40 metric (docs/adaptivity.md):
  // Mmg's 2.3 left edges of 52 m and angles of 1.7 deg; 1.6 keeps every edge above 75 m
  // (0.6 hmin, once the repair passes end), the smallest angle at 3.8 deg and makes 1.6% more
  // tets than serial Mmg; 1.3 under-refines next to coarse frozen triangles (26% fewer nodes than
  // serial Mmg on the unit test's coarse mesh, where 1.6 makes 9% fewer).
  double frozen_gradation = 1.6;
};

struct ParallelRemeshPass {
  int parts = 0;                    // parts given to Mmg
  std::size_t remeshed_tets = 0;    // tets given to Mmg (all in the first pass; the band later)
  std::size_t interface_faces = 0;  // triangles frozen between parts
  std::size_t nodes = 0, tets = 0;  // of the merged mesh after the pass
  // Nodes on an interface in this pass and in every pass before (0 ends the passes).
  std::size_t nodes_frozen_throughout = 0;
  // Nodes at an edge shorter than short_edge_fraction of the smallest requested edge, off the
  // boundary, after the pass (0 with no node frozen throughout ends the passes).
  std::size_t short_edge_nodes = 0;
  // A pass that only freed short edges and left a shorter edge than it found: undone, the mesh
  // before it is the result (and the passes end).
  bool undone = false;
  double split = 0, mmg = 0, merge = 0;  // seconds: the parts made, Mmg on all, the mesh merged
  double slowest_part = 0;               // seconds of the longest Mmg call
  double mmg_cpu = 0;                    // the Mmg calls' seconds summed over the parts
};

struct ParallelRemeshReport : RemeshReport {
  int threads = 0;
  std::vector<ParallelRemeshPass> passes;
  // Nodes frozen in every pass, and the result's tets that touch them: never free to change
  // (0 when the passes ended as they should).
  std::size_t nodes_never_free = 0, tets_never_free = 0;
  // Nodes at too short an edge after the last pass (0 unless max_passes ended the passes).
  std::size_t short_edge_nodes_left = 0;
  double partition = 0;  // METIS, the work weights and the bands cut out, seconds
};

// `metric` one per node of `mesh`; options as for adapt::remesh, with keep_boundary (the parts'
// interfaces are frozen as the boundary is). One part (a small mesh or threads == 1) calls
// adapt::remesh. Errors: as adapt::remesh, naming the part and the pass; invalid_input also for
// keep_boundary false with more than one part, threads or parts < 0, max_passes < 1 or
// avoid_cost outside [1, 10000], band_layers < 0, short_edge or short_edge_fraction negative or
// not finite, or frozen_gradation not finite.
TetMesh remesh_in_parallel(const TetMesh& mesh, std::span<const Sym3<double>> metric,
                           const RemeshOptions& options = {},
                           const ParallelRemeshOptions& parallel = {},
                           ParallelRemeshReport* report = nullptr);

}  // namespace foehn::adapt
