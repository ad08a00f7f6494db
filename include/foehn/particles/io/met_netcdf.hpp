#pragma once
// Met fields from netCDF files: the documented layout of docs/particles_io.md ("Met files").
//
// A file holds the wind on a regular global longitude-latitude grid with pressure levels at
// one or more times. Coordinates are found by their CF attributes (axis, standard_name, units)
// or by name (time/valid_time, lev/level/pressure_level/plev, lat/latitude, lon/longitude):
// time (s, min, h or days, optionally "since <date>" in the standard calendar), pressure (Pa or
// hPa), latitude and longitude (degrees). Winds: u, v (m/s) and omega or w (Pa/s), or the CF
// standard names, dimensioned (time, level, lat, lon), float, double, or integers packed with
// scale_factor/add_offset (unpacked on reading). Reading checks the layout, the grid's
// regularity, and that no wind value is missing or non-finite; every error is a foehn::Error
// naming the file (invalid_input for bad content, io for a file that cannot be opened).
// Latitudes stored north to south (ERA5) are flipped on reading into the ascending order of
// MetGridGeometry; the file's level order is kept.
//
// Part of foehn_particles_io (Foehn::particles_io), never of libfoehn itself.

#include <cstddef>
#include <filesystem>
#include <limits>
#include <string>
#include <vector>

#include "foehn/particles/met_grid.hpp"

namespace foehn::particles {

// A met file's grid and times, from its coordinates alone.
struct MetFileInfo {
  std::filesystem::path path;
  // The grid; t0 = t1 = times.front(): the caller sets them for the pair it reads.
  MetGridGeometry geometry;
  std::vector<double> times;   // s from time_reference, strictly increasing
  std::string time_units;      // as in the file, e.g. "hours since 1900-01-01 00:00:00"
  std::string time_reference;  // what follows "since" (empty when nothing does)
  // That reference as an instant: s since 1970-01-01 00:00:00 UTC (proleptic Gregorian); NaN
  // without a reference.
  double time_reference_instant = std::numeric_limits<double>::quiet_NaN();
  std::string vertical_velocity;         // the variable used: "omega" or "w"
  bool latitude_north_to_south = false;  // the file's order; flipped on reading
};

// Opens the file and checks its layout and coordinates (not the winds).
MetFileInfo read_met_file_info(const std::filesystem::path& path);

// The wind at time index `time_index` (0-based) of the file, in MetGridGeometry's order.
// invalid_input for an index past the file's times, missing values (_FillValue,
// missing_value) or non-finite winds, naming file, variable, time and grid point.
WindLevel read_met_wind(const MetFileInfo& file, std::size_t time_index);

// invalid_input naming both files unless they have the same grid (sizes, first longitude and
// latitude, spacing, levels; to 1e-9 relative) and the same time reference.
void require_same_met_grid(const MetFileInfo& a, const MetFileInfo& b);

// The pair (time first_index of `first`, time second_index of `second`) as a MetGrid, e.g.
// consecutive times of one file or the last time of a file and the first of the next.
MetGrid read_met_grid(const MetFileInfo& first, std::size_t first_index, const MetFileInfo& second,
                      std::size_t second_index);
// Times time_index and time_index + 1 of one file.
MetGrid read_met_grid(const std::filesystem::path& path, std::size_t time_index);

enum class MetValueType { float32, float64 };

// How write_met_file lays out a file; every choice is one the reader accepts.
struct MetFileWriteOptions {
  MetValueType value_type = MetValueType::float64;  // of u, v and omega/w
  bool latitude_north_to_south = false;             // ERA5's order
  bool pressure_in_hpa = false;                     // lev units "hPa" instead of "Pa"
  std::string vertical_velocity = "omega";          // or "w"
  std::string time_units = "seconds";               // seconds; "since ..." may follow
};

// Writes winds[k] at times[k] (s) on `geometry` (its t0/t1 are ignored) as netCDF-4, first
// to "<path>.tmp", then renamed onto `path`. invalid_input for an invalid geometry, sizes that
// disagree, times not strictly increasing; io when the file cannot be written.
void write_met_file(const std::filesystem::path& path, const MetGridGeometry& geometry,
                    const std::vector<double>& times, const std::vector<WindLevel>& winds,
                    const MetFileWriteOptions& options = {});

}  // namespace foehn::particles
