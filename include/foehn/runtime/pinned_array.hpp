#pragma once
// PinnedArray<T>: page-locked host memory, the staging buffer for host<->device transfers.
// Only copies from/to pinned memory are truly asynchronous (pageable memory makes the CUDA
// driver copy through its own bounce buffer and block the host), so overlap of transfers
// with compute needs these. RAII and move-only; contents start uninitialised.

#include <cstddef>
#include <span>
#include <type_traits>
#include <utility>

#include "foehn/runtime/memory.hpp"

namespace foehn {

template <typename T>
class PinnedArray {
  static_assert(std::is_trivially_copyable_v<T>,
                "PinnedArray is a transfer buffer: T must be trivially copyable");

 public:
  using value_type = T;

  PinnedArray() noexcept = default;
  // size 0 allocates nothing and needs no CUDA. Pinning is slow (it maps pages for the
  // device): allocate staging buffers once, outside time loops.
  explicit PinnedArray(std::size_t size) : size_(size) {
    if (size_ == 0) return;
    data_ = static_cast<T*>(detail::pinned_allocate(size_, sizeof(T)));
  }
  ~PinnedArray() { reset(); }

  PinnedArray(PinnedArray&& other) noexcept
      : data_(std::exchange(other.data_, nullptr)), size_(std::exchange(other.size_, 0)) {}
  PinnedArray& operator=(PinnedArray&& other) noexcept {
    if (this != &other) {
      reset();
      data_ = std::exchange(other.data_, nullptr);
      size_ = std::exchange(other.size_, 0);
    }
    return *this;
  }
  PinnedArray(const PinnedArray&) = delete;
  PinnedArray& operator=(const PinnedArray&) = delete;

  std::size_t size() const noexcept { return size_; }
  std::size_t bytes() const noexcept { return size_ * sizeof(T); }
  bool empty() const noexcept { return size_ == 0; }
  T* data() noexcept { return data_; }
  const T* data() const noexcept { return data_; }
  T& operator[](std::size_t i) noexcept { return data_[i]; }
  const T& operator[](std::size_t i) const noexcept { return data_[i]; }
  // Contiguous range: a PinnedArray converts to std::span, so it can be passed directly to
  // DeviceArray::copy_from_host_async / copy_to_host_async.
  T* begin() noexcept { return data_; }
  T* end() noexcept { return data_ + size_; }
  const T* begin() const noexcept { return data_; }
  const T* end() const noexcept { return data_ + size_; }
  std::span<T> span() noexcept { return {data_, size_}; }
  std::span<const T> span() const noexcept { return {data_, size_}; }

  // Frees the memory now and leaves the array empty. cudaFreeHost is synchronous: the caller
  // must make sure no queued copy still uses the buffer (synchronize its stream first).
  void reset() noexcept {
    if (data_ != nullptr) detail::pinned_free(data_);
    data_ = nullptr;
    size_ = 0;
  }

 private:
  T* data_ = nullptr;
  std::size_t size_ = 0;
};

}  // namespace foehn
