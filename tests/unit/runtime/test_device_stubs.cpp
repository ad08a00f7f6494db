// The runtime layer on a machine without a usable CUDA device (and in a CPU-only build):
// discovery says "none", everything that needs a GPU fails with a clear foehn::Error of
// category unavailable, and empty containers and NVTX ranges work everywhere.

#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <utility>

#include "foehn/config.hpp"
#include "foehn/runtime/cuda_call_counts.hpp"
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

namespace foehn {
namespace {

// Without CUDA nothing can be counted; with CUDA but no device, CUPTI may load, and the
// counts stay zero as long as nothing is launched.
TEST_F(WithoutGpu, CudaCallCountsSayWhyNotOrStayZero) {
  std::string why_not;
  const bool counting = start_counting_cuda_calls(why_not);
#if !FOEHN_HAVE_CUDA
  EXPECT_FALSE(counting);
  EXPECT_EQ(why_not, "Foehn was built without CUDA");
  EXPECT_FALSE(counting_cuda_calls());
#else
  EXPECT_EQ(counting, why_not.empty()) << why_not;
#endif
  EXPECT_EQ(cuda_call_counts().kernel_launches, 0);
  EXPECT_EQ(cuda_call_counts().host_synchronizations, 0);
}

TEST(CudaCallCountsArithmetic, DifferencesAndSumsAreMemberwise) {
  CudaCallCounts a, b;
  a.kernel_launches = 10;
  a.host_synchronizations = 4;
  a.bytes_to_host = 800;
  b.kernel_launches = 3;
  b.host_synchronizations = 1;
  b.bytes_to_host = 8;
  const CudaCallCounts difference = a - b;
  EXPECT_EQ(difference.kernel_launches, 7);
  EXPECT_EQ(difference.host_synchronizations, 3);
  EXPECT_EQ(difference.bytes_to_host, 792);
  EXPECT_EQ((difference + b).kernel_launches, 10);
}

}  // namespace
}  // namespace foehn
