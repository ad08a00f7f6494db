// distribute_mesh: rank 0 plans (validation, METIS, ownership, numbering), then cuts and sends
// one part after another; every step ends with the ranks agreeing on success or failure.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "distribution_plan.hpp"
#include "foehn/mesh/validate.hpp"
#include "foehn/petsc/distributed_mesh.hpp"
#include "foehn/runtime/error.hpp"
#include "mpi_support.hpp"
#include "part_serialization.hpp"

namespace foehn::petsc {

namespace {

void check_input(const TetMesh* input, int ranks, const DistributionOptions& options) {
  if (input == nullptr)
    fail(ErrorCategory::invalid_input, "distribute_mesh: rank 0 has no input mesh (nullptr)");
  if (options.validate_input) {
    // check_mesh changes the mesh only when asked to fix orientation, which is off here; the
    // input stays untouched (copying it just to validate would double rank 0's memory).
    MeshCheckOptions check;
    check.fix_orientation = false;
    validate_mesh(const_cast<TetMesh&>(*input), "distribute_mesh input", check);
  }
  if (input->tet_count() < static_cast<std::size_t>(ranks))
    fail(ErrorCategory::invalid_input, "distribute_mesh: cannot give each of ", ranks,
         " ranks a tet, the mesh has only ", input->tet_count(), " tets");
}

}  // namespace

DistributedMesh distribute_mesh(MPI_Comm comm, const TetMesh* input,
                                const DistributionOptions& options) {
  const detail::CommShape shape = detail::comm_shape(comm, "distribute_mesh");
  // The parts travel on a private communicator so they never match the caller's messages.
  const detail::DuplicatedComm private_comm(comm);
  const MPI_Comm channel = private_comm.get();
  const bool root = shape.rank == 0;

  // 1. Rank 0 checks the input and plans; the others wait for the verdict.
  detail::DistributionPlan plan;
  detail::run_collectively(channel, [&] {
    if (!root) return;
    check_input(input, shape.size, options);
    plan = detail::plan_distribution(*input, shape.size, options.partition);
  });

  // 2. Rank 0 cuts and sends the parts of ranks 1 .. size-1 one at a time (only one packed
  // part is alive at once), then cuts its own. A failure while cutting tells the remaining
  // ranks not to wait for data; the verdict comes in step 3.
  DistributedMesh result;
  std::optional<detail::Failure> failure;
  if (root) {
    std::vector<std::int32_t> scratch;
    failure = detail::capture_failure([&] { scratch.assign(input->node_count(), -1); });
    for (int r = 1; r < shape.size; ++r) {
      std::optional<std::vector<std::byte>> bytes;
      if (!failure) {
        failure = detail::capture_failure(
            [&] { bytes = detail::pack_part(detail::cut_part(*input, plan, r, scratch)); });
      }
      detail::send_bytes(channel, r, bytes ? &*bytes : nullptr);
    }
    if (!failure) {
      failure = detail::capture_failure([&] {
        result = detail::cut_part(*input, plan, 0, scratch);
        result.input_node_of_global = detail::input_node_of_global(plan);
      });
    }
  } else {
    std::optional<std::vector<std::byte>> bytes = detail::receive_bytes(channel, 0, failure);
    if (bytes && !failure) {
      failure = detail::capture_failure([&] { result = detail::unpack_part(*bytes); });
    } else if (!bytes && !failure) {
      failure = detail::Failure{ErrorCategory::internal,
                                "distribute_mesh: rank 0 sent no part (it failed first)"};
    }
  }
  // A rank that only heard "no data" reports after rank 0, which names the real cause.
  detail::agree_on_failure(channel, failure);

  result.comm = comm;
  result.rank = shape.rank;
  result.size = shape.size;
  return result;
}

}  // namespace foehn::petsc
