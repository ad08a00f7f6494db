// Run-time choice of the compute backend (both builds).

#include "foehn/runtime/backend.hpp"

#include <ostream>

#include "foehn/config.hpp"
#include "foehn/runtime/device.hpp"
#include "foehn/runtime/error.hpp"

namespace foehn {

namespace {

enum class Request { cpu, cuda, automatic };

Request parse_request(std::string_view text) {
  if (text == "cpu") return Request::cpu;
  if (text == "cuda") return Request::cuda;
  if (text == "auto" || text.empty()) return Request::automatic;
  fail(ErrorCategory::invalid_input, "unknown backend '", text,
       "': valid values are cpu, cuda, auto");
}

}  // namespace

std::string_view to_string(Backend backend) {
  switch (backend) {
    case Backend::cpu:
      return "cpu";
    case Backend::cuda:
      return "cuda";
  }
  return "unknown";
}

Backend parse_backend(std::string_view text) {
  switch (parse_request(text)) {
    case Request::cpu:
      return Backend::cpu;
    case Request::cuda:
      return Backend::cuda;
    case Request::automatic:
      break;
  }
  return cuda_device_count() > 0 ? Backend::cuda : Backend::cpu;
}

Backend select_backend(std::string_view requested, std::ostream* notice) {
  const bool built_with_cuda = FOEHN_HAVE_CUDA != 0;
  return detail::select_backend_for(requested, notice, built_with_cuda ? cuda_device_count() : 0,
                                    built_with_cuda);
}

namespace detail {

Backend select_backend_for(std::string_view requested, std::ostream* notice, int device_count,
                           bool built_with_cuda) {
  const Request request = parse_request(requested);
  if (request == Request::cpu) return Backend::cpu;
  if (request == Request::cuda) {
    if (!built_with_cuda) {
      fail(ErrorCategory::unavailable,
           "Foehn was built without CUDA: backend 'cuda' was requested "
           "(use -foehn_backend cpu, or rebuild with -DFOEHN_CUDA=ON)");
    }
    if (device_count <= 0) {
      fail(ErrorCategory::unavailable,
           "backend 'cuda' was requested but no CUDA device is available "
           "(no GPU, or no usable NVIDIA driver); use -foehn_backend cpu or auto");
    }
    return Backend::cuda;
  }
  if (built_with_cuda && device_count > 0) return Backend::cuda;
  if (notice != nullptr) {
    *notice << "foehn: using the CPU backend: "
            << (built_with_cuda ? "no CUDA device is available" : "Foehn was built without CUDA")
            << " (-foehn_backend auto)\n";
  }
  return Backend::cpu;
}

}  // namespace detail
}  // namespace foehn
