#include "trajectory_options.hpp"

#include <petscsys.h>

#include <array>
#include <cmath>
#include <numbers>
#include <sstream>

#include "foehn/config.hpp"
#include "foehn/petsc/petsc_check.hpp"
#include "foehn/runtime/device.hpp"
#include "foehn/runtime/error.hpp"

namespace foehn::app {

namespace {

constexpr double degree = std::numbers::pi / 180.0;

std::vector<std::string> split_list(const std::string& list) {
  std::vector<std::string> items;
  std::stringstream in(list);
  std::string item;
  while (std::getline(in, item, ',')) {
    if (!item.empty()) items.push_back(item);
  }
  return items;
}

PetscErrorCode query_options(TrajectoryOptions& o, PetscInt& backend_choice) {
  using particles::Integrator;
  std::array<char, PETSC_MAX_PATH_LEN> met_files{}, parcels_file{}, output_dir{};
  const char* met_kinds[] = {"turbulent", "solid_body", "netcdf"};
  const char* schemes[] = {"euler", "midpoint", "rk4"};
  const char* backends[] = {"auto", "cpu", "cuda"};
  PetscInt met = 0, scheme = 1;
  PetscInt nlon = o.nlon, nlat = o.nlat, nlev = o.nlev, sort_interval = o.sort_interval;
  PetscInt parcels = 100000, parcel_seed = 1, met_seed = 1, seed = 0;
  PetscReal alpha_deg = 0.0;
  PetscBool diffusion = PETSC_TRUE, subgrid = PETSC_TRUE, paths = PETSC_TRUE;
  particles::TransportPhysics& ph = o.settings.physics;

  PetscOptionsBegin(PETSC_COMM_WORLD, nullptr, "foehn-trajectories options", nullptr);
  PetscCall(PetscOptionsEList("-met", "Met input: synthetic turbulent field, solid-body rotation, "
                              "or netCDF files", nullptr, met_kinds, 3, met_kinds[met], &met, nullptr));
  PetscCall(PetscOptionsString("-met_files", "netcdf: comma-separated met files in time order "
                               "(layout: docs/particles_io.md)", nullptr, "", met_files.data(),
                               met_files.size(), nullptr));
  PetscCall(PetscOptionsInt("-met_nlon", "synthetic: longitudes", nullptr, nlon, &nlon, nullptr));
  PetscCall(PetscOptionsInt("-met_nlat", "synthetic: latitudes, pole to pole", nullptr, nlat, &nlat, nullptr));
  PetscCall(PetscOptionsInt("-met_nlev", "synthetic: levels, equally spaced in log-pressure height",
                            nullptr, nlev, &nlev, nullptr));
  PetscCall(PetscOptionsReal("-met_z_top", "synthetic: top level height (m)", nullptr, o.z_top,
                             &o.z_top, nullptr));
  PetscCall(PetscOptionsReal("-met_interval", "synthetic: time between met fields (s)", nullptr,
                             o.met_interval, &o.met_interval, nullptr));
  PetscCall(PetscOptionsInt("-met_seed", "turbulent: seed of the random wave phases", nullptr,
                            met_seed, &met_seed, nullptr));
  PetscCall(PetscOptionsReal("-alpha_deg", "solid_body: tilt of the rotation axis (degrees)",
                             nullptr, alpha_deg, &alpha_deg, nullptr));
  PetscCall(PetscOptionsReal("-vertical_velocity", "solid_body: w0 (m/s of log-pressure height)",
                             nullptr, o.solid_body.vertical_velocity,
                             &o.solid_body.vertical_velocity, nullptr));
  PetscCall(PetscOptionsString("-parcels_file", "Initial parcels (netCDF particle file); default: "
                               "random global parcels", nullptr, "", parcels_file.data(),
                               parcels_file.size(), nullptr));
  PetscCall(PetscOptionsInt("-parcels", "Random global parcels: how many", nullptr, parcels,
                            &parcels, nullptr));
  PetscCall(PetscOptionsReal("-parcels_z_bottom", "Random parcels: lowest height (m)", nullptr,
                             o.random_parcels.z_bottom, &o.random_parcels.z_bottom, nullptr));
  PetscCall(PetscOptionsReal("-parcels_z_top", "Random parcels: highest height (m)", nullptr,
                             o.random_parcels.z_top, &o.random_parcels.z_top, nullptr));
  PetscCall(PetscOptionsInt("-parcels_seed", "Random parcels: seed", nullptr, parcel_seed,
                            &parcel_seed, nullptr));
  PetscCall(PetscOptionsReal("-start_time", "Start (s)", nullptr, o.start_time, &o.start_time, nullptr));
  PetscCall(PetscOptionsReal("-end_time", "End (s)", nullptr, o.end_time, &o.end_time, nullptr));
  PetscCall(PetscOptionsReal("-dt", "Time step (s); must divide the met and output intervals",
                             nullptr, o.dt, &o.dt, nullptr));
  PetscCall(PetscOptionsEList("-integrator", "Advection scheme", nullptr, schemes, 3,
                              schemes[scheme], &scheme, nullptr));
  PetscCall(PetscOptionsInt("-sort_interval", "Sort parcels by met box every this many steps "
                            "(0: never)", nullptr, sort_interval, &sort_interval, nullptr));
  PetscCall(PetscOptionsBool("-diffusion", "Turbulent diffusion", nullptr, diffusion, &diffusion, nullptr));
  PetscCall(PetscOptionsReal("-diffusivity_h_trop", "Horizontal diffusivity, troposphere (m^2/s)",
                             nullptr, ph.horizontal_diffusivity_troposphere,
                             &ph.horizontal_diffusivity_troposphere, nullptr));
  PetscCall(PetscOptionsReal("-diffusivity_h_strat", "Horizontal diffusivity, stratosphere (m^2/s)",
                             nullptr, ph.horizontal_diffusivity_stratosphere,
                             &ph.horizontal_diffusivity_stratosphere, nullptr));
  PetscCall(PetscOptionsReal("-diffusivity_z_trop", "Vertical diffusivity, troposphere (m^2/s)",
                             nullptr, ph.vertical_diffusivity_troposphere,
                             &ph.vertical_diffusivity_troposphere, nullptr));
  PetscCall(PetscOptionsReal("-diffusivity_z_strat", "Vertical diffusivity, stratosphere (m^2/s)",
                             nullptr, ph.vertical_diffusivity_stratosphere,
                             &ph.vertical_diffusivity_stratosphere, nullptr));
  PetscCall(PetscOptionsBool("-subgrid_wind", "Subgrid wind fluctuations (Langevin)", nullptr,
                             subgrid, &subgrid, nullptr));
  PetscCall(PetscOptionsReal("-subgrid_factor_h", "Subgrid winds: horizontal factor f", nullptr,
                             ph.subgrid_horizontal_factor, &ph.subgrid_horizontal_factor, nullptr));
  PetscCall(PetscOptionsReal("-subgrid_factor_z", "Subgrid winds: vertical factor f", nullptr,
                             ph.subgrid_vertical_factor, &ph.subgrid_vertical_factor, nullptr));
  PetscCall(PetscOptionsReal("-decay_time_trop", "e-folding time of 'mass', troposphere (s; 0: none)",
                             nullptr, ph.decay_time_troposphere, &ph.decay_time_troposphere, nullptr));
  PetscCall(PetscOptionsReal("-decay_time_strat", "e-folding time of 'mass', stratosphere (s; 0: none)",
                             nullptr, ph.decay_time_stratosphere, &ph.decay_time_stratosphere, nullptr));
  PetscCall(PetscOptionsReal("-tropopause_pressure", "Tropopause pressure (Pa)", nullptr,
                             ph.tropopause_pressure, &ph.tropopause_pressure, nullptr));
  PetscCall(PetscOptionsInt("-seed", "Seed of the stochastic physics", nullptr, seed, &seed, nullptr));
  PetscCall(PetscOptionsBool("-path_length", "Carry path lengths (for RHTD/RVTD)", nullptr, paths,
                             &paths, nullptr));
  PetscCall(PetscOptionsEList("-foehn_backend", "Where parcels are computed", nullptr, backends, 3,
                              backends[backend_choice], &backend_choice, nullptr));
  PetscCall(PetscOptionsString("-output_dir", "Directory of the parcel snapshots", nullptr,
                               o.output_dir.c_str(), output_dir.data(), output_dir.size(), nullptr));
  PetscCall(PetscOptionsReal("-output_interval", "Time between snapshots (s)", nullptr,
                             o.output_interval, &o.output_interval, nullptr));
  PetscOptionsEnd();

  o.met = static_cast<MetKind>(met);
  o.met_files = split_list(met_files.data());
  o.nlon = static_cast<int>(nlon);
  o.nlat = static_cast<int>(nlat);
  o.nlev = static_cast<int>(nlev);
  o.turbulent.seed = static_cast<std::uint32_t>(met_seed);
  o.solid_body.alpha = alpha_deg * degree;
  o.parcels_file = parcels_file.data();
  if (parcels < 0) fail(ErrorCategory::invalid_input, "-parcels must be >= 0, got ", parcels);
  o.random_parcels.count = static_cast<std::size_t>(parcels);
  o.random_parcels.seed = static_cast<std::uint32_t>(parcel_seed);
  o.random_parcels.time = o.start_time;
  o.sort_interval = static_cast<int>(sort_interval);
  ph.scheme = static_cast<Integrator>(scheme);
  ph.diffusion = diffusion == PETSC_TRUE;
  ph.subgrid_wind = subgrid == PETSC_TRUE;
  ph.seed = static_cast<std::uint32_t>(seed);
  ph.track_path_length = paths == PETSC_TRUE;
  o.output_dir = output_dir.data();
  return 0;
}

// True when t is a whole number of steps (to 1e-9 of a step).
bool whole_steps(double t, double dt) {
  const double steps = t / dt;
  return std::fabs(steps - std::round(steps)) <= 1e-9 * std::max(1.0, std::fabs(steps));
}

void check(const TrajectoryOptions& o) {
  if (!(o.dt > 0.0) || !std::isfinite(o.dt))
    fail(ErrorCategory::invalid_input, "-dt must be finite and > 0 s, got ", o.dt);
  if (!std::isfinite(o.start_time) || !std::isfinite(o.end_time) || !(o.end_time > o.start_time))
    fail(ErrorCategory::invalid_input, "need -end_time > -start_time, got ", o.start_time, " .. ",
         o.end_time, " s");
  if (!whole_steps(o.end_time - o.start_time, o.dt))
    fail(ErrorCategory::invalid_input, "-end_time - -start_time (", o.end_time - o.start_time,
         " s) is not a whole number of steps of -dt ", o.dt, " s");
  if (!(o.output_interval > 0.0) || !whole_steps(o.output_interval, o.dt))
    fail(ErrorCategory::invalid_input, "-output_interval (", o.output_interval,
         " s) must be > 0 and a whole number of steps of -dt ", o.dt, " s");
  if (o.met != MetKind::netcdf && (!(o.met_interval > 0.0) || !whole_steps(o.met_interval, o.dt)))
    fail(ErrorCategory::invalid_input, "-met_interval (", o.met_interval,
         " s) must be > 0 and a whole number of steps of -dt ", o.dt, " s");
  if (o.met == MetKind::netcdf && o.met_files.empty())
    fail(ErrorCategory::invalid_input, "-met netcdf needs -met_files a.nc[,b.nc,...]");
  if (o.met != MetKind::netcdf && !o.met_files.empty())
    fail(ErrorCategory::invalid_input, "-met_files is only read with -met netcdf");
  if (o.sort_interval < 0)
    fail(ErrorCategory::invalid_input, "-sort_interval must be >= 0, got ", o.sort_interval);
  if (o.parcels_file.empty() && o.random_parcels.count == 0)
    fail(ErrorCategory::invalid_input, "no parcels: give -parcels N or -parcels_file");
  o.settings.validate();
}

}  // namespace

TrajectoryOptions read_trajectory_options() {
  TrajectoryOptions o;
  PetscInt backend_choice = 0;  // auto
  o.settings.decaying_quantities = {"mass"};
  FOEHN_PETSC_CHECK(query_options(o, backend_choice));
  if (backend_choice == 0) {
    o.backend = (FOEHN_HAVE_CUDA && cuda_device_count() > 0) ? TrajectoryBackend::cuda
                                                             : TrajectoryBackend::cpu;
  } else {
    o.backend = backend_choice == 1 ? TrajectoryBackend::cpu : TrajectoryBackend::cuda;
  }
  check(o);
  return o;
}

}  // namespace foehn::app
