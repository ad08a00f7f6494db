#pragma once
// Test helpers: the category of the foehn::Error an action throws (a test failure if none), and
// the category and a part of its message expected.

#include <gtest/gtest.h>

#include <string_view>

#include "foehn/runtime/error.hpp"

namespace foehn::testing {

template <typename Action>
ErrorCategory category_of(Action action) {
  try {
    action();
  } catch (const foehn::Error& e) {
    return e.category();
  }
  ADD_FAILURE() << "no foehn::Error thrown";
  return ErrorCategory::internal;
}

// Expects `action` to throw a foehn::Error of `category` whose message contains `fragment`.
template <typename Action>
void expect_error(ErrorCategory category, std::string_view fragment, Action action) {
  try {
    action();
  } catch (const foehn::Error& e) {
    EXPECT_EQ(e.category(), category) << e.what();
    EXPECT_NE(std::string_view(e.what()).find(fragment), std::string_view::npos)
        << "\"" << e.what() << "\" does not mention \"" << fragment << "\"";
    return;
  }
  ADD_FAILURE() << "no foehn::Error thrown (expected one mentioning \"" << fragment << "\")";
}

}  // namespace foehn::testing
