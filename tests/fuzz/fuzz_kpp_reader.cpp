// libFuzzer target: the KPP reader (parse_kpp_mechanism on one file's text; #INCLUDE resolves
// against a folder that does not exist, so includes fail as io errors). Bad input must throw
// foehn::Error; an accepted mechanism must keep the reader's promises and round-trip through the
// JSON writers.

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "mechanism_checks.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  foehn::chemistry::Mechanism mechanism;
  try {
    mechanism = foehn::chemistry::parse_kpp_mechanism(text, "fuzz.def", "/nonexistent/foehn-fuzz");
  } catch (const foehn::Error&) {
    return 0;  // the documented answer to bad input
  }
  foehn::fuzz::require_consistent(mechanism);
  foehn::fuzz::check_writers_and_compile(mechanism);
  return 0;
}
