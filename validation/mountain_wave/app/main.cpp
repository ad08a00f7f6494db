// foehn-mountainwave: the Mountainwave3D dynamical core (Boussinesq) on a tetrahedral mountain
// mesh, assembled with Foehn (CPU reference or CUDA) and solved with PETSc, on any number of
// MPI ranks. Writes into -output_dir: a .pvd/.pvtu series, HDF5 sections of w for the
// linear-theory comparison, HDF5 checkpoints (restart with -restart FILE), the Table-10
// timing table (timing.md, timing.json) and run.json with the final diagnostics.
//
//   foehn-mountainwave                                   # the default case (minutes on 2 cores)
//   mpiexec -n 4 foehn-mountainwave -mesh_tets 554394 -foehn_backend cuda -end_time 3600
#include <petscsys.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>

#include "adaptation.hpp"
#include "boundary_conditions.hpp"
#include "external_mesh.hpp"
#include "foehn/mesh/reorder.hpp"
#include "foehn/mesh/statistics.hpp"
#include "foehn/petsc/device_binding.hpp"
#include "foehn/petsc/generated_mesh.hpp"
#include "foehn/petsc/log_events.hpp"
#include "foehn/petsc/mpi_collective.hpp"
#include "foehn/runtime/atomic_file.hpp"
#include "foehn/runtime/cuda_call_counts.hpp"
#include "foehn/runtime/memory_budget.hpp"
#include "foehn/runtime/stopwatch.hpp"
#include "gpu_memory.hpp"
#include "io/case_fingerprint.hpp"
#include "io/checkpoint.hpp"
#include "io/timing_reduce.hpp"
#include "io/xdmf.hpp"
#include "mountain_wave_model.hpp"
#include "overlapped_adaptation.hpp"
#include "petsc_application.hpp"
#include "run_mesh.hpp"
#include "run_options.hpp"
#include "run_outputs.hpp"
#include "step_reports.hpp"
#include "time_step.hpp"

