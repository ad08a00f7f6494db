#pragma once
// Private to io/: checked MPI calls and the agreement of all ranks on a failure, so that when
// rank 0 fails to read or write a file every rank throws the same foehn::Error instead of the
// others waiting forever in the next collective call. (petsc_glue has the same helpers, but
// in a header private to libfoehn; a validation library may not include it.)
#include <mpi.h>

#include <cstdint>
#include <new>
#include <optional>
#include <string>
#include <vector>

#include "foehn/runtime/error.hpp"

namespace foehn::mountainwave::detail {

// A failed MPI call (only seen when the caller installed MPI_ERRORS_RETURN; MPI's default
// handler aborts first) becomes foehn::Error (internal) naming the call.
[[noreturn]] void throw_mpi_error(int code, const char* expression, const char* file, int line);

#define FOEHN_IO_MPI_CHECK(expression)                                                          \
  do {                                                                                          \
    const int foehn_io_mpi_code_ = (expression);                                                \
    if (foehn_io_mpi_code_ != MPI_SUCCESS)                                                      \
      ::foehn::mountainwave::detail::throw_mpi_error(foehn_io_mpi_code_, #expression, __FILE__, \
                                                     __LINE__);                                 \
  } while (0)

struct Failure {
  ErrorCategory category = ErrorCategory::internal;
  std::string message;
};

// Runs `action`; returns what it threw instead of throwing, so this rank can still take part
// in the agreement that follows.
template <typename Action>
std::optional<Failure> capture_failure(Action&& action) {
  try {
    action();
    return std::nullopt;
  } catch (const Error& error) {
    return Failure{error.category(), error.what()};
  } catch (const std::bad_alloc&) {
    return Failure{ErrorCategory::out_of_memory, "out of host memory"};
  } catch (const std::exception& error) {
    return Failure{ErrorCategory::internal, error.what()};
  }
}

// Collective: when any rank passes a failure, every rank throws foehn::Error with the category
// and message of the lowest failing rank (prefixed "rank r of n: " when n > 1 and r > 0).
void agree_on_failure(MPI_Comm comm, const std::optional<Failure>& failure);

// capture_failure + agree_on_failure.
template <typename Action>
void run_collectively(MPI_Comm comm, Action&& action) {
  agree_on_failure(comm, capture_failure(static_cast<Action&&>(action)));
}

// Rank and size of `comm`; invalid_input naming `who` for MPI_COMM_NULL.
struct CommShape {
  int rank = 0;
  int size = 1;
};
CommShape comm_shape(MPI_Comm comm, const char* who);

// An MPI count (int) for `count` items; invalid_input naming `what` when it does not fit.
int to_mpi_count(std::int64_t count, const char* what);

// Displacements (exclusive prefix sums) of `counts`, checked to fit an int.
std::vector<int> displacements_of(const std::vector<int>& counts, const char* what);

}  // namespace foehn::mountainwave::detail
