#pragma once
// The adaptive run of foehn-mountainwave (-adapt_interval N): every N steps the state is
// gathered on rank 0, a metric is built from the recovered Hessians of the speed |u| and of
// theta' (foehn/adapt: the fields the published run adapts to), Mmg remeshes the interior to it
// with the boundary kept exactly, every field is interpolated to the new nodes (the tracers
// rescaled to keep their integrals), and the new mesh is split over the ranks again. The caller
// then builds a new model on it: the solvers, the hand-off and the operators are rebuilt whole.
#include <mpi.h>

#include <cstdint>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <span>
#include <string>
#include <vector>

#include "foehn/adapt/metric_math.hpp"
#include "foehn/mesh/quality.hpp"
#include "foehn/mesh/tet_mesh.hpp"
#include "foehn/petsc/distributed_mesh.hpp"
#include "io/checkpoint.hpp"
#include "model_state.hpp"

namespace foehn::mountainwave {

struct AdaptOptions {
  std::int64_t interval = 0;  // -adapt_interval, steps between adaptations (0: a fixed mesh)
  double h_min = 125;         // -adapt_hmin, m: the published run's finest edge
  double h_max = 10000;       // -adapt_hmax, m: its coarsest
  double max_aspect = 100;    // -adapt_max_aspect: the largest ratio of a node's edge lengths
  // -adapt_nodes: about the nodes wanted (0: as many as the starting mesh has, resolved before
  // the first step). The boundary's nodes are kept; the metric's complexity is set to the
  // interior's share divided by interior_nodes_per_complexity.
  double nodes = 0;
  // The interior nodes Mmg makes per unit of the metric's complexity (edges about unit long in
  // the metric): measured at each adaptation and used for the next. The first guess is what the
  // default case gave on its first adaptation.
  double interior_nodes_per_complexity = 1.5;
  double norm_order = 2;   // -adapt_norm: p of the L^p normalisation
  double gradation = 1.3;  // -adapt_gradation: Mmg's -hgrad (0: off)
  // -adapt_remesh_parts: the parts Mmg remeshes at once (adapt::remesh_in_parallel; 0: one per
  // thread, fewer on a small mesh, so the mesh then depends on the host). 1 (serial Mmg) by
  // default: on the default case the parallel remesh left edges of 49 m at its second
  // adaptation (serial Mmg's stay above 75 m), which the time step's CFL check refuses.
  int remesh_parts = 1;
  // -adapt_remesh_threads: host threads on rank 0 running them (0: all its cores). The mesh
  // depends on the parts, not on the threads.
  int remesh_threads = 0;
  // -adapt_overlap: the remesh runs on rank 0's host threads while the GPU steps on, and the new
  // mesh takes over at the next adaptation point with the then-current state (overlapped_
  // adaptation.hpp). Off: the run waits for each remesh.
  // -adapt_write_metric: each remesh's input, the mesh with the metric as the 3 x 3 node field
  // "metric", written as adapt_metric_<step>.vtu beside the adapted mesh.
  bool write_metric = false;
  // -1 (auto): on with the CUDA backend, where the host's cores are otherwise idle. Off by
  // default: with serial Mmg (15-17 s an adaptation on the default case) the 20 steps behind
  // which it runs (1.4 s) hide little, and the lag changes the results.
  int overlap = 0;
  bool overlapped(bool cuda_backend) const noexcept {
    return overlap == 1 || (overlap == -1 && cuda_backend);
  }
  // The metric and the point location of the transfer on rank 0's GPU
  // (adapt::DeviceMetricBuilder, adapt::locate_points_on_device) rather than its host: set for
  // the CUDA backend. The metrics agree to round-off, not bitwise (the device's pow).
  bool on_device = false;

  bool enabled() const noexcept { return interval > 0; }
};

// An adaptation whose metric is predicted (adapt::predict_nodes) to give more than this many
// times -adapt_nodes is refused before Mmg runs: the budget is about the nodes wanted, and the
// first adaptations overshoot it by up to 35% while the flow develops.
inline constexpr double node_budget_factor = 2;
// -adapt_hmin below this fraction of the domain's longest side is refused: the kept boundary's
// nodes are matched back to the old ones within 1e-6 of it, and Mmg works in the unit cube.
inline constexpr double smallest_hmin_fraction = 1e-5;

// Before the first step, on rank 0's whole mesh (invalid_input naming the options otherwise):
// -adapt_hmax no longer than the domain's longest side, -adapt_hmin not below
// smallest_hmin_fraction of it, the mesh with no edge longer than -adapt_hmax (complexity at
// least volume / hmax^3) within node_budget_factor of -adapt_nodes, and the step dt at `speed`
// (U) no more than -cfl_max on edges of -adapt_hmin.
void check_adapt_bounds(const AdaptOptions& options, const TetMesh& whole, double speed, double dt,
                        double cfl_max);

// What one adaptation cost and gave, in seconds of wall time on rank 0 (the others wait).
struct AdaptCycle {
  std::int64_t step = 0;             // the step whose state the mesh was adapted to
  std::int64_t step_taken_over = 0;  // the step at which the new mesh took over (overlapped: later)
  std::int64_t nodes_before = 0, nodes_after = 0, tets_after = 0;
  double gather = 0, metric = 0, remesh = 0, transfer = 0, distribute = 0;
  double setup = 0;  // the new model, set by the caller
  // -adapt_overlap 1: the remesh ran on host threads while the GPU stepped on; `waited` is the
  // part of it the steps did not hide (the run waited for it at the take-over or a checkpoint).
  bool overlapped = false;
  double waited = 0;
  bool on_device_transfer = false;  // the point location on rank 0's GPU (AdaptOptions)
  double complexity = 0;            // of the metric Mmg was given
  std::int64_t boundary_nodes = 0;  // kept as they were
  double predicted_nodes = 0;       // adapt::predict_nodes's count for the metric, before Mmg
  double shortest_edge = 0;         // of the new mesh, m
  double cfl = 0;                   // the step's on the new mesh and state (state_cfl)
  bool incomplete = false;          // Mmg could not finish (refused: an error)
  std::size_t outside = 0;          // new nodes outside the old mesh (none with the boundary kept)
  double tracer_correction = 0;     // the largest |factor - 1| of the conservative rescaling
  int remesh_parts = 1, remesh_threads = 1, remesh_passes = 0;  // of adapt::remesh_in_parallel
  // Rank 0's: the new mesh's quality, its edge lengths against -adapt_hmin / -adapt_hmax.
  MeshQuality quality;
  EdgeBounds edge_bounds;

