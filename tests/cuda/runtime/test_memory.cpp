// DeviceArray, PinnedArray, the memory pool and EventTimer on a GPU.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "foehn/runtime/device_array.hpp"
#include "foehn/runtime/nvtx.hpp"
#include "foehn/runtime/pinned_array.hpp"
#include "foehn/runtime/stream.hpp"
#include "support/gpu_test.hpp"
#include "support/random_values.hpp"

namespace foehn {
namespace {

using testing::random_values;

TEST(DeviceArray, HostDeviceHostRoundTrip) {
  FOEHN_SKIP_WITHOUT_GPU();
  Stream stream;
  const std::vector<double> host = random_values(1'000'003, 42);
  DeviceArray<double> device(host.size(), stream);
  EXPECT_EQ(device.size(), host.size());
  EXPECT_EQ(device.bytes(), host.size() * sizeof(double));
  EXPECT_FALSE(device.empty());
  device.copy_from_host_async(host, stream);
  EXPECT_EQ(device.copy_to_host(stream), host);  // bitwise: nothing may touch the values
}

TEST(DeviceArray, AsyncCopiesThroughPinnedStaging) {
  FOEHN_SKIP_WITHOUT_GPU();
  NvtxRange range("AsyncCopiesThroughPinnedStaging");
  Stream stream;
  const std::vector<double> expected = random_values(1 << 20, 7);
  PinnedArray<double> upload(expected.size());
  PinnedArray<double> download(expected.size());
  std::copy(expected.begin(), expected.end(), upload.begin());
  DeviceArray<double> device(expected.size(), stream);
  device.copy_from_host_async(upload, stream);
  device.copy_to_host_async(download, stream);
  stream.synchronize();
  EXPECT_TRUE(stream.query());
  EXPECT_TRUE(std::equal(download.begin(), download.end(), expected.begin()));
}

TEST(DeviceArray, PartialCopiesWithOffsets) {
  FOEHN_SKIP_WITHOUT_GPU();
  Stream stream;
  DeviceArray<int> device(10, stream);
  device.fill_async(-1, stream);
  const std::vector<int> middle = {1, 2, 3};
  device.copy_from_host_async(middle, stream, 4);
  std::vector<int> tail(3);
  device.copy_to_host_async(tail, stream, 7);
  stream.synchronize();
  EXPECT_EQ(device.copy_to_host(stream), (std::vector<int>{-1, -1, -1, -1, 1, 2, 3, -1, -1, -1}));
  EXPECT_EQ(tail, (std::vector<int>{-1, -1, -1}));
}

TEST(DeviceArray, RangesThatDoNotFitAreInvalidInput) {
  FOEHN_SKIP_WITHOUT_GPU();
  Stream stream;
  DeviceArray<float> device(4, stream);
  std::vector<float> five(5);
  std::vector<float> two(2);
  for (const auto& call : std::vector<std::function<void()>>{
           [&] { device.copy_from_host_async(five, stream); },
           [&] { device.copy_to_host_async(two, stream, 3); },
           [&] { device.copy_from_async(DeviceArray<float>(3, stream), stream); }}) {
    try {
      call();
      ADD_FAILURE() << "a copy out of range was accepted";
    } catch (const Error& error) {
      EXPECT_EQ(error.category(), ErrorCategory::invalid_input) << error.what();
    }
  }
}

TEST(DeviceArray, DeviceToDeviceCopyAcrossStreams) {
  FOEHN_SKIP_WITHOUT_GPU();
  Stream producer;
  Stream consumer;
  const std::vector<double> host = random_values(50'000, 3);
  DeviceArray<double> source(host.size(), producer);
  DeviceArray<double> target(host.size(), producer);
  source.copy_from_host_async(host, producer);
  Event ready;
  ready.record(producer);
  consumer.wait(ready);  // the copy below must see the upload
  target.copy_from_async(source, consumer);
  EXPECT_EQ(target.copy_to_host(consumer), host);
}

TEST(DeviceArray, MoveTransfersOwnership) {
  FOEHN_SKIP_WITHOUT_GPU();
  Stream stream;
  DeviceArray<double> a(100, stream);
  const double* pointer = a.data();
  DeviceArray<double> b = std::move(a);
  EXPECT_TRUE(a.empty());  // NOLINT(bugprone-use-after-move): the moved-from state is specified
  EXPECT_EQ(a.data(), nullptr);
  EXPECT_EQ(b.data(), pointer);
  DeviceArray<double> c(5, stream);
  c = std::move(b);
  EXPECT_EQ(c.size(), 100u);
  EXPECT_EQ(c.data(), pointer);
}

TEST(DeviceArray, PoisonFillsDoublesWithNan) {
  FOEHN_SKIP_WITHOUT_GPU();
  Stream stream;
  DeviceArray<double> values(12'345, stream);
  values.fill_bytes_async(0, stream);
  poison_async(values, stream);
  for (double v : values.copy_to_host(stream)) ASSERT_TRUE(std::isnan(v));

  DeviceArray<float> singles(77, stream);
  poison_async(singles, stream);
  for (float v : singles.copy_to_host(stream)) ASSERT_TRUE(std::isnan(v));

  DeviceArray<int> indices(33, stream);
  poison_async(indices, stream);
  for (int v : indices.copy_to_host(stream)) ASSERT_EQ(v, -1);
}

TEST(DeviceArray, FillWithAMultiWordValue) {
  FOEHN_SKIP_WITHOUT_GPU();
  struct Triple {
    double x, y, z;
    bool operator==(const Triple&) const = default;
  };
  Stream stream;
  DeviceArray<Triple> points(1001, stream);
  points.fill_async(Triple{1.0, -2.0, 3.5}, stream);
  for (const Triple& p : points.copy_to_host(stream)) ASSERT_EQ(p, (Triple{1.0, -2.0, 3.5}));
}

TEST(MemoryPool, FreedMemoryIsReused) {
  FOEHN_SKIP_WITHOUT_GPU();
  Stream stream;
  const MemoryPool pool = MemoryPool::current();
  constexpr std::size_t count = std::size_t{16} << 20;  // 128 MiB of doubles
  { DeviceArray<double> first(count, stream); }
  stream.synchronize();  // with Foehn's threshold the pool keeps the memory even now
  const std::size_t reserved = pool.reserved_bytes();
  EXPECT_GE(reserved, count * sizeof(double));
  EXPECT_EQ(pool.release_threshold(), MemoryPool::keep_all);
  {
    DeviceArray<double> second(count, stream);
    EXPECT_GE(pool.used_bytes(), count * sizeof(double));
    EXPECT_LE(pool.reserved_bytes(), reserved) << "the second allocation did not reuse the first";
  }
  stream.synchronize();
  EXPECT_GE(pool.peak_used_bytes(), count * sizeof(double));
}

TEST(MemoryPool, HugeRequestIsOutOfMemoryNamingTheSize) {
  FOEHN_SKIP_WITHOUT_GPU();
  Stream stream;
  constexpr std::size_t count = std::size_t{1} << 47;  // 1 PiB of doubles
  try {
    DeviceArray<double> huge(count, stream);
    FAIL() << "a 1 PiB allocation succeeded";
  } catch (const Error& error) {
    EXPECT_EQ(error.category(), ErrorCategory::out_of_memory);
    const std::string message = error.what();
    EXPECT_NE(message.find("1125899906842624 bytes"), std::string::npos) << message;
    EXPECT_NE(message.find(std::to_string(count) + " elements of 8 bytes"), std::string::npos)
        << message;
    EXPECT_NE(message.find("free of"), std::string::npos) << message;
    std::printf("[ message  ] %s\n", message.c_str());
  }
  // The failure leaves the device usable.
  DeviceArray<double> small(1000, stream);
  small.fill_bytes_async(0, stream);
  stream.synchronize();
}

TEST(MemoryPool, SizeOverflowIsOutOfMemory) {
  FOEHN_SKIP_WITHOUT_GPU();
  Stream stream;
  try {
    DeviceArray<double> impossible(std::numeric_limits<std::size_t>::max() / 4, stream);
    FAIL() << "an allocation larger than the address space succeeded";
  } catch (const Error& error) {
    EXPECT_EQ(error.category(), ErrorCategory::out_of_memory) << error.what();
  }
}

TEST(EventTimer, MeasuresPositiveTime) {
  FOEHN_SKIP_WITHOUT_GPU();
  Stream stream;
  DeviceArray<double> work(std::size_t{32} << 20, stream);  // 256 MiB: far above timer resolution
  EventTimer timer;
  timer.start(stream);
  poison_async(work, stream);
  timer.stop(stream);
  const float ms = timer.elapsed_ms();
  EXPECT_GT(ms, 0.0f);
  EXPECT_LT(ms, 10'000.0f);
}

TEST(EventTimer, ElapsedBeforeStopIsAnError) {
  FOEHN_SKIP_WITHOUT_GPU();
  Stream stream;
  EventTimer timer;
  EXPECT_THROW(timer.elapsed_ms(), Error);
  timer.start(stream);
  EXPECT_THROW(timer.elapsed_ms(), Error);
}

TEST(Stream, MovedFromStreamIsRejected) {
  FOEHN_SKIP_WITHOUT_GPU();
  Stream stream;
  Stream other = std::move(stream);
  other.synchronize();
  try {
    DeviceArray<double> array(10, stream);  // NOLINT(bugprone-use-after-move): on purpose
    FAIL() << "allocation on a moved-from stream succeeded";
  } catch (const Error& error) {
    EXPECT_EQ(error.category(), ErrorCategory::invalid_input) << error.what();
  }
}

}  // namespace
}  // namespace foehn
