#include "foehn/runtime/error.hpp"

namespace foehn {

std::string_view to_string(ErrorCategory category) {
  switch (category) {
    case ErrorCategory::invalid_input:
      return "invalid input";
    case ErrorCategory::cuda:
      return "CUDA error";
    case ErrorCategory::petsc:
      return "PETSc error";
    case ErrorCategory::io:
      return "I/O error";
    case ErrorCategory::out_of_memory:
      return "out of memory";
    case ErrorCategory::unavailable:
      return "unavailable";
    case ErrorCategory::numerical:
      return "numerical failure";
    case ErrorCategory::internal:
      return "internal error";
  }
  return "unknown error";
}

int exit_code_for(const Error& error) noexcept {
  // An unreadable input or unwritable output path is the user's input too, and so is a
  // request larger than the machine's memory (a mesh, parcel or cell count too big for it).
  const ErrorCategory c = error.category();
  return c == ErrorCategory::invalid_input || c == ErrorCategory::io ||
                 c == ErrorCategory::out_of_memory
             ? 2
             : 1;
}

namespace detail {
void fail_check(const char* condition, const char* file, int line, const std::string& detail) {
  // The path from the source root is enough to find the line; absolute build paths are noise.
  std::string_view where(file);
  for (const char* root : {"/src/", "/cuda/", "/petsc_glue/", "/mesh/", "/include/", "/apps/"}) {
    const std::size_t at = where.rfind(root);
    if (at != std::string_view::npos) {
      where.remove_prefix(at + 1);
      break;
    }
  }
  fail(ErrorCategory::internal, "internal check failed: ", condition, " at ", where, ":", line,
       detail.empty() ? "" : " (", detail, detail.empty() ? "" : ")",
       "; please report this with the input that caused it");
}
}  // namespace detail

void fail_built_without_cuda(std::string_view what) {
  fail(ErrorCategory::unavailable, "Foehn was built without CUDA: ", what,
       " needs the CUDA backend (configure with -DFOEHN_CUDA=ON)");
}

}  // namespace foehn
