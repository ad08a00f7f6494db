#include "foehn/petsc/system_assembler.hpp"

#include "foehn/fe/operator_list.hpp"
#include "foehn/petsc/log_events.hpp"
#include "foehn/petsc/system_assembler_impl.hpp"
#include "foehn/runtime/device_array.hpp"
#include "foehn/runtime/error.hpp"
#include "foehn/runtime/stream.hpp"

namespace foehn::petsc {

namespace {

fe::AssemblerOptions options_for(Backend backend, fe::AssemblyStrategy strategy) {
  fe::AssemblerOptions options;
  options.backend = std::string(to_string(backend));  // chosen once by the application
  options.strategy = strategy;
  return options;
}

}  // namespace

SystemAssembler::SystemAssembler(const DistributedMesh& mesh, Backend backend,
                                 fe::AssemblyStrategy strategy, bool device_solves)
    : SystemAssembler(mesh, options_for(backend, strategy), device_solves) {}

SystemAssembler::SystemAssembler(const DistributedMesh& mesh, const fe::AssemblerOptions& options,
                                 bool device_solves)
    : device_solves_(device_solves), assembler_(mesh.local, options) {
  backend_ = assembler_.backend();
  strategy_ = assembler_.strategy();
  if (device_solves && backend_ != Backend::cuda)
    fail(ErrorCategory::invalid_input, "SystemAssembler: solves on the GPU need the CUDA backend");
  if (backend_ == Backend::cuda) device_ = std::make_unique<Device>();
}

SystemAssembler::~SystemAssembler() = default;

const Stream* SystemAssembler::stream() const noexcept {
  return assembler_.stream();
}

Placement SystemAssembler::values() const {
  return Placement::for_backend(backend_, assembler_.stream());
}

Placement SystemAssembler::fields() const {
  if (backend_ == Backend::cpu) return Placement::host();
  return device_solves_ ? Placement::device(*assembler_.stream())
                        : Placement::host_staged_by(*assembler_.stream());
}

const std::int32_t* SystemAssembler::device_tets() const {
  if (!device_) fail(ErrorCategory::invalid_input, "SystemAssembler: no device (CPU backend)");
  return assembler_.cuda_assembler()->tets().data();
}

void SystemAssembler::declare_constant(std::span<const double> field) {
  constant_fields_.insert(field.data());
}

const double* SystemAssembler::device_copy_of(const fe::FieldRef& field) {
  Device& d = *device_;
  const Stream& stream = *assembler_.stream();
  auto [slot, created] = d.fields.try_emplace(field.data);
  if (created || slot->second.size() != static_cast<std::size_t>(field.size))
    slot->second = DeviceArray<double>(static_cast<std::size_t>(field.size), stream);
  const bool constant = constant_fields_.count(field.data) != 0;
  if (!constant || d.uploaded_constants.insert(field.data).second) {
    const ScopedLogEvent event(LogEvent::copy_h2d);
    slot->second.copy_from_host_async(
        std::span<const double>(field.data, static_cast<std::size_t>(field.size)), stream);
  }
  return slot->second.data();
}

}  // namespace foehn::petsc

FOEHN_FOR_EACH_BUILTIN_OPERATOR(FOEHN_INSTANTIATE_SYSTEM_ASSEMBLE)
