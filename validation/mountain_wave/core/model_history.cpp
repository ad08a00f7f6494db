// MountainWaveModel's history: what a step takes from the steps before it besides the state (the
// previous velocity for -picard_extrapolate, the last pressure increment for
// -pressure_guess_previous), handed out and taken back as node fields so that a checkpoint can
// keep it and a restart continue as the uninterrupted run.
#include <string_view>

#include "foehn/petsc/mpi_collective.hpp"
#include "foehn/runtime/error.hpp"
#include "model_systems.hpp"
#include "placed_exchange.hpp"

namespace foehn::mountainwave {

namespace {

constexpr std::string_view previous_velocity_name = "previous_velocity";
constexpr std::string_view pressure_increment_name = "pressure_increment";

}  // namespace

std::vector<MeshField> MountainWaveModel::history() {
  Systems& s = *systems_;
  const std::size_t nodes = mesh_.local.node_count();
  std::vector<MeshField> fields;
  if (numerics_.picard_extrapolate && previous_velocity_ready_) {
    MeshField& field = fields.emplace_back(
        MeshField{std::string(previous_velocity_name), 3, std::vector<double>(3 * nodes)});
    s.velocity_previous.copy_to_host(field.values);
  }
  if (numerics_.pressure_guess_previous && previous_increment_ready_) {
    // pressure_local is a step's work array (rewritten before it is read): its ghosts get the
    // owners' values here.
    to_local(s.scalar_exchange, s.pressure_increment.get(), s.pressure_local);
    MeshField& field = fields.emplace_back(
        MeshField{std::string(pressure_increment_name), 1, std::vector<double>(nodes)});
    s.pressure_local.copy_to_host(field.values);
  }
  return fields;
}

void MountainWaveModel::set_history(const std::vector<MeshField>& fields) {
  Systems& s = *systems_;
  const std::size_t nodes = mesh_.local.node_count();
  const MeshField* velocity = nullptr;
  const MeshField* increment = nullptr;
  petsc::detail::run_collectively(mesh_.comm, [&] {
    for (const MeshField& field : fields) {
      const bool is_velocity = field.name == previous_velocity_name;
      if (!is_velocity && field.name != pressure_increment_name) continue;
      const int components = is_velocity ? 3 : 1;
      if (field.components != components ||
          field.values.size() != static_cast<std::size_t>(components) * nodes)
        fail(ErrorCategory::invalid_input, "MountainWaveModel::set_history: field '", field.name,
             "' has ", field.values.size(), " values of ", field.components,
             " component(s), expected ", components, " per local node (", nodes, " nodes)");
      (is_velocity ? velocity : increment) = &field;
    }
  });
  // Taken only where every rank has them: the pressure's goes through a collective exchange.
  int present[2] = {velocity != nullptr ? 1 : 0, increment != nullptr ? 1 : 0};
  FOEHN_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, present, 2, MPI_INT, MPI_MIN, mesh_.comm));
  if (present[0] == 0) velocity = nullptr;
  if (present[1] == 0) increment = nullptr;
  if (velocity != nullptr && numerics_.picard_extrapolate) {
    s.velocity_previous.assign(velocity->values);
    previous_velocity_ready_ = true;
  }
  if (increment != nullptr && numerics_.pressure_guess_previous) {
    s.pressure_local.assign(increment->values);
    to_global(s.scalar_exchange, s.pressure_local, s.pressure_increment.get());
    previous_increment_ready_ = true;
  }
  // The uploads read the caller's fields, which need not outlive this call.
  if (s.fields.on_device()) s.fields.stream().synchronize();
}

}  // namespace foehn::mountainwave
