#pragma once
// All parcel snapshots of a run in one CF trajectory file (netCDF-4; layout:
// docs/particles_io.md, "Trajectory files"), the form xarray, Panoply, the CF checker and
// MPTRAC-style analysis scripts read directly.
//
// CF's multidimensional array representation: dimensions trajectory (one per parcel, in
// ascending id) and obs (unlimited, one per snapshot); global featureType "trajectory";
// trajectory(trajectory) holds the parcel ids (cf_role trajectory_id); time, lon, lat,
// pressure, status and every quantity are (trajectory, obs). Parcels are matched to their
// trajectory by id, so sorting the set between snapshots changes nothing.
//
//   TrajectoryFileWriter file("out/parcels_trajectories.nc", parcels,
//                             {.time_units = "seconds since 1900-01-01 00:00:00"});
//   file.append(parcels);   // after each output time (the first snapshot too)
//   file.finish();          // renames "<path>.tmp" onto <path>
//
// While the run goes on the file is "<path>.tmp", synced after each snapshot: a crashed run
// leaves that temporary (readable up to its last whole snapshot) and never a file under the
// final name that looks complete. Destroyed without finish(), the writer removes it.
//
// Part of foehn_particles_io (Foehn::particles_io).

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "foehn/particles/io/particle_file.hpp"
#include "foehn/particles/particle_set.hpp"

namespace foehn::particles {

struct TrajectoryFileOptions {
  std::string time_units = default_particle_time_units;  // seconds since <reference>
};

class TrajectoryFileWriter {
 public:
  // The trajectories are the parcels of `parcels` (their ids, their quantities); nothing is
  // written yet. invalid_input (naming the file) for an inconsistent set, repeated ids, a
  // quantity named like a fixed variable or bad time units; io when the file cannot be created.
  TrajectoryFileWriter(const std::filesystem::path& path, const ParticleSet& parcels,
                       const TrajectoryFileOptions& options = {});
  ~TrajectoryFileWriter();
  TrajectoryFileWriter(const TrajectoryFileWriter&) = delete;
  TrajectoryFileWriter& operator=(const TrajectoryFileWriter&) = delete;

  // One observation of every trajectory. A parcel of the first set missing from `parcels` gets
  // the fill value at this observation, and so does a quantity it lacks; a quantity not seen
  // before becomes a new variable, filled at the earlier observations. invalid_input for a
  // parcel id that was not in the first set, a repeated id or an inconsistent set; io when
  // writing fails.
  void append(const ParticleSet& parcels);
  // Closes the file and renames it into place (io on failure). Nothing may be appended after.
  void finish();

  std::size_t trajectories() const noexcept;
  std::size_t observations() const noexcept;
  const std::filesystem::path& path() const noexcept;

  struct State;  // defined in trajectory_file.cpp

 private:
  std::unique_ptr<State> state_;
};

}  // namespace foehn::particles
