#pragma once
// Internal to foehn_particles_io: detects netCDF files that are shorter than their own header
// says. libnetcdf reads a truncated netCDF-3 file (classic, 64-bit offset, CDF-5) without any
// error and returns zeros for the missing bytes, so a met file cut short by an interrupted copy
// gave calm winds and plausible but wrong trajectories. netCDF-4 (HDF5) files are refused by
// HDF5 when truncated, but netCDF reports only "HDF error"; the superblock says why.

#include <filesystem>
#include <optional>
#include <string>

namespace foehn::particles::netcdf {

// For a netCDF-3 file that libnetcdf opened: throws foehn::Error (invalid_input) naming the file
// and the first variable whose data (or the header, when that is cut) reaches past the end of
// the file. The layout rules are libnetcdf's (fixed-size variables at their begin offsets,
// records interleaved every record size), so exactly the bytes netCDF would read are required.
void require_complete_netcdf3_file(const std::filesystem::path& path);

// For a file netCDF could not open: what is missing when it is a netCDF-3 file whose header
// runs past the end of the file, or an HDF5 file shorter than its superblock's end-of-file
// address; nothing otherwise.
std::optional<std::string> describe_truncation(const std::filesystem::path& path);

}  // namespace foehn::particles::netcdf
