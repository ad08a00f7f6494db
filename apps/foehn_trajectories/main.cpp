// foehn-trajectories: Lagrangian transport of air parcels through a sequence of met fields
// (synthetic or netCDF), with diffusion, subgrid winds, decay and periodic sorting, on the
// CPU or the GPU; parcel snapshots as netCDF with persistent ids.

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <optional>
#include <string>
#include <system_error>

#include "foehn/particles/io/particle_file.hpp"
#include "foehn/particles/transport.hpp"
#include "foehn/runtime/error.hpp"
#include "foehn/runtime/stopwatch.hpp"
#include "met_source.hpp"
#include "parcel_outputs.hpp"
#include "parcel_runner.hpp"
#include "petsc_application.hpp"
#include "trajectory_options.hpp"

namespace foehn::app {
namespace {

using namespace foehn::particles;

constexpr const char* usage =
    "foehn-trajectories: air-parcel trajectories (MPTRAC-class) on the CPU or the GPU\n"
    "usage: foehn-trajectories [options]   (a control file: -options_file run.opts)\n"
    "default: 1e5 random parcels for one day in a synthetic turbulent field on a 2-degree grid,\n"
    "dt 180 s, midpoint, diffusion and subgrid winds on, sorting every 20 steps, snapshots\n"
    "every 6 h in out/trajectories: parcels_<time s>.nc, the CF trajectory file\n"
    "parcels_trajectories.nc and parcels.pvd for ParaView (docs/particles_io.md)\n"
    "example: foehn-trajectories -met netcdf -met_files era5_00.nc,era5_01.nc -parcels 1000000\n\n";

long steps_between(double a, double b, double dt) {
  return std::lround((b - a) / dt);
}

// The CF units of the parcels' times: seconds since the met files' reference date, or since
// the Unix epoch when the met fields have no date. An initial parcel file counting from another
// date is refused: its times would be read on the wrong clock.
std::string parcel_time_units(const MetSource& met, const TrajectoryOptions& o,
                              const ParticleFileTime& initial) {
  const std::string reference = met.time_reference();
  const std::string units =
      reference.empty() ? std::string(default_particle_time_units) : "seconds since " + reference;
  if (!initial.reference.empty()) {
    const ParticleFileTime run = parse_particle_time_units(units);
    if (initial.reference_instant != run.reference_instant)
      fail(ErrorCategory::invalid_input, "-parcels_file ", o.parcels_file,
           ": its times count from ", initial.reference, ", the met fields' from ",
           reference.empty() ? "no date (taken as 1970-01-01 00:00:00)" : reference,
           "; convert the file's times first");
  }
  return units;
}

struct RunTotals {
  std::uint64_t left_domain = 0, vertical_clamps = 0, active = 0, steps = 0, sorts = 0;
};

// The parcels at the start: from -parcels_file or random, with a mass and every quantity the
// transport writes (present from the first snapshot on: ParaView's .pvd reader offers only the
// arrays of the first snapshot, and the series is easier to read when every file has the same).
ParticleSet initial_parcels(const TrajectoryOptions& o, ParticleFileTime& clock) {
  ParticleSet parcels = o.parcels_file.empty() ? make_random_global_parcels(o.random_parcels)
                                               : read_particle_file(o.parcels_file, &clock);
  if (!parcels.has_quantity("mass")) parcels.add_quantity("mass", 1.0);
  add_transport_quantities(parcels, o.settings.physics);
  std::error_code folder_error;
  std::filesystem::create_directories(o.output_dir, folder_error);
  if (folder_error)  // e.g. no permission: read_trajectory_options checked the rest
    fail(ErrorCategory::io, "-output_dir '", o.output_dir,
         "': cannot create the folder: ", folder_error.message());
  return parcels;
}

// The met pair bracketing the start: fields index and index + 1.
std::size_t first_met_index(const MetSource& met, double start_time) {
  std::size_t index = 0;
  while (met.time(index + 1) && *met.time(index + 1) <= start_time) ++index;
  if (!met.time(index + 1) || start_time < *met.time(index))
    fail(ErrorCategory::invalid_input, "foehn-trajectories: the start time ", start_time,
         " s is not inside the met times (", met.describe(), ")");
  return index;
}

// Steps from -start_time to -end_time in chunks that end at met times, output times and sorts;
// writes a snapshot at every output time and moves to the next met fields at their time.
RunTotals transport_to_end(ParcelRunner& runner, const MetSource& met, ParcelOutputs& outputs,
                           const TrajectoryOptions& o, std::size_t index, const Stopwatch& wall) {
  RunTotals totals;
  double t = o.start_time, met_end = *met.time(index + 1);
  double next_output = o.start_time + o.output_interval;
  std::int64_t step_index = 0;
  int since_sort = 0;
  while (t < o.end_time) {
    const double chunk_end = std::min({met_end, next_output, o.end_time});
    long steps = steps_between(t, chunk_end, o.dt);
    if (o.sort_interval > 0) steps = std::min<long>(steps, o.sort_interval - since_sort);
    if (steps <= 0)
      fail(ErrorCategory::invalid_input, "foehn-trajectories: met time ", met_end,
           " s is not a whole number of steps of ", o.dt, " s after ", t, " s");
    const TransportReport report =
        runner.transport(TransportClock{t, o.dt, static_cast<int>(steps), step_index}, o.settings);
    totals.left_domain += report.left_domain;
    totals.vertical_clamps += report.vertical_clamps;
    totals.active = report.active;
    totals.steps += static_cast<std::uint64_t>(steps);
    step_index += steps;
    t = o.start_time + static_cast<double>(step_index) * o.dt;
    since_sort += static_cast<int>(steps);
    if (o.sort_interval > 0 && since_sort == o.sort_interval) {
      runner.sort();
      ++totals.sorts;
      since_sort = 0;
    }
    if (std::fabs(t - next_output) <= 1e-9 * o.dt || std::fabs(t - o.end_time) <= 1e-9 * o.dt) {
      outputs.write(runner.parcels(), t);
      std::printf(
          "t = %10.0f s  active %llu  left the domain %llu  pressure clamps %llu  "
          "wall %.1f s\n",
          t, static_cast<unsigned long long>(totals.active),
          static_cast<unsigned long long>(totals.left_domain),
          static_cast<unsigned long long>(totals.vertical_clamps), wall.seconds());
      std::fflush(stdout);
      next_output += o.output_interval;
    }
    if (std::fabs(t - met_end) <= 1e-9 * o.dt && t < o.end_time) {
      ++index;
      const std::optional<double> t_next = met.time(index + 1);
      if (!t_next)
        fail(ErrorCategory::invalid_input, "foehn-trajectories: the met fields end at ", met_end,
             " s, before -end_time ", o.end_time, " s (", met.describe(), ")");
      runner.advance_met(met.wind(index + 1), *t_next);
      met_end = *t_next;
    }
  }
  return totals;
}

void run_trajectories() {
  const TrajectoryOptions o = read_trajectory_options();
  if (help_requested()) return;
  reject_unused_options("foehn-trajectories");
  const Stopwatch wall;

  const std::unique_ptr<MetSource> met = make_met_source(o);
  ParticleFileTime initial_clock;
  ParticleSet parcels = initial_parcels(o, initial_clock);
  const std::size_t index = first_met_index(*met, o.start_time);
  MetGridGeometry geometry = met->geometry();
  geometry.t0 = *met->time(index);
  geometry.t1 = *met->time(index + 1);
  const char* backend = o.backend == TrajectoryBackend::cuda ? "cuda" : "cpu";
  std::printf("foehn-trajectories: %zu parcels, %s, met %s, dt %g s, %s backend\n", parcels.size(),
              o.parcels_file.empty() ? "random global" : o.parcels_file.c_str(),
              met->describe().c_str(), o.dt, backend);
  const std::string time_units = parcel_time_units(*met, o, initial_clock);
  const auto runner = make_parcel_runner(o.backend, std::move(parcels), geometry, met->wind(index),
                                         met->wind(index + 1));
  ParcelOutputs outputs(o, runner->parcels(), time_units);
  outputs.write(runner->parcels(), o.start_time);
  if (o.sort_interval > 0) runner->sort();
  const RunTotals totals = transport_to_end(*runner, *met, outputs, o, index, wall);
  outputs.finish();
  std::printf(
      "foehn-trajectories: %llu steps, %llu sorts, %llu parcels left the domain, "
      "%llu pressure clamps; %s in %s; wall %.1f s\n",
      static_cast<unsigned long long>(totals.steps), static_cast<unsigned long long>(totals.sorts),
      static_cast<unsigned long long>(totals.left_domain),
      static_cast<unsigned long long>(totals.vertical_clamps), outputs.describe().c_str(),
      o.output_dir.c_str(), wall.seconds());
}

}  // namespace
}  // namespace foehn::app

int main(int argc, char** argv) {
  return foehn::app::run_petsc_application(argc, argv, {"foehn-trajectories", foehn::app::usage},
                                           foehn::app::run_trajectories);
}
