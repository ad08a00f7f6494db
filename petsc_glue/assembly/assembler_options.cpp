#include "foehn/petsc/assembler_options.hpp"

#include <petscsys.h>

#include <string>

#include "foehn/petsc/petsc_check.hpp"
#include "foehn/runtime/error.hpp"

namespace foehn::petsc {

namespace {

// PetscOptionsBegin/End (so that -help lists the options) needs a function returning a PETSc
// error code; the strings are parsed afterwards so that errors name the accepted values.
PetscErrorCode read_assembler_strings(MPI_Comm comm, const char* prefix, char* backend,
                                      std::size_t backend_size, PetscBool* backend_set,
                                      char* strategy, std::size_t strategy_size,
                                      PetscBool* strategy_set) {
  PetscFunctionBeginUser;
  PetscOptionsBegin(comm, prefix, "Foehn: FE assembly", "Assembler");
  PetscCall(PetscOptionsString("-foehn_backend", "Assembly backend: cpu, cuda or auto", "Assembler",
                               backend, backend, backend_size, backend_set));
  PetscCall(PetscOptionsString("-foehn_assembly",
                               "CUDA strategy: seed, fused_atomic, fused_map or deterministic",
                               "Assembler", strategy, strategy, strategy_size, strategy_set));
  PetscOptionsEnd();
  PetscFunctionReturn(0);
}

std::string option_name(const std::string& prefix, const char* name) {
  return "-" + prefix + name;
}

}  // namespace

fe::AssemblerOptions assembler_options_from_database(MPI_Comm comm, const std::string& prefix,
                                                     fe::AssemblerOptions defaults) {
  const std::string bare_prefix = !prefix.empty() && prefix[0] == '-' ? prefix.substr(1) : prefix;
  char backend[64] = {0}, strategy[64] = {0};
  defaults.backend.copy(backend, sizeof backend - 1);
  std::string(fe::to_string(defaults.strategy)).copy(strategy, sizeof strategy - 1);
  PetscBool backend_set = PETSC_FALSE, strategy_set = PETSC_FALSE;
  FOEHN_PETSC_CHECK(read_assembler_strings(
      comm, bare_prefix.empty() ? nullptr : bare_prefix.c_str(), backend, sizeof backend,
      &backend_set, strategy, sizeof strategy, &strategy_set));
  fe::AssemblerOptions options = defaults;
  if (backend_set) {
    const std::string value(backend);
    if (value != "cpu" && value != "cuda" && value != "auto")
      fail(ErrorCategory::invalid_input, option_name(bare_prefix, "foehn_backend"), " '", value,
           "': expected cpu, cuda or auto");
    options.backend = value;
  }
  if (strategy_set) {
    const std::string value(strategy);
    try {
      options.strategy = fe::parse_assembly_strategy(value);
    } catch (const Error&) {
      fail(ErrorCategory::invalid_input, option_name(bare_prefix, "foehn_assembly"), " '", value,
           "': expected seed, fused_atomic, fused_map or deterministic");
    }
  }
  return options;
}

}  // namespace foehn::petsc
