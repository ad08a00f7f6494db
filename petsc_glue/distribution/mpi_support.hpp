#pragma once
// Private to petsc_glue/distribution: a duplicated communicator for the library's own
// messages and byte-buffer transfer, on top of the collective helpers of
// foehn/petsc/mpi_collective.hpp.
#include <mpi.h>

#include <cstddef>
#include <optional>
#include <span>
#include <vector>

#include "foehn/petsc/mpi_collective.hpp"

namespace foehn::petsc::detail {

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

// Point-to-point transfer of a byte buffer of any size (chunks below MPI's int count limit).
// The sender announces whether it has a buffer at all: with `bytes` == nullptr the receiver
// gets std::nullopt (the sender failed and tells the receiver not to wait for data).
void send_bytes(MPI_Comm comm, int destination, const std::vector<std::byte>* bytes);
// When the buffer cannot be allocated the data is still received (into a small scratch
// buffer, so the sender is not left blocking) and out_of_memory is returned in `failure`.
std::optional<std::vector<std::byte>> receive_bytes(MPI_Comm comm, int source,
                                                    std::optional<Failure>& failure);

}  // namespace foehn::petsc::detail
