// CUDA call counts through CUPTI's callback API (see cuda_call_counts.hpp). CUPTI is loaded
// with dlopen, so libfoehn has no link-time dependency on it; only its headers are used here.
//
// Only the driver API domain is counted: every runtime call reaches the driver through calls
// that CUPTI reports too (a <<<>>> launch is one cudaLaunchKernel and one cuLaunchKernel*), so
// counting both domains counts each launch twice (measured: tests/cuda/runtime).
#include "foehn/runtime/cuda_call_counts.hpp"

#include <cupti.h>
#include <dlfcn.h>

#include <array>
#include <atomic>
#include <cstdint>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "foehn/runtime/device.hpp"

namespace foehn {

namespace {

enum class CallKind : std::uint8_t { none, kernel, graph, synchronization, blocking_copy, copy };

// The CUPTI functions used, looked up in the library dlopen found.
struct Cupti {
  decltype(&cuptiSubscribe) subscribe = nullptr;
  decltype(&cuptiEnableCallback) enable_callback = nullptr;
  decltype(&cuptiGetCallbackName) callback_name = nullptr;
  decltype(&cuptiGetResultString) result_string = nullptr;
};

struct Counters {
  std::atomic<std::int64_t> kernels{0}, graphs{0}, synchronizations{0};
  std::atomic<std::int64_t> copies_to_host{0}, copies_to_device{0};
  std::atomic<std::int64_t> bytes_to_host{0}, bytes_to_device{0};
};

Counters counters;
std::atomic<bool> counting{false};
// What each callback id of the driver domain is; filled before the callbacks are enabled and
// never changed after, so the callback reads it without a lock.
std::vector<CallKind> driver_kinds;

bool starts_with(std::string_view name, std::string_view prefix) {
  return name.substr(0, prefix.size()) == prefix;
}

// The driver call's kind, from its name (cuptiGetCallbackName).
CallKind kind_of(std::string_view name) {
  if (name.find("HostFunc") != std::string_view::npos) return CallKind::none;
  for (std::string_view launch : {"cuLaunchKernel", "cuLaunchCooperativeKernel", "cuLaunchGrid"})
    if (starts_with(name, launch)) return CallKind::kernel;
  if (name == "cuLaunch") return CallKind::kernel;
  if (starts_with(name, "cuGraphLaunch")) return CallKind::graph;
  for (std::string_view wait : {"cuStreamSynchronize", "cuCtxSynchronize", "cuEventSynchronize"})
    if (starts_with(name, wait)) return CallKind::synchronization;
  if (starts_with(name, "cuMemcpy")) {
    // Copies between device memories (and arrays) do not wait on the host even without Async.
    const bool device_to_device = name.find("DtoD") != std::string_view::npos ||
                                  name.find("DtoA") != std::string_view::npos ||
                                  name.find("AtoD") != std::string_view::npos ||
                                  name.find("AtoA") != std::string_view::npos;
    const bool blocking = name.find("Async") == std::string_view::npos && !device_to_device;
    return blocking ? CallKind::blocking_copy : CallKind::copy;
  }
  return CallKind::none;
}

void count_bytes(bool to_host, std::size_t bytes) {
  auto& copies = to_host ? counters.copies_to_host : counters.copies_to_device;
  auto& total = to_host ? counters.bytes_to_host : counters.bytes_to_device;
  copies.fetch_add(1, std::memory_order_relaxed);
  total.fetch_add(static_cast<std::int64_t>(bytes), std::memory_order_relaxed);
}

void count_driver_copy(CUpti_CallbackId id, const void* params) {
  switch (id) {
    case CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoH_v2:
    case CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoH_v2_ptds:
      return count_bytes(true, static_cast<const cuMemcpyDtoH_v2_params*>(params)->ByteCount);
    case CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoHAsync_v2:
    case CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoHAsync_v2_ptsz:
      return count_bytes(true, static_cast<const cuMemcpyDtoHAsync_v2_params*>(params)->ByteCount);
    case CUPTI_DRIVER_TRACE_CBID_cuMemcpyHtoD_v2:
    case CUPTI_DRIVER_TRACE_CBID_cuMemcpyHtoD_v2_ptds:
      return count_bytes(false, static_cast<const cuMemcpyHtoD_v2_params*>(params)->ByteCount);
    case CUPTI_DRIVER_TRACE_CBID_cuMemcpyHtoDAsync_v2:
    case CUPTI_DRIVER_TRACE_CBID_cuMemcpyHtoDAsync_v2_ptsz:
      return count_bytes(false, static_cast<const cuMemcpyHtoDAsync_v2_params*>(params)->ByteCount);
    default:
      return;
  }
}

void CUPTIAPI on_call(void*, CUpti_CallbackDomain, CUpti_CallbackId id, const void* data) {
  const auto* call = static_cast<const CUpti_CallbackData*>(data);
  if (call->callbackSite != CUPTI_API_ENTER || id >= driver_kinds.size()) return;
  const CallKind kind = driver_kinds[id];
  switch (kind) {
    case CallKind::kernel:
      counters.kernels.fetch_add(1, std::memory_order_relaxed);
      return;
    case CallKind::graph:
      counters.graphs.fetch_add(1, std::memory_order_relaxed);
      return;
    case CallKind::synchronization:
      counters.synchronizations.fetch_add(1, std::memory_order_relaxed);
      return;
    case CallKind::blocking_copy:
    case CallKind::copy:
      if (kind == CallKind::blocking_copy)
        counters.synchronizations.fetch_add(1, std::memory_order_relaxed);
      count_driver_copy(id, call->functionParams);
      return;
    case CallKind::none:
      return;
  }
}

// libcupti of the toolkit Foehn was built with, wherever the host keeps it.
void* open_cupti() {
  const std::array<std::string, 6> candidates = {
      "libcupti.so.13",
      "libcupti.so",
#ifdef FOEHN_CUDA_LIBRARY_DIR
      std::string(FOEHN_CUDA_LIBRARY_DIR) + "/libcupti.so",
#else
      "",
#endif
      "/usr/local/cuda/extras/CUPTI/lib64/libcupti.so",
      "/usr/local/cuda/lib64/libcupti.so",
      "/usr/local/cuda/lib/libcupti.so"};
  for (const std::string& path : candidates)
    if (!path.empty())
      if (void* library = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL)) return library;
  return nullptr;
}

template <class Function>
bool look_up(void* library, const char* name, Function& function) {
  function = reinterpret_cast<Function>(dlsym(library, name));
  return function != nullptr;
}

std::vector<CallKind> kinds_of_driver_calls(const Cupti& cupti) {
  std::vector<CallKind> kinds(CUPTI_DRIVER_TRACE_CBID_SIZE, CallKind::none);
  for (std::uint32_t id = 1; id < kinds.size(); ++id) {
    const char* name = nullptr;
    if (cupti.callback_name(CUPTI_CB_DOMAIN_DRIVER_API, id, &name) == CUPTI_SUCCESS && name)
      kinds[id] = kind_of(name);
  }
  return kinds;
}

std::string message_of(const Cupti& cupti, CUptiResult result) {
  const char* text = nullptr;
  if (cupti.result_string && cupti.result_string(result, &text) == CUPTI_SUCCESS && text)
    return text;
  return "CUPTI error " + std::to_string(static_cast<int>(result));
}

// The whole start, under the caller's lock. Empty on success, the reason otherwise.
std::string start() {
  if (cuda_device_count() == 0) return "no CUDA device (or no usable NVIDIA driver)";
  void* library = open_cupti();
  if (!library) return "libcupti.so (the CUDA toolkit's CUPTI) could not be loaded";
  Cupti cupti;
  if (!look_up(library, "cuptiSubscribe", cupti.subscribe) ||
      !look_up(library, "cuptiEnableCallback", cupti.enable_callback) ||
      !look_up(library, "cuptiGetCallbackName", cupti.callback_name))
    return "libcupti.so lacks cuptiSubscribe, cuptiEnableCallback or cuptiGetCallbackName";
  look_up(library, "cuptiGetResultString", cupti.result_string);
  driver_kinds = kinds_of_driver_calls(cupti);
  CUpti_SubscriberHandle subscriber = nullptr;
  const CUptiResult subscribed = cupti.subscribe(&subscriber, on_call, nullptr);
  if (subscribed == CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED)
    return "CUPTI already has a subscriber (a profiler such as Nsight Systems or Nsight "
           "Compute?); it takes one";
  if (subscribed != CUPTI_SUCCESS) return "cuptiSubscribe: " + message_of(cupti, subscribed);
  for (std::uint32_t id = 0; id < driver_kinds.size(); ++id)
    if (driver_kinds[id] != CallKind::none) {
      const CUptiResult enabled =
          cupti.enable_callback(1, subscriber, CUPTI_CB_DOMAIN_DRIVER_API, id);
      if (enabled != CUPTI_SUCCESS) return "cuptiEnableCallback: " + message_of(cupti, enabled);
    }
  return {};
}

}  // namespace

bool start_counting_cuda_calls(std::string& why_not) {
  static std::mutex mutex;
  static bool tried = false;
  static std::string failure;
  const std::lock_guard<std::mutex> lock(mutex);
  if (!tried) {
    tried = true;
    failure = start();
    counting.store(failure.empty(), std::memory_order_release);
  }
  why_not = failure;
  return failure.empty();
}

bool counting_cuda_calls() noexcept {
  return counting.load(std::memory_order_acquire);
}

CudaCallCounts cuda_call_counts() noexcept {
  CudaCallCounts counts;
  counts.kernel_launches = counters.kernels.load(std::memory_order_relaxed);
  counts.graph_launches = counters.graphs.load(std::memory_order_relaxed);
  counts.host_synchronizations = counters.synchronizations.load(std::memory_order_relaxed);
  counts.copies_to_host = counters.copies_to_host.load(std::memory_order_relaxed);
  counts.copies_to_device = counters.copies_to_device.load(std::memory_order_relaxed);
  counts.bytes_to_host = counters.bytes_to_host.load(std::memory_order_relaxed);
  counts.bytes_to_device = counters.bytes_to_device.load(std::memory_order_relaxed);
  return counts;
}

}  // namespace foehn
