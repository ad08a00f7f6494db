#pragma once
// The chemistry format tests' check of a refusal: `parse()` must throw foehn::Error of category
// invalid_input whose message holds every fragment (the file, the reaction, the field, ...).

#include <gtest/gtest.h>

#include <initializer_list>
#include <string>

#include "foehn/runtime/error.hpp"

namespace foehn::testing {

template <class Parse>
void expect_rejected(Parse parse, std::initializer_list<const char*> fragments) {
  try {
    (void)parse();
    ADD_FAILURE() << "accepted";
  } catch (const foehn::Error& error) {
    EXPECT_EQ(error.category(), foehn::ErrorCategory::invalid_input) << error.what();
    const std::string message = error.what();
    for (const char* fragment : fragments)
      EXPECT_NE(message.find(fragment), std::string::npos)
          << "'" << fragment << "' not in: " << message;
  }
}

}  // namespace foehn::testing
