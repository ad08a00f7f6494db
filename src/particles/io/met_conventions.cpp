#include "met_conventions.hpp"

#include <netcdf.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>
#include <regex>
#include <vector>

#include "foehn/runtime/error.hpp"

namespace foehn::particles::met_conventions {
namespace {

using netcdf::Dataset;

std::string lowered(std::string text) {
  for (char& c : text) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return text;
}

std::string attribute(const Dataset& file, int variable, const char* name) {
  const std::optional<std::string> text = file.text_attribute(variable, name);
  return text ? lowered(*text) : std::string();
}

enum Axis { time_axis, level_axis, latitude_axis, longitude_axis, axis_count };
constexpr std::array<const char*, axis_count> axis_names{"time", "vertical", "latitude",
                                                         "longitude"};

// The names each axis goes by when no attribute says so (Foehn's, ERA5's new and old, CMIP).
const std::array<std::vector<std::string>, axis_count>& fallback_names() {
  static const std::array<std::vector<std::string>, axis_count> names{
      std::vector<std::string>{"time", "valid_time"},
      std::vector<std::string>{"lev", "level", "pressure_level", "plev", "isobaricinhpa"},
      std::vector<std::string>{"lat", "latitude"}, std::vector<std::string>{"lon", "longitude"}};
  return names;
}

bool is_length_unit(const std::string& units) {
  return units == "m" || units == "km" || units == "meter" || units == "meters" ||
         units == "metre" || units == "metres" || units == "gpm";
}

// Which axis the attributes of `variable` name, if any (CF: axis, then standard_name, then
// units). Vertical coordinates that are not pressure are reported as the vertical axis too,
// and refused by the caller with the reason.
std::optional<Axis> axis_by_attributes(const Dataset& file, int variable) {
  const std::string axis = attribute(file, variable, "axis");
  if (axis == "t") return time_axis;
  if (axis == "z") return level_axis;
  if (axis == "y") return latitude_axis;
  if (axis == "x") return longitude_axis;
  const std::string standard_name = attribute(file, variable, "standard_name");
  if (standard_name == "time") return time_axis;
  if (standard_name == "air_pressure" || standard_name == "geopotential_height" ||
      standard_name == "height" || standard_name == "altitude" ||
      standard_name.find("atmosphere_") == 0)
    return level_axis;
  if (standard_name == "latitude") return latitude_axis;
  if (standard_name == "longitude") return longitude_axis;
  const std::string units = attribute(file, variable, "units");
  if (units.find(" since ") != std::string::npos) return time_axis;
  if (units == "degrees_north" || units == "degree_north" || units == "degree_n" ||
      units == "degrees_n")
    return latitude_axis;
  if (units == "degrees_east" || units == "degree_east" || units == "degree_e" ||
      units == "degrees_e")
    return longitude_axis;
  return std::nullopt;
}

int variable_count(const Dataset& file) {
  int count = 0;
  netcdf::check(nc_inq_nvars(file.id(), &count), file.path(), "counting variables");
  return count;
}

}  // namespace

std::optional<double> pascal_per_pressure_unit(const std::string& units) {
  std::string u;
  for (char c : lowered(units)) {
    if (c != ' ') u += c;
  }
  if (u == "pa") return 1.0;
  if (u == "hpa" || u == "mb" || u == "mbar" || u == "millibar" || u == "millibars") return 100.0;
  return std::nullopt;
}

Coordinates find_coordinates(const Dataset& file) {
  const std::string path = file.path().string();
  std::array<Coordinate, axis_count> found;
  auto claim = [&](Axis axis, int variable, const char* how) {
    Coordinate& slot = found[axis];
    if (slot.variable == variable) return;
    if (slot.variable >= 0)
      fail(ErrorCategory::invalid_input, path, ": variables '", slot.name, "' and '",
           file.variable_name(variable), "' both claim the ", axis_names[axis], " axis (", how,
           ")");
    const std::vector<int> dimensions = file.variable_dimensions(variable);
    if (dimensions.size() != 1)
      fail(ErrorCategory::invalid_input, path, ": ", axis_names[axis], " coordinate '",
           file.variable_name(variable), "' has dimensions ", file.describe_dimensions(variable),
           "; a coordinate spans one dimension");
    slot = {variable, dimensions[0], file.variable_name(variable)};
  };
  // Attributes first, over coordinate variables (name = its one dimension's name) only: data
  // variables carry units such as "degrees_north" too (e.g. a parcel latitude field).
  const int variables = variable_count(file);
  for (int variable = 0; variable < variables; ++variable) {
    const std::vector<int> dimensions = file.variable_dimensions(variable);
    if (dimensions.size() != 1 ||
        file.dimension_name(dimensions[0]) != file.variable_name(variable))
      continue;
    if (const std::optional<Axis> axis = axis_by_attributes(file, variable))
      claim(*axis, variable, "by its attributes");
  }
  for (int axis = 0; axis < axis_count; ++axis) {
    if (found[axis].variable >= 0) continue;
    for (const std::string& name : fallback_names()[static_cast<std::size_t>(axis)]) {
      for (int variable = 0; variable < variables; ++variable) {
        if (lowered(file.variable_name(variable)) == name)
          claim(static_cast<Axis>(axis), variable, "by name");
      }
      if (found[axis].variable >= 0) break;
    }
    if (found[axis].variable < 0)
      fail(
          ErrorCategory::invalid_input, path, ": no ", axis_names[axis],
          " coordinate (looked for the CF attributes axis, standard_name, units and the names ",
          [&] {
            std::string list;
            for (const std::string& n : fallback_names()[static_cast<std::size_t>(axis)])
              list += (list.empty() ? "" : ", ") + n;
            return list;
          }(),
          ")");
  }
  // Pressure levels only: the met grid interpolates in log pressure.
  const Coordinate& level = found[level_axis];
  const std::string units = attribute(file, level.variable, "units");
  const std::string standard_name = attribute(file, level.variable, "standard_name");
  if (is_length_unit(units) || standard_name == "geopotential_height" ||
      standard_name == "height" || standard_name == "altitude")
    fail(ErrorCategory::invalid_input, path, ": the vertical coordinate '", level.name,
         "' is a height (units '", units,
         "'); Foehn's met grid is on pressure levels: interpolate the file to pressure levels "
         "first (e.g. cdo ap2pl, or download pressure-level data)");
  if (standard_name.find("atmosphere_") == 0 ||
      (!units.empty() && !pascal_per_pressure_unit(units)))
    fail(ErrorCategory::invalid_input, path, ": the vertical coordinate '", level.name,
         "' is not pressure (standard_name '", standard_name, "', units '", units,
         "'); Foehn's met grid is on pressure levels (Pa or hPa)");
  return {found[time_axis], found[level_axis], found[latitude_axis], found[longitude_axis]};
}

std::optional<int> find_wind(const Dataset& file, int component, std::string& name) {
  static const std::array<std::vector<const char*>, 3> names{
      std::vector<const char*>{"u"}, std::vector<const char*>{"v"},
      std::vector<const char*>{"omega", "w"}};
  static const std::array<std::vector<std::string>, 3> standard_names{
      std::vector<std::string>{"eastward_wind"}, std::vector<std::string>{"northward_wind"},
      std::vector<std::string>{"lagrangian_tendency_of_air_pressure",
                               "vertical_air_velocity_expressed_as_tendency_of_pressure"}};
  for (const char* candidate : names[static_cast<std::size_t>(component)]) {
    if (const std::optional<int> variable = file.find_variable(candidate)) {
      name = candidate;
      return variable;
    }
  }
  const int variables = variable_count(file);
  for (int variable = 0; variable < variables; ++variable) {
    const std::string standard_name = attribute(file, variable, "standard_name");
    for (const std::string& wanted : standard_names[static_cast<std::size_t>(component)]) {
      if (standard_name == wanted) {
        name = file.variable_name(variable);
        return variable;
      }
    }
  }
  return std::nullopt;
}

Packing packing_of(const Dataset& file, int variable, const std::string& name) {
  Packing packing;
  const std::string path = file.path().string();
  for (const char* key : {"scale_factor", "add_offset"}) {
    if (!file.has_attribute(variable, key)) continue;
    const std::vector<double> value = file.numeric_attribute(variable, key);
    if (value.size() != 1 || !std::isfinite(value[0]) ||
        (std::string(key) == "scale_factor" && value[0] == 0.0))
      fail(ErrorCategory::invalid_input, path, ": variable '", name, "': attribute ", key,
           " must be one finite number", std::string(key) == "scale_factor" ? ", not 0" : "");
    (std::string(key) == "scale_factor" ? packing.scale : packing.offset) = value[0];
    packing.packed = true;
  }
  const int type = file.variable_type(variable);
  const bool floating = type == NC_FLOAT || type == NC_DOUBLE;
  const bool integer = type == NC_BYTE || type == NC_SHORT || type == NC_INT || type == NC_UBYTE ||
                       type == NC_USHORT || type == NC_UINT;
  if (!floating && !(integer && packing.packed))
    fail(ErrorCategory::invalid_input, path, ": variable '", name, "' has netCDF type ", type,
         integer ? " without scale_factor/add_offset" : "",
         "; expected float, double, or an integer type packed with scale_factor/add_offset");
  return packing;
}

TimeUnits parse_time_units(const std::string& units, const std::filesystem::path& file) {
  std::string lowered;
  for (char c : units) lowered += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  const std::size_t since = lowered.find(" since ");
  std::string unit = lowered.substr(0, since);
  unit.erase(unit.find_last_not_of(' ') + 1);
  unit.erase(0, unit.find_first_not_of(' '));
  TimeUnits parsed;
  if (since != std::string::npos) {
    parsed.reference = units.substr(since + 7);
    parsed.reference.erase(0, parsed.reference.find_first_not_of(' '));
  }
  if (unit == "s" || unit == "sec" || unit == "second" || unit == "seconds") {
    parsed.seconds_per_unit = 1.0;
  } else if (unit == "min" || unit == "minute" || unit == "minutes") {
    parsed.seconds_per_unit = 60.0;
  } else if (unit == "h" || unit == "hour" || unit == "hours") {
    parsed.seconds_per_unit = 3600.0;
  } else if (unit == "d" || unit == "day" || unit == "days") {
    parsed.seconds_per_unit = 86400.0;
  } else {
    fail(ErrorCategory::invalid_input, file.string(), ": time units '", units,
         "' not understood (expected seconds, minutes, hours or days, optionally followed by "
         "'since <reference>')");
  }
  return parsed;
}

double reference_instant(const std::string& reference, const std::optional<std::string>& calendar,
                         const std::string& file) {
  if (calendar) {
    const std::string c = lowered(*calendar);
    if (c != "standard" && c != "gregorian" && c != "proleptic_gregorian")
      fail(ErrorCategory::invalid_input, file, ": time calendar '", *calendar,
           "' is not supported (standard, gregorian or proleptic_gregorian)");
  }
  // The longest date accepted is about 40 characters. libstdc++'s std::regex recurses once per
  // character matched, so a reference of tens of thousands (blanks, digits) overflowed the stack.
  constexpr std::size_t longest_reference = 64;
  if (reference.size() > longest_reference)
    fail(ErrorCategory::invalid_input, file, ": time reference of ", reference.size(),
         " characters is not a date (at most ", longest_reference,
         "; expected e.g. 1900-01-01 00:00:00)");
  static const std::regex date(
      R"(^\s*(-?\d{1,4})-(\d{1,2})-(\d{1,2})(?:[ T](\d{1,2}):(\d{1,2})(?::(\d{1,2}(?:\.\d*)?))?)?)"
      R"(\s*(Z|UTC|GMT|[+-]\d{1,2}(?::?(\d{2}))?)?\s*$)");
  std::smatch m;
  if (!std::regex_match(reference, m, date))
    fail(ErrorCategory::invalid_input, file, ": time reference '", reference,
         "' is not a date (expected e.g. 1900-01-01 00:00:00)");
  const long long year = std::stoll(m[1]);
  const int month = std::stoi(m[2]), day = std::stoi(m[3]);
  const int hour = m[4].matched ? std::stoi(m[4]) : 0;
  const int minute = m[5].matched ? std::stoi(m[5]) : 0;
  const double second = m[6].matched ? std::stod(m[6]) : 0.0;
  const bool leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
  constexpr std::array<int, 12> month_days{31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  if (month < 1 || month > 12 || day < 1 ||
      day > month_days[static_cast<std::size_t>(month - 1)] + (month == 2 && leap) || hour > 23 ||
      minute > 59 || second >= 61.0)
    fail(ErrorCategory::invalid_input, file, ": time reference '", reference,
         "' is not a valid date and time");
  // Days from 1970-01-01 in the proleptic Gregorian calendar: count whole 400-year eras from
  // March 1 of year 0 (so that the leap day is the last day of a year), then the days within.
  const long long y = year - (month <= 2 ? 1 : 0);
  const long long era = (y >= 0 ? y : y - 399) / 400;
  const long long year_of_era = y - era * 400;
  const long long day_of_year = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1;
  const long long day_of_era =
      year_of_era * 365 + year_of_era / 4 - year_of_era / 100 + day_of_year;
  const long long days = era * 146097 + day_of_era - 719468;
  double offset_seconds = 0.0;
  if (m[7].matched && m[7].str()[0] != 'Z' && m[7].str()[0] != 'U' && m[7].str()[0] != 'G') {
    const std::string zone = m[7].str();
    const int sign = zone[0] == '-' ? -1 : 1;
    const int zone_hours = std::stoi(zone.substr(1, zone.find(':') == std::string::npos
                                                        ? std::min<std::size_t>(2, zone.size() - 1)
                                                        : zone.find(':') - 1));
    const int zone_minutes = m[8].matched ? std::stoi(m[8]) : 0;
    // UTC offsets in use run from -12:00 to +14:00; anything else is a typing error that would
    // otherwise be copied into every output.
    if (zone_hours > 14 || zone_minutes > 59)
      fail(ErrorCategory::invalid_input, file, ": time zone '", zone, "' of time reference '",
           reference, "' is not a UTC offset (at most 14:00 either way)");
    offset_seconds = sign * (zone_hours * 3600.0 + zone_minutes * 60.0);
  }
  return static_cast<double>(days) * 86400.0 + hour * 3600.0 + minute * 60.0 + second -
         offset_seconds;
}

}  // namespace foehn::particles::met_conventions