namespace foehn::mountainwave {
namespace {

std::string fingerprint_of(const RunOptions& o, Backend backend, bool device_solves, int ranks) {
  const auto& d = o.domain;
  CaseFingerprint f;
  // A -mesh file is named by its file name (a restart may run from another folder) and size;
  // the checkpoint's coordinates identify the mesh itself. The fingerprint's separators are
  // replaced in the name.
  std::error_code size_error;
  const auto mesh_bytes =
      o.mesh_file.empty() ? 0 : std::filesystem::file_size(o.mesh_file, size_error);
  std::string mesh_name = o.mesh_file.filename().string();
  std::replace_if(
      mesh_name.begin(), mesh_name.end(), [](char c) { return c == ';' || c == '='; }, '_');
  f.add("cells", o.mesh_file.empty() ? std::to_string(d.cells_x) + "x" + std::to_string(d.cells_y) +
                                           "x" + std::to_string(d.cells_z)
                                     : mesh_name + " (" + std::to_string(mesh_bytes) + " bytes)");
  // Every physics and numerics option, from the option table: one declared later cannot be
  // missed here.
  for (const auto& [name, value] : result_defining_options(o)) f.add(name.substr(1), value);
  // The same backend, strategy and rank count give the same sums: a bitwise restart.
  f.add("backend", std::string(to_string(backend)))
      .add("solves", std::string(device_solves ? "device" : "host"))
      .add("ranks", ranks)
      // Slabs and METIS number and split the mesh differently: other sums, other bits.
      .add("mesh_built", builds_mesh_in_slabs(o, ranks) ? "in slabs" : "whole on rank 0");
  return f.str();
}

void write_text(const std::filesystem::path& path, const std::string& text) {
  AtomicOutputFile file(path);
  file.stream() << text;
  file.commit();
}

// The communicator the run uses, this rank and how many there are.
struct Ranks {
  MPI_Comm comm = PETSC_COMM_WORLD;
  int rank = 0, count = 1;
};

// -help: a tiny model is built so that every solver's and hand-off's options are listed too.
void list_every_systems_options(const RunOptions& o, const Ranks& ranks) {
  RunOptions tiny = o;
  tiny.domain.cells_x = tiny.domain.cells_y = tiny.domain.cells_z = 2;
  tiny.mesh_file.clear();
  const petsc::DistributedMesh mesh = make_mesh(tiny, ranks.comm, ranks.rank);
  const MountainWaveModel listing(mesh, tiny.domain, o.physics, o.numerics);
}

// The backend; on the CUDA backend, which GPU of which host each rank uses (in the run log)
// and whether a generated case fits them, so that one too large stops here rather than in a
// PETSc GPU error minutes later. Every rank checks -output_dir (the same answer on a shared file
// system), so that a bad one stops them all before the first collective call.
Backend choose_backend(RunOptions& o, const Ranks& ranks) {
  make_output_folder(o.output_dir, "-output_dir");
  const Backend backend = select_backend(o.backend, ranks.rank == 0 ? &std::cerr : nullptr);
  o.numerics.backend = backend;
  const int device = backend == Backend::cuda ? petsc::select_device_for_rank(ranks.comm) : -1;
  if (backend == Backend::cuda) {
    for (const std::string& line : petsc::device_placement_report(ranks.comm, device))
      std::printf("foehn-mountainwave: %s\n", line.c_str());
    const std::string sharing = petsc::device_sharing_warning(ranks.comm);
    if (!sharing.empty()) std::printf("foehn-mountainwave: warning: %s\n", sharing.c_str());
    if (ranks.rank == 0)
      std::printf("foehn-mountainwave: %s\n", petsc::gpu_aware_mpi_report().c_str());
  }
  if (o.mesh_file.empty()) {
    const MountainMeshOptions& d = o.domain;
    const double tets = 6.0 * d.cells_x * d.cells_y * d.cells_z;
    check_model_memory(o.mesh_request, tets);
    if (backend == Backend::cuda) {
      const std::string note = check_gpu_memory_fits(
          ranks.comm, tets, device_solves_for(o.numerics, ranks.comm), o.mesh_request);
      if (ranks.rank == 0 && !note.empty()) std::printf("foehn-mountainwave: %s\n", note.c_str());
    }
  }
  return backend;
}

// Seconds from the start of the set-up to the end of each of its parts, for the run log.
struct SetupClock {
  Stopwatch watch;
  double mesh = 0, files = 0, model = 0;
};

// The distributed mesh and the file of its tets that the checkpoints' XDMF files point to (in
// the input numbering the checkpoints use); dt from its shortest edge. `input_mesh`: rank 0's
// whole mesh, kept for the tracer parcels only.
petsc::DistributedMesh build_mesh(RunOptions& o, const Ranks& ranks,
                                  const std::filesystem::path& topology_file, TetMesh& input_mesh,
                                  SetupClock& clock, bool restarts_on_adapted_mesh) {
  petsc::DistributedMesh mesh = make_mesh(o, ranks.comm, ranks.rank, &input_mesh);
  clock.mesh = clock.watch.seconds();
  if (builds_mesh_in_slabs(o, ranks.count))
    write_mesh_topology_file(topology_file, mesh);
  else
    petsc::detail::run_collectively(ranks.comm, [&] {
      if (ranks.rank == 0) write_mesh_topology_file(topology_file, input_mesh);
    });
  // Before the model takes the memory; the tracer parcels and the adaptation keep it.
  if (!o.tracers.enabled() && !o.adapt.enabled()) input_mesh = TetMesh{};
  // A restart on an adapted mesh keeps the step the run chose on its starting mesh (set by the
  // caller): this mesh's shortest edge did not choose it and does not check it.
  if (!restarts_on_adapted_mesh) choose_time_step(o, shortest_edge(mesh.local, ranks.comm));
  const std::string scheme_warning = time_scheme_warning(o);
  if (ranks.rank == 0 && !scheme_warning.empty())
    std::printf("foehn-mountainwave: warning: %s\n", scheme_warning.c_str());
  clock.files = clock.watch.seconds();
  return mesh;
}

void print_setup(const RunOptions& o, const petsc::DistributedMesh& mesh,
                 const MountainWaveModel& model, const Ranks& ranks, const SetupClock& clock) {
  if (ranks.rank != 0) return;
  const double total = clock.watch.seconds();
  std::printf(
      "foehn-mountainwave: %lld nodes, %lld tets on %d rank(s), backend %s (%s), solves "
      "on the %s, dt %.3g s, end %.0f s%s, setup %.2f s (mesh %.2f, topology file %.2f, "
      "systems %.2f, state %.2f)\n",
      static_cast<long long>(mesh.global_nodes), static_cast<long long>(mesh.global_tets),
      ranks.count, std::string(to_string(o.numerics.backend)).c_str(),
      std::string(fe::to_string(o.numerics.strategy)).c_str(),
      model.device_solves() ? "GPU" : "CPU", o.numerics.dt, o.end_time,
      o.restart.empty() ? "" : (", restarted at t = " + std::to_string(model.time())).c_str(),
      total, clock.mesh, clock.files - clock.mesh, clock.model - clock.files, total - clock.model);
  for (const std::string& line : model.solver_descriptions())
    std::printf("  solver %s\n", line.c_str());
}

// What the steps measured: the last step's report, the timing table's and the breakdown's sums
// over the steps after the warm-up, and the GPU memory after the first step.
struct StepsMeasured {
  StepReport last;
  StepTimings timings;
  StepBreakdown breakdown;
  GpuMemoryUse gpu_memory;
  std::int64_t steps_run = 0;
  // Timed steps the current model's systems counted (a new mesh brings a new model).
  std::int64_t system_steps = 0;
  std::vector<AdaptCycle> adaptations;
  Stopwatch run_clock;  // from the first step
};

// The step lines' header; the Krylov iteration columns are the systems' names, in table order.
void print_step_header() {
  std::string systems;
  for (const LinearSystemRow& row : linear_systems) {
    systems += ' ';
    systems += row.name;
  }
  std::printf("%6s %9s %6s %4s  its%s %10s %8s\n", "step", "time s", "CFL", "pic", systems.c_str(),
              "max div", "wall s");
}

void print_step_line(const MountainWaveModel& model, const StepReport& last) {
  std::string iterations;
  for (std::size_t k = 0; k < linear_system_count; ++k) {
    char column[32];
    const int width = static_cast<int>(std::max<std::size_t>(linear_systems[k].name.size(), 2));
    std::snprintf(column, sizeof column, " %*d", width, last.iterations[k]);
    iterations += column;
  }
  std::printf("%6lld %9.1f %6.2f %4d     %s %10.3e %8.3f\n",
              static_cast<long long>(model.completed_steps()), model.time(), last.cfl,
              last.picard_iterations, iterations.c_str(), last.max_divergence, last.times.total);
  std::fflush(stdout);
}

// Steps to -end_time (or -max_steps), writing the outputs every -output_interval, checkpoints
// every -checkpoint_interval steps, and both at the end; with -adapt_interval, stops before
// that at the next multiple of the interval instead. True when the run is over.
// `just_adapted`: the model's mesh is new, the adaptation due at its step is done.
bool run_steps(MountainWaveModel& model, RunOutputs& outputs, const RunOptions& o,
               const petsc::DistributedMesh& mesh, const Ranks& ranks, StepsMeasured& measured,
               bool just_adapted) {
  std::int64_t& steps_run = measured.steps_run;
  const auto adapt_due = [&] {
    return o.adapt.enabled() && model.completed_steps() > 0 &&
           model.completed_steps() % o.adapt.interval == 0;
  };
  double next_output =
      o.output_interval > 0
          ? (std::floor(model.time() / o.output_interval + 1e-9) + 1) * o.output_interval
          : INFINITY;
  bool cfl_warned = false;
  if (ranks.rank == 0) print_step_header();
  const auto over = [&] {
    return !(model.time() < o.end_time - 1e-9 * o.numerics.dt &&
             (o.max_steps < 0 || steps_run < o.max_steps));
  };
  while (!over() && (just_adapted || !adapt_due())) {
    just_adapted = false;
    // The systems' own counts start with the first timed step, as the tables' do.
    if (steps_run == o.timing_warmup_steps) {
      model.reset_system_times();
      measured.system_steps = 0;
    }
    const CudaCallCounts calls_before = cuda_call_counts();
    const petsc::CommunicationCounts communication_before = petsc::communication_counts();
    const StepReport& last = measured.last = model.step();
    const CudaCallCounts step_calls = cuda_call_counts() - calls_before;
    const petsc::CommunicationCounts step_communication =
        petsc::communication_counts() - communication_before;
    outputs.follow(model.state());  // the tracers: the velocity on the host every step
    ++steps_run;
    // The flow over the mountain is faster than U: the measured number is only warned about.
    if (ranks.rank == 0 && last.cfl > o.cfl_max && !cfl_warned) {
      std::fprintf(stderr,
                   "foehn-mountainwave: warning: step %lld reached CFL %.2f, above -cfl_max %.2f\n",
                   static_cast<long long>(model.completed_steps()), last.cfl, o.cfl_max);
      cfl_warned = true;
    }
    // The first step builds every preconditioner: what the GPUs hold then is what the case needs.
    if (steps_run == 1 && o.numerics.backend == Backend::cuda) {
      measured.gpu_memory = measure_gpu_memory(ranks.comm, mesh.local_tets());
      if (ranks.rank == 0)
        std::printf("foehn-mountainwave: %s\n", measured.gpu_memory.describe().c_str());
    }
    if (steps_run > o.timing_warmup_steps) {
      add_times(measured.timings, last.times);
      measured.breakdown.add(last, step_calls, step_communication);
      ++measured.system_steps;
    }
    if (ranks.rank == 0) print_step_line(model, last);
    if (model.time() >= next_output - 1e-9 * o.numerics.dt) {
      outputs.write(model.state());
      next_output += o.output_interval;
    }
    if (o.checkpoint_interval > 0 && model.completed_steps() % o.checkpoint_interval == 0)
      outputs.write_checkpoint(model.state(), model.history());
  }
  if (!over()) return false;
  if (o.output_interval == 0 ||
      model.time() < next_output - o.output_interval - 1e-9 * o.numerics.dt)
    outputs.write(model.state());
  outputs.write_checkpoint(model.state(), model.history());
  return true;
}

// timing.md and timing.json (the largest time over the ranks), run.json. Collective.
void write_reports(const StepsMeasured& measured, const MountainWaveModel& model,
                   const RunOutputs& outputs, const RunOptions& o,
                   const petsc::DistributedMesh& mesh, const Ranks& ranks) {
  const Backend backend = o.numerics.backend;
  const std::string label = !o.timing_label.empty()
                                ? o.timing_label
                                : std::to_string(ranks.count) +
                                      (ranks.count == 1 ? " rank" : " ranks") +
                                      (backend == Backend::cuda ? " + GPU" : " (CPU)");
  if (measured.timings.steps() > 0) {
    const TimingTable table = reduce_timing_table(measured.timings, ranks.comm, label);
    if (ranks.rank == 0) {
      std::printf("\n%s\n", table.markdown().c_str());
      write_text(o.output_dir / "timing.md", table.markdown());
      write_text(o.output_dir / "timing.json", table.json());
    }
  }
  nlohmann::json step_breakdown = measured.breakdown.json(ranks.comm);  // collective
  const std::int64_t timed_steps = measured.system_steps;
  // Collective, with the same step count on every rank. After an adaptation, the last mesh's
  // model's steps only.
  step_breakdown["systems"] = timed_steps > 0
                                  ? system_report(model.system_times(), timed_steps, ranks.comm)
                                  : nlohmann::json::array();
  if (ranks.rank != 0) return;
  if (timed_steps > 0)
    std::printf("\n%s\n", system_report_markdown(step_breakdown["systems"], timed_steps).c_str());
  const nlohmann::json run = {
      {"steps", model.completed_steps()},
      {"run_seconds", measured.run_clock.seconds()},
      {"adapt_seconds", total_seconds(measured.adaptations)},
      {"adaptations", to_json(measured.adaptations)},
      {"adapt_overlap", o.adapt.overlapped(backend == Backend::cuda) && o.adapt.enabled()},
      {"time", model.time()},
      {"dt", o.numerics.dt},
      {"cfl", measured.last.cfl},
      {"max_divergence", measured.last.max_divergence},
      {"nodes", mesh.global_nodes},
      {"tets", mesh.global_tets},
      {"ranks", ranks.count},
      {"backend", to_string(backend)},
      {"solves", model.device_solves() ? "device" : "host"},
      {"mpi", model.device_solves() && petsc::petsc_passes_device_buffers() ? "cuda-aware"
                                                                            : "host-staged"},
      {"strategy", fe::to_string(o.numerics.strategy)},
      {"tracer_parcels_left_domain", outputs.tracers_left_domain()},
      {"gpu_memory_max_bytes_per_rank", measured.gpu_memory.max_used_bytes},
      {"gpu_memory_bytes_per_tet", measured.gpu_memory.bytes_per_tet},
      {"timed_steps", step_breakdown}};
  write_text(o.output_dir / "run.json", run.dump(2) + "\n");
}

// A restart from a checkpoint that waited on an overlapped adaptation's remesh: rank 0 reads the
// mesh it made back as the run held it (as a restart reads its current mesh), to take over at
// the next adaptation point.
void resume_pending_remesh(const RunOptions& o, const CheckpointInfo& info, const Ranks& ranks,
                           BackgroundRemesh& background) {
  TetMesh remeshed;
  petsc::detail::run_collectively(ranks.comm, [&] {
    if (ranks.rank != 0) return;
    RunOptions from_file = o;
    from_file.mesh_file = adapted_mesh_file(o.restart.parent_path(), info.pending_adaptation_step);
    std::printf(
        "foehn-mountainwave: the remesh made at step %lld takes over at the next "
        "adaptation point (%s)\n",
        static_cast<long long>(info.pending_adaptation_step), from_file.mesh_file.c_str());
    remeshed = prepared_whole_mesh(from_file);
  });
  background.resume(info.pending_adaptation_step, std::move(remeshed),
                    info.pending_adaptation_complexity, info.pending_adaptation_boundary_nodes,
                    o.adapt.on_device);
}

void run() {
  Ranks ranks;
  MPI_Comm_rank(ranks.comm, &ranks.rank);
  MPI_Comm_size(ranks.comm, &ranks.count);
  RunOptions o = read_run_options(ranks.comm);
  if (app::help_requested()) return list_every_systems_options(o, ranks);
  const Backend backend = choose_backend(o, ranks);
  std::string why_not_counted;
  if (o.count_cuda_calls && !start_counting_cuda_calls(why_not_counted))
    std::fprintf(stderr, "foehn-mountainwave: warning: -count_cuda_calls on rank %d: %s\n",
                 ranks.rank, why_not_counted.c_str());

  SetupClock clock;
  // Rank 0: the topology file, then the tracer parcels' field or the mesh to adapt.
  TetMesh input_mesh;
  std::filesystem::path topology_file = o.output_dir / "mountainwave_mesh.h5";
  // A restart of an adaptive run continues on the mesh its checkpoint lies on, with the node
  // budget and calibration the run had.
  const CheckpointInfo restart_info =
      adaptive_restart_info(o.adapt, o.restart, ranks.comm, ranks.rank);
  const std::filesystem::path given_mesh = o.mesh_file;
  const double given_nodes = o.adapt.nodes;
  if (restart_info.adapted_at_step >= 0) {
    o.mesh_file = adapted_mesh_file(o.restart.parent_path(), restart_info.adapted_at_step);
    topology_file =
        o.output_dir / step_file_name("mountainwave_mesh", restart_info.adapted_at_step, ".h5");
    o.adapt.interior_nodes_per_complexity = restart_info.adapt_interior_nodes_per_complexity;
    o.adapt.nodes = restart_info.adapt_nodes;
    o.numerics.dt = restart_info.adapt_dt;
  }
  auto mesh = std::make_unique<petsc::DistributedMesh>(
      build_mesh(o, ranks, topology_file, input_mesh, clock, restart_info.adapted_at_step >= 0));
  o.mesh_file = given_mesh;
  // The node budget of every adaptation: the starting mesh's size unless given. The bounds are
  // checked against it, the domain and the step before the model is built (adaptation.hpp).
  if (o.adapt.nodes == 0) o.adapt.nodes = static_cast<double>(mesh->global_nodes);
  if (o.adapt.enabled())
    petsc::detail::run_collectively(ranks.comm, [&] {
      if (ranks.rank == 0)
        check_adapt_bounds(o.adapt, input_mesh, o.physics.closed_box ? 0.0 : o.physics.inflow_speed,
                           o.numerics.dt, o.cfl_max);
    });
  auto model = std::make_unique<MountainWaveModel>(*mesh, o.domain, o.physics, o.numerics);
  clock.model = clock.watch.seconds();
  RunOptions as_given = o;  // the case's options, for its fingerprint
  as_given.adapt.nodes = given_nodes;
  const std::string fingerprint =
      fingerprint_of(as_given, backend, model->device_solves(), ranks.count);
  // A checkpoint's extra fields are the history its run's next step would have used.
  std::vector<MeshField> history;
  model->set_state(o.restart.empty()
                       ? model->initial_state()
                       : read_checkpoint(*mesh, o.restart,
                                         CheckpointMetadata{fingerprint, o.numerics.dt}, &history));
  model->set_history(history);
  print_setup(o, *mesh, *model, ranks, clock);
  MPI_Barrier(ranks.comm);

  auto outputs =
      std::make_unique<RunOutputs>(o, *mesh, *model, input_mesh, topology_file, fingerprint);
  o.adapt.on_device = o.numerics.backend == Backend::cuda;
  if (restart_info.adapted_at_step >= 0)
    outputs->record_adaptation(restart_info.adapted_at_step, o.adapt, o.numerics.dt);
  if (o.restart.empty()) outputs->write(model->state());
  check_whole_steps_to_end(o, model->time());
  StepsMeasured measured;
  bool just_adapted = false;
  // -adapt_overlap: Mmg on rank 0's host threads while the steps go on (overlapped_adaptation.hpp).
  const bool overlapped =
      o.adapt.enabled() && o.adapt.overlapped(o.numerics.backend == Backend::cuda);
  BackgroundRemesh background;
  if (overlapped && restart_info.pending_adaptation_step >= 0)
    resume_pending_remesh(o, restart_info, ranks, background);
  const auto complete_checkpoint = [&](CheckpointMetadata& metadata) {
    if (!background.pending()) return;
    background.wait(ranks.comm, ranks.rank);  // counted in the cycle's `waited`
    metadata.pending_adaptation_step = background.pending_step();
    metadata.pending_adaptation_complexity = background.pending_complexity();
    metadata.pending_adaptation_boundary_nodes = background.pending_boundary_nodes();
  };
  outputs->before_checkpoints(complete_checkpoint);
  // A remesh is started only where a later adaptation point can take it over.
  const auto start_remesh = [&] {
    const double next_point = model->time() + static_cast<double>(o.adapt.interval) * o.numerics.dt;
    const bool steps_left = o.max_steps < 0 || measured.steps_run + o.adapt.interval < o.max_steps;
    if (next_point < o.end_time - 1e-9 * o.numerics.dt && steps_left)
      background.start(*mesh, model->state(), input_mesh, o.adapt,
                       adapted_mesh_file(o.output_dir, model->completed_steps()));
  };
  while (!run_steps(*model, *outputs, o, *mesh, ranks, measured, just_adapted)) {
    just_adapted = true;
    if (overlapped && !background.pending()) {  // the first point: Mmg starts, the mesh stays
      start_remesh();
      continue;
    }
    // A new mesh: the old model, its solvers and its outputs go before the new ones are built.
    AdaptCycle cycle;
    ModelState adapted_state;
    auto adapted = std::make_unique<petsc::DistributedMesh>(
        overlapped ? background.take_over(*mesh, model->state(), input_mesh, adapted_state, cycle)
                   : adapt(*mesh, model->state(), input_mesh, o.adapt,
                           adapted_mesh_file(o.output_dir, model->completed_steps()), adapted_state,
                           cycle));
    // The kept step on the new mesh: above -cfl_max it stops the run (on every rank alike).
    cycle.cfl =
        state_cfl(adapted->local, adapted_state.velocity,
                  o.physics.closed_box ? 0.0 : o.physics.inflow_speed, o.numerics.dt, ranks.comm);
    check_time_step_after_adaptation(o, cycle.step, cycle.cfl, cycle.shortest_edge);
    const Stopwatch setup;
    outputs.reset();
    model.reset();
    mesh = std::move(adapted);
    model = std::make_unique<MountainWaveModel>(*mesh, o.domain, o.physics, o.numerics);
    model->set_state(adapted_state);
    topology_file = o.output_dir / step_file_name("mountainwave_mesh", cycle.step, ".h5");
    petsc::detail::run_collectively(ranks.comm, [&] {
      if (ranks.rank == 0) write_mesh_topology_file(topology_file, input_mesh);
    });
    outputs = std::make_unique<RunOutputs>(o, *mesh, *model, input_mesh, topology_file, fingerprint,
                                           /*continues=*/true);
    // How many interior nodes Mmg made of this complexity: the next request is corrected by it
    // (the same on every rank: adapt broadcasts both numbers). A ratio that cannot guide the
    // next request leaves the last one.
    const double made =
        static_cast<double>(cycle.nodes_after - cycle.boundary_nodes) / cycle.complexity;
    if (std::isfinite(made) && made > 0) o.adapt.interior_nodes_per_complexity = made;
    outputs->record_adaptation(cycle.step, o.adapt, o.numerics.dt);
    cycle.setup = setup.seconds();
    outputs->before_checkpoints(complete_checkpoint);
    measured.system_steps = 0;
    measured.adaptations.push_back(cycle);
    if (ranks.rank == 0) std::printf("foehn-mountainwave: %s\n", describe(cycle).c_str());
    if (overlapped) start_remesh();
  }
  write_reports(measured, *model, *outputs, o, *mesh, ranks);
}

}  // namespace
}  // namespace foehn::mountainwave

int main(int argc, char** argv) {
  foehn::mountainwave::skip_hdf5_clean_up_at_exit();  // before MPI_Init and any HDF5 call
  return foehn::app::run_petsc_application(
      argc, argv,
      {"foehn-mountainwave",
       "foehn-mountainwave: the Mountainwave3D dynamical core (Boussinesq, P1, Picard + pressure "
       "projection), assembled with Foehn and solved with PETSc.\n"
       "  [-mesh_cells 48,48,20 | -mesh_tets 554394] [-dt 20 | -cfl C] [-end_time 3600]\n"
       "  [-foehn_backend cpu|cuda|auto] [-foehn_assembly strategy] [-foehn_devices 0,1]\n"
       "  [-output_dir out]\n"
       "  [-output_interval 600] [-checkpoint_interval N] [-restart FILE]\n"
       "  [-tracer_columns N -tracer_levels M]: air parcels carried by the flow (tracers.pvd, "
       "*.csv)\n"
       "  [-adapt_interval N [-adapt_hmin 125 -adapt_hmax 10000 -adapt_nodes N ...]]: "
       "adapt the mesh every N steps (Mmg)\n" +
           foehn::mountainwave::linear_systems_help()},
      [] { foehn::mountainwave::run(); });
}
