// gather_to_input_numbering: every rank's owned values go to rank 0 in global order (one
// MPI_Gatherv, one node = one element of a contiguous type so the counts are node counts),
// where input_node_of_global puts them back into the input numbering.

#include <climits>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "foehn/petsc/node_exchange.hpp"
#include "foehn/petsc/petsc_check.hpp"
#include "foehn/runtime/error.hpp"
#include "mpi_support.hpp"

namespace foehn::petsc {

namespace {

// A committed MPI datatype of `components` doubles, freed on destruction.
class NodeType {
 public:
  explicit NodeType(int components) {
    FOEHN_MPI_CHECK(MPI_Type_contiguous(components, MPI_DOUBLE, &type_));
    FOEHN_MPI_CHECK(MPI_Type_commit(&type_));
  }
  ~NodeType() { (void)MPI_Type_free(&type_); }
  NodeType(const NodeType&) = delete;
  NodeType& operator=(const NodeType&) = delete;
  MPI_Datatype get() const noexcept { return type_; }

 private:
  MPI_Datatype type_ = MPI_DATATYPE_NULL;
};

}  // namespace

std::vector<double> gather_to_input_numbering(const DistributedMesh& mesh,
                                              std::span<const double> values, int components) {
  const detail::CommShape shape = detail::comm_shape(mesh.comm, "gather_to_input_numbering");
  const auto c = static_cast<std::size_t>(components);
  detail::run_collectively(mesh.comm, [&] {
    if (components < 1)
      fail(ErrorCategory::invalid_input, "gather_to_input_numbering: ", components,
           " components per node");
    if (mesh.size != shape.size ||
        mesh.ownership_ranges.size() != static_cast<std::size_t>(shape.size) + 1)
      fail(ErrorCategory::invalid_input,
           "gather_to_input_numbering: the mesh was distributed over ", mesh.size,
           " ranks, the communicator has ", shape.size);
    const std::size_t owned = static_cast<std::size_t>(mesh.owned_nodes) * c;
    const std::size_t local = static_cast<std::size_t>(mesh.local_nodes()) * c;
    if (values.size() != owned && values.size() != local)
      fail(ErrorCategory::invalid_input, "gather_to_input_numbering: ", values.size(),
           " values, expected ", mesh.owned_nodes, " owned (or ", mesh.local_nodes(),
           " local) nodes x ", components, " components");
    if (mesh.global_nodes > INT_MAX)
      fail(ErrorCategory::invalid_input, "gather_to_input_numbering: ", mesh.global_nodes,
           " nodes are more than one MPI_Gatherv can address");
    if (shape.rank == 0 &&
        mesh.input_node_of_global.size() != static_cast<std::size_t>(mesh.global_nodes))
      fail(ErrorCategory::invalid_input, "gather_to_input_numbering: rank 0 knows the input ",
           "number of ", mesh.input_node_of_global.size(), " of ", mesh.global_nodes, " nodes");
  });

  const NodeType node(components);
  std::vector<int> counts, offsets;
  std::vector<double> by_global;
  if (shape.rank == 0) {
    for (int r = 0; r < shape.size; ++r) {
      const auto first = mesh.ownership_ranges[static_cast<std::size_t>(r)];
      counts.push_back(
          static_cast<int>(mesh.ownership_ranges[static_cast<std::size_t>(r) + 1] - first));
      offsets.push_back(static_cast<int>(first));
    }
    by_global.resize(static_cast<std::size_t>(mesh.global_nodes) * c);
  }
  FOEHN_MPI_CHECK(MPI_Gatherv(values.data(), mesh.owned_nodes, node.get(), by_global.data(),
                              counts.data(), offsets.data(), node.get(), 0, mesh.comm));
  if (shape.rank != 0) return {};
  std::vector<double> by_input(by_global.size());
  for (std::size_t g = 0; g < mesh.input_node_of_global.size(); ++g) {
    const auto n = static_cast<std::size_t>(mesh.input_node_of_global[g]);
    for (std::size_t k = 0; k < c; ++k) by_input[n * c + k] = by_global[g * c + k];
  }
  return by_input;
}

std::vector<double> gather_to_input_numbering(const DistributedMesh& mesh, Vec global,
                                              int components) {
  detail::run_collectively(mesh.comm, [&] {
    if (global == nullptr)
      fail(ErrorCategory::invalid_input, "gather_to_input_numbering: the Vec is null");
    if (components < 1)
      fail(ErrorCategory::invalid_input, "gather_to_input_numbering: ", components,
           " components per node");
    PetscInt local_size = 0;
    FOEHN_PETSC_CHECK(VecGetLocalSize(global, &local_size));
    if (local_size != static_cast<PetscInt>(mesh.owned_nodes) * components)
      fail(ErrorCategory::invalid_input, "gather_to_input_numbering: the Vec has ", local_size,
           " local entries, expected ", mesh.owned_nodes, " owned nodes x ", components,
           " components");
  });
  const PetscScalar* entries = nullptr;
  FOEHN_PETSC_CHECK(VecGetArrayRead(global, &entries));
  std::optional<detail::Failure> failure;
  std::vector<double> result;
  failure = detail::capture_failure([&] {
    result = gather_to_input_numbering(
        mesh,
        std::span<const double>(entries, static_cast<std::size_t>(mesh.owned_nodes) *
                                             static_cast<std::size_t>(components)),
        components);
  });
  FOEHN_PETSC_CHECK(VecRestoreArrayRead(global, &entries));
  if (failure) throw Error(failure->category, failure->message);  // already agreed on
  return result;
}

}  // namespace foehn::petsc
