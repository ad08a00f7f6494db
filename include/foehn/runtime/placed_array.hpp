#pragma once
// An array that knows where it lives (Placement): host memory or device memory on a stream.
// What the solver-facing code hands to assembly, PETSc and for_each without copies or flags.
#include <algorithm>
#include <span>
#include <utility>
#include <vector>

#include "foehn/runtime/device_array.hpp"
#include "foehn/runtime/placement.hpp"

namespace foehn {

template <class T>
class PlacedArray {
 public:
  PlacedArray() = default;
  // `size` zeroed values where `placement` says (on the device: allocated and zeroed on its
  // stream).
  PlacedArray(std::size_t size, const Placement& placement) : placement_(placement) {
    if (placement.on_device()) {
      device_ = DeviceArray<T>(size, placement.stream());
      device_.fill_bytes_async(0, placement.stream());
    } else {
      host_.assign(size, T{});
    }
  }
  // A copy of host values where `placement` says (asynchronous on the device: `values` must
  // stay alive until the stream reaches the copy).
  PlacedArray(std::span<const T> values, const Placement& placement)
      : PlacedArray(values.size(), placement) {
    assign(values);
  }

  const Placement& placement() const noexcept { return placement_; }
  bool on_device() const noexcept { return placement_.on_device(); }
  std::size_t size() const noexcept { return on_device() ? device_.size() : host_.size(); }
  T* data() noexcept { return on_device() ? device_.data() : host_.data(); }
  const T* data() const noexcept { return on_device() ? device_.data() : host_.data(); }

  // Sets the values from host memory (an upload for device arrays, asynchronous on the stream:
  // the host values must stay alive until the stream reaches the copy).
  void assign(std::span<const T> values) {
    if (values.size() != size())
      detail::fail_size_mismatch("PlacedArray::assign", values.size(), size());
    if (on_device())
      device_.copy_from_host_async(values, placement_.stream());
    else
      std::copy(values.begin(), values.end(), host_.begin());
  }
  // Copies the values into host memory (waits for the stream for device arrays).
  void copy_to_host(std::span<T> values) const {
    if (values.size() != size())
      detail::fail_size_mismatch("PlacedArray::copy_to_host", size(), values.size());
    if (on_device()) {
      device_.copy_to_host_async(values, placement_.stream());
      placement_.stream().synchronize();
    } else {
      std::copy(host_.begin(), host_.end(), values.begin());
    }
  }
  void swap(PlacedArray& other) noexcept {
    std::swap(placement_, other.placement_);
    host_.swap(other.host_);
    std::swap(device_, other.device_);
  }

 private:
  Placement placement_ = Placement::host();
  std::vector<T> host_;
  DeviceArray<T> device_;
};

}  // namespace foehn
