// Backend choice: parsing, the rules of select_backend and the one-line notice.

#include <gtest/gtest.h>

#include <algorithm>
#include <sstream>
#include <string>

#include "foehn/config.hpp"
#include "foehn/runtime/backend.hpp"
#include "foehn/runtime/device.hpp"
#include "foehn/runtime/error.hpp"

namespace foehn {
namespace {

ErrorCategory category_of_select(std::string_view requested, int devices, bool built_with_cuda,
                                 std::string* message = nullptr) {
  try {
    detail::select_backend_for(requested, nullptr, devices, built_with_cuda);
  } catch (const Error& error) {
    if (message != nullptr) *message = error.what();
    return error.category();
  }
  ADD_FAILURE() << "select_backend_for('" << requested << "') did not throw";
  return ErrorCategory::internal;
}

TEST(Backend, ParsesExplicitChoices) {
  EXPECT_EQ(parse_backend("cpu"), Backend::cpu);
  EXPECT_EQ(parse_backend("cuda"), Backend::cuda);
  EXPECT_EQ(to_string(Backend::cpu), "cpu");
  EXPECT_EQ(to_string(Backend::cuda), "cuda");
}

TEST(Backend, AutoResolvesByDeviceCount) {
  const Backend expected = cuda_device_count() > 0 ? Backend::cuda : Backend::cpu;
  EXPECT_EQ(parse_backend("auto"), expected);
  EXPECT_EQ(parse_backend(""), expected);
}

TEST(Backend, UnknownNameListsValidValues) {
  for (const char* bad : {"gpu", "CUDA", "cpu ", "hip"}) {
    try {
      parse_backend(bad);
      ADD_FAILURE() << "parse_backend accepted '" << bad << "'";
    } catch (const Error& error) {
      EXPECT_EQ(error.category(), ErrorCategory::invalid_input);
      const std::string message = error.what();
      EXPECT_NE(message.find(std::string("'") + bad + "'"), std::string::npos) << message;
      EXPECT_NE(message.find("cpu, cuda, auto"), std::string::npos) << message;
    }
  }
}

TEST(Backend, SelectRejectsUnknownNamesToo) {
  EXPECT_EQ(category_of_select("opencl", 1, true), ErrorCategory::invalid_input);
}

TEST(Backend, CpuIsAlwaysAvailable) {
  std::ostringstream notice;
  EXPECT_EQ(detail::select_backend_for("cpu", &notice, 0, false), Backend::cpu);
  EXPECT_EQ(detail::select_backend_for("cpu", &notice, 2, true), Backend::cpu);
  EXPECT_TRUE(notice.str().empty()) << "an explicit choice needs no notice";
}

TEST(Backend, CudaWithADevice) {
  EXPECT_EQ(detail::select_backend_for("cuda", nullptr, 1, true), Backend::cuda);
}

TEST(Backend, CudaWithoutADeviceIsUnavailable) {
  std::string message;
  EXPECT_EQ(category_of_select("cuda", 0, true, &message), ErrorCategory::unavailable);
  EXPECT_NE(message.find("no CUDA device"), std::string::npos) << message;
}

TEST(Backend, CudaInACpuOnlyBuildIsUnavailable) {
  std::string message;
  EXPECT_EQ(category_of_select("cuda", 0, false, &message), ErrorCategory::unavailable);
  EXPECT_EQ(message.rfind("Foehn was built without CUDA", 0), 0u) << message;
}

TEST(Backend, AutoPicksCudaSilentlyWhenADeviceExists) {
  std::ostringstream notice;
  EXPECT_EQ(detail::select_backend_for("auto", &notice, 1, true), Backend::cuda);
  EXPECT_TRUE(notice.str().empty());
}

TEST(Backend, AutoFallsBackToCpuWithOneNoticeLine) {
  for (bool built_with_cuda : {true, false}) {
    std::ostringstream notice;
    EXPECT_EQ(detail::select_backend_for("auto", &notice, 0, built_with_cuda), Backend::cpu);
    const std::string line = notice.str();
    EXPECT_EQ(std::count(line.begin(), line.end(), '\n'), 1) << line;
    EXPECT_EQ(line.back(), '\n');
    EXPECT_NE(line.find("CPU backend"), std::string::npos) << line;
  }
  // No stream: no notice, same answer.
  EXPECT_EQ(detail::select_backend_for("", nullptr, 0, true), Backend::cpu);
}

TEST(Backend, SelectOnThisMachine) {
  std::ostringstream notice;
  const Backend chosen = select_backend("auto", &notice);
  if (cuda_device_count() > 0) {
    EXPECT_EQ(chosen, Backend::cuda);
    EXPECT_TRUE(notice.str().empty());
    EXPECT_EQ(select_backend("cuda", nullptr), Backend::cuda);
  } else {
    EXPECT_EQ(chosen, Backend::cpu);
    EXPECT_FALSE(notice.str().empty());
    try {
      select_backend("cuda", nullptr);
      ADD_FAILURE() << "cuda was granted without a device";
    } catch (const Error& error) {
      EXPECT_EQ(error.category(), ErrorCategory::unavailable);
    }
  }
#if !FOEHN_HAVE_CUDA
  EXPECT_NE(notice.str().find("built without CUDA"), std::string::npos) << notice.str();
#endif
}

}  // namespace
}  // namespace foehn
