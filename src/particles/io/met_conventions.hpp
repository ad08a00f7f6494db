#pragma once
// Internal to foehn_particles_io: how a met file says what its variables are. Coordinates are
// found the CF way (axis, standard_name, units) with the usual names as fallbacks (Foehn's own
// time/lev/lat/lon and the current ERA5 download's valid_time/pressure_level/latitude/
// longitude); packed variables (integers with scale_factor/add_offset) are described so that
// the reader can unpack them; a time reference ("hours since 1900-01-01 00:00:00") becomes an
// instant. docs/particles_io.md ("Met files") is the user-facing description.

#include <filesystem>
#include <optional>
#include <string>

#include "netcdf_support.hpp"

namespace foehn::particles::met_conventions {

// A 1-D coordinate variable and the dimension it spans.
struct Coordinate {
  int variable = -1;
  int dimension = -1;
  std::string name;
};

struct Coordinates {
  Coordinate time, level, latitude, longitude;
};

// invalid_input naming the file when an axis has no coordinate, when two variables claim one
// axis, when the vertical coordinate is not pressure (heights, model levels: the met grid is on
// pressure levels), or when a coordinate is not 1-D.
[[nodiscard]] Coordinates find_coordinates(const netcdf::Dataset& file);

// Pa per unit of a pressure unit ("Pa" 1; "hPa", "mb", "mbar", "millibar(s)" 100; case and
// blanks ignored); nullopt for anything else.
[[nodiscard]] std::optional<double> pascal_per_pressure_unit(const std::string& units);

// The wind component c (0 u, 1 v, 2 vertical pressure velocity) by name (u, v, omega or w) or
// by CF standard_name; nullopt when there is none. `name` receives the variable's name.
[[nodiscard]] std::optional<int> find_wind(const netcdf::Dataset& file, int component,
                                           std::string& name);

// value = stored * scale + offset for packed variables; {1, 0} otherwise. invalid_input when the
// variable is an integer type without packing attributes, or the attributes are not one finite
// number each.
struct Packing {
  double scale = 1.0;
  double offset = 0.0;
  bool packed = false;
};
[[nodiscard]] Packing packing_of(const netcdf::Dataset& file, int variable,
                                 const std::string& name);

// A CF time unit: "<unit>" or "<unit> since <reference>", unit one of s, sec, second(s), min,
// minute(s), h, hour(s), d, day(s) (any case). invalid_input naming the file otherwise.
struct TimeUnits {
  double seconds_per_unit = 1.0;
  std::string reference;  // after "since", trimmed; empty without "since"
};
[[nodiscard]] TimeUnits parse_time_units(const std::string& units,
                                         const std::filesystem::path& file);

// The instant a time reference names, in seconds since 1970-01-01 00:00:00 UTC in the proleptic
// Gregorian calendar: "1900-01-01", "1900-01-01 00:00:00", "2024-06-01T12:00:00Z",
// "2000-1-1 0:0:0.0 +01:00". invalid_input naming the file when it is not a date, or when the
// time variable's calendar is not standard, gregorian or proleptic_gregorian.
[[nodiscard]] double reference_instant(const std::string& reference,
                                       const std::optional<std::string>& calendar,
                                       const std::string& file);

}  // namespace foehn::particles::met_conventions
