#pragma once
// The core's ParaView output: one .pvtu snapshot per output time, <directory>/<name>_<NNNN>.pvtu
// (pieces <name>_<NNNN>_<rank>.vtu), and the collection <directory>/<name>.pvd listing every
// snapshot with its time, rewritten (atomically) after each one so ParaView can open the series
// while the run goes on.
//
//   OutputSeries series(mesh, "out", "mountain_wave");
//   series.write(state);           // out/mountain_wave_0000.pvtu, out/mountain_wave.pvd
//   ...
//   series.resume(restart_time);   // after a restart: keep the earlier snapshots in the .pvd
#include <cstdint>
#include <filesystem>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "foehn/mesh/tet_mesh.hpp"
#include "foehn/mesh/vtk_io.hpp"
#include "foehn/petsc/distributed_mesh.hpp"
#include "model_state.hpp"

namespace foehn::mountainwave {

// (time, file) of every DataSet of a .pvd as write_pvd writes it. io when it cannot be opened,
// invalid_input for a DataSet without a finite timestep and a file.
std::vector<std::pair<double, std::string>> read_pvd_entries(const std::filesystem::path& pvd);

class OutputSeries {
 public:
  // Collective. Keeps a reference to `mesh`, which must outlive the series. Rank 0 creates
  // `directory` when it is missing. `name` must be non-empty and free of '/'. Throws
  // foehn::Error on every rank: invalid_input for a bad name, io when the folder cannot be
  // created.
  OutputSeries(const petsc::DistributedMesh& mesh, std::filesystem::path directory,
               std::string name, VtuOptions options = {});

  // Collective. Writes the next snapshot of `state` with the node fields u (velocity, 3
  // components), p, theta, qv, qc, qr and `extra_node_fields` (local_nodes() x components each),
  // then rewrites the .pvd. Returns the .pvtu's path. Throws foehn::Error on every rank
  // (write_pvtu's and write_pvd's errors; invalid_input for fields of the wrong size).
  std::filesystem::path write(const ModelState& state,
                              std::span<const MeshField> extra_node_fields = {});

  // Collective: continue an earlier run's series after a restart at `restart_time`. Rank 0
  // reads the existing .pvd (if any), keeps its snapshots at times <= restart_time (their files
  // stay listed) and numbering continues after the last of them; later snapshots (written
  // after the checkpoint by the interrupted run) are dropped from the .pvd and overwritten as
  // the run reaches them again. Throws foehn::Error (invalid_input) on every rank when the .pvd
  // cannot be understood.
  void resume(double restart_time);

  std::filesystem::path pvd_path() const;
  std::filesystem::path snapshot_path(int index) const;  // <directory>/<name>_<NNNN>.pvtu
  int next_index() const noexcept { return next_index_; }
  // (time, file name relative to the directory) of every listed snapshot; rank 0 only (empty
  // on the other ranks).
  const std::vector<std::pair<double, std::string>>& entries() const noexcept { return entries_; }

 private:
  const petsc::DistributedMesh* mesh_;
  std::filesystem::path directory_;
  std::string name_;
  VtuOptions options_;
  int next_index_ = 0;
  std::vector<std::pair<double, std::string>> entries_;
};

}  // namespace foehn::mountainwave
