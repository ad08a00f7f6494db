#pragma once
// Test helper: the category of the foehn::Error an action throws (a test failure if none).

#include <gtest/gtest.h>

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

}  // namespace foehn::testing
