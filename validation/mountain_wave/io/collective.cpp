#include "io/collective.hpp"

#include <climits>
#include <cstddef>

namespace foehn::mountainwave::detail {

void throw_mpi_error(int code, const char* expression, const char* file, int line) {
  char text[MPI_MAX_ERROR_STRING] = {};
  int length = 0;
  if (MPI_Error_string(code, text, &length) != MPI_SUCCESS) length = 0;
  fail(ErrorCategory::internal, expression, " failed (", file, ":", line,
       "): ", std::string(text, static_cast<std::size_t>(length)));
}

CommShape comm_shape(MPI_Comm comm, const char* who) {
  if (comm == MPI_COMM_NULL)
    fail(ErrorCategory::invalid_input, who, ": the mesh has no communicator (MPI_COMM_NULL)");
  CommShape shape;
  FOEHN_IO_MPI_CHECK(MPI_Comm_rank(comm, &shape.rank));
  FOEHN_IO_MPI_CHECK(MPI_Comm_size(comm, &shape.size));
  return shape;
}

void agree_on_failure(MPI_Comm comm, const std::optional<Failure>& failure) {
  int rank = 0;
  int size = 1;
  FOEHN_IO_MPI_CHECK(MPI_Comm_rank(comm, &rank));
  FOEHN_IO_MPI_CHECK(MPI_Comm_size(comm, &size));
  const int mine = failure ? rank : size;
  int first_failing = size;
  FOEHN_IO_MPI_CHECK(MPI_Allreduce(&mine, &first_failing, 1, MPI_INT, MPI_MIN, comm));
  if (first_failing == size) return;

  // The lowest failing rank tells the others what went wrong.
  int header[2] = {0, 0};  // category, message length
  std::string message;
  if (rank == first_failing) {
    message = failure->message;
    if (message.size() > static_cast<std::size_t>(INT_MAX / 2)) message.resize(INT_MAX / 2);
    header[0] = static_cast<int>(failure->category);
    header[1] = static_cast<int>(message.size());
  }
  FOEHN_IO_MPI_CHECK(MPI_Bcast(header, 2, MPI_INT, first_failing, comm));
  message.resize(static_cast<std::size_t>(header[1]));
  FOEHN_IO_MPI_CHECK(MPI_Bcast(message.data(), header[1], MPI_CHAR, first_failing, comm));
  if (size > 1 && first_failing > 0)
    message =
        "rank " + std::to_string(first_failing) + " of " + std::to_string(size) + ": " + message;
  throw Error(static_cast<ErrorCategory>(header[0]), message);
}

int to_mpi_count(std::int64_t count, const char* what) {
  if (count < 0 || count > INT_MAX)
    fail(ErrorCategory::invalid_input, count, " ", what,
         " are more than one MPI call can move (at most ", INT_MAX, ")");
  return static_cast<int>(count);
}

std::vector<int> displacements_of(const std::vector<int>& counts, const char* what) {
  std::vector<int> displacements(counts.size(), 0);
  std::int64_t running = 0;
  for (std::size_t r = 0; r < counts.size(); ++r) {
    displacements[r] = to_mpi_count(running, what);
    running += counts[r];
  }
  to_mpi_count(running, what);
  return displacements;
}

}  // namespace foehn::mountainwave::detail
