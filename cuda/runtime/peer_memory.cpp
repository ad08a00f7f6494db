#include "foehn/runtime/peer_memory.hpp"

#include <cuda_runtime.h>

#include <cstring>
#include <utility>

#include "foehn/runtime/stream.hpp"
#include "runtime_internal.hpp"

namespace foehn {

ExportedDeviceMemory::ExportedDeviceMemory(std::size_t bytes) : bytes_(bytes) {
  if (bytes_ == 0) return;
  const cudaError_t code = cudaMalloc(&data_, bytes_);
  if (code == cudaErrorMemoryAllocation) {
    cudaGetLastError();
    data_ = nullptr;
    fail(ErrorCategory::out_of_memory, "cannot allocate ", detail::format_bytes(bytes_),
         " of device memory to share with the other ranks of this host");
  }
  FOEHN_CUDA_CHECK(code);
}

ExportedDeviceMemory::~ExportedDeviceMemory() {
  release();
}

ExportedDeviceMemory::ExportedDeviceMemory(ExportedDeviceMemory&& other) noexcept
    : data_(std::exchange(other.data_, nullptr)), bytes_(std::exchange(other.bytes_, 0)) {}

ExportedDeviceMemory& ExportedDeviceMemory::operator=(ExportedDeviceMemory&& other) noexcept {
  if (this != &other) {
    release();
    data_ = std::exchange(other.data_, nullptr);
    bytes_ = std::exchange(other.bytes_, 0);
  }
  return *this;
}

void ExportedDeviceMemory::release() noexcept {
  if (data_ != nullptr) detail::report_in_destructor(cudaFree(data_), "cudaFree");
  data_ = nullptr;
  bytes_ = 0;
}

PeerMemoryHandle ExportedDeviceMemory::handle() const {
  if (data_ == nullptr)
    fail(ErrorCategory::invalid_input, "ExportedDeviceMemory::handle: nothing allocated");
  cudaIpcMemHandle_t native{};
  FOEHN_CUDA_CHECK(cudaIpcGetMemHandle(&native, data_));
  PeerMemoryHandle handle;
  static_assert(sizeof native == sizeof handle.bytes, "cudaIpcMemHandle_t is 64 bytes");
  std::memcpy(handle.bytes.data(), &native, sizeof native);
  return handle;
}

MappedPeerMemory::MappedPeerMemory(const PeerMemoryHandle& handle, std::size_t bytes)
    : bytes_(bytes) {
  cudaIpcMemHandle_t native{};
  std::memcpy(&native, handle.bytes.data(), sizeof native);
  FOEHN_CUDA_CHECK(cudaIpcOpenMemHandle(&data_, native, cudaIpcMemLazyEnablePeerAccess));
}

MappedPeerMemory::~MappedPeerMemory() {
  release();
}

MappedPeerMemory::MappedPeerMemory(MappedPeerMemory&& other) noexcept
    : data_(std::exchange(other.data_, nullptr)), bytes_(std::exchange(other.bytes_, 0)) {}

MappedPeerMemory& MappedPeerMemory::operator=(MappedPeerMemory&& other) noexcept {
  if (this != &other) {
    release();
    data_ = std::exchange(other.data_, nullptr);
    bytes_ = std::exchange(other.bytes_, 0);
  }
  return *this;
}

void MappedPeerMemory::release() noexcept {
  if (data_ != nullptr)
    detail::report_in_destructor(cudaIpcCloseMemHandle(data_), "cudaIpcCloseMemHandle");
  data_ = nullptr;
  bytes_ = 0;
}

void copy_device_bytes_async(void* destination, const void* source, std::size_t bytes,
                             const Stream& stream) {
  if (bytes == 0) return;
  detail::require_handle(stream.native_handle(), "stream", "copy_device_bytes_async");
  FOEHN_CUDA_CHECK(
      cudaMemcpyAsync(destination, source, bytes, cudaMemcpyDefault, stream.native_handle()));
}

}  // namespace foehn
