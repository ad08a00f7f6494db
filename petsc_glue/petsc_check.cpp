#include "foehn/petsc/petsc_check.hpp"

#include <array>
#include <string>
#include <string_view>

#include "foehn/runtime/error.hpp"

namespace foehn::detail {

namespace {

// A GPU error that is the device running out of memory (CUDA's or cuSPARSE's words for it, as
// PETSc's CUDA checks quote them): the user's remedy is a smaller case or more GPUs, exactly as
// for a host allocation, so it is reported as out_of_memory (exit 2), not as a PETSc failure.
bool says_out_of_memory(std::string_view specific) {
  static constexpr std::array<std::string_view, 4> phrases = {
      "out of memory", "cudaErrorMemoryAllocation", "CUSPARSE_STATUS_ALLOC_FAILED",
      "CUSPARSE_STATUS_INSUFFICIENT_RESOURCES"};
  for (const std::string_view phrase : phrases)
    if (specific.find(phrase) != std::string_view::npos) return true;
  return false;
}

// PETSc 3.18 (Debian's) declares the specific message char**, later versions const char**:
// the type is taken from the declaration.
template <class Result, class Code, class Text, class Specific>
const char* specific_message(Result (*message)(Code, Text, Specific*), PetscErrorCode code,
                             const char** text) {
  Specific specific = nullptr;
  message(static_cast<Code>(code), text, &specific);
  return specific;
}

}  // namespace

std::string petsc_error_text(PetscErrorCode code) {
  const char* text = nullptr;
  // PETSc's message from where the error arose (PetscError keeps the first of each error):
  // for a GPU error it names the CUDA or cuSPARSE status, which the code alone does not.
  const char* specific = specific_message(&PetscErrorMessage, code, &text);
  std::string detail = specific ? specific : "";
  while (!detail.empty() && (detail.back() == '\n' || detail.back() == ' ')) detail.pop_back();
  for (char& c : detail)
    if (c == '\n') c = ' ';  // errors are reported on one line
  return std::string(text ? text : "unknown") + (detail.empty() ? "" : ": ") + detail;
}

void throw_petsc_error(PetscErrorCode code, const char* expression, const char* file, int line) {
  const std::string text = petsc_error_text(code);
  const bool out_of_memory = code == PETSC_ERR_MEM || says_out_of_memory(text);
  fail(out_of_memory ? ErrorCategory::out_of_memory : ErrorCategory::petsc, expression,
       " failed with PETSc error ", static_cast<int>(code), " (", text, ") at ", file, ":", line);
}

}  // namespace foehn::detail
