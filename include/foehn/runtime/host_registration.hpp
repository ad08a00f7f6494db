#pragma once
// Page-locking memory that someone else allocated (cudaHostRegister), so that asynchronous
// copies into it run at full link speed without a staging buffer: the hand-off to PETSc
// copies assembled values from the device straight into the value array of a PETSc matrix.
//
// Registration can fail for reasons that are not errors of the caller (the range shares a
// page with memory registered by someone else; the platform does not allow it), so try()
// reports failure instead of throwing and the caller falls back to a pinned staging buffer.
#include <cstddef>

namespace foehn {

class HostRegistration {
 public:
  HostRegistration() noexcept = default;
  // Registers [data, data + bytes). Returns an empty registration (registered() == false)
  // when CUDA refuses; throws foehn::Error (unavailable) in a build without CUDA.
  static HostRegistration try_register(void* data, std::size_t bytes);
  ~HostRegistration();
  HostRegistration(HostRegistration&& other) noexcept;
  HostRegistration& operator=(HostRegistration&& other) noexcept;
  HostRegistration(const HostRegistration&) = delete;
  HostRegistration& operator=(const HostRegistration&) = delete;

  bool registered() const noexcept { return data_ != nullptr; }
  void* data() const noexcept { return data_; }
  std::size_t bytes() const noexcept { return bytes_; }
  // True when [data, data + bytes) lies inside the registered range.
  bool covers(const void* data, std::size_t bytes) const noexcept;

 private:
  void release() noexcept;
  void* data_ = nullptr;
  std::size_t bytes_ = 0;
};

}  // namespace foehn
