#pragma once
// Options files are checked by Foehn's programs before PETSc reads them (PETSc follows them
// itself afterwards): PETSc's own reader recurses without a limit on an options file that
// includes itself, reads a FIFO or /dev/zero until it blocks or runs out of memory, and reports
// a malformed line with a multi-line trace. This one follows every -options_file (on the command
// line, in PETSC_OPTIONS, inside other options files, and the .petscrc files PETSc reads by
// default) and returns the first problem as one line naming the file, or an empty string.
#include <cstddef>
#include <string>

namespace foehn::app {

// Bounds of an options file: larger or deeper ones are refused, naming the bound.
inline constexpr std::size_t max_options_file_bytes = 1 << 20;
inline constexpr int max_options_file_depth = 16;

[[nodiscard]] std::string check_options_files(int argc, char** argv);

}  // namespace foehn::app
