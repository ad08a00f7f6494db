#pragma once
// Options of foehn-trajectories, read from the PETSc options database (so a control file is
// simply -options_file run.opts, one option per line).

#include <cstddef>
#include <string>
#include <vector>

#include "foehn/particles/synthetic.hpp"
#include "foehn/particles/transport.hpp"

namespace foehn::app {

enum class MetKind { turbulent, solid_body, netcdf };
enum class TrajectoryBackend { cpu, cuda };

struct TrajectoryOptions {
  MetKind met = MetKind::turbulent;
  std::vector<std::string> met_files;    // netcdf: files in time order (each one or more times)
  int nlon = 180, nlat = 91, nlev = 40;  // synthetic grid
  double z_top = 60000.0;                // synthetic levels: 0 .. z_top (m)
  double met_interval = 21600.0;         // synthetic: s between met times
  particles::SolidBodyWind solid_body;   // -alpha_deg, -vertical_velocity
  particles::TurbulentWind turbulent;    // -met_seed

  std::string parcels_file;  // initial parcels (netCDF); else random global parcels
  particles::RandomGlobalParcels random_parcels;

  double start_time = 0.0, end_time = 86400.0, dt = 180.0;  // s
  int sort_interval = 20;                                   // steps; 0: never sort
  particles::TransportSettings settings;
  TrajectoryBackend backend = TrajectoryBackend::cpu;

  std::string output_dir = "out/trajectories";
  double output_interval = 21600.0;  // s; snapshots parcels_<time s>.nc
  // What each output time writes (docs/particles_io.md): the netCDF snapshot
  // parcels_<time s>.nc, one observation of the CF trajectory file parcels_trajectories.nc,
  // and the ParaView snapshot parcels_<time s>.vtp listed in parcels.pvd.
  bool write_snapshots = true, write_trajectory_file = true, write_vtk = true;
};

// Reads every option (so -help lists them all, each with its range) and checks their values,
// the options that go together, the paths they name and the memory the parcels and the
// synthetic grid need; invalid_input (exit code 2) naming the option for a bad value. With
// -help only the listing.
TrajectoryOptions read_trajectory_options();

}  // namespace foehn::app
