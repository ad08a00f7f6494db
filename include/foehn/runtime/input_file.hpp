#pragma once
// Every reader checks that its input is a regular file before it opens it: opening a FIFO blocks
// until something writes into it, and /dev/zero or /dev/urandom read without end; a folder opens
// on Linux and reads as nothing, which a reader could take for an empty file.
#include <filesystem>
#include <string_view>

namespace foehn {

// Throws foehn::Error (io) naming `what` ("mechanism file", "#INCLUDE file", ...) and the path
// when `path` does not exist, or is a folder, a FIFO, a socket or a device (symbolic links are
// followed).
void require_regular_file(const std::filesystem::path& path, std::string_view what);

}  // namespace foehn
