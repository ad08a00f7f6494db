#pragma once
// An array of the model's, in host memory or in device memory: where the PETSc vectors live
// (device memory when the solves run on the GPU), so that the step hands pointers to assembly,
// PETSc and the field updates without copies.
#include <algorithm>
#include <span>
#include <vector>

#include "foehn/runtime/device_array.hpp"
#include "foehn/runtime/stream.hpp"

namespace foehn::mountainwave {

template <class T>
class LocalArray {
 public:
  LocalArray() = default;
  // `size` zeroed values; on the device (allocated and zeroed on `stream`) or on the host.
  LocalArray(std::size_t size, bool on_device, const Stream* stream) : on_device_(on_device) {
    if (on_device) {
      device_ = DeviceArray<T>(size, *stream);
      device_.fill_bytes_async(0, *stream);
    } else {
      host_.assign(size, T{});
    }
  }

  bool on_device() const noexcept { return on_device_; }
  std::size_t size() const noexcept { return on_device_ ? device_.size() : host_.size(); }
  T* data() noexcept { return on_device_ ? device_.data() : host_.data(); }
  const T* data() const noexcept { return on_device_ ? device_.data() : host_.data(); }

  // Sets the values from host memory (an upload for device arrays, asynchronous on `stream`: the
  // host values must stay alive until the stream reaches the copy).
  void assign(std::span<const T> values, const Stream* stream) {
    if (values.size() != size())
      detail::fail_size_mismatch("LocalArray::assign", values.size(), size());
    if (on_device_)
      device_.copy_from_host_async(values, *stream);
    else
      std::copy(values.begin(), values.end(), host_.begin());
  }
  // Copies the values into host memory (waits for `stream` for device arrays).
  void copy_to_host(std::span<T> values, const Stream* stream) const {
    if (values.size() != size())
      detail::fail_size_mismatch("LocalArray::copy_to_host", size(), values.size());
    if (on_device_) {
      device_.copy_to_host_async(values, *stream);
      stream->synchronize();
    } else {
      std::copy(host_.begin(), host_.end(), values.begin());
    }
  }
  void swap(LocalArray& other) noexcept {
    std::swap(on_device_, other.on_device_);
    host_.swap(other.host_);
    std::swap(device_, other.device_);
  }

 private:
  bool on_device_ = false;
  std::vector<T> host_;
  DeviceArray<T> device_;
};

}  // namespace foehn::mountainwave
