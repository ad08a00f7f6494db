// Resource requests checked before allocation: a request larger than the machine names itself
// and the memory it would need; a small one passes.
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

#include "foehn/runtime/error.hpp"
#include "foehn/runtime/memory_budget.hpp"

namespace foehn {
namespace {

TEST(MemoryBudget, AvailableMemoryIsPositive) {
  EXPECT_GT(available_host_memory_bytes(), 1e6);
}

TEST(MemoryBudget, SizesAreWrittenInBinaryUnits) {
  EXPECT_EQ(format_memory_size(12), "12 B");
  EXPECT_EQ(format_memory_size(1536), "1.5 kiB");
  EXPECT_EQ(format_memory_size(3.0 * 1024 * 1024 * 1024), "3.0 GiB");
}

TEST(MemoryBudget, ARequestBeyondTheMachineNamesItselfAndTheBytes) {
  EXPECT_NO_THROW(check_host_memory("-parcels 10", 10 * 56.0));
  try {
    check_host_memory("-parcels 4000000000000 (56 B per parcel)", 4e12 * 56.0);
    FAIL() << "224 TB accepted";
  } catch (const Error& error) {
    EXPECT_EQ(error.category(), ErrorCategory::invalid_input);
    const std::string message = error.what();
    EXPECT_NE(message.find("-parcels 4000000000000"), std::string::npos) << message;
    EXPECT_NE(message.find("203.7 TiB of host memory"), std::string::npos) << message;
  }
  // NaN (an overflowed estimate) is refused too.
  EXPECT_THROW(check_host_memory("-x", 0.0 / 0.0), Error);
  EXPECT_THROW(check_device_memory("-mesh_tets 1e12", 1e15, 80ull << 30), Error);
  EXPECT_NO_THROW(check_device_memory("-mesh_tets 1000", 1e6, 80ull << 30));
}

TEST(MemoryBudget, FoehnMaxMemoryLowersTheLimit) {
  ASSERT_EQ(::setenv("FOEHN_MAX_MEMORY", "64M", 1), 0);
  EXPECT_DOUBLE_EQ(available_host_memory_bytes(), 64.0 * 1024 * 1024);
  EXPECT_THROW(check_host_memory("-cells 100", 65.0 * 1024 * 1024), Error);
  ASSERT_EQ(::setenv("FOEHN_MAX_MEMORY", "-3", 1), 0);
  EXPECT_THROW(available_host_memory_bytes(), Error);
  ::unsetenv("FOEHN_MAX_MEMORY");
}

}  // namespace
}  // namespace foehn
