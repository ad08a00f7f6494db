// Device discovery and selection, CUDA backend.

#include <cstdio>
#include <iomanip>
#include <sstream>

#include "foehn/runtime/device.hpp"
#include "runtime_internal.hpp"

namespace foehn {

namespace detail {

void check_device_index(int index, const char* operation) {
  const int count = cuda_device_count();
  if (count == 0) {
    fail(ErrorCategory::unavailable, operation, "(", index,
         "): no CUDA device is available (no GPU, or no usable NVIDIA driver)");
  }
  if (index < 0 || index >= count) {
    fail(ErrorCategory::invalid_input, operation, "(", index, "): CUDA device index ", index,
         " is out of range: this machine has ", count, " device(s), valid indices are 0..",
         count - 1);
  }
}

std::string format_bytes(std::size_t bytes) {
  static constexpr const char* units[] = {"KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  std::ostringstream out;
  out << bytes << " bytes";
  if (bytes >= 1024) {
    double value = static_cast<double>(bytes) / 1024.0;
    int unit = 0;
    while (value >= 1024.0 && unit < 5) {
      value /= 1024.0;
      ++unit;
    }
    out << " (" << std::fixed << std::setprecision(1) << value << ' ' << units[unit] << ')';
  }
  return out.str();
}

void report_in_destructor(cudaError_t code, const char* operation) noexcept {
  if (code == cudaSuccess) return;
  (void)cudaGetLastError();
  // At process exit static objects may outlive the runtime; their memory goes with it.
  if (code == cudaErrorCudartUnloading || code == cudaErrorContextIsDestroyed) return;
  std::fprintf(stderr, "foehn: %s failed in a destructor: %s (%s)\n", operation,
               cudaGetErrorName(code), cudaGetErrorString(code));
}

}  // namespace detail

int cuda_device_count() noexcept {
  int count = 0;
  const cudaError_t code = cudaGetDeviceCount(&count);
  if (code != cudaSuccess) {
    // cudaErrorNoDevice, cudaErrorInsufficientDriver (also: no driver at all), ...: all mean
    // "no usable device here", which callers handle by choosing the CPU backend.
    (void)cudaGetLastError();
    return 0;
  }
  return count;
}

DeviceInfo device_info(int index) {
  detail::check_device_index(index, "device_info");
  cudaDeviceProp prop{};
  FOEHN_CUDA_CHECK(cudaGetDeviceProperties(&prop, index));
  // The memory clock left cudaDeviceProp in CUDA 13; the attribute remains.
  int memory_clock_khz = 0;
  FOEHN_CUDA_CHECK(cudaDeviceGetAttribute(&memory_clock_khz, cudaDevAttrMemoryClockRate, index));

  DeviceInfo info;
  info.index = index;
  info.name = prop.name;
  info.compute_capability_major = prop.major;
  info.compute_capability_minor = prop.minor;
  info.sm_count = prop.multiProcessorCount;
  info.global_memory_bytes = prop.totalGlobalMem;
  info.l2_cache_bytes = static_cast<std::size_t>(prop.l2CacheSize);
  info.memory_clock_khz = memory_clock_khz;
  info.memory_bus_width_bits = prop.memoryBusWidth;
  info.theoretical_bandwidth_gb_per_s =
      2.0 * memory_clock_khz * 1.0e3 * (prop.memoryBusWidth / 8.0) / 1.0e9;
  info.max_threads_per_block = prop.maxThreadsPerBlock;
  info.shared_memory_per_block_bytes = prop.sharedMemPerBlock;
  char bus_id[32] = {0};
  FOEHN_CUDA_CHECK(cudaDeviceGetPCIBusId(bus_id, static_cast<int>(sizeof bus_id), index));
  info.pci_bus_id = bus_id;
  return info;
}

void select_device(int index) {
  detail::check_device_index(index, "select_device");
  FOEHN_CUDA_CHECK(cudaSetDevice(index));
}

int current_device() {
  int device = 0;
  FOEHN_CUDA_CHECK(cudaGetDevice(&device));
  return device;
}

void synchronize_device() {
  FOEHN_CUDA_CHECK(cudaDeviceSynchronize());
}

DeviceMemoryInfo device_memory_info() {
  DeviceMemoryInfo info;
  FOEHN_CUDA_CHECK(cudaMemGetInfo(&info.free_bytes, &info.total_bytes));
  return info;
}

}  // namespace foehn
