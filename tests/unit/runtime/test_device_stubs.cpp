// The runtime layer on a machine without a usable CUDA device (and in a CPU-only build):
// discovery says "none", everything that needs a GPU fails with a clear foehn::Error of
// category unavailable, and empty containers and NVTX ranges work everywhere.

#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <utility>

#include "foehn/config.hpp"
#include "foehn/runtime/device.hpp"
#include "foehn/runtime/device_array.hpp"
#include "foehn/runtime/error.hpp"
#include "foehn/runtime/nvtx.hpp"
#include "foehn/runtime/pinned_array.hpp"

namespace foehn {
namespace {

void expect_unavailable(const std::function<void()>& call, const char* what) {
  try {
    call();
    ADD_FAILURE() << what << " succeeded without a CUDA device";
  } catch (const Error& error) {
    EXPECT_EQ(error.category(), ErrorCategory::unavailable) << what << ": " << error.what();
#if !FOEHN_HAVE_CUDA
    EXPECT_EQ(std::string(error.what()).rfind("Foehn was built without CUDA: ", 0), 0u)
        << error.what();
#endif
  }
}

class WithoutGpu : public ::testing::Test {
 protected:
  void SetUp() override {
    if (cuda_device_count() > 0) GTEST_SKIP() << "this machine has a CUDA device";
  }
};

TEST(DeviceDiscovery, CountNeverThrows) {
  EXPECT_GE(cuda_device_count(), 0);
#if !FOEHN_HAVE_CUDA
  EXPECT_EQ(cuda_device_count(), 0);
#endif
}

TEST(DeviceDiscovery, DescribeFormatsOneLine) {
  DeviceInfo info;
  info.name = "Test GPU";
  info.compute_capability_major = 9;
  info.compute_capability_minor = 0;
  info.sm_count = 132;
  info.global_memory_bytes = std::size_t{80} << 30;
  info.theoretical_bandwidth_gb_per_s = 3352.3;
  EXPECT_EQ(info.compute_capability(), "9.0");
  EXPECT_EQ(describe(info), "Test GPU (sm_90, 132 SMs, 80.0 GiB, 3352 GB/s theoretical)");
}

TEST_F(WithoutGpu, DeviceQueriesAreUnavailable) {
  expect_unavailable([] { device_info(0); }, "device_info(0)");
  expect_unavailable([] { select_device(0); }, "select_device(0)");
  expect_unavailable([] { MemoryPool pool(0); }, "MemoryPool(0)");
}

TEST_F(WithoutGpu, StreamsAndEventsAreUnavailable) {
  expect_unavailable([] { Stream stream; }, "Stream()");
  expect_unavailable([] { Event event; }, "Event()");
  expect_unavailable([] { EventTimer timer; }, "EventTimer()");
}

TEST_F(WithoutGpu, PinnedAllocationIsUnavailable) {
  expect_unavailable([] { PinnedArray<double> staging(1000); }, "PinnedArray<double>(1000)");
}

TEST(EmptyArrays, NeedNoDevice) {
  DeviceArray<double> device;
  EXPECT_TRUE(device.empty());
  EXPECT_EQ(device.size(), 0u);
  EXPECT_EQ(device.bytes(), 0u);
  EXPECT_EQ(device.data(), nullptr);
  DeviceArray<double> moved = std::move(device);
  EXPECT_TRUE(moved.empty());
  moved.reset();

  PinnedArray<int> pinned(0);
  EXPECT_TRUE(pinned.empty());
  EXPECT_EQ(pinned.begin(), pinned.end());
  PinnedArray<int> other = std::move(pinned);
  EXPECT_TRUE(other.span().empty());
}

TEST(Nvtx, RangesWorkEverywhere) {
  // No profiler attached (or no CUDA at all): ranges and marks must simply do nothing.
  NvtxRange outer("unit test");
  {
    NvtxRange inner(std::string("inner range"));
    nvtx_mark("a mark");
  }
  SUCCEED();
}

}  // namespace
}  // namespace foehn
