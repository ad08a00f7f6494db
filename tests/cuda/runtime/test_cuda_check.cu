// FOEHN_CUDA_CHECK and FOEHN_CUDA_CHECK_LAUNCH turn CUDA failures into foehn::Error, and
// native() hands Foehn's streams to raw kernel launches.

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "foehn/runtime/cuda_check.hpp"
#include "foehn/runtime/device_array.hpp"
#include "support/gpu_test.hpp"

namespace foehn {
namespace {

__global__ void write_index(int* out, int n) {
  const int i = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  if (i < n) out[i] = i;
}

TEST(CudaCheck, KernelOnAFoehnStream) {
  FOEHN_SKIP_WITHOUT_GPU();
  Stream stream;
  DeviceArray<int> out(1000, stream);
  poison_async(out, stream);
  write_index<<<4, 256, 0, native(stream)>>>(out.data(), 1000);
  FOEHN_CUDA_CHECK_LAUNCH("write_index");
  const std::vector<int> host = out.copy_to_host(stream);
  for (int i = 0; i < 1000; ++i) ASSERT_EQ(host[static_cast<std::size_t>(i)], i);
}

TEST(CudaCheck, InvalidLaunchIsCaught) {
  FOEHN_SKIP_WITHOUT_GPU();
  Stream stream;
  DeviceArray<int> out(10, stream);
  write_index<<<1, 4096, 0, native(stream)>>>(out.data(), 10);  // > 1024 threads per block
  try {
    FOEHN_CUDA_CHECK_LAUNCH("write_index");
    FAIL() << "a launch with 4096 threads per block was not reported";
  } catch (const Error& error) {
    EXPECT_EQ(error.category(), ErrorCategory::cuda);
    const std::string message = error.what();
    EXPECT_NE(message.find("write_index"), std::string::npos) << message;
    EXPECT_NE(message.find("test_cuda_check.cu:"), std::string::npos) << message;
    // The exact code differs between CUDA versions (13.0 says cudaErrorInvalidValue).
    EXPECT_NE(message.find("cudaError"), std::string::npos) << message;
  }
  // The error was consumed: the next correct launch checks clean.
  write_index<<<1, 32, 0, native(stream)>>>(out.data(), 10);
  FOEHN_CUDA_CHECK_LAUNCH("write_index");
  stream.synchronize();
}

TEST(CudaCheck, FailedCallNamesTheExpression) {
  FOEHN_SKIP_WITHOUT_GPU();
  try {
    FOEHN_CUDA_CHECK(cudaSetDevice(12345));
    FAIL() << "cudaSetDevice(12345) succeeded";
  } catch (const Error& error) {
    EXPECT_EQ(error.category(), ErrorCategory::cuda);
    const std::string message = error.what();
    EXPECT_NE(message.find("cudaSetDevice(12345)"), std::string::npos) << message;
    EXPECT_NE(message.find("test_cuda_check.cu:"), std::string::npos) << message;
    EXPECT_NE(message.find(cudaGetErrorString(cudaErrorInvalidDevice)), std::string::npos)
        << message;
  }
  EXPECT_EQ(cudaGetLastError(), cudaSuccess) << "the failed call's error was left pending";
}

TEST(CudaCheck, AllocationFailureIsOutOfMemory) {
  FOEHN_SKIP_WITHOUT_GPU();
  void* pointer = nullptr;
  try {
    FOEHN_CUDA_CHECK(cudaMalloc(&pointer, std::size_t{1} << 50));
    FAIL() << "cudaMalloc of 1 PiB succeeded";
  } catch (const Error& error) {
    EXPECT_EQ(error.category(), ErrorCategory::out_of_memory) << error.what();
  }
}

TEST(CudaCheck, CategoriesOfMachineProblems) {
  // Pure mapping: runs everywhere.
  EXPECT_EQ(detail::category_of(cudaErrorNoDevice), ErrorCategory::unavailable);
  EXPECT_EQ(detail::category_of(cudaErrorInsufficientDriver), ErrorCategory::unavailable);
  EXPECT_EQ(detail::category_of(cudaErrorNoKernelImageForDevice), ErrorCategory::unavailable);
  EXPECT_EQ(detail::category_of(cudaErrorMemoryAllocation), ErrorCategory::out_of_memory);
  EXPECT_EQ(detail::category_of(cudaErrorIllegalAddress), ErrorCategory::cuda);
}

}  // namespace
}  // namespace foehn
