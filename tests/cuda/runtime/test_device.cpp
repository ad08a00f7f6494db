// Device discovery and selection on a machine with a GPU.

#include <gtest/gtest.h>

#include <cstdio>
#include <string>

#include "foehn/runtime/device.hpp"
#include "foehn/runtime/error.hpp"
#include "support/gpu_test.hpp"

namespace foehn {
namespace {

TEST(Device, InfoIsPlausible) {
  FOEHN_SKIP_WITHOUT_GPU();
  const DeviceInfo info = device_info(0);
  EXPECT_EQ(info.index, 0);
  EXPECT_FALSE(info.name.empty());
  EXPECT_GE(info.compute_capability_major, 5);
  EXPECT_GT(info.sm_count, 0);
  EXPECT_GT(info.global_memory_bytes, std::size_t{1} << 30);
  EXPECT_GT(info.l2_cache_bytes, 0u);
  EXPECT_GT(info.memory_bus_width_bits, 0);
  EXPECT_GT(info.theoretical_bandwidth_gb_per_s, 100.0);
  EXPECT_GE(info.max_threads_per_block, 1024);
  EXPECT_GE(info.shared_memory_per_block_bytes, std::size_t{48} << 10);
  EXPECT_NE(describe(info).find(info.name), std::string::npos);
  std::printf("[ device   ] %s\n", describe(info).c_str());
}

TEST(Device, SelectAndQueryMemory) {
  FOEHN_SKIP_WITHOUT_GPU();
  select_device(0);
  EXPECT_EQ(current_device(), 0);
  const DeviceMemoryInfo memory = device_memory_info();
  EXPECT_GT(memory.total_bytes, 0u);
  EXPECT_LE(memory.free_bytes, memory.total_bytes);
}

TEST(Device, OutOfRangeIndexIsInvalidInput) {
  FOEHN_SKIP_WITHOUT_GPU();
  const int count = cuda_device_count();
  for (int bad : {-1, count, count + 7}) {
    try {
      select_device(bad);
      ADD_FAILURE() << "select_device(" << bad << ") succeeded";
    } catch (const Error& error) {
      EXPECT_EQ(error.category(), ErrorCategory::invalid_input);
      const std::string message = error.what();
      EXPECT_NE(message.find("out of range"), std::string::npos) << message;
      EXPECT_NE(message.find(std::to_string(count) + " device"), std::string::npos) << message;
    }
    EXPECT_THROW(device_info(bad), Error);
  }
}

}  // namespace
}  // namespace foehn
