#pragma once
// Checks of the paths that options name, made when the options are read: a missing input or
// an output folder blocked by a file is bad input naming the option, found before any work
// (the readers and writers would only report it later, and by path alone or as a bare
// filesystem error).

#include <filesystem>
#include <string>
#include <system_error>

#include "foehn/runtime/atomic_file.hpp"  // check_output_folder
#include "foehn/runtime/error.hpp"

namespace foehn::app {

// `path` (the value of `option`) must be an existing file, not a folder.
inline void require_input_file(const std::string& option, const std::string& path) {
  std::error_code ignored;
  const std::filesystem::file_status status = std::filesystem::status(path, ignored);
  if (!std::filesystem::exists(status))
    fail(ErrorCategory::invalid_input, option, " '", path, "': no such file");
  if (std::filesystem::is_directory(status))
    fail(ErrorCategory::invalid_input, option, " '", path, "': is a folder, not a file");
}

// An output file must not be an existing folder (the atomic writer would refuse it only when
// it writes, and without naming the option).
inline void require_output_file_not_folder(const std::string& option, const std::string& path) {
  std::error_code ignored;
  if (std::filesystem::is_directory(path, ignored))
    fail(ErrorCategory::invalid_input, option, " '", path, "': is a folder, not a file");
}

}  // namespace foehn::app
