#include <petscsys.h>

#include <string>

#include "foehn/petsc/matrix_handoff.hpp"
#include "foehn/petsc/option_table.hpp"
#include "foehn/runtime/error.hpp"

namespace foehn::petsc {

std::string to_string(MatrixFormat format) {
  switch (format) {
    case MatrixFormat::automatic:
      return "auto";
    case MatrixFormat::aij:
      return "aij";
    case MatrixFormat::baij:
      return "baij";
  }
  return "unknown";
}

std::string to_string(HandoffPath path) {
  switch (path) {
    case HandoffPath::automatic:
      return "auto";
    case HandoffPath::seq_array:
      return "seq_array";
    case HandoffPath::coo:
      return "coo";
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
  fail(ErrorCategory::invalid_input, "unknown hand-off path '", name, "' (auto, seq_array or coo)");
}

MatrixHandoffOptions matrix_handoff_options_from_database(MPI_Comm comm, const std::string& prefix,
                                                          MatrixHandoffOptions defaults) {
  MatrixHandoffOptions options = defaults;
  OptionTable table(comm, "Foehn: hand-off of assembled operators to PETSc", prefix);
  table
      .choice("-foehn_mat_format", "Matrix format", &options.format,
              {{"auto", MatrixFormat::automatic},
               {"aij", MatrixFormat::aij},
               {"baij", MatrixFormat::baij}})
      .choice("-foehn_handoff", "Value hand-off", &options.path,
              {{"auto", HandoffPath::automatic},
               {"seq_array", HandoffPath::seq_array},
               {"coo", HandoffPath::coo}});
  table.read();
  return options;
}

}  // namespace foehn::petsc
