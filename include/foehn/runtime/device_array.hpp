#pragma once
// DeviceArray<T>: the one owner of device memory in Foehn. RAII and move-only, allocated
// from the stream-ordered pool (see MemoryPool), with explicit asynchronous copies only:
// no implicit transfers, no managed memory, so every byte that crosses PCIe is visible in
// the code that moves it.

#include <cstddef>
#include <limits>
#include <span>
#include <type_traits>
#include <utility>
#include <vector>

#include "foehn/runtime/memory.hpp"
#include "foehn/runtime/stream.hpp"

namespace foehn {

template <typename T>
class DeviceArray {
  static_assert(std::is_trivially_copyable_v<T>,
                "DeviceArray holds raw bytes copied with cudaMemcpy: T must be trivially copyable");

 public:
  using value_type = T;

  DeviceArray() noexcept = default;
  // `size` uninitialised elements, allocated in stream order on `stream`; the memory is
  // freed in stream order on the same stream, so THE STREAM MUST OUTLIVE THE ARRAY
  // (declare streams before the arrays that use them). size 0 allocates nothing and needs
  // no device.
  DeviceArray(std::size_t size, const Stream& stream) : size_(size) {
    if (size_ == 0) return;
    stream_ = stream.native_handle();
    data_ = static_cast<T*>(detail::device_allocate(size_, sizeof(T), stream_));
  }
  ~DeviceArray() { reset(); }

  DeviceArray(DeviceArray&& other) noexcept
      : data_(std::exchange(other.data_, nullptr)),
        size_(std::exchange(other.size_, 0)),
        stream_(std::exchange(other.stream_, nullptr)) {}
  DeviceArray& operator=(DeviceArray&& other) noexcept {
    if (this != &other) {
      reset();
      data_ = std::exchange(other.data_, nullptr);
      size_ = std::exchange(other.size_, 0);
      stream_ = std::exchange(other.stream_, nullptr);
    }
    return *this;
  }
  DeviceArray(const DeviceArray&) = delete;
  DeviceArray& operator=(const DeviceArray&) = delete;

  std::size_t size() const noexcept { return size_; }
  std::size_t bytes() const noexcept { return size_ * sizeof(T); }
  bool empty() const noexcept { return size_ == 0; }
  // Device pointer: pass to kernels, never dereference on the host.
  T* data() noexcept { return data_; }
  const T* data() const noexcept { return data_; }
  // The stream the memory was allocated on and will be freed on.
  CUstream_st* allocation_stream() const noexcept { return stream_; }

  // Frees the memory now (stream-ordered) and leaves the array empty.
  void reset() noexcept {
    if (data_ != nullptr) detail::device_free(data_, stream_);
    data_ = nullptr;
    size_ = 0;
    stream_ = nullptr;
  }

  // host[0, n) -> elements [offset, offset + n). The host memory must stay valid until the
  // stream reaches the copy; only pinned memory (PinnedArray) gives a truly async copy.
  void copy_from_host_async(std::span<const T> host, const Stream& stream, std::size_t offset = 0) {
    check_range("copy_from_host_async", offset, host.size());
    if (host.empty()) return;
    detail::copy_async(data_ + offset, host.data(), host.size_bytes(),
                       detail::CopyKind::host_to_device, stream.native_handle());
  }
  // elements [offset, offset + n) -> host[0, n).
  void copy_to_host_async(std::span<T> host, const Stream& stream, std::size_t offset = 0) const {
    check_range("copy_to_host_async", offset, host.size());
    if (host.empty()) return;
    detail::copy_async(host.data(), data_ + offset, host.size_bytes(),
                       detail::CopyKind::device_to_host, stream.native_handle());
  }
  // Device-to-device copy of a whole array of the same size.
  void copy_from_async(const DeviceArray& source, const Stream& stream) {
    if (source.size() != size_) {
      detail::fail_size_mismatch("copy_from_async", source.size(), size_);
    }
    if (empty()) return;
    detail::copy_async(data_, source.data(), bytes(), detail::CopyKind::device_to_device,
                       stream.native_handle());
  }
  // Convenience for tests and small read-backs: copies everything and waits for `stream`.
  std::vector<T> copy_to_host(const Stream& stream) const {
    std::vector<T> host(size_);
    copy_to_host_async(host, stream);
    if (!empty()) stream.synchronize();
    return host;
  }

  // Sets every byte to `value` (cudaMemsetAsync).
  void fill_bytes_async(unsigned char value, const Stream& stream) {
    if (empty()) return;
    detail::fill_bytes_async(data_, value, bytes(), stream.native_handle());
  }
  // Sets every element to `value`.
  void fill_async(const T& value, const Stream& stream) {
    static_assert(sizeof(T) <= detail::max_fill_pattern_bytes, "element too large to fill");
    if (empty()) return;
    detail::fill_pattern_async(data_, size_, &value, sizeof(T), stream.native_handle());
  }

 private:
  void check_range(const char* operation, std::size_t offset, std::size_t count) const {
    if (offset > size_ || count > size_ - offset) {
      detail::fail_copy_range(operation, offset, count, size_);
    }
  }

  T* data_ = nullptr;
  std::size_t size_ = 0;
  CUstream_st* stream_ = nullptr;
};

// Fills an array with values no correct kernel produces, so tests catch elements a kernel
// forgot to write: quiet NaN for floating point, all bits set (-1 / max) otherwise.
template <typename T>
void poison_async(DeviceArray<T>& array, const Stream& stream) {
  if constexpr (std::is_floating_point_v<T>) {
    array.fill_async(std::numeric_limits<T>::quiet_NaN(), stream);
  } else {
    array.fill_bytes_async(0xFF, stream);
  }
}

}  // namespace foehn
