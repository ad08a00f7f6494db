// CUDA call counts (cuda_call_counts.hpp) against calls whose number is known: one fill kernel,
// one asynchronous copy to the host of a known size, one stream synchronisation.

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "foehn/runtime/cuda_call_counts.hpp"
#include "foehn/runtime/device_array.hpp"
#include "foehn/runtime/stream.hpp"
#include "support/gpu_test.hpp"

namespace foehn {
namespace {

// Starts counting; a profiler holding CUPTI skips the test, any other failure fails it (a GPU
// host whose toolkit has CUPTI must count).
#define FOEHN_START_COUNTING_OR_SKIP()                                              \
  do {                                                                              \
    std::string why_not;                                                            \
    if (!start_counting_cuda_calls(why_not)) {                                      \
      if (why_not.find("subscriber") != std::string::npos) GTEST_SKIP() << why_not; \
      FAIL() << why_not;                                                            \
    }                                                                               \
  } while (false)

TEST(CudaCallCounts, CountKernelsSynchronisationsAndCopiesExactly) {
  FOEHN_SKIP_WITHOUT_GPU();
  FOEHN_START_COUNTING_OR_SKIP();
  EXPECT_TRUE(counting_cuda_calls());
  Stream stream;
  DeviceArray<double> values(1000, stream);
  std::vector<double> host(1000, 0.0);
  stream.synchronize();
  const CudaCallCounts before = cuda_call_counts();
  values.fill_async(2.5, stream);           // one kernel
  values.copy_to_host_async(host, stream);  // one copy of 8000 bytes to the host
  stream.synchronize();                     // one synchronisation
  const CudaCallCounts used = cuda_call_counts() - before;
  EXPECT_EQ(used.kernel_launches, 1);
  EXPECT_EQ(used.graph_launches, 0);
  EXPECT_EQ(used.host_synchronizations, 1);
  EXPECT_EQ(used.copies_to_host, 1);
  EXPECT_EQ(used.bytes_to_host, 8000);
  EXPECT_EQ(used.copies_to_device, 0);
  EXPECT_EQ(host.back(), 2.5);
}

TEST(CudaCallCounts, CountUploadsAndRepeatedLaunches) {
  FOEHN_SKIP_WITHOUT_GPU();
  FOEHN_START_COUNTING_OR_SKIP();
  Stream stream;
  DeviceArray<float> values(256, stream);
  const std::vector<float> host(256, 1.0f);
  stream.synchronize();
  const CudaCallCounts before = cuda_call_counts();
  values.copy_from_host_async(host, stream);
  for (int i = 0; i < 5; ++i) values.fill_async(static_cast<float>(i), stream);
  stream.synchronize();
  stream.synchronize();
  const CudaCallCounts used = cuda_call_counts() - before;
  EXPECT_EQ(used.copies_to_device, 1);
  EXPECT_EQ(used.bytes_to_device, 256 * 4);
  EXPECT_EQ(used.kernel_launches, 5);
  EXPECT_EQ(used.host_synchronizations, 2);
}

TEST(CudaCallCounts, StartingTwiceKeepsCounting) {
  FOEHN_SKIP_WITHOUT_GPU();
  FOEHN_START_COUNTING_OR_SKIP();
  std::string why_not = "unchanged";
  EXPECT_TRUE(start_counting_cuda_calls(why_not));
  EXPECT_TRUE(why_not.empty());
}

}  // namespace
}  // namespace foehn
