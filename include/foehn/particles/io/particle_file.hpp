#pragma once
// Parcel snapshots as netCDF-4 files (layout: docs/particles_io.md, "Particle files").
//
// One file per output time, dimension `particle`; variables lon, lat (degrees), pressure (Pa),
// time (CF units "seconds since <reference>"), id (64-bit integer), status (0 active, 1 left
// the domain) and one double variable per named quantity, in the set's order. The file follows
// the CF conventions as a collection of points (featureType "point"), so CF tools (xarray,
// Panoply, cf-checker) know what each variable is; all snapshots of a run together form a CF
// trajectory file (trajectory_file.hpp). Writing goes to "<path>.tmp" and renames it onto
// <path>, so a reader never sees half a snapshot. Every value but lon and lat comes back
// bitwise; lon and lat pass through degrees and come back within 2 ulp (a radian cannot always
// be recovered exactly from a double in degrees).
//
// Part of foehn_particles_io (Foehn::particles_io), never of libfoehn itself.

#include <filesystem>
#include <limits>
#include <string>

#include "foehn/particles/particle_set.hpp"

namespace foehn::particles {

// The CF units of the `time` variable: seconds from a reference instant, e.g. "seconds since
// 1900-01-01 00:00:00" for a run on met files whose time is counted from 1900 (the parcels'
// times are seconds on the met files' clock). The default names the Unix epoch.
inline constexpr const char* default_particle_time_units = "seconds since 1970-01-01 00:00:00";

struct ParticleFileOptions {
  std::string time_units = default_particle_time_units;
};

// What a particle file says about its clock (read_particle_file's optional output).
struct ParticleFileTime {
  std::string units;      // the time variable's units as written
  std::string reference;  // the date after "since"; empty for plain "s" (files before CF)
  // The reference as seconds since 1970-01-01 00:00:00 UTC (proleptic Gregorian); NaN without.
  double reference_instant = std::numeric_limits<double>::quiet_NaN();
};

// The clock that time units name ("seconds since 1900-01-01", "hours since ...", "s");
// invalid_input for units that are not a time unit or a reference that is not a date.
ParticleFileTime parse_particle_time_units(const std::string& units);

// invalid_input for an inconsistent set (ParticleSet::validate), duplicate ids or a quantity
// named like a coordinate variable; io when the file cannot be written or renamed.
// invalid_input also for time units that are not "seconds since <a valid date>" (or "s").
void write_particle_file(const ParticleSet& parcels, const std::filesystem::path& path,
                         const ParticleFileOptions& options = {});

// io when the file cannot be opened; invalid_input (naming the file) when it is not netCDF,
// lacks the `particle` dimension or a coordinate variable, a variable is not on (particle),
// a coordinate is non-finite or missing, a latitude lies outside [-90, 90], an id repeats, a
// status is unknown, or the time units are not understood (units other than seconds are
// converted to seconds; another calendar than the standard one is refused). `time`, when given,
// receives the file's clock so that a caller can check it against its own. The `status`
// variable is optional (all parcels active without it), so hand-made initial files need only
// lon, lat, pressure, time and id.
ParticleSet read_particle_file(const std::filesystem::path& path, ParticleFileTime* time = nullptr);

}  // namespace foehn::particles
