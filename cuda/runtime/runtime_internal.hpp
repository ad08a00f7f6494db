#pragma once
// Helpers shared by the CUDA backend of the runtime layer (cuda/runtime/ only).

#include <cstddef>
#include <string>

#include "foehn/runtime/cuda_check.hpp"

namespace foehn::detail {

// Throws invalid_input when a moved-from Stream/Event reaches a CUDA call: a null handle
// would silently mean the legacy default stream, which Foehn never uses on purpose.
inline void require_handle(const void* handle, const char* what, const char* operation) {
  if (handle == nullptr) {
    fail(ErrorCategory::invalid_input, operation, ": the ", what,
         " is empty (moved from); Foehn never uses the legacy default stream");
  }
}

// unavailable without a device, invalid_input for an index out of range.
void check_device_index(int index, const char* operation);

// "123456789 bytes (117.7 MiB)"
std::string format_bytes(std::size_t bytes);

// Reports a CUDA error from a destructor, which must not throw. Errors during process
// teardown (the runtime already unloaded) are expected and stay silent.
void report_in_destructor(cudaError_t code, const char* operation) noexcept;

}  // namespace foehn::detail
