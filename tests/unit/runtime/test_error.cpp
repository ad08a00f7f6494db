// foehn::Error: categories, messages built by fail(), exit codes of applications.

#include <gtest/gtest.h>

#include <string>

#include "foehn/runtime/error.hpp"

namespace foehn {
namespace {

Error caught(ErrorCategory category) {
  try {
    fail(category, "mesh '", "hill.msh", "' has ", 3, " nodes and ", 0.5, " of a tet");
  } catch (const Error& error) {
    return error;
  }
  return Error(ErrorCategory::internal, "fail() did not throw");
}

TEST(FoehnError, FailBuildsTheMessageFromItsParts) {
  const Error error = caught(ErrorCategory::invalid_input);
  EXPECT_EQ(error.category(), ErrorCategory::invalid_input);
  EXPECT_EQ(std::string(error.what()), "mesh 'hill.msh' has 3 nodes and 0.5 of a tet");
}

TEST(FoehnError, IsAStdRuntimeError) {
  try {
    fail(ErrorCategory::cuda, "boom");
    FAIL() << "fail() returned";
  } catch (const std::runtime_error& error) {
    EXPECT_STREQ(error.what(), "boom");
  }
}

TEST(FoehnError, EveryCategoryHasAName) {
  for (ErrorCategory category :
       {ErrorCategory::invalid_input, ErrorCategory::cuda, ErrorCategory::petsc, ErrorCategory::io,
        ErrorCategory::out_of_memory, ErrorCategory::unavailable, ErrorCategory::internal}) {
    EXPECT_FALSE(to_string(category).empty());
    EXPECT_NE(to_string(category), "unknown error");
  }
  EXPECT_EQ(to_string(ErrorCategory::out_of_memory), "out of memory");
}

TEST(FoehnError, BadInputExitsWithTwo) {
  EXPECT_EQ(exit_code_for(caught(ErrorCategory::invalid_input)), 2);
  // An unreadable input or unwritable output path counts as bad input (see error.hpp).
  EXPECT_EQ(exit_code_for(caught(ErrorCategory::io)), 2);
  // A request larger than the machine (a size option, a count in a file) is the input's doing.
  EXPECT_EQ(exit_code_for(caught(ErrorCategory::out_of_memory)), 2);
}

TEST(FoehnError, EverythingElseExitsWithOne) {
  for (ErrorCategory category :
       {ErrorCategory::cuda, ErrorCategory::petsc, ErrorCategory::unavailable,
        ErrorCategory::internal, ErrorCategory::numerical}) {
    EXPECT_EQ(exit_code_for(caught(category)), 1) << to_string(category);
  }
}

}  // namespace
}  // namespace foehn

namespace foehn {
namespace {

TEST(FoehnCheck, AFailedInvariantIsAnInternalErrorNamingTheConditionAndTheLine) {
  const int expected_line = __LINE__ + 2;
  try {
    FOEHN_CHECK(1 + 1 == 3, "sizes ", 4, " and ", 5);
    FAIL() << "FOEHN_CHECK let a false condition through";
  } catch (const Error& error) {
    const std::string message = error.what();
    EXPECT_EQ(error.category(), ErrorCategory::internal);
    EXPECT_NE(message.find("1 + 1 == 3"), std::string::npos) << message;
    EXPECT_NE(message.find("test_error.cpp:" + std::to_string(expected_line)), std::string::npos)
        << message;
    EXPECT_NE(message.find("(sizes 4 and 5)"), std::string::npos) << message;
  }
  EXPECT_NO_THROW(FOEHN_CHECK(2 + 2 == 4));
}

}  // namespace
}  // namespace foehn
