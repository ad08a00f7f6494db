// libFuzzer target: the YAML mechanism reader (parse_mechanism_yaml: yaml-cpp, the conversion
// to a document with its depth and alias-expansion caps, then the OpenAtmos v1 or Foehn schema).
// Bad input must throw foehn::Error; an accepted mechanism must keep the reader's promises, and
// the YAML writer's text must read back to the same mechanism, and cut at any line it must be
// refused or read as the whole.

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "mechanism_checks.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  foehn::chemistry::Mechanism mechanism;
  try {
    mechanism = foehn::chemistry::parse_mechanism_yaml(text, "fuzz.yaml");
  } catch (const foehn::Error&) {
    return 0;  // the documented answer to bad input
  }
  foehn::fuzz::require_consistent(mechanism);
  foehn::fuzz::check_writers_and_compile(mechanism);
  foehn::fuzz::check_rate_constants(mechanism);
  std::string yaml;
  try {
    yaml = foehn::chemistry::mechanism_to_openatmos_v1_yaml(mechanism);
  } catch (const foehn::Error&) {
    return 0;  // refused as MICM would refuse it (check_writers_and_compile checked the category)
  }
  try {
    const auto again = foehn::chemistry::parse_mechanism_yaml(yaml, "yaml round trip");
    foehn::fuzz::require(foehn::chemistry::mechanism_to_openatmos_v1_yaml(again) == yaml,
                         "mechanism_to_openatmos_v1_yaml round-trips through parse_mechanism_yaml");
  } catch (const foehn::Error&) {
    foehn::fuzz::require(false, "the YAML writer's output is accepted by the YAML reader");
  }
  foehn::fuzz::check_cuts_of_written_yaml(yaml);
  return 0;
}
