// Device and pinned allocation, copies and the memory pool facade, CUDA backend.

#include "foehn/runtime/memory.hpp"

#include <limits>
#include <mutex>
#include <vector>

#include "foehn/runtime/device.hpp"
#include "runtime_internal.hpp"

namespace foehn {

namespace {

cudaMemPool_t default_pool(int device) {
  cudaMemPool_t pool = nullptr;
  FOEHN_CUDA_CHECK(cudaDeviceGetDefaultMemPool(&pool, device));
  return pool;
}

// Which devices' pools Foehn has configured (or the user has, via set_release_threshold).
// Function-local so that allocations from other static initialisers find it constructed.
struct PoolRegistry {
  std::mutex mutex;
  std::vector<bool> configured;
};
PoolRegistry& pool_registry() {
  static PoolRegistry registry;
  return registry;
}

// Returns true the first time it is called for `device`.
bool claim_pool_configuration(int device) {
  PoolRegistry& registry = pool_registry();
  std::lock_guard lock(registry.mutex);
  const auto slot = static_cast<std::size_t>(device);
  if (registry.configured.size() <= slot) registry.configured.resize(slot + 1, false);
  if (registry.configured[slot]) return false;
  registry.configured[slot] = true;
  return true;
}

// The default release threshold is 0: the pool would hand all cached memory back to the
// driver at every synchronisation and the next timestep would pay for it again.
void configure_pool_once(int device, cudaMemPool_t pool) {
  if (!claim_pool_configuration(device)) return;
  std::uint64_t threshold = MemoryPool::keep_all;
  FOEHN_CUDA_CHECK(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &threshold));
}

std::uint64_t pool_attribute(int device, cudaMemPoolAttr attribute) {
  std::uint64_t value = 0;
  FOEHN_CUDA_CHECK(cudaMemPoolGetAttribute(default_pool(device), attribute, &value));
  return value;
}

// Free/total memory of `device` and what its pool holds, for an error message; best effort,
// never throws (it runs while reporting another error).
std::string memory_report(int device, cudaMemPool_t pool) {
  int previous = -1;
  std::size_t free_bytes = 0;
  std::size_t total_bytes = 0;
  bool ok = cudaGetDevice(&previous) == cudaSuccess;
  const bool switched = ok && previous != device;
  if (switched) ok = cudaSetDevice(device) == cudaSuccess;
  if (ok) ok = cudaMemGetInfo(&free_bytes, &total_bytes) == cudaSuccess;
  if (switched) (void)cudaSetDevice(previous);
  std::uint64_t reserved = 0;
  const bool have_reserved =
      cudaMemPoolGetAttribute(pool, cudaMemPoolAttrReservedMemCurrent, &reserved) == cudaSuccess;
  (void)cudaGetLastError();
  std::string report = ok ? detail::concat(detail::format_bytes(free_bytes), " free of ",
                                           detail::format_bytes(total_bytes), " total")
                          : std::string("free/total device memory unknown");
  if (have_reserved) {
    report += detail::concat("; Foehn's memory pool holds ",
                             detail::format_bytes(static_cast<std::size_t>(reserved)));
  }
  return report;
}

const char* kind_name(detail::CopyKind kind) {
  switch (kind) {
    case detail::CopyKind::host_to_device:
      return "host to device";
    case detail::CopyKind::device_to_host:
      return "device to host";
    case detail::CopyKind::device_to_device:
      return "device to device";
  }
  return "unknown";
}

cudaMemcpyKind native_kind(detail::CopyKind kind) {
  switch (kind) {
    case detail::CopyKind::host_to_device:
      return cudaMemcpyHostToDevice;
    case detail::CopyKind::device_to_host:
      return cudaMemcpyDeviceToHost;
    case detail::CopyKind::device_to_device:
      return cudaMemcpyDeviceToDevice;
  }
  return cudaMemcpyDefault;
}

std::size_t checked_bytes(std::size_t count, std::size_t element_size, const char* what) {
  if (element_size != 0 && count > std::numeric_limits<std::size_t>::max() / element_size) {
    fail(ErrorCategory::out_of_memory, "cannot allocate ", count, " elements of ", element_size,
         " bytes of ", what, ": the size overflows the address space");
  }
  return count * element_size;
}

}  // namespace

