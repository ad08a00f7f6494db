#include "foehn/particles/io/particle_file.hpp"

#include <netcdf.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <numbers>
#include <string>
#include <vector>

#include "cf_parcels.hpp"
#include "foehn/particles/io/trajectory_deviation.hpp"
#include "foehn/runtime/error.hpp"
#include "met_conventions.hpp"
#include "netcdf_support.hpp"

namespace foehn::particles {

namespace {

using netcdf::check;
using netcdf::Dataset;

constexpr double radians_per_degree = std::numbers::pi / 180.0;
constexpr const char* particle_dimension = "particle";

bool is_integer_type(int type) {
  return type == NC_BYTE || type == NC_UBYTE || type == NC_SHORT || type == NC_USHORT ||
         type == NC_INT || type == NC_UINT || type == NC_INT64 || type == NC_UINT64;
}

bool is_numeric_type(int type) {
  return is_integer_type(type) || type == NC_FLOAT || type == NC_DOUBLE;
}

// ---- writing --------------------------------------------------------------------------------

int define_particle_variable(Dataset& file, const std::string& name, int type, int dimension,
                             bool contiguous) {
  const int variable = file.define_variable(name.c_str(), type, {dimension});
  // One contiguous block per variable: snapshots are written and read whole, so chunking
  // would only add index overhead. A zero-length (unlimited) dimension must stay chunked.
  if (contiguous) {
    check(nc_def_var_chunking(file.id(), variable, NC_CONTIGUOUS, nullptr), file.path(),
          "making variable '" + name + "' contiguous", ErrorCategory::io);
  }
  return variable;
}

void put_doubles(Dataset& file, int variable, const std::vector<double>& values, const char* name) {
  if (values.empty()) return;
  check(nc_put_var_double(file.id(), variable, values.data()), file.path(),
        std::string("writing variable '") + name + "'", ErrorCategory::io);
}

// ---- reading --------------------------------------------------------------------------------

// The variable `name` on (particle), numeric, without missing values, as doubles.
std::vector<double> read_values(const Dataset& file, int variable, int dimension, std::size_t n) {
  const std::string name = file.variable_name(variable);
  if (file.variable_dimensions(variable) != std::vector<int>{dimension}) {
    fail(ErrorCategory::invalid_input, file.path().string(), ": variable '", name,
         "' has dimensions ", file.describe_dimensions(variable), ", expected (particle)");
  }
  if (!is_numeric_type(file.variable_type(variable))) {
    fail(ErrorCategory::invalid_input, file.path().string(), ": variable '", name,
         "' is not numeric");
  }
  std::vector<double> values = file.value_buffer("variable '" + name + "'", n);
  if (n > 0) {
    check(nc_get_var_double(file.id(), variable, values.data()), file.path(),
          "reading variable '" + name + "' (" + std::to_string(n) + " values)");
  }
  const std::vector<double> markers = netcdf::missing_value_markers(file, variable);
  for (std::size_t i = 0; i < n; ++i) {
    if (std::find(markers.begin(), markers.end(), values[i]) != markers.end()) {
      fail(ErrorCategory::invalid_input, file.path().string(), ": variable '", name,
           "' has a missing value (fill value ", values[i], ") at particle ", i);
    }
  }
  return values;
}

std::vector<double> read_coordinate(const Dataset& file, const char* name, int dimension,
                                    std::size_t n) {
  std::vector<double> values = read_values(file, file.require_variable(name), dimension, n);
  for (std::size_t i = 0; i < n; ++i) {
    if (!std::isfinite(values[i])) {
      fail(ErrorCategory::invalid_input, file.path().string(), ": variable '", name,
           "' is not finite at particle ", i, " (", values[i], ")");
    }
  }
  return values;
}

std::vector<std::int64_t> read_ids(const Dataset& file, int dimension, std::size_t n) {
  const int variable = file.require_variable("id");
  if (file.variable_dimensions(variable) != std::vector<int>{dimension} ||
      !is_integer_type(file.variable_type(variable))) {
    fail(ErrorCategory::invalid_input, file.path().string(),
         ": variable 'id' must be an integer variable on (particle), has dimensions ",
         file.describe_dimensions(variable), " and netCDF type ", file.variable_type(variable));
  }
  std::vector<long long> values(n);
  if (n > 0) {
    check(nc_get_var_longlong(file.id(), variable, values.data()), file.path(),
          "reading variable 'id' (" + std::to_string(n) + " values)");
  }
  std::vector<std::int64_t> ids(values.begin(), values.end());
  if (const std::optional<std::int64_t> repeat = cf::repeated_id(ids)) {
    fail(ErrorCategory::invalid_input, file.path().string(), ": parcel id ", *repeat,
         " occurs more than once");
  }
  return ids;
}

std::vector<ParcelStatus> read_statuses(const Dataset& file, int dimension, std::size_t n) {
  std::vector<ParcelStatus> statuses(n, ParcelStatus::active);
  const std::optional<int> variable = file.find_variable("status");
  if (!variable) return statuses;
  if (!is_integer_type(file.variable_type(*variable))) {
    fail(ErrorCategory::invalid_input, file.path().string(), ": variable 'status' is not integer");
  }
  const std::vector<double> values = read_values(file, *variable, dimension, n);
  for (std::size_t i = 0; i < n; ++i) {
    if (values[i] != 0.0 && values[i] != 1.0) {
      fail(ErrorCategory::invalid_input, file.path().string(), ": particle ", i,
           " has the unknown status ", values[i], " (0 active, 1 left the domain)");
    }
    statuses[i] = values[i] == 0.0 ? ParcelStatus::active : ParcelStatus::left_domain;
  }
  return statuses;
}

ParticleFileTime clock_of(const std::string& units, const std::optional<std::string>& calendar,
                          const std::filesystem::path& where) {
  ParticleFileTime clock;
  clock.units = units;
  clock.reference = met_conventions::parse_time_units(units, where).reference;
  if (!clock.reference.empty())
    clock.reference_instant =
        met_conventions::reference_instant(clock.reference, calendar, where.string());
  return clock;
}

// The time variable's units (plain "s" in files written before CF; none in a hand-made initial
// file, whose times are then seconds on the run's clock) and their reference.
ParticleFileTime read_clock(const Dataset& file) {
  const int variable = file.require_variable("time");
  const std::optional<std::string> units = file.text_attribute(variable, "units");
  if (!units) return {};
  return clock_of(*units, file.text_attribute(variable, "calendar"), file.path());
}

}  // namespace

ParticleFileTime parse_particle_time_units(const std::string& units) {
  return clock_of(units, std::nullopt, "time units");
}

void write_particle_file(const ParticleSet& parcels, const std::filesystem::path& path,
                         const ParticleFileOptions& options) {
  cf::validate_for_writing(parcels, path, "write_particle_file");
  (void)cf::check_seconds_units(options.time_units, path);
  const std::size_t n = parcels.size();
  netcdf::AtomicOutput output(path);
  Dataset& file = output.dataset();
  // Length 0 makes the dimension unlimited, the only way netCDF holds an empty snapshot.
  const int dimension = file.define_dimension(particle_dimension, n);
  const bool contiguous = n > 0;
  const int lon = define_particle_variable(file, "lon", NC_DOUBLE, dimension, contiguous);
  const int lat = define_particle_variable(file, "lat", NC_DOUBLE, dimension, contiguous);
  const int pressure = define_particle_variable(file, "pressure", NC_DOUBLE, dimension, contiguous);
  const int time = define_particle_variable(file, "time", NC_DOUBLE, dimension, contiguous);
  cf::describe_coordinates(file, lon, lat, pressure, time, options.time_units);
  const int ids_type = cf::id_type(parcels.id);
  const int id = define_particle_variable(file, "id", ids_type, dimension, contiguous);
  file.put_text_attribute(id, "long_name", "persistent parcel id");
  const int status = define_particle_variable(file, "status", NC_BYTE, dimension, contiguous);
  cf::describe_status(file, status);
  std::vector<int> quantity_variables;
  for (const std::string& name : parcels.quantity_names()) {
    quantity_variables.push_back(
        define_particle_variable(file, name, NC_DOUBLE, dimension, contiguous));
    cf::describe_quantity(file, quantity_variables.back(), name);
  }
  cf::describe_file(file, "point", "particle file 2 (docs/particles_io.md)", ids_type);
  file.end_definitions();

  std::vector<double> degrees(n);
  std::transform(parcels.longitude.begin(), parcels.longitude.end(), degrees.begin(),
                 [](double radians) { return radians * cf::degrees_per_radian; });
  put_doubles(file, lon, degrees, "lon");
  std::transform(parcels.latitude.begin(), parcels.latitude.end(), degrees.begin(),
                 [](double radians) { return radians * cf::degrees_per_radian; });
  put_doubles(file, lat, degrees, "lat");
  put_doubles(file, pressure, parcels.pressure, "pressure");
  put_doubles(file, time, parcels.time, "time");
  if (n > 0) {
    const std::vector<long long> ids(parcels.id.begin(), parcels.id.end());
    check(nc_put_var_longlong(file.id(), id, ids.data()), path, "writing variable 'id'",
          ErrorCategory::io);
    std::vector<signed char> statuses(n);
    std::transform(parcels.status.begin(), parcels.status.end(), statuses.begin(),
                   [](ParcelStatus s) { return static_cast<signed char>(s); });
    check(nc_put_var_schar(file.id(), status, statuses.data()), path, "writing variable 'status'",
          ErrorCategory::io);
  }
  for (std::size_t q = 0; q < quantity_variables.size(); ++q) {
    const std::string& name = parcels.quantity_names()[q];
    put_doubles(file, quantity_variables[q], parcels.quantity(name), name.c_str());
  }
  output.commit();
}

ParticleSet read_particle_file(const std::filesystem::path& path, ParticleFileTime* time) {
  Dataset file = Dataset::open_for_reading(path);
  const int dimension = file.require_dimension(particle_dimension);
  const std::size_t n = file.dimension_length(dimension);
  ParticleSet parcels;
  parcels.longitude = read_coordinate(file, "lon", dimension, n);
  parcels.latitude = read_coordinate(file, "lat", dimension, n);
  for (std::size_t i = 0; i < n; ++i) {
    if (std::fabs(parcels.latitude[i]) > 90.0) {
      fail(ErrorCategory::invalid_input, path.string(), ": latitude ", parcels.latitude[i],
           " of particle ", i, " lies outside [-90, 90] degrees");
    }
    // Longitudes wrap, but one past a full turn either way is no position: 1e300 once ran and
    // put the parcel at whatever the wrapping's rounding left.
    if (std::fabs(parcels.longitude[i]) > 360.0) {
      fail(ErrorCategory::invalid_input, path.string(), ": longitude ", parcels.longitude[i],
           " of particle ", i, " lies outside [-360, 360] degrees");
    }
    parcels.longitude[i] *= radians_per_degree;
    parcels.latitude[i] *= radians_per_degree;
  }
  parcels.pressure = read_coordinate(file, "pressure", dimension, n);
  parcels.time = read_coordinate(file, "time", dimension, n);
  const ParticleFileTime clock = read_clock(file);
  const double seconds_per_unit =
      clock.units.empty()
          ? 1.0
          : met_conventions::parse_time_units(clock.units, file.path()).seconds_per_unit;
  for (std::size_t i = 0; seconds_per_unit != 1.0 && i < n; ++i) {
    parcels.time[i] *= seconds_per_unit;
    if (!std::isfinite(parcels.time[i]))
      fail(ErrorCategory::invalid_input, path.string(), ": time of particle ", i,
           " is not finite in seconds (units '", clock.units, "')");
  }
  if (time != nullptr) *time = clock;
  parcels.id = read_ids(file, dimension, n);
  parcels.status = read_statuses(file, dimension, n);

  int variable_count = 0;
  check(nc_inq_nvars(file.id(), &variable_count), path, "counting variables");
  for (int variable = 0; variable < variable_count; ++variable) {
    const std::string name = file.variable_name(variable);
    // Only variables on (particle) are quantities; anything else (scalars, metadata) is left,
    // and so are the variables of fixed meaning.
    if (cf::is_fixed_variable_name(name) ||
        file.variable_dimensions(variable) != std::vector<int>{dimension})
      continue;
    std::vector<double> values = read_values(file, variable, dimension, n);
    // Path lengths feed the relative deviations (RHTD, RVTD): a negative or non-finite one
    // would give a wrong percentage without any sign of it.
    if (name == path_horizontal_quantity || name == path_vertical_quantity) {
      for (std::size_t i = 0; i < n; ++i) {
        if (!(values[i] >= 0.0) || !std::isfinite(values[i])) {
          fail(ErrorCategory::invalid_input, path.string(), ": variable '", name, "' is ",
               values[i], " at particle ", i, "; path lengths are finite and >= 0 m");
        }
      }
    }
    parcels.add_quantity(name);
    parcels.quantity(name) = std::move(values);
  }
  file.close(ErrorCategory::invalid_input);
  try {
    parcels.validate();
  } catch (const Error& e) {
    fail(e.category(), path.string(), ": ", e.what());
  }
  return parcels;
}

}  // namespace foehn::particles
