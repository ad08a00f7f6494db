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
  // Passes at most. A pass after the first partitions the merged mesh again with METIS, told
  // that cutting a face at a node frozen in every pass so far costs avoid_cost faces; the passes
  // stop once no node has been frozen in all of them.
  int max_passes = 4;
  int avoid_cost = 100;
  // A pass after the first remeshes the tets within this many layers of a node frozen in every
  // pass so far (layer 1: the tets at such a node; layer k + 1: the tets at a node of layer k),
  // with the band's surface frozen too; the rest of the mesh is kept as it is. Remeshing an
  // already adapted region again costs as much Mmg time as the first time and grows it (Mmg's
  // gradation applied again); a band of 3 layers measured (bench_remesh_scaling, H200 host)
  // in docs/adaptivity.md. 0: remesh the whole mesh in every pass.
  int band_layers = 3;
  // Cap Mmg's memory for each part near what the part needs (detail::part_megabytes): Mmg sizes
  // and fills its arrays from the cap, for 6 million tets without one, which costs a part of a
  // few thousand tets more than its remesh where page faults are slow. False: Mmg's default.
  bool cap_part_memory = true;
};

struct ParallelRemeshPass {
  int parts = 0;                    // parts given to Mmg
  std::size_t remeshed_tets = 0;    // tets given to Mmg (all in the first pass; the band later)
  std::size_t interface_faces = 0;  // triangles frozen between parts
  std::size_t nodes = 0, tets = 0;  // of the merged mesh after the pass
  // Nodes on an interface in this pass and in every pass before (0 ends the passes).
  std::size_t nodes_frozen_throughout = 0;
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
  double partition = 0;  // METIS, seconds
};

// `metric` one per node of `mesh`; options as for adapt::remesh, with keep_boundary (the parts'
// interfaces are frozen as the boundary is). One part (a small mesh or threads == 1) calls
// adapt::remesh. Errors: as adapt::remesh, naming the part and the pass; invalid_input also for
// keep_boundary false with more than one part, threads or parts < 0, max_passes < 1 or
// avoid_cost outside [1, 10000], or band_layers < 0.
TetMesh remesh_in_parallel(const TetMesh& mesh, std::span<const Sym3<double>> metric,
                           const RemeshOptions& options = {},
                           const ParallelRemeshOptions& parallel = {},
                           ParallelRemeshReport* report = nullptr);

}  // namespace foehn::adapt
