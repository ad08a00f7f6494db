#include "rendezvous.hpp"

namespace foehn::petsc::detail {

RankSums sum_over_ranks(MPI_Comm comm, std::int64_t mine) {
  const CommShape shape = comm_shape(comm, "sum_over_ranks");
  RankSums sums;
  FOEHN_MPI_CHECK(MPI_Allreduce(&mine, &sums.total, 1, MPI_INT64_T, MPI_SUM, comm));
  FOEHN_MPI_CHECK(MPI_Exscan(&mine, &sums.below, 1, MPI_INT64_T, MPI_SUM, comm));
  if (shape.rank == 0) sums.below = 0;  // MPI leaves rank 0's result undefined
  return sums;
}

std::vector<std::int64_t> gather_from_all(MPI_Comm comm, std::int64_t mine) {
  const CommShape shape = comm_shape(comm, "gather_from_all");
  std::vector<std::int64_t> all(static_cast<std::size_t>(shape.size), 0);
  FOEHN_MPI_CHECK(MPI_Allgather(&mine, 1, MPI_INT64_T, all.data(), 1, MPI_INT64_T, comm));
  return all;
}

}  // namespace foehn::petsc::detail
