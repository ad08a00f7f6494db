#include "foehn/particles/io/met_netcdf.hpp"

#include <netcdf.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>
#include <numbers>
#include <utility>

#include "cf_parcels.hpp"
#include "foehn/particles/met_axes.hpp"
#include "foehn/runtime/error.hpp"
#include "met_conventions.hpp"
#include "netcdf_support.hpp"

namespace foehn::particles {

namespace {

using netcdf::check;
using netcdf::Dataset;

constexpr double degrees_per_radian = 180.0 / std::numbers::pi;
// Plausibility limits of the values read: far beyond any atmospheric value, far below the
// garbage a corrupt or mislabelled file holds (undeclared fill values such as 1e20 or -999,
// levels in Pa labelled hPa), which would otherwise send parcels to NaN positions.
constexpr double highest_level_pressure = 2.0e5;     // Pa: twice sea-level pressure
constexpr double fastest_horizontal_wind = 500.0;    // m/s: jets stay below about 200 m/s
constexpr double fastest_pressure_velocity = 1.0e3;  // Pa/s: deep convection stays below ~500

// Lower case without blanks and exponent punctuation: "m s**-1" -> "ms-1", "Pa s^-1" -> "pas-1".
std::string normalised_units(const std::string& units) {
  std::string text;
  for (char c : units) {
    if (c == ' ' || c == '*' || c == '^') continue;
    text += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  return text;
}

double pascal_per_level_unit(const std::optional<std::string>& units, const std::string& name,
                             const std::filesystem::path& file) {
  if (!units) {
    fail(ErrorCategory::invalid_input, file.string(), ": variable '", name,
         "' has no units attribute (expected \"Pa\" or \"hPa\")");
  }
  if (const std::optional<double> pascal = met_conventions::pascal_per_pressure_unit(*units))
    return *pascal;
  fail(ErrorCategory::invalid_input, file.string(), ": ", name, " units '", *units,
       "' are not a pressure unit (expected \"Pa\" or \"hPa\")");
}

// The identifiers of an open met file's dimensions and variables, after checking the layout.
struct MetLayout {
  met_conventions::Coordinates coordinates;  // time, level, latitude, longitude
  std::array<int, 3> wind{-1, -1, -1};       // u, v, omega or w
  std::array<std::string, 3> wind_names{"u", "v", "omega"};
  std::array<met_conventions::Packing, 3> packing;
};

// Values of a 1-D coordinate variable on its own dimension, finite and not missing.
std::vector<double> read_coordinate(const Dataset& file, const char* name, int dimension) {
  const int variable = file.require_variable(name);
  if (file.variable_dimensions(variable) != std::vector<int>{dimension}) {
    fail(ErrorCategory::invalid_input, file.path().string(), ": coordinate variable '", name,
         "' has dimensions ", file.describe_dimensions(variable), ", expected (", name, ")");
  }
  std::vector<double> values =
      file.value_buffer(std::string("coordinate '") + name + "'", file.dimension_length(dimension));
  if (!values.empty()) {
    check(nc_get_var_double(file.id(), variable, values.data()), file.path(),
          std::string("reading coordinate '") + name + "'");
  }
  const std::vector<double> markers = netcdf::missing_value_markers(file, variable);
  for (std::size_t i = 0; i < values.size(); ++i) {
    const bool missing = std::find(markers.begin(), markers.end(), values[i]) != markers.end();
    if (!std::isfinite(values[i]) || missing) {
      fail(ErrorCategory::invalid_input, file.path().string(), ": coordinate '", name, "' value ",
           i, " is ", missing ? "missing (fill value)" : "not finite", ": ", values[i]);
    }
  }
  return values;
}

void require_degrees(const Dataset& file, const std::string& name) {
  const std::optional<std::string> units =
      file.text_attribute(file.require_variable(name.c_str()), "units");
  if (units && normalised_units(*units).rfind("degree", 0) != 0) {
    fail(ErrorCategory::invalid_input, file.path().string(), ": ", name, " units '", *units,
         "' are not degrees");
  }
}

void check_wind_variable(const Dataset& file, MetLayout& layout, int c) {
  const int variable = layout.wind[c];
  const char* name = layout.wind_names[c].c_str();
  const met_conventions::Coordinates& x = layout.coordinates;
  const std::vector<int> expected{x.time.dimension, x.level.dimension, x.latitude.dimension,
                                  x.longitude.dimension};
  if (file.variable_dimensions(variable) != expected) {
    fail(ErrorCategory::invalid_input, file.path().string(), ": variable '", name,
         "' has dimensions ", file.describe_dimensions(variable), ", expected (", x.time.name, ", ",
         x.level.name, ", ", x.latitude.name, ", ", x.longitude.name, ")");
  }
  // Packed integers (the usual ERA5 download) are unpacked on reading.
  layout.packing[static_cast<std::size_t>(c)] =
      met_conventions::packing_of(file, variable, layout.wind_names[c]);
  const std::optional<std::string> units = file.text_attribute(variable, "units");
  if (!units) return;
  const std::string u = normalised_units(*units);
  const bool ok = c < 2 ? (u == "m/s" || u == "ms-1") : (u == "pa/s" || u == "pas-1");
  if (!ok) {
    fail(ErrorCategory::invalid_input, file.path().string(), ": variable '", name, "' has units '",
         *units, "', expected ", c < 2 ? "m/s" : "Pa/s (pressure velocity)");
  }
}

// The times in seconds (finite, strictly increasing), their units and reference date.
void read_met_times(const Dataset& file, const met_conventions::Coordinates& x, MetFileInfo& info) {
  const int time_variable = x.time.variable;
  const std::optional<std::string> units = file.text_attribute(time_variable, "units");
  if (!units) {
    fail(ErrorCategory::invalid_input, file.path().string(), ": variable '", x.time.name,
         "' has no units attribute (e.g. \"seconds\" or \"hours since ...\")");
  }
  const met_conventions::TimeUnits time_units =
      met_conventions::parse_time_units(*units, file.path());
  info.time_units = *units;
  info.time_reference = time_units.reference;
  if (!time_units.reference.empty()) {
    info.time_reference_instant = met_conventions::reference_instant(
        time_units.reference, file.text_attribute(time_variable, "calendar"), file.path().string());
  }
  info.times = read_coordinate(file, x.time.name.c_str(), x.time.dimension);
  if (info.times.empty()) fail(ErrorCategory::invalid_input, file.path().string(), ": no times");
  for (std::size_t k = 0; k < info.times.size(); ++k) {
    info.times[k] *= time_units.seconds_per_unit;
    if (!std::isfinite(info.times[k])) {
      fail(ErrorCategory::invalid_input, file.path().string(), ": time ", k, " is ", info.times[k],
           " s, out of range of a double");
    }
    if (k > 0 && !(info.times[k] > info.times[k - 1])) {
      fail(ErrorCategory::invalid_input, file.path().string(), ": times are not strictly ",
           "increasing at index ", k, " (", info.times[k - 1], " s then ", info.times[k], " s)");
    }
  }
}

MetFileInfo inspect(const Dataset& file, MetLayout& layout) {
  MetFileInfo info;
  info.path = file.path();
  layout.coordinates = met_conventions::find_coordinates(file);
  const met_conventions::Coordinates& x = layout.coordinates;
  read_met_times(file, x, info);

  MetGridGeometry& g = info.geometry;
  const double pascal = pascal_per_level_unit(file.text_attribute(x.level.variable, "units"),
                                              x.level.name, file.path());
  g.pressure_levels = read_coordinate(file, x.level.name.c_str(), x.level.dimension);
  for (std::size_t k = 0; k < g.pressure_levels.size(); ++k) {
    double& p = g.pressure_levels[k];
    p *= pascal;
    if (p > highest_level_pressure) {
      fail(ErrorCategory::invalid_input, file.path().string(), ": ", x.level.name, "[", k, "] is ",
           p, " Pa, above ", highest_level_pressure,
           " Pa: not an atmospheric pressure (are the units of '", x.level.name, "' right?)");
    }
  }
  require_degrees(file, x.latitude.name);
  require_degrees(file, x.longitude.name);
  const std::vector<double> lon =
      read_coordinate(file, x.longitude.name.c_str(), x.longitude.dimension);
  const std::vector<double> lat =
      read_coordinate(file, x.latitude.name.c_str(), x.latitude.dimension);
  // The reading of the axes the Python MetGrid shares (met_grid.hpp).
  const HorizontalAxes axes =
      describe_horizontal_axes(lon, lat, AngleUnit::degrees, file.path().string());
  g.nlon = axes.nlon;
  g.nlat = axes.nlat;
  g.first_longitude = axes.first_longitude;
  g.first_latitude = axes.first_latitude;
  g.latitude_spacing = axes.latitude_spacing;
  info.latitude_north_to_south = axes.latitude_north_to_south;
  g.t0 = g.t1 = info.times.front();
  MetGridGeometry checked = g;
  checked.t1 = checked.t0 + 1.0;  // validate() wants a pair; the caller picks the real one
  try {
    checked.validate();
  } catch (const Error& e) {
    fail(e.category(), file.path().string(), ": ", e.what());
  }

  constexpr std::array<const char*, 3> wanted{
      "eastward wind: variable 'u' or standard_name eastward_wind",
      "northward wind: variable 'v' or standard_name northward_wind",
      "vertical velocity: variable 'omega' or 'w' (Pa/s), or standard_name "
      "lagrangian_tendency_of_air_pressure"};
  for (int c = 0; c < 3; ++c) {
    const std::optional<int> variable =
        met_conventions::find_wind(file, c, layout.wind_names[static_cast<std::size_t>(c)]);
    if (!variable) fail(ErrorCategory::invalid_input, file.path().string(), ": no ", wanted[c]);
    layout.wind[static_cast<std::size_t>(c)] = *variable;
  }
  info.vertical_velocity = layout.wind_names[2];
  for (int c = 0; c < 3; ++c) check_wind_variable(file, layout, c);
  return info;
}

// One component at one time into `values` (grid order), checked for missing and non-finite
// values before the rows are flipped, so the indices reported are the file's own.
void read_component(const Dataset& file, const MetLayout& layout, const MetFileInfo& info, int c,
                    std::size_t time_index, std::vector<double>& values) {
  const MetGridGeometry& g = info.geometry;
  const std::size_t nlev = g.pressure_levels.size(), nlat = static_cast<std::size_t>(g.nlat),
                    nlon = static_cast<std::size_t>(g.nlon);
  const std::string& name = layout.wind_names[c];
  if (values.size() != g.point_count())
    values = file.value_buffer("variable '" + name + "' at one time", g.point_count());
  const std::array<std::size_t, 4> start{time_index, 0, 0, 0}, count{1, nlev, nlat, nlon};
  check(nc_get_vara_double(file.id(), layout.wind[c], start.data(), count.data(), values.data()),
        file.path(),
        "reading variable '" + name + "' at time index " + std::to_string(time_index) + " (" +
            std::to_string(nlev) + " x " + std::to_string(nlat) + " x " + std::to_string(nlon) +
            " values)");
  // Fill values are stored values: compared before unpacking.
  const std::vector<double> markers = netcdf::missing_value_markers(file, layout.wind[c]);
  const met_conventions::Packing& packing = layout.packing[static_cast<std::size_t>(c)];
  const double limit = c < 2 ? fastest_horizontal_wind : fastest_pressure_velocity;
  for (std::size_t point = 0; point < values.size(); ++point) {
    const double stored = values[point];
    const bool missing = std::find(markers.begin(), markers.end(), stored) != markers.end();
    if (packing.packed && !missing) values[point] = stored * packing.scale + packing.offset;
    const double value = values[point];
    if (!missing && std::fabs(value) <= limit) continue;
    const std::string where =
        foehn::detail::concat(" at lev index ", point / (nlat * nlon), ", lat index ",
                              point / nlon % nlat, ", lon index ", point % nlon);
    if (missing || !std::isfinite(value)) {
      fail(ErrorCategory::invalid_input, file.path().string(), ": variable '", name,
           "' at time index ", time_index, " has a ",
           missing ? "missing value (_FillValue/missing_value present)" : "non-finite value", " ",
           value, where);
    }
    fail(ErrorCategory::invalid_input, file.path().string(), ": variable '", name,
         "' at time index ", time_index, " has the implausible value ", value, where,
         " (magnitude above ", limit, c < 2 ? " m/s)" : " Pa/s)");
  }
  if (!info.latitude_north_to_south) return;
  for (std::size_t k = 0; k < nlev; ++k) {
    double* level = values.data() + k * nlat * nlon;
    for (std::size_t j = 0; j < nlat / 2; ++j) {
      std::swap_ranges(level + j * nlon, level + (j + 1) * nlon, level + (nlat - 1 - j) * nlon);
    }
  }
}

bool nearly_equal(double a, double b) {
  return std::fabs(a - b) <= 1e-9 * std::max({1.0, std::fabs(a), std::fabs(b)});
}

}  // namespace

MetFileInfo read_met_file_info(const std::filesystem::path& path) {
  Dataset file = Dataset::open_for_reading(path);
  MetLayout layout;
  MetFileInfo info = inspect(file, layout);
  file.close(ErrorCategory::invalid_input);
  return info;
}

WindLevel read_met_wind(const MetFileInfo& expected, std::size_t time_index) {
  Dataset file = Dataset::open_for_reading(expected.path);
  MetLayout layout;
  const MetFileInfo info = inspect(file, layout);
  require_same_met_grid(expected, info);  // the file may have been replaced since
  if (time_index >= info.times.size()) {
    fail(ErrorCategory::invalid_input, info.path.string(), ": time index ", time_index,
         " is out of range: the file has ", info.times.size(), " time(s)");
  }
  WindLevel wind;
  read_component(file, layout, info, 0, time_index, wind.u);
  read_component(file, layout, info, 1, time_index, wind.v);
  read_component(file, layout, info, 2, time_index, wind.omega);
  file.close(ErrorCategory::invalid_input);
  return wind;
}

void require_same_met_grid(const MetFileInfo& a, const MetFileInfo& b) {
  const MetGridGeometry &x = a.geometry, &y = b.geometry;
  bool same = x.nlon == y.nlon && x.nlat == y.nlat &&
              x.pressure_levels.size() == y.pressure_levels.size() &&
              nearly_equal(x.first_longitude, y.first_longitude) &&
              nearly_equal(x.first_latitude, y.first_latitude) &&
              nearly_equal(x.latitude_spacing, y.latitude_spacing);
  for (std::size_t k = 0; same && k < x.pressure_levels.size(); ++k)
    same = nearly_equal(x.pressure_levels[k], y.pressure_levels[k]);
  if (!same) {
    fail(ErrorCategory::invalid_input, "met files ", a.path.string(), " (", x.nlon, " x ", x.nlat,
         " x ", x.pressure_levels.size(), ") and ", b.path.string(), " (", y.nlon, " x ", y.nlat,
         " x ", y.pressure_levels.size(), ") are not on the same grid");
  }
  // The same instant written two ways ("1900-01-01" and "1900-01-01 00:00:00") is one reference.
  const bool same_instant = std::isfinite(a.time_reference_instant) &&
                            std::isfinite(b.time_reference_instant) &&
                            a.time_reference_instant == b.time_reference_instant;
  if (a.time_reference != b.time_reference && !same_instant) {
    fail(ErrorCategory::invalid_input, "met files ", a.path.string(), " and ", b.path.string(),
         " count time from different references ('", a.time_reference, "' and '", b.time_reference,
         "')");
  }
}

MetGrid read_met_grid(const MetFileInfo& first, std::size_t first_index, const MetFileInfo& second,
                      std::size_t second_index) {
  require_same_met_grid(first, second);
  for (const auto& [info, index] :
       {std::pair{&first, first_index}, std::pair{&second, second_index}}) {
    if (index >= info->times.size()) {
      fail(ErrorCategory::invalid_input, info->path.string(), ": time index ", index,
           " is out of range: the file has ", info->times.size(), " time(s)");
    }
  }
  MetGridGeometry geometry = first.geometry;
  geometry.t0 = first.times[first_index];
  geometry.t1 = second.times[second_index];
  if (!(geometry.t1 > geometry.t0)) {
    fail(ErrorCategory::invalid_input, "met times do not increase: ", first.path.string(), " [",
         first_index, "] = ", geometry.t0, " s, ", second.path.string(), " [", second_index,
         "] = ", geometry.t1, " s");
  }
  return MetGrid(std::move(geometry), read_met_wind(first, first_index),
                 read_met_wind(second, second_index));
}

MetGrid read_met_grid(const std::filesystem::path& path, std::size_t time_index) {
  const MetFileInfo info = read_met_file_info(path);
  if (time_index + 1 >= info.times.size()) {
    fail(ErrorCategory::invalid_input, path.string(), ": time indices ", time_index, " and ",
         time_index + 1, " are out of range: the file has ", info.times.size(), " time(s)");
  }
  return read_met_grid(info, time_index, info, time_index + 1);
}

namespace {

// Every input of write_met_file checked before the file is created.
void check_met_write_inputs(const std::filesystem::path& path, const MetGridGeometry& geometry,
                            const std::vector<double>& times, const std::vector<WindLevel>& winds,
                            const MetFileWriteOptions& options) {
  MetGridGeometry checked = geometry;
  checked.t0 = 0.0;
  checked.t1 = 1.0;
  checked.validate();
  const std::size_t points = geometry.point_count();
  if (times.empty() || times.size() != winds.size()) {
    fail(ErrorCategory::invalid_input, "write_met_file ", path.string(), ": ", times.size(),
         " times for ", winds.size(), " wind fields (need the same number, at least 1)");
  }
  for (std::size_t k = 0; k < winds.size(); ++k) {
    if (!std::isfinite(times[k]) || (k > 0 && !(times[k] > times[k - 1]))) {
      fail(ErrorCategory::invalid_input, "write_met_file ", path.string(),
           ": times must be finite and strictly increasing (index ", k, ")");
    }
    for (const std::vector<double>* component : {&winds[k].u, &winds[k].v, &winds[k].omega}) {
      if (component->size() != points) {
        fail(ErrorCategory::invalid_input, "write_met_file ", path.string(), ": wind ", k,
             " has a component of ", component->size(), " values, the grid has ", points);
      }
    }
  }
  if (options.vertical_velocity != "omega" && options.vertical_velocity != "w") {
    fail(ErrorCategory::invalid_input, "write_met_file: vertical velocity name '",
         options.vertical_velocity, "' (\"omega\" or \"w\")");
  }
}

// The variables of a met file, by netCDF id.
struct MetFileVariables {
  int time = -1, lev = -1, lat = -1, lon = -1;
  std::array<int, 3> wind{-1, -1, -1};  // u, v, the vertical velocity
};

// Dimensions, variables and their CF attributes; ends the definitions.
MetFileVariables define_met_file(Dataset& file, const MetGridGeometry& geometry,
                                 std::size_t time_count, const MetFileWriteOptions& options) {
  const std::size_t nlev = geometry.pressure_levels.size(),
                    nlat = static_cast<std::size_t>(geometry.nlat),
                    nlon = static_cast<std::size_t>(geometry.nlon);
  const int time_dim = file.define_dimension("time", time_count);
  const int lev_dim = file.define_dimension("lev", nlev);
  const int lat_dim = file.define_dimension("lat", nlat);
  const int lon_dim = file.define_dimension("lon", nlon);
  const int time_var = file.define_variable("time", NC_DOUBLE, {time_dim});
  const int lev_var = file.define_variable("lev", NC_DOUBLE, {lev_dim});
  const int lat_var = file.define_variable("lat", NC_DOUBLE, {lat_dim});
  const int lon_var = file.define_variable("lon", NC_DOUBLE, {lon_dim});
  file.put_text_attribute(time_var, "units", options.time_units);
  file.put_text_attribute(lev_var, "units", options.pressure_in_hpa ? "hPa" : "Pa");
  file.put_text_attribute(lat_var, "units", "degrees_north");
  file.put_text_attribute(lon_var, "units", "degrees_east");
  const int type = options.value_type == MetValueType::float32 ? NC_FLOAT : NC_DOUBLE;
  const std::vector<int> dims{time_dim, lev_dim, lat_dim, lon_dim};
  const std::array<int, 3> wind_var{
      file.define_variable("u", type, dims), file.define_variable("v", type, dims),
      file.define_variable(options.vertical_velocity.c_str(), type, dims)};
  // CF names, so that a CF reader (and the CF checkers) know what each variable is. "w" is
  // ERA5's name of the same pressure velocity.
  const struct {
    int variable;
    const char* standard_name;
    const char* long_name;
  } names[] = {
      {time_var, "time", "time"},
      {lev_var, "air_pressure", "pressure level"},
      {lat_var, "latitude", "latitude"},
      {lon_var, "longitude", "longitude"},
      {wind_var[0], "eastward_wind", "eastward wind"},
      {wind_var[1], "northward_wind", "northward wind"},
      {wind_var[2], "lagrangian_tendency_of_air_pressure", "vertical pressure velocity"},
  };
  for (const auto& name : names) {
    file.put_text_attribute(name.variable, "standard_name", name.standard_name);
    file.put_text_attribute(name.variable, "long_name", name.long_name);
  }
  file.put_text_attribute(time_var, "axis", "T");
  file.put_text_attribute(lev_var, "axis", "Z");
  file.put_text_attribute(lev_var, "positive", "down");
  file.put_text_attribute(lat_var, "axis", "Y");
  file.put_text_attribute(lon_var, "axis", "X");
  for (int c = 0; c < 3; ++c)
    file.put_text_attribute(wind_var[c], "units", c < 2 ? "m s-1" : "Pa s-1");
  file.put_text_attribute(NC_GLOBAL, "Conventions", cf::conventions);
  file.put_text_attribute(NC_GLOBAL, "title", "wind fields for Foehn's air-parcel transport");
  file.put_text_attribute(NC_GLOBAL, "foehn_format", "met file 1 (docs/particles_io.md)");
  file.end_definitions();

  return {time_var, lev_var, lat_var, lon_var, wind_var};
}

// The time, pressure, latitude and longitude coordinates, in the file's units and order.
void write_met_coordinates(Dataset& file, const std::filesystem::path& path,
                           const MetFileVariables& vars, const MetGridGeometry& geometry,
                           const std::vector<double>& times,
                           const met_conventions::TimeUnits& time_units,
                           const MetFileWriteOptions& options) {
  const std::size_t nlat = static_cast<std::size_t>(geometry.nlat),
                    nlon = static_cast<std::size_t>(geometry.nlon);
  const int time_var = vars.time, lev_var = vars.lev, lat_var = vars.lat, lon_var = vars.lon;
  std::vector<double> coordinate(times.size());
  for (std::size_t k = 0; k < times.size(); ++k)
    coordinate[k] = times[k] / time_units.seconds_per_unit;
  check(nc_put_var_double(file.id(), time_var, coordinate.data()), path, "writing time",
        ErrorCategory::io);
  coordinate = geometry.pressure_levels;
  for (double& p : coordinate) p /= options.pressure_in_hpa ? 100.0 : 1.0;
  check(nc_put_var_double(file.id(), lev_var, coordinate.data()), path, "writing lev",
        ErrorCategory::io);
  coordinate.resize(nlat);
  for (std::size_t j = 0; j < nlat; ++j) {
    const std::size_t row = options.latitude_north_to_south ? nlat - 1 - j : j;
    coordinate[j] =
        (geometry.first_latitude + static_cast<double>(row) * geometry.latitude_spacing) *
        degrees_per_radian;
  }
  check(nc_put_var_double(file.id(), lat_var, coordinate.data()), path, "writing lat",
        ErrorCategory::io);
  coordinate.resize(nlon);
  for (std::size_t i = 0; i < nlon; ++i) {
    coordinate[i] = (geometry.first_longitude +
                     2.0 * std::numbers::pi * static_cast<double>(i) / static_cast<double>(nlon)) *
                    degrees_per_radian;
  }
  check(nc_put_var_double(file.id(), lon_var, coordinate.data()), path, "writing lon",
        ErrorCategory::io);
}

// The wind components of every time, rows reversed for a north-to-south file.
void write_met_winds(Dataset& file, const std::filesystem::path& path, const MetFileVariables& vars,
                     const MetGridGeometry& geometry, const std::vector<WindLevel>& winds,
                     const MetFileWriteOptions& options) {
  const std::size_t nlev = geometry.pressure_levels.size(),
                    nlat = static_cast<std::size_t>(geometry.nlat),
                    nlon = static_cast<std::size_t>(geometry.nlon);
  const std::array<int, 3>& wind_var = vars.wind;
  std::vector<double> flipped(options.latitude_north_to_south ? nlat * nlon : 0);
  for (std::size_t k = 0; k < winds.size(); ++k) {
    const std::array<const std::vector<double>*, 3> components{&winds[k].u, &winds[k].v,
                                                               &winds[k].omega};
    for (int c = 0; c < 3; ++c) {
      const std::string what =
          "writing wind component " + std::to_string(c) + " at time index " + std::to_string(k);
      if (!options.latitude_north_to_south) {
        const std::array<std::size_t, 4> start{k, 0, 0, 0}, count{1, nlev, nlat, nlon};
        check(nc_put_vara_double(file.id(), wind_var[c], start.data(), count.data(),
                                 components[c]->data()),
              path, what, ErrorCategory::io);
        continue;
      }
      for (std::size_t level = 0; level < nlev; ++level) {  // one level at a time, rows reversed
        const double* source = components[c]->data() + level * nlat * nlon;
        for (std::size_t j = 0; j < nlat; ++j)
          std::copy_n(source + (nlat - 1 - j) * nlon, nlon, flipped.data() + j * nlon);
        const std::array<std::size_t, 4> start{k, level, 0, 0}, count{1, 1, nlat, nlon};
        check(
            nc_put_vara_double(file.id(), wind_var[c], start.data(), count.data(), flipped.data()),
            path, what, ErrorCategory::io);
      }
    }
  }
}

}  // namespace

void write_met_file(const std::filesystem::path& path, const MetGridGeometry& geometry,
                    const std::vector<double>& times, const std::vector<WindLevel>& winds,
                    const MetFileWriteOptions& options) {
  check_met_write_inputs(path, geometry, times, winds, options);
  const met_conventions::TimeUnits time_units =
      met_conventions::parse_time_units(options.time_units, path);
  netcdf::AtomicOutput output(path);
  Dataset& file = output.dataset();
  const MetFileVariables vars = define_met_file(file, geometry, times.size(), options);
  write_met_coordinates(file, path, vars, geometry, times, time_units, options);
  write_met_winds(file, path, vars, geometry, winds, options);
  output.commit();
}

}  // namespace foehn::particles
