#include <petscsys.h>

#include <string>

#include "foehn/petsc/matrix_handoff.hpp"
#include "foehn/petsc/petsc_check.hpp"
#include "foehn/runtime/error.hpp"

namespace foehn::petsc {

std::string to_string(MatrixFormat format) {
  switch (format) {
    case MatrixFormat::automatic: return "auto";
    case MatrixFormat::aij: return "aij";
    case MatrixFormat::baij: return "baij";
  }
  return "unknown";
}

std::string to_string(HandoffPath path) {
  switch (path) {
    case HandoffPath::automatic: return "auto";
    case HandoffPath::seq_array: return "seq_array";
    case HandoffPath::coo: return "coo";
  }
  return "unknown";
}

MatrixFormat parse_matrix_format(const std::string& name) {
  for (const MatrixFormat format : {MatrixFormat::automatic, MatrixFormat::aij, MatrixFormat::baij})
    if (name == to_string(format)) return format;
  fail(ErrorCategory::invalid_input, "unknown matrix format '", name, "' (auto, aij or baij)");
}

HandoffPath parse_handoff_path(const std::string& name) {
  for (const HandoffPath path : {HandoffPath::automatic, HandoffPath::seq_array, HandoffPath::coo})
    if (name == to_string(path)) return path;
  fail(ErrorCategory::invalid_input, "unknown hand-off path '", name,
       "' (auto, seq_array or coo)");
}

namespace {

// PetscOptionsBegin/End (so that -help lists the options) needs a function returning a PETSc
// error code. Values are read as strings and parsed by Foehn, so that a wrong value is
// reported as invalid input with the accepted names.
PetscErrorCode read_handoff_strings(MPI_Comm comm, const char* prefix, char* format,
                                    std::size_t format_size, PetscBool* format_set, char* path,
                                    std::size_t path_size, PetscBool* path_set) {
  PetscFunctionBeginUser;
  PetscOptionsBegin(comm, prefix, "Foehn: hand-off of assembled operators to PETSc", "Mat");
  PetscCall(PetscOptionsString("-foehn_mat_format", "Matrix format: auto, aij or baij",
                               "PetscMatrix", format, format, format_size, format_set));
  PetscCall(PetscOptionsString("-foehn_handoff", "Value hand-off: auto, seq_array or coo",
                               "PetscMatrix", path, path, path_size, path_set));
  PetscOptionsEnd();
  PetscFunctionReturn(0);
}

}  // namespace

MatrixHandoffOptions matrix_handoff_options_from_database(MPI_Comm comm, const std::string& prefix,
                                                          MatrixHandoffOptions defaults) {
  char format[64] = {0};
  char path[64] = {0};
  to_string(defaults.format).copy(format, sizeof format - 1);
  to_string(defaults.path).copy(path, sizeof path - 1);
  PetscBool format_set = PETSC_FALSE, path_set = PETSC_FALSE;
  FOEHN_PETSC_CHECK(read_handoff_strings(comm, prefix.empty() ? nullptr : prefix.c_str(), format,
                                         sizeof format, &format_set, path, sizeof path,
                                         &path_set));
  MatrixHandoffOptions options = defaults;
  if (format_set) options.format = parse_matrix_format(format);
  if (path_set) options.path = parse_handoff_path(path);
  return options;
}

}  // namespace foehn::petsc
