#pragma once
// Private to petsc_glue/distribution: checked MPI calls, agreement of all ranks on a failure,
// a duplicated communicator for the library's own messages, and byte-buffer transfer.
#include <mpi.h>

#include <cstddef>
#include <cstdint>
#include <new>
#include <optional>
#include <span>
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

// A private duplicate of the caller's communicator, so the library's point-to-point messages
// never match the caller's. Freed on destruction.
class DuplicatedComm {
 public:
  explicit DuplicatedComm(MPI_Comm comm);
  ~DuplicatedComm();
  DuplicatedComm(const DuplicatedComm&) = delete;
  DuplicatedComm& operator=(const DuplicatedComm&) = delete;
  MPI_Comm get() const noexcept { return comm_; }

 private:
  MPI_Comm comm_ = MPI_COMM_NULL;
};

// A count for an MPI call (int); invalid_input naming `what` when it does not fit.
int to_mpi_count(std::int64_t count, const char* what);

// Point-to-point transfer of a byte buffer of any size (chunks below MPI's int count limit).
// The sender announces whether it has a buffer at all: with `bytes` == nullptr the receiver
// gets std::nullopt (the sender failed and tells the receiver not to wait for data).
void send_bytes(MPI_Comm comm, int destination, const std::vector<std::byte>* bytes);
// When the buffer cannot be allocated the data is still received (into a small scratch
// buffer, so the sender is not left blocking) and out_of_memory is returned in `failure`.
std::optional<std::vector<std::byte>> receive_bytes(MPI_Comm comm, int source,
                                                    std::optional<Failure>& failure);

}  // namespace foehn::petsc::detail
