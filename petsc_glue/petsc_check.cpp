#include "foehn/petsc/petsc_check.hpp"

#include "foehn/runtime/error.hpp"

namespace foehn::detail {

void throw_petsc_error(PetscErrorCode code, const char* expression, const char* file, int line) {
  const char* text = nullptr;
  PetscErrorMessage(code, &text, nullptr);
  fail(code == PETSC_ERR_MEM ? ErrorCategory::out_of_memory : ErrorCategory::petsc, expression,
       " failed with PETSc error ", static_cast<int>(code), " (", text ? text : "unknown",
       ") at ", file, ":", line);
}

}  // namespace foehn::detail
