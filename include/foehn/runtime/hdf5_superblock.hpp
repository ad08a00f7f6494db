#pragma once
// Truncation of an HDF5 file (a checkpoint, a netCDF-4 file) told from its superblock alone,
// without the HDF5 library: HDF5 reports a file cut inside its superblock with unrelated
// messages ("bad byte number in an address"), and the netCDF reader of the particles does not
// link HDF5 at all.

#include <filesystem>
#include <optional>
#include <string>

namespace foehn {

// For a file that starts as an HDF5 file (the signature, or a prefix of it): why it is
// truncated ("truncated: its HDF5 superblock puts the end of the file at byte N, the file has
// only M bytes"; or it ends inside the signature or the superblock). Nothing for a complete
// file, a file that is not HDF5, a superblock version this does not know (versions 0 to 3,
// at offset 0, are read) and an unreadable file (the open that follows says why).
std::optional<std::string> hdf5_truncation(const std::filesystem::path& file);

// The version of the superblock at offset 0 (0 to 3 in the HDF5 File Format Specification):
// versions 2 and 3 carry checksums on the superblock and on every object header. Nothing for a
// file that is not HDF5, ends inside its superblock's version byte, or cannot be read.
std::optional<int> hdf5_superblock_version(const std::filesystem::path& file);

}  // namespace foehn
