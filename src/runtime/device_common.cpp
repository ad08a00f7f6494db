// Host-only parts of the runtime layer shared by the CUDA and the CPU-only build.

#include <iomanip>
#include <sstream>

#include "foehn/runtime/device.hpp"
#include "foehn/runtime/error.hpp"
#include "foehn/runtime/memory.hpp"

namespace foehn {

std::string DeviceInfo::compute_capability() const {
  return detail::concat(compute_capability_major, '.', compute_capability_minor);
}

std::string describe(const DeviceInfo& info) {
  std::ostringstream out;
  out << info.name << " (sm_" << info.compute_capability_major << info.compute_capability_minor
      << ", " << info.sm_count << " SMs, " << std::fixed << std::setprecision(1)
      << static_cast<double>(info.global_memory_bytes) / (1024.0 * 1024.0 * 1024.0) << " GiB, "
      << std::setprecision(0) << info.theoretical_bandwidth_gb_per_s << " GB/s theoretical)";
  return out.str();
}

namespace detail {

void fail_copy_range(const char* operation, std::size_t offset, std::size_t count,
                     std::size_t array_size) {
  fail(ErrorCategory::invalid_input, "DeviceArray::", operation, ": ", count,
       " elements at offset ", offset, " do not fit an array of ", array_size, " elements");
}

void fail_size_mismatch(const char* operation, std::size_t source_size,
                        std::size_t destination_size) {
  fail(ErrorCategory::invalid_input, "DeviceArray::", operation, ": the source has ", source_size,
       " elements, the destination ", destination_size);
}

}  // namespace detail
}  // namespace foehn
