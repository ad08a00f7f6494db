#include "adaptation.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <vector>

#include "boundary_conditions.hpp"
#include "foehn/adapt/device_metric.hpp"
#include "foehn/adapt/metric.hpp"
#include "foehn/adapt/parallel_remesh.hpp"
#include "foehn/adapt/remesh.hpp"
#include "foehn/adapt/transfer.hpp"
#include "foehn/mesh/geometry.hpp"
#include "foehn/mesh/quality_json.hpp"
#include "foehn/mesh/reorder.hpp"
#include "foehn/mesh/vtk_io.hpp"
#include "foehn/petsc/mpi_collective.hpp"
#include "foehn/petsc/node_exchange.hpp"
#include "foehn/runtime/error.hpp"
#include "foehn/runtime/stopwatch.hpp"

namespace foehn::mountainwave {

namespace {

// Six significant digits: enough to act on, unlike the 17 of an exact double.
std::string brief(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%.6g", value);
  return text;
}

// The state's fields in one list, each with its components: the order they are gathered,
// moved and scattered in.
struct FieldRef {
  std::vector<double>* values;
  int components;
  bool conserved;  // a tracer: its integral is kept
};

std::vector<FieldRef> fields_of(ModelState& state) {
  std::vector<FieldRef> fields = {
      {&state.velocity, 3, false}, {&state.pressure, 1, false}, {&state.theta, 1, false}};
  for (auto& q : state.tracers) fields.push_back({&q, 1, true});
  return fields;
}

// The metric the published run adapts to: the speed's and theta''s, each normalised to half
// the complexity and intersected. The bounds and the intersection move the complexity away
// from the one asked for: the request is corrected until the result is within 2% of it (or four
// tries). `complexity` is what the metric has. On rank 0's GPU with o.on_device.
std::vector<adapt::Sym3<double>> state_metric(const TetMesh& whole, ModelState& state,
                                              const AdaptOptions& o, double target,
                                              double& complexity) {
  const auto patches = adapt::node_patches(whole);
  const auto volumes = adapt::lumped_volumes(whole);
  std::vector<double> speed(whole.node_count());
  for (std::size_t n = 0; n < speed.size(); ++n)
    speed[n] =
        std::hypot(state.velocity[3 * n], state.velocity[3 * n + 1], state.velocity[3 * n + 2]);
  adapt::MetricOptions metric_options;
  metric_options.bounds = {o.h_min, o.h_max, o.max_aspect};
  metric_options.norm_order = o.norm_order;
  double asked = target;
  const auto correct_request = [&] {
    if (std::fabs(complexity / target - 1) < 0.02) return false;
    asked *= target / complexity;
    return true;
  };
  if (o.on_device) {
    const Stream stream;
    const adapt::DeviceMetricBuilder builder(whole, patches, volumes, stream);
    const auto speed_hessians = builder.recover_hessians(speed);
    const auto theta_hessians = builder.recover_hessians(state.theta);
    DeviceArray<double> metric;
    for (int attempt = 0; attempt < 4; ++attempt) {
      metric_options.target_complexity = 0.5 * asked;
      metric = builder.metric_from_hessians(speed_hessians, metric_options);
      builder.intersect_into(metric, builder.metric_from_hessians(theta_hessians, metric_options));
      complexity = builder.complexity(metric);
      if (!correct_request()) break;
    }
    return builder.to_host(metric);
  }
  const auto speed_hessians = adapt::recover_hessians(whole, patches, speed);
  const auto theta_hessians = adapt::recover_hessians(whole, patches, state.theta);
  std::vector<adapt::Sym3<double>> metric;
  for (int attempt = 0; attempt < 4; ++attempt) {
    metric_options.target_complexity = 0.5 * asked;
    metric = adapt::intersect(adapt::metric_from_hessians(speed_hessians, volumes, metric_options),
                              adapt::metric_from_hessians(theta_hessians, volumes, metric_options));
    complexity = adapt::complexity(metric, volumes);
    if (!correct_request()) break;
  }
  return metric;
}

// Rank 0, before Mmg runs: the metric's predicted node count against the budget. The bounds
// can keep the complexity above the one asked for (every edge at most -adapt_hmax long needs
// volume / hmax^3 of it, and -adapt_max_aspect raises the small eigenvalues), which the
// correction of the request cannot undo.
void check_predicted_nodes(const TetMesh& whole, std::span<const adapt::Sym3<double>> metric,
                           const AdaptOptions& o, const adapt::RemeshOptions& remesh_options,
                           AdaptCycle& cycle) {
  const adapt::NodePrediction predicted = adapt::predict_nodes(
      whole, metric, remesh_options.keep_boundary, o.interior_nodes_per_complexity);
  cycle.predicted_nodes = predicted.nodes;
  if (predicted.nodes > remesh_options.max_nodes)
    fail(ErrorCategory::invalid_input, "the adaptation at step ", cycle.step,
         ": the metric for -adapt_hmin ", brief(o.h_min), " m, -adapt_hmax ", brief(o.h_max),
         " m, -adapt_max_aspect ", brief(o.max_aspect), " asks for about ", brief(predicted.nodes),
         " nodes (complexity ", brief(predicted.complexity), " x ",
         brief(o.interior_nodes_per_complexity), " + ", predicted.boundary_nodes,
         " kept boundary nodes), more than ", node_budget_factor, " x -adapt_nodes ",
         brief(o.nodes), "; Mmg was not run. Raise -adapt_hmax or -adapt_nodes");
}

// Rank 0: the whole state moved from `old_mesh` to `new_mesh`.
ModelState move_state(const TetMesh& old_mesh, ModelState& old_state, const TetMesh& new_mesh,
                      bool on_device, AdaptCycle& cycle) {
  const adapt::PointLocations at =
      on_device ? adapt::locate_points_on_device(old_mesh, new_mesh.nodes, Stream{})
                : adapt::locate_points(old_mesh, new_mesh.nodes);
  cycle.outside = at.outside;
  ModelState moved;
  moved.time = old_state.time;
  moved.step = old_state.step;
  const std::vector<FieldRef> from = fields_of(old_state), to = fields_of(moved);
  for (std::size_t f = 0; f < from.size(); ++f) {
    *to[f].values = adapt::interpolate(old_mesh, at, *from[f].values, from[f].components);
    // A tracer keeps its integral where both integrals are positive; one that is zero (or
    // made negative by undershoots) is left as interpolated rather than scaled by a factor
    // without meaning.
    if (from[f].conserved) {
      const double before = adapt::integral(old_mesh, *from[f].values);
      if (before > 0 && adapt::integral(new_mesh, *to[f].values) > 0) {
        const double factor = adapt::conserve_integral(new_mesh, *to[f].values, before);
        cycle.tracer_correction = std::max(cycle.tracer_correction, std::fabs(factor - 1));
      }
    }
  }
  return moved;
}

// Every rank's local part of rank 0's whole state (broadcast: the whole state is a few values
// per node, sent once per adaptation).
ModelState scatter_state(const petsc::DistributedMesh& mesh, ModelState& whole_state) {
  std::array<double, 2> clock{whole_state.time, static_cast<double>(whole_state.step)};
  FOEHN_MPI_CHECK(MPI_Bcast(clock.data(), 2, MPI_DOUBLE, 0, mesh.comm));
  ModelState local;
  local.time = clock[0];
  local.step = static_cast<std::int64_t>(clock[1]);
  local.resize(mesh.local_nodes());
  const std::vector<FieldRef> whole_fields = fields_of(whole_state),
                              local_fields = fields_of(local);
  for (std::size_t f = 0; f < whole_fields.size(); ++f) {
    const auto width = static_cast<std::size_t>(whole_fields[f].components);
    std::vector<double>& whole = *whole_fields[f].values;
    whole.resize(width * static_cast<std::size_t>(mesh.global_nodes));
    FOEHN_MPI_CHECK(MPI_Bcast(
        whole.data(),
        petsc::detail::to_mpi_count(static_cast<std::int64_t>(whole.size()), "the adapted state"),
        MPI_DOUBLE, 0, mesh.comm));
    std::vector<double>& mine = *local_fields[f].values;
    for (std::size_t n = 0; n < mesh.input_node_of_local.size(); ++n)
      for (std::size_t c = 0; c < width; ++c)
        mine[width * n + c] =
            whole[width * static_cast<std::size_t>(mesh.input_node_of_local[n]) + c];
    whole = {};
  }
  return local;
}

}  // namespace

ModelState gather_state(const petsc::DistributedMesh& mesh, const ModelState& state) {
  ModelState gathered = state;
  for (const FieldRef& field : fields_of(gathered))
    *field.values = petsc::gather_to_input_numbering(mesh, *field.values, field.components);
  return gathered;
}

std::vector<adapt::Sym3<double>> adaptation_metric(const TetMesh& whole, ModelState& gathered,
                                                   const AdaptOptions& options, AdaptCycle& cycle) {
  const Stopwatch watch;
  std::vector<char> on_boundary(whole.node_count(), 0);
  for (const Triangle& face : whole.boundary_faces)
    for (const std::int32_t n : face) on_boundary[static_cast<std::size_t>(n)] = 1;
  cycle.boundary_nodes = std::count(on_boundary.begin(), on_boundary.end(), 1);
  // At least a tenth of the nodes asked for go inside, however large the boundary.
  const double interior =
      std::max(options.nodes - static_cast<double>(cycle.boundary_nodes), 0.1 * options.nodes);
  auto metric = state_metric(whole, gathered, options,
                             interior / options.interior_nodes_per_complexity, cycle.complexity);
  cycle.metric = watch.seconds();
  return metric;
}

RemeshedMesh remesh_to_metric(const TetMesh& whole, std::span<const adapt::Sym3<double>> metric,
                              const AdaptOptions& options, AdaptCycle cycle,
                              const std::filesystem::path& mesh_file) {
  const Stopwatch watch;
  if (options.write_metric) {
    TetMesh input = whole;
    MeshField field{"metric", 9, std::vector<double>(9 * metric.size())};
    for (std::size_t n = 0; n < metric.size(); ++n) {
      const adapt::Sym3<double>& m = metric[n];
      const double full[9] = {m.xx, m.xy, m.xz, m.xy, m.yy, m.yz, m.xz, m.yz, m.zz};
      std::copy(full, full + 9, field.values.begin() + 9 * static_cast<std::ptrdiff_t>(n));
    }
    input.node_fields = {std::move(field)};
    input.tet_fields.clear();
    char name[64];
    std::snprintf(name, sizeof name, "adapt_metric_%06lld.vtu", static_cast<long long>(cycle.step));
    write_vtu(input, mesh_file.parent_path() / name);
  }
  adapt::RemeshOptions remesh_options;
  remesh_options.gradation = options.gradation;
  remesh_options.nodes_per_complexity = options.interior_nodes_per_complexity;
  remesh_options.max_nodes = node_budget_factor * options.nodes;
  check_predicted_nodes(whole, metric, options, remesh_options, cycle);
  adapt::ParallelRemeshOptions parallel;
  parallel.parts = options.remesh_parts;
  parallel.threads = options.remesh_threads;
  // The bound the CFL check after the adaptation assumes (check_time_step_after_adaptation).
  parallel.short_edge = adapt::mmg_shortest_edge_fraction * options.h_min;
  adapt::ParallelRemeshReport report;
  RemeshedMesh remeshed;
  remeshed.mesh = adapt::remesh_in_parallel(whole, metric, remesh_options, parallel, &report);
  cycle.remesh_threads = report.threads;
  cycle.remesh_passes = std::max(1, static_cast<int>(report.passes.size()));
  cycle.remesh_parts = report.passes.empty() ? 1 : report.passes.front().parts;
  cycle.incomplete = report.incomplete;
  if (report.incomplete)
    fail(ErrorCategory::internal, "the adaptation at step ", cycle.step,
         ": Mmg could not finish (MMG5_LOWFAILURE) remeshing ", whole.node_count(),
         " nodes to a metric predicted to give ", cycle.predicted_nodes, " nodes (it made ",
         report.nodes, "); the run stops rather than continue on a half-adapted mesh");
  cycle.shortest_edge = report.shortest_edge;
  cycle.edge_bounds = EdgeBounds{options.h_min, options.h_max};
  cycle.quality = mesh_quality(remeshed.mesh, cycle.edge_bounds);
  write_vtu(remeshed.mesh, mesh_file);
  reorder_for_locality(remeshed.mesh);
  mark_boundary_kinds(remeshed.mesh);
  cycle.remesh = watch.seconds();
  remeshed.cycle = cycle;
  return remeshed;
}

petsc::DistributedMesh take_over(const petsc::DistributedMesh& mesh, ModelState& gathered,
                                 TetMesh& whole, RemeshedMesh* remeshed, ModelState& adapted_state,
                                 AdaptCycle& cycle) {
  Stopwatch watch;
  ModelState moved;
  petsc::detail::run_collectively(mesh.comm, [&] {
    if (mesh.rank != 0) return;
    // The remesh's numbers, with what was measured here before (the gather, the wait).
    const AdaptCycle before = cycle;
    cycle = remeshed->cycle;
    cycle.gather = before.gather;
    cycle.waited = before.waited;
    cycle.overlapped = before.overlapped;
    cycle.step_taken_over = before.step_taken_over;
    moved = move_state(whole, gathered, remeshed->mesh, cycle.on_device_transfer, cycle);
    cycle.transfer = watch.lap();
  });
  petsc::DistributedMesh distributed =
      petsc::distribute_mesh(mesh.comm, mesh.rank == 0 ? &remeshed->mesh : nullptr);
  adapted_state = scatter_state(distributed, moved);
  // What rank 0 measured, on every rank (the node calibration is taken from it).
  std::array<double, 12> measured{cycle.complexity,
                                  static_cast<double>(cycle.boundary_nodes),
                                  cycle.tracer_correction,
                                  cycle.predicted_nodes,
                                  cycle.shortest_edge,
                                  static_cast<double>(cycle.remesh_parts),
                                  static_cast<double>(cycle.remesh_threads),
                                  static_cast<double>(cycle.remesh_passes),
                                  static_cast<double>(cycle.step),
                                  cycle.metric,
                                  cycle.remesh,
                                  cycle.transfer};
  FOEHN_MPI_CHECK(MPI_Bcast(measured.data(), 12, MPI_DOUBLE, 0, mesh.comm));
  cycle.complexity = measured[0];
  cycle.boundary_nodes = static_cast<std::int64_t>(measured[1]);
  cycle.tracer_correction = measured[2];
  cycle.predicted_nodes = measured[3];
  cycle.shortest_edge = measured[4];
  cycle.remesh_parts = static_cast<int>(measured[5]);
  cycle.remesh_threads = static_cast<int>(measured[6]);
  cycle.remesh_passes = static_cast<int>(measured[7]);
  cycle.step = static_cast<std::int64_t>(measured[8]);
  cycle.metric = measured[9];
  cycle.remesh = measured[10];
  cycle.transfer = measured[11];
  if (mesh.rank == 0) whole = std::move(remeshed->mesh);
  cycle.distribute = watch.lap();
  cycle.nodes_before = mesh.global_nodes;
  cycle.nodes_after = distributed.global_nodes;
  cycle.tets_after = distributed.global_tets;
  return distributed;
}

petsc::DistributedMesh adapt(const petsc::DistributedMesh& mesh, const ModelState& state,
                             TetMesh& whole, const AdaptOptions& options,
                             const std::filesystem::path& mesh_file, ModelState& adapted_state,
                             AdaptCycle& cycle) {
  Stopwatch watch;
  cycle = AdaptCycle{};
  cycle.step = state.step;
  cycle.step_taken_over = state.step;
  cycle.on_device_transfer = options.on_device;
  ModelState gathered = gather_state(mesh, state);
  cycle.gather = watch.lap();
  RemeshedMesh remeshed;
  petsc::detail::run_collectively(mesh.comm, [&] {
    if (mesh.rank != 0) return;
    const auto metric = adaptation_metric(whole, gathered, options, cycle);
    remeshed = remesh_to_metric(whole, metric, options, cycle, mesh_file);
  });
  return take_over(mesh, gathered, whole, &remeshed, adapted_state, cycle);
}

void check_adapt_bounds(const AdaptOptions& o, const TetMesh& whole, double speed, double dt,
                        double cfl_max) {
  Point3 low = whole.nodes.at(0), high = low;
  for (const Point3& p : whole.nodes)
    for (int c = 0; c < 3; ++c) {
      low[c] = std::min(low[c], p[c]);
      high[c] = std::max(high[c], p[c]);
    }
  const double longest_side = std::max({high[0] - low[0], high[1] - low[1], high[2] - low[2]});
  if (o.h_max > longest_side)
    fail(ErrorCategory::invalid_input, "-adapt_hmax ", brief(o.h_max),
         " m is longer than the domain's longest side, ", brief(longest_side),
         " m: no edge can be that long (metres, not kilometres?)");
  if (o.h_min < smallest_hmin_fraction * longest_side)
    fail(ErrorCategory::invalid_input, "-adapt_hmin ", brief(o.h_min), " m is below ",
         brief(smallest_hmin_fraction), " of the domain's longest side (", brief(longest_side),
         " m): Mmg and the kept boundary's matching resolve no finer; use -adapt_hmin >= ",
         brief(smallest_hmin_fraction * longest_side), " m");
  // Every eigenvalue of the metric is at least 1 / hmax^2, so sqrt(det M) >= 1 / hmax^3
  // everywhere and the complexity is at least the domain's volume / hmax^3, whatever the flow.
  double volume = 0;
  for (const Tet& tet : whole.tets) volume += std::fabs(signed_volume(whole, tet));
  const adapt::NodePrediction at_least = [&] {
    const adapt::Sym3<double> coarsest{
        1 / (o.h_max * o.h_max), 1 / (o.h_max * o.h_max), 1 / (o.h_max * o.h_max), 0, 0, 0};
    const std::vector<adapt::Sym3<double>> metric(whole.node_count(), coarsest);
    return adapt::predict_nodes(whole, metric, true, o.interior_nodes_per_complexity);
  }();
  const double most = node_budget_factor * o.nodes;
  if (at_least.nodes > most) {
    const double room = most - at_least.boundary_nodes;
    std::string remedy = "raise -adapt_nodes";
    if (room > 0)
      remedy = detail::concat("use -adapt_hmax >= ",
                              std::ceil(std::cbrt(o.interior_nodes_per_complexity * volume / room)),
                              " m or ", remedy);
    fail(ErrorCategory::invalid_input, "-adapt_hmax ", brief(o.h_max), " m: the domain (",
         brief(volume), " m^3) with no edge longer than that needs about ", brief(at_least.nodes),
         " nodes (", brief(at_least.boundary_nodes), " on the kept boundary), more than ",
         node_budget_factor, " x -adapt_nodes ", brief(o.nodes), "; ", remedy);
  }
  // Mmg leaves edges down to mmg_shortest_edge_fraction of hmin: a bound checked against hmin
  // itself would pass runs that stop at their first adaptation.
  const double shortest = adapt::mmg_shortest_edge_fraction * o.h_min;
  const double cfl = speed * dt / shortest;
  if (cfl > cfl_max)
    fail(ErrorCategory::invalid_input, "-adapt_hmin ", brief(o.h_min), " m: the step of ",
         brief(dt), " s at U ", brief(speed), " m/s gives CFL ", brief(cfl), " on the edges of ",
         brief(shortest), " m that Mmg keeps (", adapt::mmg_shortest_edge_fraction,
         " x -adapt_hmin), above -cfl_max ", brief(cfl_max),
         "; use -adapt_hmin >= ", brief(speed * dt / (adapt::mmg_shortest_edge_fraction * cfl_max)),
         " m, a shorter -dt or -cfl, or a larger -cfl_max");
}

std::filesystem::path adapted_mesh_file(const std::filesystem::path& folder, std::int64_t step) {
  char name[64];
  std::snprintf(name, sizeof name, "adapted_mesh_%06lld.vtu", static_cast<long long>(step));
  return folder / name;
}

nlohmann::json to_json(const std::vector<AdaptCycle>& cycles) {
  nlohmann::json all = nlohmann::json::array();
  for (const AdaptCycle& c : cycles)
    all.push_back(
        {{"step", c.step},
         {"nodes_before", c.nodes_before},
         {"nodes_after", c.nodes_after},
         {"tets_after", c.tets_after},
         {"metric_complexity", c.complexity},
         {"predicted_nodes", c.predicted_nodes},
         {"shortest_edge", c.shortest_edge},
         {"cfl", c.cfl},
         {"boundary_nodes", c.boundary_nodes},
         {"incomplete", c.incomplete},
         {"seconds",
          {{"total", c.total()},
           {"gather", c.gather},
           {"metric", c.metric},
           {"remesh", c.remesh},
           {"transfer", c.transfer},
           {"distribute", c.distribute},
           {"new_model", c.setup}}},
         {"tracer_correction", c.tracer_correction},
         {"step_taken_over", c.step_taken_over},
         {"overlapped", c.overlapped},
         {"waited_seconds", c.waited},
         {"remesh",
          {{"parts", c.remesh_parts}, {"threads", c.remesh_threads}, {"passes", c.remesh_passes}}},
         {"quality", to_json(c.quality)}});
  return all;
}

double total_seconds(const std::vector<AdaptCycle>& cycles) {
  double seconds = 0;
  for (const AdaptCycle& c : cycles) seconds += c.total();
  return seconds;
}

CheckpointInfo adaptive_restart_info(const AdaptOptions& options,
                                     const std::filesystem::path& restart, MPI_Comm comm,
                                     int rank) {
  CheckpointInfo info;
  if (!options.enabled() || restart.empty()) return info;
  petsc::detail::run_collectively(comm, [&] { info = read_checkpoint_info(restart); });
  if (info.adapted_at_step >= 0 && rank == 0)
    std::printf("foehn-mountainwave: restarting on the mesh adapted at step %lld (%s)\n",
                static_cast<long long>(info.adapted_at_step),
                adapted_mesh_file(restart.parent_path(), info.adapted_at_step).c_str());
  return info;
}

std::string describe(const AdaptCycle& c) {
  const std::string overlap =
      c.overlapped ? detail::concat(", behind the steps, taken over at step ", c.step_taken_over,
                                    " after waiting ", brief(c.waited), " s")
                   : std::string();
  char line[1280];
  std::snprintf(line, sizeof line,
                "adapted at step %lld: %lld -> %lld nodes (metric complexity %.0f, predicted "
                "%.0f nodes), %lld tets%s, shortest edge %.3g m (CFL %.3g); %.2f s (gather %.2f, "
                "metric %.2f, remesh %.2f, transfer %.2f, distribute %.2f, new model %.2f); "
                "tracers rescaled by up to %.1e; Mmg on %d part%s, %d thread%s, %d pass%s%s; %s",
                static_cast<long long>(c.step), static_cast<long long>(c.nodes_before),
                static_cast<long long>(c.nodes_after), c.complexity, c.predicted_nodes,
                static_cast<long long>(c.tets_after), c.incomplete ? " (Mmg incomplete)" : "",
                c.shortest_edge, c.cfl, c.total(), c.gather, c.metric, c.remesh, c.transfer,
                c.distribute, c.setup, c.tracer_correction, c.remesh_parts,
                c.remesh_parts == 1 ? "" : "s", c.remesh_threads, c.remesh_threads == 1 ? "" : "s",
                c.remesh_passes, c.remesh_passes == 1 ? "" : "es", overlap.c_str(),
                describe(c.quality, c.edge_bounds).c_str());
  return line;
}

}  // namespace foehn::mountainwave
