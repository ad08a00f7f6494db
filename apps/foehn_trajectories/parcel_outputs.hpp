#pragma once
// What foehn-trajectories writes at each output time, in the formats the options ask for:
// the netCDF snapshot parcels_<time s>.nc (the format -parcels_file reads back), one
// observation of the CF trajectory file parcels_trajectories.nc, and parcels_<time s>.vtp with
// the collection parcels.pvd for ParaView (docs/particles_io.md).

#include <filesystem>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "foehn/particles/io/trajectory_file.hpp"
#include "foehn/particles/particle_set.hpp"
#include "trajectory_options.hpp"

namespace foehn::app {

// The parcels as ParaView shows them: points at radius earth_radius + z (z = H0 ln(p0/p), the
// log-pressure height the transport uses), in metres, with lon, lat (degrees), pressure,
// height_m, time and every quantity as point data, id (Int64) and status (UInt8).
void write_parcels_vtp(const particles::ParticleSet& parcels, const std::filesystem::path& path);

class ParcelOutputs {
 public:
  // time_units: CF units of the parcels' times ("seconds since <met reference>").
  ParcelOutputs(const TrajectoryOptions& options, const particles::ParticleSet& first,
                std::string time_units);
  // All formats for output time t (s).
  void write(const particles::ParticleSet& parcels, double t);
  // Renames the trajectory file into place; without it the file stays "<name>.tmp".
  void finish();
  // Paths written, for the log.
  std::string describe() const;

 private:
  const TrajectoryOptions& options_;
  std::string time_units_;
  std::unique_ptr<particles::TrajectoryFileWriter> trajectory_;
  std::vector<std::pair<double, std::string>> vtk_series_;
};

}  // namespace foehn::app
