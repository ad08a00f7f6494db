#include "trajectory_options.hpp"

#include <petscsys.h>

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdint>
#include <numbers>
#include <string>

#include "foehn/config.hpp"
#include "foehn/petsc/option_table.hpp"
#include "foehn/runtime/device.hpp"
#include "foehn/runtime/error.hpp"
#include "foehn/runtime/memory_budget.hpp"
#include "option_paths.hpp"
#include "petsc_application.hpp"

namespace foehn::app {

namespace {

using petsc::IntegerRange;
using petsc::OptionTable;
using petsc::RealRange;

constexpr double degree = std::numbers::pi / 180.0;

// Seeds end up in 32-bit Philox keys.
constexpr IntegerRange seed_range{0, UINT32_MAX};
// The GPU sort indexes parcels with 32 bits; the same limit on the CPU keeps a run portable.
constexpr IntegerRange parcel_range{1, UINT32_MAX};
// A transport call takes an int number of steps, so a run may not have more.
constexpr double max_steps = INT_MAX;
// Log-pressure heights, m: 500 km is far above any met top, and exp(-z / H) of a height much
// beyond that underflows to a pressure of 0.
constexpr RealRange height_range{-10000.0, 500000.0, true, true};

struct Choices {
  std::string backend = "auto";
  double alpha_deg = 0.0;
};

void declare(OptionTable& table, TrajectoryOptions& o, Choices& c) {
  using particles::Integrator;
  particles::TransportPhysics& ph = o.settings.physics;
  table
      .choice("-met", "Met input: synthetic turbulent field, solid-body rotation, or netCDF files",
              &o.met,
              {{"turbulent", MetKind::turbulent},
               {"solid_body", MetKind::solid_body},
               {"netcdf", MetKind::netcdf}})
      .input_path_list("-met_files",
                       "netcdf: met files in time order (layout: docs/particles_io.md)",
                       &o.met_files)
      .integer("-met_nlon", "synthetic: longitudes", &o.nlon, {2, 100000})
      .integer("-met_nlat", "synthetic: latitudes, pole to pole", &o.nlat, {2, 50001})
      .integer("-met_nlev", "synthetic: levels, equally spaced in log-pressure height", &o.nlev,
               {2, 10000})
      .real("-met_z_top", "synthetic: top level height (m)", &o.z_top,
            RealRange::above_up_to(0.0, height_range.max))
      .real("-met_interval",
            "synthetic: time between met fields (s), a whole number of steps of -dt",
            &o.met_interval, RealRange::above(0.0))
      .integer("-met_seed", "turbulent: seed of the random wave phases", &o.turbulent.seed,
               seed_range)
      .real("-alpha_deg", "solid_body: tilt of the rotation axis (degrees)", &c.alpha_deg,
            RealRange::closed(-180.0, 180.0))
      .real("-vertical_velocity", "solid_body: w0 (m/s of log-pressure height)",
            &o.solid_body.vertical_velocity, RealRange::any())
      .input_path("-parcels_file",
                  "Initial parcels (netCDF particle file); default: random global parcels",
                  &o.parcels_file)
      .integer("-parcels", "Random global parcels: how many", &o.random_parcels.count, parcel_range)
      .real("-parcels_z_bottom", "Random parcels: lowest log-pressure height (m)",
            &o.random_parcels.z_bottom, height_range)
      .real("-parcels_z_top", "Random parcels: highest log-pressure height (m)",
            &o.random_parcels.z_top, height_range)
      .integer("-parcels_seed", "Random parcels: seed", &o.random_parcels.seed, seed_range)
      .real("-start_time", "Start (s)", &o.start_time, RealRange::any())
      .real("-end_time", "End (s), after -start_time", &o.end_time, RealRange::any())
      .real("-dt", "Time step (s); must divide the met and output intervals", &o.dt,
            RealRange::above(0.0))
      .choice("-integrator", "Advection scheme", &ph.scheme,
              {{"euler", Integrator::euler},
               {"midpoint", Integrator::midpoint},
               {"rk4", Integrator::rk4}})
      .integer("-sort_interval", "Sort parcels by met box every this many steps (0: never)",
               &o.sort_interval, {0, INT_MAX})
      .flag("-diffusion", "Turbulent diffusion", &ph.diffusion)
      .real("-diffusivity_h_trop", "Horizontal diffusivity, troposphere (m^2/s)",
            &ph.horizontal_diffusivity_troposphere, RealRange::at_least(0.0))
      .real("-diffusivity_h_strat", "Horizontal diffusivity, stratosphere (m^2/s)",
            &ph.horizontal_diffusivity_stratosphere, RealRange::at_least(0.0))
      .real("-diffusivity_z_trop", "Vertical diffusivity, troposphere (m^2/s)",
            &ph.vertical_diffusivity_troposphere, RealRange::at_least(0.0))
      .real("-diffusivity_z_strat", "Vertical diffusivity, stratosphere (m^2/s)",
            &ph.vertical_diffusivity_stratosphere, RealRange::at_least(0.0))
      .flag("-subgrid_wind", "Subgrid wind fluctuations (Langevin)", &ph.subgrid_wind)
      .real("-subgrid_factor_h", "Subgrid winds: horizontal factor f",
            &ph.subgrid_horizontal_factor, RealRange::at_least(0.0))
      .real("-subgrid_factor_z", "Subgrid winds: vertical factor f", &ph.subgrid_vertical_factor,
            RealRange::at_least(0.0))
      .real("-decay_time_trop", "e-folding time of 'mass', troposphere (s; 0: none)",
            &ph.decay_time_troposphere, RealRange::at_least(0.0))
      .real("-decay_time_strat", "e-folding time of 'mass', stratosphere (s; 0: none)",
            &ph.decay_time_stratosphere, RealRange::at_least(0.0))
      .real("-tropopause_pressure", "Tropopause pressure (Pa)", &ph.tropopause_pressure,
            RealRange::above(0.0))
      .integer("-seed", "Seed of the stochastic physics", &ph.seed, seed_range)
      .flag("-path_length", "Carry path lengths (for RHTD/RVTD)", &ph.track_path_length)
      .choice("-foehn_backend", "Where parcels are computed (auto: the GPU if there is one)",
              &c.backend, {"auto", "cpu", "cuda"})
      .output_folder("-output_dir", "Directory of the parcel snapshots", &o.output_dir)
      .real("-output_interval", "Time between snapshots (s), a whole number of steps of -dt",
            &o.output_interval, RealRange::above(0.0))
      .flag("-output_snapshots", "Write parcels_<time s>.nc at each output time",
            &o.write_snapshots)
      .flag("-output_trajectory", "Write the CF trajectory file parcels_trajectories.nc",
            &o.write_trajectory_file)
      .flag("-output_vtk", "Write parcels_<time s>.vtp and parcels.pvd for ParaView", &o.write_vtk);
}

// True when t is a whole number of steps (to 1e-9 of a step).
bool whole_steps(double t, double dt) {
  const double steps = t / dt;
  return std::fabs(steps - std::round(steps)) <= 1e-9 * std::max(1.0, std::fabs(steps));
}

// Options that only one met source or only random parcels read: given with the other, they
// would be silently ignored.
void reject_ignored_options(const OptionTable& table, const TrajectoryOptions& o) {
  const auto reject_unless = [&](bool applies, const char* option, const char* needs) {
    if (!applies && table.was_set(option))
      fail(ErrorCategory::invalid_input, option, " is only read with ", needs);
  };
  const bool netcdf = o.met == MetKind::netcdf;
  reject_unless(netcdf, "-met_files", "-met netcdf");
  for (const char* option : {"-met_nlon", "-met_nlat", "-met_nlev", "-met_z_top", "-met_interval"})
    reject_unless(!netcdf, option, "-met turbulent or solid_body");
  reject_unless(o.met == MetKind::turbulent, "-met_seed", "-met turbulent");
  reject_unless(o.met == MetKind::solid_body, "-alpha_deg", "-met solid_body");
  reject_unless(o.met == MetKind::solid_body, "-vertical_velocity", "-met solid_body");
  const bool random = o.parcels_file.empty();
  for (const char* option : {"-parcels", "-parcels_z_bottom", "-parcels_z_top", "-parcels_seed"})
    reject_unless(random, option, "random parcels, not with -parcels_file");
}

void check_times(const TrajectoryOptions& o) {
  if (!(o.end_time > o.start_time))
    fail(ErrorCategory::invalid_input, "need -end_time > -start_time, got -start_time ",
         o.start_time, " s and -end_time ", o.end_time, " s");
  const double steps = (o.end_time - o.start_time) / o.dt;
  if (!(steps <= max_steps))
    fail(ErrorCategory::invalid_input, "-end_time - -start_time (", o.end_time - o.start_time,
         " s) in steps of -dt ", o.dt, " s is more than ", INT_MAX, " steps");
  if (!whole_steps(o.end_time - o.start_time, o.dt))
    fail(ErrorCategory::invalid_input, "-end_time - -start_time (", o.end_time - o.start_time,
         " s) is not a whole number of steps of -dt ", o.dt, " s");
  if (!whole_steps(o.output_interval, o.dt))
    fail(ErrorCategory::invalid_input, "-output_interval (", o.output_interval,
         " s) must be a whole number of steps of -dt ", o.dt, " s");
  if (o.met != MetKind::netcdf && !whole_steps(o.met_interval, o.dt))
    fail(ErrorCategory::invalid_input, "-met_interval (", o.met_interval,
         " s) must be a whole number of steps of -dt ", o.dt, " s");
}

void check_inputs_and_outputs(const TrajectoryOptions& o) {
  if (o.met == MetKind::netcdf && o.met_files.empty())
    fail(ErrorCategory::invalid_input, "-met netcdf needs -met_files a.nc[,b.nc,...]");
  for (const std::string& file : o.met_files) require_input_file("-met_files", file);
  if (!o.parcels_file.empty()) require_input_file("-parcels_file", o.parcels_file);
  if (o.parcels_file.empty() && !(o.random_parcels.z_top > o.random_parcels.z_bottom))
    fail(ErrorCategory::invalid_input, "need -parcels_z_top > -parcels_z_bottom, got ",
         o.random_parcels.z_bottom, " .. ", o.random_parcels.z_top, " m");
  check_output_folder(o.output_dir, "-output_dir");
}

// Memory that grows with the options: the random parcels and the synthetic met grid (parcels
// read from a file and netCDF met fields are the readers' to check).
void check_memory(const TrajectoryOptions& o) {
  const particles::TransportPhysics& ph = o.settings.physics;
  const double quantities = 1.0 + (ph.subgrid_wind ? 3.0 : 0.0) + (ph.track_path_length ? 2.0 : 0);
  // Coordinates and time (doubles), id (8 B), status (1 B) and one double per quantity.
  const double parcel_bytes = 4 * 8 + 8 + 1 + 8 * quantities;
  // Host: the runner's set and the copy a snapshot is written from, plus the sort's keys,
  // order and gather buffers. Device: the set plus the radix sort's keys, indices and spares.
  const double host_per_parcel = 2 * parcel_bytes + 32, device_per_parcel = parcel_bytes + 32;
  // Three wind components at two times, interleaved, plus the two levels they are built from.
  const double host_per_point = 2 * 2 * 3 * 8, device_per_point = 2 * 3 * 8;
  const double parcels = o.parcels_file.empty() ? static_cast<double>(o.random_parcels.count) : 0;
  const double points = o.met == MetKind::netcdf ? 0.0 : 1.0 * o.nlon * o.nlat * o.nlev;
  std::string request;
  if (parcels > 0)
    request = detail::concat("-parcels ", o.random_parcels.count, " (", host_per_parcel,
                             " B per parcel)");
  if (points > 0)
    request += detail::concat(request.empty() ? "" : " and ",
                              "the -met_nlon x -met_nlat x -met_nlev grid ", o.nlon, " x ", o.nlat,
                              " x ", o.nlev, " (", host_per_point, " B per point)");
  if (request.empty()) return;
  check_host_memory(request, parcels * host_per_parcel + points * host_per_point);
  if (o.backend == TrajectoryBackend::cuda && cuda_device_count() > 0)
    check_device_memory(request, parcels * device_per_parcel + points * device_per_point,
                        device_memory_info().free_bytes);
}

}  // namespace

TrajectoryOptions read_trajectory_options() {
  TrajectoryOptions o;
  // The tool's defaults, where they differ from the library's: all physics on, 1e5 parcels.
  o.settings.physics.diffusion = true;
  o.settings.physics.subgrid_wind = true;
  o.settings.physics.track_path_length = true;
  o.settings.decaying_quantities = {"mass"};
  o.random_parcels.count = 100000;
  Choices choices;
  OptionTable table(PETSC_COMM_WORLD, "foehn-trajectories options");
  declare(table, o, choices);
  table.read();
  if (help_requested()) return o;

  o.solid_body.alpha = choices.alpha_deg * degree;
  o.random_parcels.time = o.start_time;
  if (choices.backend == "auto")
    o.backend = (FOEHN_HAVE_CUDA && cuda_device_count() > 0) ? TrajectoryBackend::cuda
                                                             : TrajectoryBackend::cpu;
  else
    o.backend = choices.backend == "cuda" ? TrajectoryBackend::cuda : TrajectoryBackend::cpu;
  reject_ignored_options(table, o);
  check_times(o);
  check_inputs_and_outputs(o);
  o.settings.validate();
  check_memory(o);
  return o;
}

}  // namespace foehn::app
