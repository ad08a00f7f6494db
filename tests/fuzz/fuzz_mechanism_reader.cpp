// libFuzzer target: the chemistry mechanism JSON reader (parse_mechanism: Foehn's schema, or
// OpenAtmos v1 when the document has a "version"; the content parser under read_mechanism, so
// no file is needed), then what every user of a mechanism does next: compile() it. Bad input
// must throw foehn::Error; a mechanism that comes back must keep the reader's promises and
// round-trip through both JSON writers (mechanism_checks.hpp).

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "mechanism_checks.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  foehn::chemistry::Mechanism mechanism;
  try {
    mechanism = foehn::chemistry::parse_mechanism(text, "fuzz.json");
  } catch (const foehn::Error&) {
    return 0;  // the documented answer to bad input
  }
  foehn::fuzz::require_consistent(mechanism);
  foehn::fuzz::check_writers_and_compile(mechanism);
  foehn::fuzz::check_rate_constants(mechanism);
  return 0;
}
