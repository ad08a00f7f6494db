// Assembler: backend choice, scratch buffers and the copies between host and device memory.
#include "foehn/fe/assembler.hpp"

#include <algorithm>
#include <cstring>

#include "foehn/runtime/memory.hpp"

namespace foehn::fe {

std::string_view to_string(Memory memory) {
  return memory == Memory::host ? "host" : "device";
}

Assembler::Assembler(const TetMesh& mesh, const AssemblerOptions& options)
    : backend_(select_backend(options.backend, options.notice)),
      strategy_(options.strategy),
      node_count_(static_cast<std::int64_t>(mesh.node_count())),
      tet_count_(static_cast<std::int64_t>(mesh.tet_count())) {
  if (backend_ == Backend::cuda) {
    stream_ = std::make_unique<Stream>(options.stream ? Stream::borrow(options.stream) : Stream());
    cuda_ = std::make_unique<CudaAssembler>(mesh, *stream_, options.cuda);
    pattern_ = std::make_shared<const CsrPattern>(cuda_->download_pattern());
    cuda_->prepare(strategy_);
  } else {
    cpu_ = std::make_unique<CpuAssembler>(
        mesh,
        CpuAssemblyOptions{.use_slot_map = options.use_slot_map, .threads = options.cpu_threads});
    pattern_ = cpu_->pattern();
  }
}

Assembler::~Assembler() = default;
Assembler::Assembler(Assembler&&) noexcept = default;
Assembler& Assembler::operator=(Assembler&&) noexcept = default;

const Stream& Assembler::copy_stream() {
  // The CPU backend touches device memory only when the caller hands it some: a stream then.
  if (!stream_) stream_ = std::make_unique<Stream>();
  return *stream_;
}

std::span<double> Assembler::scratch(Memory memory, std::size_t slot, std::size_t count) {
  if (memory == Memory::host) {
    if (host_scratch_.size() <= slot) host_scratch_.resize(slot + 1);
    std::vector<double>& buffer = host_scratch_[slot];
    if (buffer.size() < count) buffer.resize(count);
    return {buffer.data(), count};
  }
  if (device_scratch_.size() <= slot) device_scratch_.resize(slot + 1);
  DeviceArray<double>& buffer = device_scratch_[slot];
  if (buffer.size() < count) buffer = DeviceArray<double>(count, copy_stream());
  return {buffer.data(), count};
}

FieldRef Assembler::stage_field(const FieldRef& field, Memory from, std::size_t slot) {
  const Memory native = native_memory();
  const std::size_t count = static_cast<std::size_t>(field.size);
  const std::span<double> staged = scratch(native, slot, count);
  copy(field.data, from, staged.data(), native, count);
  finish_copies(native);
  return FieldRef{staged.data(), field.size};
}

void Assembler::copy(const double* source, Memory from, double* destination, Memory to,
                     std::size_t count) {
  if (count == 0) return;
  if (from == Memory::host && to == Memory::host) {
    std::memcpy(destination, source, count * sizeof(double));
    return;
  }
  const ::foehn::detail::CopyKind kind =
      from == Memory::host ? ::foehn::detail::CopyKind::host_to_device
      : to == Memory::host ? ::foehn::detail::CopyKind::device_to_host
                           : ::foehn::detail::CopyKind::device_to_device;
  ::foehn::detail::copy_async(destination, source, count * sizeof(double), kind,
                              copy_stream().native_handle());
}

void Assembler::finish_copies(Memory destination) {
  // Host destinations are read by the caller as soon as assemble returns; device ones are read
  // in stream order. The CPU backend also waits for device fields it is about to read.
  if (stream_ && (destination == Memory::host || backend_ == Backend::cpu)) stream_->synchronize();
}

}  // namespace foehn::fe
