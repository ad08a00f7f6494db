#pragma once
// foehn::Error is the one exception type of the library. Its category lets applications map
// failures to exit codes (bad input -> 2, everything else -> 1) without parsing messages.

#include <sstream>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>

namespace foehn {

enum class ErrorCategory {
  invalid_input,  // malformed mesh, bad option, out-of-range index, NaN, wrong file type
  cuda,           // a CUDA runtime call or kernel launch failed
  petsc,          // a PETSc call returned an error code
  io,             // a file could not be opened, read, written or renamed
  out_of_memory,  // host or device allocation failed
  unavailable,    // a feature this build or machine lacks (e.g. CUDA without a device)
  numerical,      // a solver did not converge (step size underflow, too many steps, singular)
  internal        // a broken invariant inside Foehn: a bug
};

std::string_view to_string(ErrorCategory category);

class Error : public std::runtime_error {
 public:
  Error(ErrorCategory category, const std::string& message)
      : std::runtime_error(message), category_(category) {}
  ErrorCategory category() const noexcept { return category_; }

 private:
  ErrorCategory category_;
};

namespace detail {
template <typename... Parts>
std::string concat(Parts&&... parts) {
  std::ostringstream out;
  out.precision(17);
  (out << ... << std::forward<Parts>(parts));
  return out.str();
}
}  // namespace detail

// Builds the message from its parts (anything with operator<<) and throws foehn::Error.
template <typename... Parts>
[[noreturn]] void fail(ErrorCategory category, Parts&&... parts) {
  throw Error(category, detail::concat(std::forward<Parts>(parts)...));
}

namespace detail {
[[noreturn]] void fail_check(const char* condition, const char* file, int line,
                             const std::string& detail);
}  // namespace detail

// Checks an invariant of Foehn itself (not the caller's input, which gets invalid_input with
// its own message): a failure is ErrorCategory::internal naming the condition, the file and the
// line, for a bug report, followed by the parts given (anything with operator<<).
//   FOEHN_CHECK(offsets.back() == nnz, "pattern of ", rows, " rows");
#define FOEHN_CHECK(condition, ...)                                                        \
  do {                                                                                     \
    if (!(condition))                                                                      \
      ::foehn::detail::fail_check(#condition, __FILE__, __LINE__,                          \
                                  ::foehn::detail::concat("" __VA_OPT__(, ) __VA_ARGS__)); \
  } while (0)

// What every CUDA entry point of a build without CUDA throws: unavailable, naming `what` and
// how to get the backend.
[[noreturn]] void fail_built_without_cuda(std::string_view what);

// Exit code convention of every Foehn application: 2 for bad input (invalid_input; io: a
// file that cannot be read or written; out_of_memory: a request too large for the machine),
// 1 for anything else.
int exit_code_for(const Error& error) noexcept;

}  // namespace foehn
