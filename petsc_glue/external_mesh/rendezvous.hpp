#pragma once
// Private to petsc_glue/external_mesh: the all-to-all exchange of per-rank record lists that
// the checks of a caller's partition are built on. No rank ever holds more than what it sends
// and receives: a question about a node or a face goes to the one rank that knows the answer
// (its "home"), never to everybody.
#include <mpi.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <optional>
#include <type_traits>
#include <utility>
#include <vector>

#include "foehn/petsc/mpi_collective.hpp"

namespace foehn::petsc::detail {

// Sends outgoing[r] to rank r for every rank r and returns what every rank sent here, indexed by
// source rank. Collective; the byte counts are agreed on before any data moves, so a list too
// long for one MPI message is reported on every rank instead of leaving the others waiting.
template <typename Record>
std::vector<std::vector<Record>> exchange_lists(MPI_Comm comm,
                                                const std::vector<std::vector<Record>>& outgoing) {
  static_assert(std::is_trivially_copyable_v<Record>);
  const CommShape shape = comm_shape(comm, "exchange_lists");
  const auto ranks = static_cast<std::size_t>(shape.size);
  std::vector<int> send_counts(ranks, 0), receive_counts(ranks, 0);
  std::vector<int> send_offsets, receive_offsets;
  run_collectively(comm, [&] {
    FOEHN_CHECK(outgoing.size() == ranks, "exchange_lists: ", outgoing.size(), " lists for ", ranks,
                " ranks");
    for (std::size_t r = 0; r < ranks; ++r) {
      send_counts[r] = to_mpi_count(static_cast<std::int64_t>(outgoing[r].size() * sizeof(Record)),
                                    "bytes for one rank");
    }
    send_offsets = displacements_of(send_counts, "bytes sent by one rank");
  });
  FOEHN_MPI_CHECK(
      MPI_Alltoall(send_counts.data(), 1, MPI_INT, receive_counts.data(), 1, MPI_INT, comm));
  std::vector<std::byte> send_bytes, receive_bytes;
  run_collectively(comm, [&] {
    receive_offsets = displacements_of(receive_counts, "bytes received by one rank");
    send_bytes.resize(static_cast<std::size_t>(send_offsets.back()) +
                      static_cast<std::size_t>(send_counts.back()));
    receive_bytes.resize(static_cast<std::size_t>(receive_offsets.back()) +
                         static_cast<std::size_t>(receive_counts.back()));
    for (std::size_t r = 0; r < ranks; ++r) {
      if (!outgoing[r].empty())
        std::memcpy(send_bytes.data() + send_offsets[r], outgoing[r].data(),
                    static_cast<std::size_t>(send_counts[r]));
    }
  });
  FOEHN_MPI_CHECK(MPI_Alltoallv(send_bytes.data(), send_counts.data(), send_offsets.data(),
                                MPI_BYTE, receive_bytes.data(), receive_counts.data(),
                                receive_offsets.data(), MPI_BYTE, comm));
  std::vector<std::vector<Record>> incoming(ranks);
  for (std::size_t r = 0; r < ranks; ++r) {
    incoming[r].resize(static_cast<std::size_t>(receive_counts[r]) / sizeof(Record));
    if (!incoming[r].empty())
      std::memcpy(incoming[r].data(), receive_bytes.data() + receive_offsets[r],
                  static_cast<std::size_t>(receive_counts[r]));
  }
  return incoming;
}

// The first defect this rank finds is what it reports; later ones of the same kind are only
// counted in its message ("and n more like it"). Handed to agree_on_failure once per phase.
class FirstDefect {
 public:
  template <typename... Parts>
  void note(std::size_t occurrences, Parts&&... parts) {
    if (occurrences == 0 || failure_) return;
    failure_ =
        Failure{ErrorCategory::invalid_input, foehn::detail::concat(std::forward<Parts>(parts)...)};
    if (occurrences > 1)
      failure_->message += foehn::detail::concat(" (and ", occurrences - 1, " more like it)");
  }
  const std::optional<Failure>& failure() const noexcept { return failure_; }

 private:
  std::optional<Failure> failure_;
};

// Sum over ranks, and the sum over the ranks below this one (MPI_Exscan, 0 on rank 0).
struct RankSums {
  std::int64_t total = 0;
  std::int64_t below = 0;
};
RankSums sum_over_ranks(MPI_Comm comm, std::int64_t mine);

// Every rank's value, in rank order.
std::vector<std::int64_t> gather_from_all(MPI_Comm comm, std::int64_t mine);

}  // namespace foehn::petsc::detail