  // The seconds the run spent on it: the remesh itself only where it was not overlapped.
  double total() const noexcept {
    return gather + metric + (overlapped ? waited : remesh) + transfer + distribute + setup;
  }
};

// The phases of an adaptation, for the synchronous one (adapt) and the overlapped one
// (BackgroundRemesh, overlapped_adaptation.hpp).
// Collective: `state` on rank 0 in the whole mesh's numbering (other ranks' copy is left empty).
ModelState gather_state(const petsc::DistributedMesh& mesh, const ModelState& state);
// Rank 0, on the calling thread (its GPU with options.on_device): the metric of the gathered
// state on `whole`; sets the cycle's boundary nodes, complexity and metric seconds.
std::vector<adapt::Sym3<double>> adaptation_metric(const TetMesh& whole, ModelState& gathered,
                                                   const AdaptOptions& options, AdaptCycle& cycle);
// What rank 0 made of the metric without any other rank: the new mesh (written to `mesh_file`
// as Mmg made it, then reordered for locality, with boundary kinds) and the cycle so far.
struct RemeshedMesh {
  TetMesh mesh;
  AdaptCycle cycle;
};
// Rank 0, on any thread (host only): Mmg on the host's cores (-adapt_remesh_parts/threads).
RemeshedMesh remesh_to_metric(const TetMesh& whole, std::span<const adapt::Sym3<double>> metric,
                              const AdaptOptions& options, AdaptCycle cycle,
                              const std::filesystem::path& mesh_file);
// Collective: the new mesh takes over. Rank 0's `gathered` (the current state on `whole`) is
// moved onto remeshed->mesh, which is distributed; `whole` becomes it and `cycle` gets the
// remesh's numbers (on every rank) with the gather and wait measured before.
petsc::DistributedMesh take_over(const petsc::DistributedMesh& mesh, ModelState& gathered,
                                 TetMesh& whole, RemeshedMesh* remeshed, ModelState& adapted_state,
                                 AdaptCycle& cycle);

// Collective. Adapts rank 0's `whole` mesh (the mesh `mesh` was distributed from, in its input
// numbering, with boundary kinds) to `state` (this rank's local state) and returns the new
// distributed mesh with the state on it in `adapted_state` (time and step kept). Rank 0 writes
// Mmg's mesh to `mesh_file` (.vtu) as it came, so that reading it with -mesh or for a restart
// gives the same mesh in the same numbering; `whole` becomes that mesh reordered for locality,
// with boundary kinds. An error on rank 0 (Mmg failed, a metric could not be built, the file
// could not be written, a metric predicted to give more than node_budget_factor times
// -adapt_nodes, Mmg unable to finish) is thrown on every rank.
petsc::DistributedMesh adapt(const petsc::DistributedMesh& mesh, const ModelState& state,
                             TetMesh& whole, const AdaptOptions& options,
                             const std::filesystem::path& mesh_file, ModelState& adapted_state,
                             AdaptCycle& cycle);

// The file adapt writes for the adaptation at `step`: <folder>/adapted_mesh_<step>.vtu.
std::filesystem::path adapted_mesh_file(const std::filesystem::path& folder, std::int64_t step);

// One line for the run log.
std::string describe(const AdaptCycle& cycle);
// run.json's record of every adaptation, and their seconds in all.
nlohmann::json to_json(const std::vector<AdaptCycle>& cycles);
double total_seconds(const std::vector<AdaptCycle>& cycles);

// What a restart's checkpoint says about the adaptive run that wrote it (adapted_at_step -1:
// the run's own mesh, or no adaptive restart). Collective: every rank reads the file's
// attributes; rank 0 says which mesh it continues on.
CheckpointInfo adaptive_restart_info(const AdaptOptions& options,
                                     const std::filesystem::path& restart, MPI_Comm comm, int rank);

}  // namespace foehn::mountainwave
