#pragma once
// Parcel snapshots as netCDF-4 files (layout: docs/particles_io.md, "Particle files").
//
// One file per output time, dimension `particle`; variables lon, lat (degrees), pressure (Pa),
// time (s), id (64-bit integer), status (0 active, 1 left the domain) and one double variable
// per named quantity, in the set's order. Writing goes to "<path>.tmp" and renames it onto
// <path>, so a reader never sees half a snapshot. Every value but lon and lat comes back
// bitwise; lon and lat pass through degrees and come back within 2 ulp (a radian cannot always
// be recovered exactly from a double in degrees).
//
// Part of foehn_particles_io (Foehn::particles_io), never of libfoehn itself.

#include <filesystem>

#include "foehn/particles/particle_set.hpp"

namespace foehn::particles {

// invalid_input for an inconsistent set (ParticleSet::validate), duplicate ids or a quantity
// named like a coordinate variable; io when the file cannot be written or renamed.
void write_particle_file(const ParticleSet& parcels, const std::filesystem::path& path);

// io when the file cannot be opened; invalid_input (naming the file) when it is not netCDF,
// lacks the `particle` dimension or a coordinate variable, a variable is not on (particle),
// a coordinate is non-finite or missing, a latitude lies outside [-90, 90], an id repeats, or
// a status is unknown. The `status` variable is optional (all parcels active without it), so
// hand-made initial files need only lon, lat, pressure, time and id.
ParticleSet read_particle_file(const std::filesystem::path& path);

}  // namespace foehn::particles
