#pragma once
// Anisotropic remeshing of a whole tetrahedral mesh to a metric field, by Mmg 5.8 (mmg3d, LGPL;
// scripts/setup-mmg.sh unpacks it from PyPI's mmgpy wheel). Foehn does not remesh by itself:
// this hands the mesh and the metric to Mmg, takes its mesh back and checks it.
//
//   foehn::adapt::RemeshOptions options;   // the boundary kept as it is, gradation 1.3
//   foehn::adapt::RemeshReport report;
//   foehn::TetMesh adapted = foehn::adapt::remesh(mesh, metric, options, &report);
//
// Mmg runs on one process (ParMmg is not used): a distributed model gathers its mesh first.
#include <cstddef>
#include <span>

#include "foehn/adapt/metric_math.hpp"
#include "foehn/mesh/tet_mesh.hpp"

namespace foehn::adapt {

// Interior nodes per unit of complexity (sum_i m_i sqrt(det M_i)) that Mmg 5.8 makes: a mesh of
// regular tets of unit edge in the metric has 6 sqrt(2) = 8.5 tets per unit of volume and,
// with about 5.7 tets per node, 1.5 nodes; the default adaptive case measured 1.5 too.
// Calibrated against Mmg's output in tests/unit/adapt/test_remesh_bounds.cpp: 1.31-1.60 for
// metrics about as fine as the kept boundary (the test holds 40%), fewer nodes where the metric
// is much finer (0.66: Mmg grades from the kept boundary's sizes), so the prediction errs
// towards refusing.
inline constexpr double mmg_nodes_per_complexity = 1.5;
// Mmg collapses an edge only below 0.6 of its metric length (its LOPTS threshold), so edges down
// to this fraction of -adapt_hmin remain: bounds on the step are checked against it.
inline constexpr double mmg_shortest_edge_fraction = 0.6;

struct RemeshOptions {
  // Keep every boundary triangle and its nodes exactly as they are (Mmg's -nosurf). This keeps
  // the terrain exact and the boundary tags where they were; only the interior is remeshed, and
  // the cells next to the boundary grade from the boundary's sizes. False lets Mmg adapt the
  // boundary too, within `hausdorff` of its own smooth reconstruction of the surface (planes
  // and the edges between differently tagged parts stay; a curved terrain is then approximated).
  bool keep_boundary = true;
  // The largest ratio of the lengths of neighbouring edges that Mmg lets the metric ask for
  // (its -hgrad, applied to the metric before remeshing); 0 leaves the metric ungradated.
  double gradation = 1.3;
  // With keep_boundary false: the largest distance, in metres, of the new boundary from Mmg's
  // reconstruction of the old one (its -hausd). 0: Mmg's default (1% of the bounding box).
  double hausdorff = 0;
  // Mmg's own output: -1 silent (the default), up to 10.
  int verbosity = -1;
  // The most nodes the call may make (0: no limit). The metric's node count is predicted
  // before Mmg runs (predict_nodes); a prediction above max_nodes is refused (invalid_input)
  // without calling Mmg, and Mmg's memory is capped in proportion (MMG3D_IPARAM_mem), so that
  // a metric that asks for far more than predicted ends in Mmg's failure, not in a runaway.
  double max_nodes = 0;
  // The interior nodes Mmg makes per unit of the metric's complexity, for the prediction.
  double nodes_per_complexity = mmg_nodes_per_complexity;
};

// The nodes a metric asks for on `mesh`, before any remeshing: the kept boundary's nodes (with
// keep_boundary; none otherwise) plus nodes_per_complexity times the metric's complexity over
// the whole mesh. A metric is only a request: Mmg's count is near this, not on it (above).
struct NodePrediction {
  double boundary_nodes = 0;  // kept as they are
  double complexity = 0;      // sum_i m_i sqrt(det M_i), m_i the lumped volumes
  double nodes = 0;           // boundary_nodes + nodes_per_complexity * complexity
};
NodePrediction predict_nodes(const TetMesh& mesh, std::span<const Sym3<double>> metric,
                             bool keep_boundary,
                             double nodes_per_complexity = mmg_nodes_per_complexity);

// The shortest edge of a mesh, m (what the time step's CFL number divides by).
double shortest_edge_length(const TetMesh& mesh);

struct RemeshReport {
  std::size_t nodes = 0, tets = 0, boundary_faces = 0;
  // Mmg returned MMG5_LOWFAILURE: it could not finish the adaptation, but the mesh it returned
  // is conforming and passed the checks (the caller may go on with it or not).
  bool incomplete = false;
  double seconds = 0;          // the Mmg call itself, conversions and checks included
  double predicted_nodes = 0;  // predict_nodes's count for the metric given
  // The shortest edge of the result, m. Mmg's sizes are requests, not bounds: it keeps edges
  // down to 0.6 of the metric's length (its collapse threshold), shorter where a collapse would
  // spoil a tet, and the kept boundary's edges as they were (docs/adaptivity.md).
  double shortest_edge = 0;
};

// True when this build of Foehn has Mmg (FOEHN_MMG_DIR at configure time).
bool remeshing_available() noexcept;

// The mesh Mmg builds for `metric` (one per node). Nodes are renumbered; tet_tags and boundary
// tags keep their values (Mmg's references); node and tet fields are not carried (transfer
// nodal fields with interpolate_nodal_fields). The result is checked as check_mesh checks a
// mesh, boundary triangles are oriented outwards, and with keep_boundary every boundary triangle
// of `mesh` is one of the result's with the same tag and the same coordinates.
// Errors: unavailable without Mmg; invalid_input for a mesh or metric Mmg cannot take (sizes,
// counts beyond Mmg's 32-bit indices, a metric that is not finite and positive definite,
// options out of range, a metric predicted to make more than max_nodes nodes), naming it;
// internal when Mmg fails or returns a mesh that does not pass the checks.
TetMesh remesh(const TetMesh& mesh, std::span<const Sym3<double>> metric,
               const RemeshOptions& options = {}, RemeshReport* report = nullptr);

}  // namespace foehn::adapt
