#include "mpi_support.hpp"

// PETSc's logging macros count these collectives with PETSc's own (petsc::communication_counts):
// an agreement on errors synchronises the ranks as any reduction does.
#include <petsclog.h>

#include <algorithm>
#include <array>
#include <climits>

namespace foehn::petsc::detail {

namespace {

constexpr int header_tag = 7301;  // on the duplicated communicator only
constexpr int chunk_tag = 7302;
// 16 MiB: far below INT_MAX, large enough that the per-message cost does not matter, and
// small enough for the scratch buffer of a receiver that is short of memory.
constexpr std::size_t chunk_bytes = std::size_t{1} << 24;

struct TransferHeader {
  std::int64_t has_data = 0;
  std::int64_t bytes = 0;
};

}  // namespace

void throw_mpi_error(int code, const char* expression, const char* file, int line) {
  std::array<char, MPI_MAX_ERROR_STRING> text{};
  int length = 0;
  if (MPI_Error_string(code, text.data(), &length) != MPI_SUCCESS) length = 0;
  fail(ErrorCategory::internal, expression, " failed with MPI error ", code, " (",
       length > 0 ? std::string(text.data(), static_cast<std::size_t>(length)) : "unknown", ") at ",
       file, ":", line);
}

CommShape comm_shape(MPI_Comm comm, const char* who) {
  if (comm == MPI_COMM_NULL)
    fail(ErrorCategory::invalid_input, who, ": the communicator is MPI_COMM_NULL");
  CommShape shape;
  FOEHN_MPI_CHECK(MPI_Comm_rank(comm, &shape.rank));
  FOEHN_MPI_CHECK(MPI_Comm_size(comm, &shape.size));
  return shape;
}

void agree_on_failure(MPI_Comm comm, const std::optional<Failure>& failure) {
  const CommShape shape = comm_shape(comm, "agree_on_failure");
  const int mine = failure ? shape.rank : shape.size;
  int first_failing = shape.size;
  FOEHN_MPI_CHECK(MPI_Allreduce(&mine, &first_failing, 1, MPI_INT, MPI_MIN, comm));
  if (first_failing == shape.size) return;

  // The lowest failing rank tells everybody what went wrong.
  std::array<long long, 2> head{};  // category, message length
  std::string message;
  if (shape.rank == first_failing) {
    head = {static_cast<long long>(failure->category),
            static_cast<long long>(failure->message.size())};
    message = failure->message;
  }
  FOEHN_MPI_CHECK(MPI_Bcast(head.data(), 2, MPI_LONG_LONG, first_failing, comm));
  message.resize(static_cast<std::size_t>(head[1]));
  if (head[1] > 0) {
    FOEHN_MPI_CHECK(MPI_Bcast(message.data(), to_mpi_count(head[1], "error message bytes"),
                              MPI_CHAR, first_failing, comm));
  }
  const auto category = static_cast<ErrorCategory>(head[0]);
  if (shape.size == 1) throw Error(category, message);
  throw Error(category,
              foehn::detail::concat("rank ", first_failing, " of ", shape.size, ": ", message));
}

DuplicatedComm::DuplicatedComm(MPI_Comm comm) {
  FOEHN_MPI_CHECK(MPI_Comm_dup(comm, &comm_));
}

DuplicatedComm::~DuplicatedComm() {
  if (comm_ != MPI_COMM_NULL) MPI_Comm_free(&comm_);  // nothing to do about a failure here
}

int to_mpi_count(std::int64_t count, const char* what) {
  if (count < 0 || count > INT_MAX) {
    fail(ErrorCategory::invalid_input, "too many ", what, " for one MPI message: ", count,
         " (at most ", INT_MAX, ")");
  }
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

void send_bytes(MPI_Comm comm, int destination, const std::vector<std::byte>* bytes) {
  TransferHeader header;
  header.has_data = bytes != nullptr ? 1 : 0;
  header.bytes = bytes != nullptr ? static_cast<std::int64_t>(bytes->size()) : 0;
  FOEHN_MPI_CHECK(
      MPI_Send(&header, static_cast<int>(sizeof header), MPI_BYTE, destination, header_tag, comm));
  if (bytes == nullptr) return;
  for (std::size_t at = 0; at < bytes->size(); at += chunk_bytes) {
    const std::size_t count = std::min(chunk_bytes, bytes->size() - at);
    FOEHN_MPI_CHECK(MPI_Send(bytes->data() + at, static_cast<int>(count), MPI_BYTE, destination,
                             chunk_tag, comm));
  }
}

std::optional<std::vector<std::byte>> receive_bytes(MPI_Comm comm, int source,
                                                    std::optional<Failure>& failure) {
  TransferHeader header;
  FOEHN_MPI_CHECK(MPI_Recv(&header, static_cast<int>(sizeof header), MPI_BYTE, source, header_tag,
                           comm, MPI_STATUS_IGNORE));
  if (header.has_data == 0) return std::nullopt;
  const auto total = static_cast<std::size_t>(header.bytes);
  std::optional<std::vector<std::byte>> bytes;
  failure = capture_failure([&] { bytes.emplace(total); });
  std::vector<std::byte> scratch;
  if (!bytes) scratch.resize(std::min(chunk_bytes, total));
  for (std::size_t at = 0; at < total; at += chunk_bytes) {
    const std::size_t count = std::min(chunk_bytes, total - at);
    std::byte* into = bytes ? bytes->data() + at : scratch.data();
    FOEHN_MPI_CHECK(MPI_Recv(into, static_cast<int>(count), MPI_BYTE, source, chunk_tag, comm,
                             MPI_STATUS_IGNORE));
  }
  if (failure) {
    failure->message = foehn::detail::concat("cannot hold the ", total,
                                             " bytes of this rank's part: ", failure->message);
  }
  return bytes;
}

}  // namespace foehn::petsc::detail
