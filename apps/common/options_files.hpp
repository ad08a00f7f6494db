#pragma once
// The one guard every Foehn program runs over its options before PETSc reads them (PETSc
// follows them itself afterwards). PETSc's reader recurses without a limit on an options file
// that includes itself, blocks on a FIFO, reads /dev/zero or /proc/self/pagemap without end,
// crashes on a NUL byte, a `${` without `}`, a YAML `!include` of itself or a merge key that
// refers to itself, takes minutes over 200,000 nested YAML maps, and matches option names in
// any case (`-OPTIONS_FILE` is `-options_file`). This guard walks every way PETSc takes
// options in, as PETSc does (PetscOptionsInsert: ~/.petscrc, ./.petscrc, ./petscrc, then
// PETSC_OPTIONS, PETSC_OPTIONS_YAML, then the command line; -options_file, -options_file_yaml,
// -options_string_yaml in any case, on the command line, in those variables and in every file's
// lines; YAML `!include`s and merge keys) and returns the first problem as one line naming the
// option, variable or file and why, or an empty string.
#include <cstddef>
#include <string>

namespace foehn::app {

// Bounds: a file, text or expansion past one is refused, naming the bound.
inline constexpr std::size_t max_options_file_bytes = 1 << 20;   // one file or string
inline constexpr std::size_t max_options_total_bytes = 4 << 20;  // all of them together
inline constexpr int max_options_files_read = 256;               // files opened in all
inline constexpr int max_options_file_depth = 16;                // files within files
inline constexpr int max_options_yaml_depth = 64;                // YAML maps/lists nested
inline constexpr std::size_t max_options_yaml_entries = 100000;  // entries PETSc would visit
inline constexpr std::size_t max_options_path_chars = 4095;      // PETSC_MAX_PATH_LEN - 1

// `argv` as PETSc will see it (after MPI_Init); the environment is read with getenv.
[[nodiscard]] std::string check_options_files(int argc, char** argv);

// `text` shown in a message: whole when short, else its first `keep` characters, "..." and its
// length, so that a 65,534-character value does not fill the terminal.
[[nodiscard]] std::string shown(const std::string& text, std::size_t keep = 80);

}  // namespace foehn::app
