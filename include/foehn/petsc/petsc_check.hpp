#pragma once
// FOEHN_PETSC_CHECK turns a PETSc error code into foehn::Error (category petsc) carrying the
// expression, the place and PETSc's own text for the code. Include only where PETSc is used.

#include <petscsys.h>

#include <string>

namespace foehn::detail {
[[noreturn]] void throw_petsc_error(PetscErrorCode code, const char* expression, const char* file,
                                    int line);
// PETSc's text for `code` and, after ": ", its message from where the error arose, on one line
// (for a caller that reports an error in its own words, e.g. as the user's input).
std::string petsc_error_text(PetscErrorCode code);
}  // namespace foehn::detail

#define FOEHN_PETSC_CHECK(expression)                                                         \
  do {                                                                                        \
    const PetscErrorCode foehn_petsc_code_ = (expression);                                    \
    if (foehn_petsc_code_ != 0)                                                               \
      ::foehn::detail::throw_petsc_error(foehn_petsc_code_, #expression, __FILE__, __LINE__); \
  } while (0)