namespace detail {

void* device_allocate(std::size_t count, std::size_t element_size, CUstream_st* stream) {
  require_handle(stream, "Stream", "DeviceArray allocation");
  const std::size_t bytes = checked_bytes(count, element_size, "device memory");
  int device = 0;
  FOEHN_CUDA_CHECK(cudaStreamGetDevice(stream, &device));
  const cudaMemPool_t pool = default_pool(device);
  configure_pool_once(device, pool);
  void* pointer = nullptr;
  const cudaError_t code = cudaMallocFromPoolAsync(&pointer, bytes, pool, stream);
  if (code == cudaErrorMemoryAllocation) {
    (void)cudaGetLastError();
    fail(ErrorCategory::out_of_memory, "cannot allocate ", format_bytes(bytes), " for ", count,
         " elements of ", element_size, " bytes on CUDA device ", device, ": ",
         memory_report(device, pool));
  }
  if (code != cudaSuccess) {
    throw_cuda_error(code,
                     concat("cudaMallocFromPoolAsync of ", format_bytes(bytes), " for ", count,
                            " elements of ", element_size, " bytes")
                         .c_str(),
                     __FILE__, __LINE__);
  }
  return pointer;
}

void device_free(void* pointer, CUstream_st* stream) noexcept {
  if (pointer == nullptr) return;
  report_in_destructor(cudaFreeAsync(pointer, stream), "cudaFreeAsync");
}

void* pinned_allocate(std::size_t count, std::size_t element_size) {
  const std::size_t bytes = checked_bytes(count, element_size, "pinned host memory");
  void* pointer = nullptr;
  const cudaError_t code = cudaMallocHost(&pointer, bytes);
  if (code == cudaErrorMemoryAllocation) {
    (void)cudaGetLastError();
    fail(ErrorCategory::out_of_memory, "cannot allocate ", format_bytes(bytes), " of pinned",
         " (page-locked) host memory for ", count, " elements of ", element_size, " bytes");
  }
  if (code != cudaSuccess) {
    throw_cuda_error(code,
                     concat("cudaMallocHost of ", format_bytes(bytes), " for ", count,
                            " elements of ", element_size, " bytes")
                         .c_str(),
                     __FILE__, __LINE__);
  }
  return pointer;
}

void pinned_free(void* pointer) noexcept {
  if (pointer == nullptr) return;
  report_in_destructor(cudaFreeHost(pointer), "cudaFreeHost");
}

void copy_async(void* destination, const void* source, std::size_t bytes, CopyKind kind,
                CUstream_st* stream) {
  require_handle(stream, "Stream", "asynchronous copy");
  const cudaError_t code = cudaMemcpyAsync(destination, source, bytes, native_kind(kind), stream);
  if (code != cudaSuccess) {
    throw_cuda_error(
        code,
        concat("copy of ", format_bytes(bytes), " ", kind_name(kind), " (cudaMemcpyAsync)").c_str(),
        __FILE__, __LINE__);
  }
}

void fill_bytes_async(void* destination, unsigned char value, std::size_t bytes,
                      CUstream_st* stream) {
  require_handle(stream, "Stream", "fill_bytes_async");
  const cudaError_t code = cudaMemsetAsync(destination, value, bytes, stream);
  if (code != cudaSuccess) {
    throw_cuda_error(code, concat("fill of ", format_bytes(bytes), " (cudaMemsetAsync)").c_str(),
                     __FILE__, __LINE__);
  }
}

}  // namespace detail

MemoryPool::MemoryPool(int device) : device_(device) {
  detail::check_device_index(device, "MemoryPool");
}

MemoryPool MemoryPool::current() {
  return MemoryPool(current_device());
}

std::size_t MemoryPool::used_bytes() const {
  return static_cast<std::size_t>(pool_attribute(device_, cudaMemPoolAttrUsedMemCurrent));
}

std::size_t MemoryPool::reserved_bytes() const {
  return static_cast<std::size_t>(pool_attribute(device_, cudaMemPoolAttrReservedMemCurrent));
}

std::size_t MemoryPool::peak_used_bytes() const {
  return static_cast<std::size_t>(pool_attribute(device_, cudaMemPoolAttrUsedMemHigh));
}

void MemoryPool::reset_peak() {
  std::uint64_t zero = 0;  // the only value the driver accepts for a high-water mark
  FOEHN_CUDA_CHECK(
      cudaMemPoolSetAttribute(default_pool(device_), cudaMemPoolAttrUsedMemHigh, &zero));
}

std::uint64_t MemoryPool::release_threshold() const {
  return pool_attribute(device_, cudaMemPoolAttrReleaseThreshold);
}

void MemoryPool::set_release_threshold(std::uint64_t bytes) {
  (void)claim_pool_configuration(device_);  // the user's choice wins over Foehn's default
  FOEHN_CUDA_CHECK(
      cudaMemPoolSetAttribute(default_pool(device_), cudaMemPoolAttrReleaseThreshold, &bytes));
}

void MemoryPool::trim_to(std::size_t bytes_to_keep) {
  FOEHN_CUDA_CHECK(cudaMemPoolTrimTo(default_pool(device_), bytes_to_keep));
}

}  // namespace foehn
