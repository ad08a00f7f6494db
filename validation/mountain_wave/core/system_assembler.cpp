#include "system_assembler.hpp"

#include <map>

#include "foehn/petsc/log_events.hpp"
#include "foehn/runtime/device_array.hpp"
#include "foehn/runtime/stream.hpp"

namespace foehn::mountainwave {

struct SystemAssembler::Device {
  Stream stream;
  fe::CudaAssembler assembler;
  std::map<int, fe::DeviceBlockCsrMatrix> matrices;
  std::map<int, DeviceArray<double>> rhs;
  std::map<const double*, DeviceArray<double>> fields;  // by host address
  std::set<const double*> uploaded_constants;

  explicit Device(const TetMesh& mesh) : assembler(mesh, stream) {}
};

SystemAssembler::SystemAssembler(const petsc::DistributedMesh& mesh, Backend backend,
                                 fe::AssemblyStrategy strategy)
    : backend_(backend), strategy_(strategy), cpu_(mesh.local) {
  if (backend_ == Backend::cuda) device_ = std::make_unique<Device>(mesh.local);
}

SystemAssembler::~SystemAssembler() = default;

void SystemAssembler::declare_constant(std::span<const double> field) {
  constant_fields_.insert(field.data());
}

const double* SystemAssembler::device_copy_of(const fe::FieldRef& field) {
  Device& d = *device_;
  auto [slot, created] = d.fields.try_emplace(field.data);
  if (created || slot->second.size() != static_cast<std::size_t>(field.size))
    slot->second = DeviceArray<double>(static_cast<std::size_t>(field.size), d.stream);
  const bool constant = constant_fields_.count(field.data) != 0;
  if (!constant || d.uploaded_constants.insert(field.data).second) {
    const petsc::ScopedLogEvent event(petsc::LogEvent::copy_h2d);
    slot->second.copy_from_host_async(
        std::span<const double>(field.data, static_cast<std::size_t>(field.size)), d.stream);
  }
  return slot->second.data();
}

template <class Op>
void SystemAssembler::assemble(const Op& op, petsc::PetscMatrix& matrix, petsc::PetscVector* rhs,
                               petsc::PetscMatrix* same_values) {
  const int shape = Op::block_rows * 4 + Op::block_cols;
  if (backend_ == Backend::cpu) {
    auto [slot, created] = host_matrices_.try_emplace(shape);
    if (created) slot->second = cpu_.create_matrix<Op>();
    std::vector<double>& b = host_rhs_[Op::block_rows];
    b.assign(static_cast<std::size_t>(cpu_.node_count()) * Op::block_rows, 0.0);
    {
      const petsc::ScopedLogEvent event(petsc::LogEvent::assemble);
      cpu_.assemble(op, slot->second, rhs ? std::span<double>(b) : std::span<double>());
    }
    matrix.set_values(slot->second);
    if (same_values) same_values->set_values(std::span<const double>(slot->second.values));
    if (rhs) rhs->set_values(b);
    return;
  }
  Device& d = *device_;
  // A copy of the operator whose fields point at device copies of the host fields. The copy
  // is a non-const object, so writing its FieldRef members through the visitor is allowed.
  Op device_op = op;
  device_op.for_each_field([&](const fe::FieldRef& field, int, const char*, bool) {
    if (field.data == nullptr) return;
    const_cast<fe::FieldRef&>(field).data = device_copy_of(field);
  });
  auto [slot, created] = d.matrices.try_emplace(shape);
  if (created) slot->second = d.assembler.create_matrix<Op>();
  auto [b, b_created] = d.rhs.try_emplace(Op::block_rows);
  if (b_created)
    b->second = DeviceArray<double>(static_cast<std::size_t>(d.assembler.node_count()) * Op::block_rows,
                                    d.stream);
  {
    const petsc::ScopedLogEvent event(petsc::LogEvent::assemble_gpu);
    d.assembler.assemble(device_op, slot->second, rhs ? &b->second : nullptr, strategy_);
    d.stream.synchronize();  // so that the event (and the phase timers) see the device time
  }
  matrix.begin_set_values(slot->second, d.stream);
  if (same_values) same_values->begin_set_values(slot->second.values, d.stream);
  if (rhs) rhs->begin_set_values(b->second, d.stream);
  matrix.end_set_values();
  if (same_values) same_values->end_set_values();
  if (rhs) rhs->end_set_values();
}

template void SystemAssembler::assemble(const fe::MassOperator&, petsc::PetscMatrix&,
                                        petsc::PetscVector*, petsc::PetscMatrix*);
template void SystemAssembler::assemble(const fe::DiffusionOperator&, petsc::PetscMatrix&,
                                        petsc::PetscVector*, petsc::PetscMatrix*);
template void SystemAssembler::assemble(const fe::AdvectionDiffusionOperator&, petsc::PetscMatrix&,
                                        petsc::PetscVector*, petsc::PetscMatrix*);
template void SystemAssembler::assemble(const fe::StabilisationOperator&, petsc::PetscMatrix&,
                                        petsc::PetscVector*, petsc::PetscMatrix*);
template void SystemAssembler::assemble(const fe::DivergenceOperator&, petsc::PetscMatrix&,
                                        petsc::PetscVector*, petsc::PetscMatrix*);
template void SystemAssembler::assemble(const fe::MomentumOperator&, petsc::PetscMatrix&,
                                        petsc::PetscVector*, petsc::PetscMatrix*);

}  // namespace foehn::mountainwave
