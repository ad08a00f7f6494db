#pragma once
// What foehn-mountainwave writes while it runs, into -output_dir: the ParaView series
// (-write_vtk), the HDF5 sections of w for the linear-theory comparison (-write_sections), the
// tracer parcels (.csv, .vtp and tracers.pvd) and the checkpoints with their XDMF files. Every
// file is written atomically; rank 0 writes the series' index files.
#include <mpi.h>

#include <filesystem>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "foehn/mesh/tet_mesh.hpp"
#include "foehn/petsc/distributed_mesh.hpp"
#include "io/checkpoint.hpp"
#include "io/output_series.hpp"
#include "io/section_sampler.hpp"
#include "mountain_wave_model.hpp"
#include "run_options.hpp"
#include "tracer_parcels.hpp"

namespace foehn::mountainwave {

// "sections_000010.h5": the kind, the step number in six digits, the extension.
std::string step_file_name(const char* kind, std::int64_t step, const char* extension);

class RunOutputs {
 public:
  // Collective. `input_mesh`: rank 0's whole mesh, which the tracer parcels move through (it is
  // emptied once they have what they need). On a restart, or when `continues` (a new mesh of an
  // adaptive run), the series continue after the model's time, and on a restart the tracers'
  // .pvd keeps the entries up to it. `topology_file` holds the tets the checkpoints' XDMF files
  // point to; `fingerprint` is stored in every checkpoint.
  RunOutputs(const RunOptions& options, const petsc::DistributedMesh& mesh,
             MountainWaveModel& model, TetMesh& input_mesh, std::filesystem::path topology_file,
             std::string fingerprint, bool continues = false);
  ~RunOutputs();

  // Collective: the series, sections and tracers of `state` (at its step number).
  void write(const ModelState& state);
  // Collective: checkpoint_<step>.h5 and its XDMF file; `history` (MountainWaveModel::history)
  // as its extra node fields.
  void write_checkpoint(const ModelState& state, const std::vector<MeshField>& history = {});
  // An adaptive run's mesh: the adaptation that made it, and the node budget and calibration the
  // next one uses. Every later checkpoint records them, for a restart to continue on that mesh.
  void record_adaptation(std::int64_t step, const AdaptOptions& adapt, double dt);
  // Called before every checkpoint to complete its metadata (an overlapped adaptation waits for
  // its remesh there and records it).
  void before_checkpoints(std::function<void(CheckpointMetadata&)> complete) {
    complete_checkpoint_ = std::move(complete);
  }
  // Moves the tracer parcels with the state's velocity (none without -tracer_columns).
  void follow(const ModelState& state);
  std::size_t tracers_left_domain() const;

 private:
  const RunOptions& options_;
  const petsc::DistributedMesh& mesh_;
  MPI_Comm comm_;
  int rank_ = 0;
  std::filesystem::path topology_file_;
  std::string fingerprint_;
  std::int64_t adapted_at_step_ = -1;
  AdaptOptions adapt_;
  double adapt_dt_ = 0;
  std::function<void(CheckpointMetadata&)> complete_checkpoint_;
  MountainWaveCase attributes_;
  std::unique_ptr<OutputSeries> series_;
  std::unique_ptr<SectionSampler> sampler_;
  std::unique_ptr<TracerParcels> tracers_;
  std::vector<std::pair<double, std::string>> tracer_series_;  // rank 0: tracers.pvd
};

}  // namespace foehn::mountainwave
