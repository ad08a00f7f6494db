#include "cf_parcels.hpp"

#include <netcdf.h>

#include <algorithm>
#include <array>
#include <limits>

#include "met_conventions.hpp"

namespace foehn::particles::cf {

namespace {
constexpr std::array<const char*, 7> fixed_variables{"lon", "lat",    "pressure",  "time",
                                                     "id",  "status", "trajectory"};
}  // namespace

bool is_fixed_variable_name(const std::string& name) {
  return std::find(fixed_variables.begin(), fixed_variables.end(), name) != fixed_variables.end();
}

// First repeated id, if any (sorting a copy: O(n log n), no hash table of 1e8 entries).
std::optional<std::int64_t> repeated_id(const std::vector<std::int64_t>& ids) {
  std::vector<std::int64_t> sorted = ids;
  std::sort(sorted.begin(), sorted.end());
  const auto repeat = std::adjacent_find(sorted.begin(), sorted.end());
  if (repeat == sorted.end()) return std::nullopt;
  return *repeat;
}

void validate_for_writing(const ParticleSet& parcels, const std::filesystem::path& path,
                          const char* writer) {
  try {
    parcels.validate();
  } catch (const Error& e) {
    fail(e.category(), writer, " ", path.string(), ": ", e.what());
  }
  if (parcels.id.size() != parcels.longitude.size())
    fail(ErrorCategory::invalid_input, writer, " ", path.string(),
         ": id and position arrays differ in length");
  if (const std::optional<std::int64_t> repeat = repeated_id(parcels.id))
    fail(ErrorCategory::invalid_input, writer, " ", path.string(), ": parcel id ", *repeat,
         " occurs more than once");
  for (const std::string& name : parcels.quantity_names()) {
    if (is_fixed_variable_name(name) || name.empty() || name.find('/') != std::string::npos)
      fail(ErrorCategory::invalid_input, writer, " ", path.string(), ": quantity name '", name,
           "' cannot be a netCDF variable of a parcel file (empty, contains '/', or one of lon, "
           "lat, pressure, time, id, status, trajectory)");
  }
}

double check_seconds_units(const std::string& units, const std::filesystem::path& file) {
  const met_conventions::TimeUnits parsed = met_conventions::parse_time_units(units, file);
  if (parsed.seconds_per_unit != 1.0)
    fail(ErrorCategory::invalid_input, file.string(), ": time units '", units,
         "': parcel times are written in seconds (e.g. \"seconds since 2000-01-01 00:00:00\")");
  if (parsed.reference.empty()) return std::numeric_limits<double>::quiet_NaN();
  return met_conventions::reference_instant(parsed.reference, std::nullopt, file.string());
}

void describe_coordinates(netcdf::Dataset& file, int lon, int lat, int pressure, int time,
                          const std::string& time_units) {
  struct Description {
    int variable;
    const char* standard_name;
    const char* long_name;
    std::string units;
  };
  const std::array<Description, 4> descriptions{{
      {lon, "longitude", "parcel longitude", "degrees_east"},
      {lat, "latitude", "parcel latitude", "degrees_north"},
      {pressure, "air_pressure", "parcel pressure", "Pa"},
      {time, "time", "time of the parcel position", time_units},
  }};
  for (const Description& d : descriptions) {
    file.put_text_attribute(d.variable, "standard_name", d.standard_name);
    file.put_text_attribute(d.variable, "long_name", d.long_name);
    file.put_text_attribute(d.variable, "units", d.units);
  }
  file.put_text_attribute(pressure, "positive", "down");
  file.put_text_attribute(pressure, "axis", "Z");
  file.put_text_attribute(time, "calendar", "proleptic_gregorian");
}

void describe_quantity(netcdf::Dataset& file, int variable, const std::string& name) {
  struct Known {
    const char* name;
    const char* long_name;
    const char* units;  // nullptr: the caller's (mass is 1 at release unless a file gives it)
  };
  static constexpr std::array<Known, 6> known{{
      {"mass", "tracer mass carried by the parcel (decays with -decay_time_trop/strat)", nullptr},
      {"subgrid_u", "subgrid eastward wind perturbation of the parcel (Langevin state)", "m s-1"},
      {"subgrid_v", "subgrid northward wind perturbation of the parcel (Langevin state)", "m s-1"},
      {"subgrid_omega", "subgrid vertical pressure velocity perturbation (Langevin state)",
       "Pa s-1"},
      {"path_horizontal_m", "horizontal path length travelled by the parcel", "m"},
      {"path_vertical_m", "vertical path length travelled by the parcel", "m"},
  }};
  file.put_text_attribute(variable, "coordinates", parcel_coordinates);
  for (const Known& k : known) {
    if (name != k.name) continue;
    file.put_text_attribute(variable, "long_name", k.long_name);
    if (k.units != nullptr) file.put_text_attribute(variable, "units", k.units);
    return;
  }
  // A quantity of the user's: its name is all Foehn knows of it.
  file.put_text_attribute(variable, "long_name", name);
}

void describe_status(netcdf::Dataset& file, int status) {
  file.put_text_attribute(status, "long_name", "parcel status");
  file.put_text_attribute(status, "flag_meanings", "active left_domain");
  const std::array<signed char, 2> flag_values{0, 1};
  netcdf::check(nc_put_att_schar(file.id(), status, "flag_values", NC_BYTE, flag_values.size(),
                                 flag_values.data()),
                file.path(), "writing attribute 'flag_values' of status", ErrorCategory::io);
  file.put_text_attribute(status, "coordinates", parcel_coordinates);
}

int id_type(const std::vector<std::int64_t>& ids) {
  const bool fits = std::all_of(ids.begin(), ids.end(), [](std::int64_t id) {
    return id >= std::numeric_limits<std::int32_t>::min() &&
           id <= std::numeric_limits<std::int32_t>::max();
  });
  return fits ? NC_INT : NC_INT64;
}

void describe_file(netcdf::Dataset& file, const char* feature_type, const char* foehn_format,
                   int id_type) {
  file.put_text_attribute(NC_GLOBAL, "Conventions",
                          id_type == NC_INT ? conventions : conventions_with_64bit_ids);
  file.put_text_attribute(NC_GLOBAL, "featureType", feature_type);
  file.put_text_attribute(NC_GLOBAL, "foehn_format", foehn_format);
  file.put_text_attribute(NC_GLOBAL, "source", "Foehn air-parcel transport (foehn-trajectories)");
  file.put_text_attribute(NC_GLOBAL, "title",
                          std::string("Foehn air parcels (") + feature_type + ")");
  // No time stamp: a rerun or a restart writes bitwise the same file (docs/particles_io.md).
  file.put_text_attribute(NC_GLOBAL, "history", std::string("written by Foehn, ") + foehn_format);
}

}  // namespace foehn::particles::cf
