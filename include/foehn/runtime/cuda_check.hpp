#pragma once
// INTERNAL HEADER: only for .cu files and .cpp files compiled with the CUDA toolkit (the
// backends in cuda/ and GPU tests). It includes the CUDA runtime headers, which consumers
// and CPU-only builds do not have; public headers must never include it.
//
// FOEHN_CUDA_CHECK(expr)            turns a failed cudaError_t into foehn::Error.
// FOEHN_CUDA_CHECK_LAUNCH("name")   checks a kernel launch (cudaGetLastError) right after it.
// native(stream), native(event)     the cudaStream_t / cudaEvent_t behind Foehn's RAII types.
//
// Everything here is inline on purpose: the checks run against the CUDA runtime linked into
// the code that made the call (a test executable may carry its own copy of cudart_static).

#if !defined(__CUDACC__) && !__has_include(<cuda_runtime_api.h>)
#error "foehn/runtime/cuda_check.hpp needs the CUDA toolkit: include it only in CUDA backend code"
#endif

#include <cuda_runtime_api.h>

#include "foehn/runtime/error.hpp"
#include "foehn/runtime/stream.hpp"

namespace foehn {

inline cudaStream_t native(const Stream& stream) noexcept {
  return stream.native_handle();
}
inline cudaEvent_t native(const Event& event) noexcept {
  return event.native_handle();
}

namespace detail {

// Out of memory is its own category (callers may retry with less); a missing device or a
// driver too old for this build means CUDA is unavailable here, not that Foehn failed.
inline ErrorCategory category_of(cudaError_t code) noexcept {
  switch (code) {
    case cudaErrorMemoryAllocation:
      return ErrorCategory::out_of_memory;
    case cudaErrorNoDevice:
    case cudaErrorInsufficientDriver:
    case cudaErrorNoKernelImageForDevice:
    case cudaErrorUnsupportedPtxVersion:
    case cudaErrorCallRequiresNewerDriver:
      return ErrorCategory::unavailable;
    default:
      return ErrorCategory::cuda;
  }
}

inline const char* hint_for(cudaError_t code) noexcept {
  switch (code) {
    case cudaErrorNoKernelImageForDevice:
      return " [this GPU's architecture is not in CMAKE_CUDA_ARCHITECTURES: rebuild Foehn for it]";
    case cudaErrorInsufficientDriver:
      return " [the NVIDIA driver is missing or older than the CUDA toolkit Foehn was built with]";
    default:
      return "";
  }
}

[[noreturn]] inline void throw_cuda_error(cudaError_t code, const char* what, const char* file,
                                          int line) {
  // A failed call also sets the runtime's "last error"; clear it (when it is not sticky) so
  // the next FOEHN_CUDA_CHECK_LAUNCH does not blame an innocent kernel for it.
  (void)cudaGetLastError();
  fail(category_of(code), what, " failed at ", file, ":", line, ": ", cudaGetErrorName(code), " (",
       cudaGetErrorString(code), ")", hint_for(code));
}

inline void check_cuda(cudaError_t code, const char* expression, const char* file, int line) {
  if (code != cudaSuccess) [[unlikely]] {
    throw_cuda_error(code, detail::concat("CUDA call '", expression, "'").c_str(), file, line);
  }
}

inline void check_launch(const char* kernel_name, const char* file, int line) {
  const cudaError_t code = cudaGetLastError();
  if (code != cudaSuccess) [[unlikely]] {
    throw_cuda_error(code, detail::concat("launch of kernel '", kernel_name, "'").c_str(), file,
                     line);
  }
}

}  // namespace detail
}  // namespace foehn

#define FOEHN_CUDA_CHECK(expr) ::foehn::detail::check_cuda((expr), #expr, __FILE__, __LINE__)
// Catches launch-configuration errors (too many threads, too much shared memory, missing
// kernel image) at the launch site. Errors inside the running kernel surface at the next
// synchronisation (Stream::synchronize, which checks too).
#define FOEHN_CUDA_CHECK_LAUNCH(kernel_name) \
  ::foehn::detail::check_launch((kernel_name), __FILE__, __LINE__)
