#include "run_outputs.hpp"

#include <cstdio>

#include "foehn/mesh/vtk_io.hpp"
#include "foehn/petsc/log_events.hpp"
#include "foehn/petsc/mpi_collective.hpp"
#include "io/checkpoint.hpp"
#include "io/xdmf.hpp"

namespace foehn::mountainwave {

std::string step_file_name(const char* kind, std::int64_t step, const char* extension) {
  char name[64];
  std::snprintf(name, sizeof name, "%s_%06lld%s", kind, static_cast<long long>(step), extension);
  return name;
}

RunOutputs::RunOutputs(const RunOptions& options, const petsc::DistributedMesh& mesh,
                       MountainWaveModel& model, TetMesh& input_mesh,
                       std::filesystem::path topology_file, std::string fingerprint, bool continues)
    : options_(options),
      mesh_(mesh),
      comm_(mesh.comm),
      rank_(mesh.rank),
      topology_file_(std::move(topology_file)),
      fingerprint_(std::move(fingerprint)),
      attributes_{options.domain.mountain_height, options.domain.mountain_half_width,
                  options.physics.inflow_speed,   options.physics.buoyancy_frequency,
                  options.physics.theta0,         options.physics.gravity,
                  options.domain.length_x,        options.domain.length_y} {
  const RunOptions& o = options_;
  if (o.write_vtk) {
    series_ = std::make_unique<OutputSeries>(mesh, o.output_dir, "mountainwave");
    if (!o.restart.empty() || continues) series_->resume(model.time());
  }
  if (o.write_sections) sampler_ = std::make_unique<SectionSampler>(mesh, SectionGrid{});
  // Keep the interrupted run's snapshots up to the restart; later ones are written again. A bad
  // .pvd fails on rank 0: every rank throws (the tracers' constructor below is collective).
  petsc::detail::run_collectively(comm_, [&] {
    if (!o.tracers.enabled() || rank_ != 0 || o.restart.empty() ||
        !std::filesystem::exists(o.output_dir / "tracers.pvd"))
      return;
    for (const auto& entry : read_pvd_entries(o.output_dir / "tracers.pvd"))
      if (entry.first <= model.time()) tracer_series_.push_back(entry);
  });
  if (o.tracers.enabled())
    tracers_ = std::make_unique<TracerParcels>(mesh, rank_ == 0 ? &input_mesh : nullptr, o.tracers,
                                               model.state());
  if (tracers_) input_mesh = TetMesh{};  // the tracers' field keeps what it needs
}

RunOutputs::~RunOutputs() = default;

void RunOutputs::write(const ModelState& state) {
  const petsc::ScopedLogEvent event(petsc::LogEvent::output);
  const std::filesystem::path& folder = options_.output_dir;
  if (series_) series_->write(state);
  if (tracers_) {
    const std::string name = step_file_name("tracers", state.step, "");
    tracers_->write_csv(folder / (name + ".csv"));
    tracers_->write_vtp(folder / (name + ".vtp"));
    petsc::detail::run_collectively(comm_, [&] {
      if (rank_ != 0) return;
      tracer_series_.emplace_back(state.time, name + ".vtp");
      write_pvd(folder / "tracers.pvd", tracer_series_);
    });
  }
  if (sampler_) {
    const std::string name = step_file_name("sections", state.step, ".h5");
    sampler_->write_state_sections(folder / name, state, attributes_);
    sampler_->write_state_sections(folder / "sections_latest.h5", state, attributes_);
    petsc::detail::run_collectively(comm_, [&] {
      if (rank_ != 0) return;
      write_sections_xdmf(folder / name);
      write_sections_xdmf(folder / "sections_latest.h5");
    });
  }
}

void RunOutputs::write_checkpoint(const ModelState& state, const std::vector<MeshField>& history) {
  const petsc::ScopedLogEvent event(petsc::LogEvent::output);
  const std::filesystem::path path =
      options_.output_dir / step_file_name("checkpoint", state.step, ".h5");
  CheckpointMetadata metadata{fingerprint_};
  metadata.adapted_at_step = adapted_at_step_;
  metadata.adapt_interior_nodes_per_complexity = adapt_.interior_nodes_per_complexity;
  metadata.adapt_nodes = adapt_.nodes;
  metadata.adapt_dt = adapt_dt_;
  if (complete_checkpoint_) complete_checkpoint_(metadata);
  mountainwave::write_checkpoint(mesh_, state, path, metadata, history);
  petsc::detail::run_collectively(comm_, [&] {
    if (rank_ == 0) write_checkpoint_xdmf(path, topology_file_);
  });
  if (rank_ == 0) std::printf("  checkpoint %s\n", path.c_str());
}

void RunOutputs::record_adaptation(std::int64_t step, const AdaptOptions& adapt, double dt) {
  adapted_at_step_ = step;
  adapt_ = adapt;
  adapt_dt_ = dt;
}

void RunOutputs::follow(const ModelState& state) {
  if (tracers_) tracers_->follow(state);
}

std::size_t RunOutputs::tracers_left_domain() const {
  return tracers_ ? tracers_->left_domain() : 0;
}

}  // namespace foehn::mountainwave
