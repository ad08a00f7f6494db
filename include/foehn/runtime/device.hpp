#pragma once
// CUDA device discovery and selection. Public header: no CUDA headers, so it compiles in
// consumers and in CPU-only builds, where every function that needs CUDA throws
// foehn::Error (unavailable) and cuda_device_count() reports 0.

#include <cstddef>
#include <string>

#include "foehn/runtime/error.hpp"  // what every function here throws

namespace foehn {

// What benchmarks and logs need to know about a GPU. Sizes in bytes.
struct DeviceInfo {
  int index = -1;
  std::string name;
  int compute_capability_major = 0;
  int compute_capability_minor = 0;
  int sm_count = 0;
  std::size_t global_memory_bytes = 0;
  std::size_t l2_cache_bytes = 0;
  int memory_clock_khz = 0;  // peak memory clock as reported by the driver
  int memory_bus_width_bits = 0;
  // 2 (double data rate) x memory clock x bus width: the number achieved bandwidth is
  // stated against when no bandwidth was measured in the same run.
  double theoretical_bandwidth_gb_per_s = 0.0;
  int max_threads_per_block = 0;
  std::size_t shared_memory_per_block_bytes = 0;
  std::string pci_bus_id;  // "0000:18:00.0": tells the GPUs of a host apart in run logs

  // "9.0"
  std::string compute_capability() const;
};

// Free and total memory of a device, in bytes.
struct DeviceMemoryInfo {
  std::size_t free_bytes = 0;
  std::size_t total_bytes = 0;
};

// Number of usable CUDA devices. Returns 0, never throws, when there is no device, no
// driver, a driver too old for this build, or when Foehn was built without CUDA.
int cuda_device_count() noexcept;

// Properties of device `index`. Throws invalid_input for an index out of range,
// unavailable when there is no device.
DeviceInfo device_info(int index);

// Makes `index` the calling thread's current device. Same errors as device_info().
void select_device(int index);

// The calling thread's current device.
int current_device();

// Waits for all work this process queued on the current device, on any stream
// (cudaDeviceSynchronize): for device data made by a library whose streams Foehn does not know,
// e.g. a DLPack array from Python that is not CuPy's. unavailable without CUDA.
void synchronize_device();

// Free/total memory of the current device (cudaMemGetInfo).
DeviceMemoryInfo device_memory_info();

// One line for logs and benchmark headers, e.g.
// "NVIDIA H100 80GB HBM3 (sm_90, 132 SMs, 79.1 GiB, 3352 GB/s theoretical)".
std::string describe(const DeviceInfo& info);

}  // namespace foehn
