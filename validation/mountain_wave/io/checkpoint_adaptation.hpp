#pragma once
// The adaptive run's record in a checkpoint (checkpoint.cpp's root attributes): the adaptation
// that made the mesh the state lies on, with the node budget, calibration and step the next one
// needs; and an overlapped adaptation's remesh that had finished but not taken over. Written only
// where there is one; read back checked, a corrupt record refused naming the file.
#include <hdf5.h>

#include <filesystem>

#include "io/checkpoint.hpp"

namespace foehn::mountainwave {

void write_adaptation_record(hid_t file, const CheckpointInfo& header,
                             const std::filesystem::path& name);
void read_adaptation_record(hid_t file, const std::filesystem::path& path, CheckpointInfo& info);

}  // namespace foehn::mountainwave
