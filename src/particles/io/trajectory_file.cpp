#include "foehn/particles/io/trajectory_file.hpp"

#include <netcdf.h>

#include <algorithm>
#include <array>
#include <optional>

#include "cf_parcels.hpp"
#include "foehn/runtime/error.hpp"
#include "netcdf_support.hpp"

namespace foehn::particles {

namespace {

using netcdf::check;
using netcdf::Dataset;

// Trajectories per chunk: one observation of up to 2^18 parcels (2 MiB of doubles) per chunk
// keeps appending a snapshot a few large writes, and a chunk well under HDF5's 4 GiB limit.
constexpr std::size_t chunk_trajectories = std::size_t{1} << 18;

}  // namespace

struct TrajectoryFileWriter::State {
  explicit State(const std::filesystem::path& path) : output(path), final_path(path) {}
  netcdf::AtomicOutput output;
  std::filesystem::path final_path;
  std::vector<std::int64_t> ids;        // ascending: trajectory index = position
  std::vector<std::string> quantities;  // in the order they first appeared
  int lon = -1, lat = -1, pressure = -1, time = -1, status = -1;
  std::vector<int> quantity_variables;
  std::vector<int> dimensions;  // trajectory, obs
  std::array<std::size_t, 2> chunk{1, 1};
  std::size_t observations = 0;
  bool finished = false;
};

namespace {

// A (trajectory, obs) variable in define mode. Unwritten cells (a parcel missing from a
// snapshot, a quantity that appeared later) read as netCDF's default fill value, which the
// _FillValue attribute states so that every CF reader masks them.
int define_observed(TrajectoryFileWriter::State& s, const std::string& name, int type) {
  Dataset& file = s.output.dataset();
  const std::filesystem::path& path = s.final_path;
  const int variable = file.define_variable(name.c_str(), type, s.dimensions);
  check(nc_def_var_chunking(file.id(), variable, NC_CHUNKED, s.chunk.data()), path,
        "setting the chunks of variable '" + name + "'", ErrorCategory::io);
  if (type == NC_DOUBLE) {
    const double fill = NC_FILL_DOUBLE;
    check(nc_put_att_double(file.id(), variable, "_FillValue", NC_DOUBLE, 1, &fill), path,
          "writing the _FillValue of '" + name + "'", ErrorCategory::io);
  } else {
    const signed char fill = NC_FILL_BYTE;
    check(nc_put_att_schar(file.id(), variable, "_FillValue", NC_BYTE, 1, &fill), path,
          "writing the _FillValue of '" + name + "'", ErrorCategory::io);
  }
  return variable;
}

void define_quantity(TrajectoryFileWriter::State& s, const std::string& name) {
  // Recorded only once defined: the two lists must stay in step if netCDF fails.
  const int variable = define_observed(s, name, NC_DOUBLE);
  cf::describe_quantity(s.output.dataset(), variable, name);
  s.quantities.push_back(name);
  s.quantity_variables.push_back(variable);
}

}  // namespace

TrajectoryFileWriter::TrajectoryFileWriter(const std::filesystem::path& path,
                                           const ParticleSet& parcels,
                                           const TrajectoryFileOptions& options) {
  cf::validate_for_writing(parcels, path, "trajectory file");
  (void)cf::check_seconds_units(options.time_units, path);
  state_ = std::make_unique<State>(path);
  State& s = *state_;
  s.ids = parcels.id;
  std::sort(s.ids.begin(), s.ids.end());

  Dataset& file = s.output.dataset();
  const std::size_t n = s.ids.size();
  // A length-0 trajectory dimension would be unlimited: netCDF's only way to hold no parcels.
  const int trajectory_dimension = file.define_dimension("trajectory", n);
  const int obs_dimension = file.define_dimension("obs", 0);  // unlimited: one per snapshot
  const int ids_type = cf::id_type(s.ids);
  const int trajectory = file.define_variable("trajectory", ids_type, {trajectory_dimension});
  file.put_text_attribute(trajectory, "cf_role", "trajectory_id");
  file.put_text_attribute(trajectory, "long_name", "persistent parcel id");
  if (n > 0) {
    check(nc_def_var_chunking(file.id(), trajectory, NC_CONTIGUOUS, nullptr), path,
          "making variable 'trajectory' contiguous", ErrorCategory::io);
  }
  s.dimensions = {trajectory_dimension, obs_dimension};
  s.chunk = {std::max<std::size_t>(1, std::min(n, chunk_trajectories)), 1};
  s.time = define_observed(s, "time", NC_DOUBLE);
  s.lon = define_observed(s, "lon", NC_DOUBLE);
  s.lat = define_observed(s, "lat", NC_DOUBLE);
  s.pressure = define_observed(s, "pressure", NC_DOUBLE);
  cf::describe_coordinates(file, s.lon, s.lat, s.pressure, s.time, options.time_units);
  s.status = define_observed(s, "status", NC_BYTE);
  cf::describe_status(file, s.status);
  for (const std::string& name : parcels.quantity_names()) define_quantity(s, name);
  cf::describe_file(file, "trajectory", "trajectory file 1 (docs/particles_io.md)", ids_type);
  file.end_definitions();
  if (n > 0) {
    const std::vector<long long> ids(s.ids.begin(), s.ids.end());
    check(nc_put_var_longlong(file.id(), trajectory, ids.data()), path,
          "writing variable 'trajectory'", ErrorCategory::io);
  }
}

TrajectoryFileWriter::~TrajectoryFileWriter() = default;  // AtomicOutput removes the temporary

void TrajectoryFileWriter::append(const ParticleSet& parcels) {
  State& s = *state_;
  const std::filesystem::path& path = s.final_path;
  if (s.finished)
    fail(ErrorCategory::invalid_input, "trajectory file ", path.string(), ": append after finish");
  cf::validate_for_writing(parcels, path, "trajectory file");
  Dataset& file = s.output.dataset();
  // Quantities the transport added since (subgrid winds, path lengths) become new variables,
  // filled for the earlier observations.
  bool redefining = false;
  for (const std::string& name : parcels.quantity_names()) {
    if (std::find(s.quantities.begin(), s.quantities.end(), name) != s.quantities.end()) continue;
    if (!redefining)
      check(nc_redef(file.id()), path, "adding variable '" + name + "'", ErrorCategory::io);
    redefining = true;
    define_quantity(s, name);
  }
  if (redefining) file.end_definitions();
  const std::size_t n = s.ids.size();
  // Slot i of `parcels` goes to trajectory where[i] (ids are unique, so this is a permutation
  // of a subset).
  std::vector<std::size_t> where(parcels.size());
  for (std::size_t i = 0; i < parcels.size(); ++i) {
    const auto found = std::lower_bound(s.ids.begin(), s.ids.end(), parcels.id[i]);
    if (found == s.ids.end() || *found != parcels.id[i])
      fail(ErrorCategory::invalid_input, "trajectory file ", path.string(), ": parcel id ",
           parcels.id[i],
           " was not in the first snapshot (a trajectory file has a fixed set of "
           "parcels)");
    where[i] = static_cast<std::size_t>(found - s.ids.begin());
  }
  const std::array<std::size_t, 2> start{0, s.observations}, count{n, 1};
  std::vector<double> column(n);
  const auto put = [&](int variable, const std::vector<double>& values, double scale,
                       const std::string& name) {
    std::fill(column.begin(), column.end(), NC_FILL_DOUBLE);
    for (std::size_t i = 0; i < where.size(); ++i) column[where[i]] = values[i] * scale;
    check(nc_put_vara_double(file.id(), variable, start.data(), count.data(), column.data()), path,
          "writing observation " + std::to_string(s.observations) + " of '" + name + "'",
          ErrorCategory::io);
  };
  if (n > 0) {
    put(s.time, parcels.time, 1.0, "time");
    put(s.lon, parcels.longitude, cf::degrees_per_radian, "lon");
    put(s.lat, parcels.latitude, cf::degrees_per_radian, "lat");
    put(s.pressure, parcels.pressure, 1.0, "pressure");
    for (std::size_t q = 0; q < s.quantities.size(); ++q) {
      if (!parcels.has_quantity(s.quantities[q])) continue;  // stays filled at this observation
      put(s.quantity_variables[q], parcels.quantity(s.quantities[q]), 1.0, s.quantities[q]);
    }
    std::vector<signed char> statuses(n, NC_FILL_BYTE);
    for (std::size_t i = 0; i < where.size(); ++i)
      statuses[where[i]] = static_cast<signed char>(parcels.status[i]);
    check(nc_put_vara_schar(file.id(), s.status, start.data(), count.data(), statuses.data()), path,
          "writing observation " + std::to_string(s.observations) + " of 'status'",
          ErrorCategory::io);
  }
  ++s.observations;
  // On disk now: a crashed run's temporary then holds every whole snapshot.
  check(nc_sync(file.id()), path, "syncing observation " + std::to_string(s.observations - 1),
        ErrorCategory::io);
}

void TrajectoryFileWriter::finish() {
  if (state_->finished) return;
  state_->output.commit();
  state_->finished = true;
}

std::size_t TrajectoryFileWriter::trajectories() const noexcept {
  return state_->ids.size();
}
std::size_t TrajectoryFileWriter::observations() const noexcept {
  return state_->observations;
}
const std::filesystem::path& TrajectoryFileWriter::path() const noexcept {
  return state_->final_path;
}

}  // namespace foehn::particles
