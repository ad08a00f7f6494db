#pragma once
// Collective error handling for code that runs on every rank of a communicator: checked MPI
// calls, and the agreement of all ranks on a failure, so that when one rank fails (say, rank
// 0 reading a file) every rank throws the same foehn::Error instead of the others waiting
// forever in the next collective call. Used by the mesh distribution and by the applications'
// parallel I/O.
#include <mpi.h>

#include <cstdint>
#include <new>
#include <optional>
#include <string>
#include <vector>

#include "foehn/runtime/error.hpp"

namespace foehn::petsc::detail {

// MPI's default handler (MPI_ERRORS_ARE_FATAL) aborts before a code comes back, but a caller
// may have installed MPI_ERRORS_RETURN: then a failed call becomes foehn::Error (internal).
[[noreturn]] void throw_mpi_error(int code, const char* expression, const char* file, int line);

#define FOEHN_MPI_CHECK(expression)                                                              \
  do {                                                                                           \
    const int foehn_mpi_code_ = (expression);                                                    \
    if (foehn_mpi_code_ != MPI_SUCCESS)                                                          \
      ::foehn::petsc::detail::throw_mpi_error(foehn_mpi_code_, #expression, __FILE__, __LINE__); \
  } while (0)

// Rank and size; invalid_input naming `who` for MPI_COMM_NULL (there is nobody to agree with).
struct CommShape {
  int rank = 0;
  int size = 1;
};
CommShape comm_shape(MPI_Comm comm, const char* who);

struct Failure {
  ErrorCategory category = ErrorCategory::internal;
  std::string message;
};

// Runs `action`; returns what it threw instead of throwing, so that a rank can still take part
// in the collective calls that follow (and the others do not wait for it forever).
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
// and message of the lowest failing rank ("rank r of n: ..." when n > 1, so the reader knows
// where it came from). Returns normally on every rank otherwise.
void agree_on_failure(MPI_Comm comm, const std::optional<Failure>& failure);

// capture_failure + agree_on_failure.
template <typename Action>
void run_collectively(MPI_Comm comm, Action&& action) {
  agree_on_failure(comm, capture_failure(static_cast<Action&&>(action)));
}

// A count for an MPI call (int); invalid_input naming `what` when it does not fit.
int to_mpi_count(std::int64_t count, const char* what);

// Displacements (exclusive prefix sums) of `counts` for MPI_Gatherv and friends, checked to
// fit an int.
std::vector<int> displacements_of(const std::vector<int>& counts, const char* what);

}  // namespace foehn::petsc::detail
