#pragma once
// Internal to foehn_particles_io: the CF metadata that parcel snapshots (featureType "point")
// and trajectory files (featureType "trajectory") share, so both describe lon, lat, pressure,
// time and status the same way (docs/particles_io.md, "Particle files" and "Trajectory files").

#include <cstdint>
#include <filesystem>
#include <numbers>
#include <optional>
#include <string>
#include <vector>

#include "foehn/particles/particle_set.hpp"

#include "netcdf_support.hpp"

namespace foehn::particles::cf {

// CF 1.8 where the file uses nothing newer: 32-bit parcel ids and a signed-byte status (CF
// allows 64-bit and unsigned integers from 1.9 on). It is the newest version NCAR's cfchecker 4.1
// checks (a "CF-1.11" file was "not CF" to it). Ids beyond 32 bits are written as 64-bit
// integers under CF 1.11.
inline constexpr const char* conventions = "CF-1.8";
inline constexpr const char* conventions_with_64bit_ids = "CF-1.11";
// The netCDF type of the parcel ids: NC_INT where every id fits 32 bits, else NC_INT64.
int id_type(const std::vector<std::int64_t>& ids);
// Radians to the degrees of lon and lat: one constant for the snapshots and the trajectory
// file, so the two hold bitwise the same degrees.
inline constexpr double degrees_per_radian = 180.0 / std::numbers::pi;
// What every data variable is located by (CF's `coordinates` attribute).
inline constexpr const char* parcel_coordinates = "time lat lon pressure";

// First repeated id, if any (sorting a copy: O(n log n), no hash table of 1e8 entries).
std::optional<std::int64_t> repeated_id(const std::vector<std::int64_t>& ids);

// invalid_input "<writer> <file>: ..." for a set that fails ParticleSet::validate, has ids of
// another length, repeated ids, or a quantity that cannot be a variable of a parcel file (empty,
// containing '/', or named like a fixed variable: lon, lat, pressure, time, id, status,
// trajectory).
void validate_for_writing(const ParticleSet& parcels, const std::filesystem::path& path,
                          const char* writer);
bool is_fixed_variable_name(const std::string& name);

// Checks units for times stored in seconds: "s"/"seconds", or "seconds since <date>" with a
// valid date. Returns the reference instant (s since 1970-01-01 UTC), NaN without "since".
// invalid_input naming `file` and the units otherwise.
double check_seconds_units(const std::string& units, const std::filesystem::path& file);

// standard_name, long_name, units (and axis/positive for pressure) of the parcel coordinates;
// time gets `time_units` and calendar "proleptic_gregorian" (what Foehn's date arithmetic is).
void describe_coordinates(netcdf::Dataset& file, int lon, int lat, int pressure, int time,
                          const std::string& time_units);
// coordinates, long_name and, where Foehn knows them, units of a quantity variable (the
// Langevin state and path lengths of transport.hpp; mass and the user's quantities by name).
void describe_quantity(netcdf::Dataset& file, int variable, const std::string& name);
// flag_values 0, 1 and flag_meanings "active left_domain" on an NC_UBYTE status variable.
void describe_status(netcdf::Dataset& file, int status);
// The global attributes: Conventions, featureType, foehn_format, source, title, history.
// `id_type`: the type the file's ids were written with (id_type()), which decides Conventions.
void describe_file(netcdf::Dataset& file, const char* feature_type, const char* foehn_format,
                   int id_type);

}  // namespace foehn::particles::cf
