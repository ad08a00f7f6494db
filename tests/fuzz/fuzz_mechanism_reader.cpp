// libFuzzer target: the chemistry mechanism JSON reader (parse_mechanism, the content parser
// under read_mechanism, so no file is needed), followed by what every user of a mechanism does
// next: compile() it. Bad input must throw foehn::Error from either; a mechanism that comes
// back must keep the reader's promises and round-trip through mechanism_to_json.

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>

#include "foehn/chemistry/compiled_mechanism.hpp"
#include "foehn/chemistry/mechanism.hpp"
#include "foehn/runtime/error.hpp"
#include "fuzz_support.hpp"

namespace {

using foehn::fuzz::require;
namespace chem = foehn::chemistry;

void require_consistent(const chem::Mechanism& m) {
  const auto species = static_cast<int>(m.species.size());
  for (const chem::Species& s : m.species)
    require(std::isfinite(s.absolute_tolerance) && s.absolute_tolerance > 0.0,
            "positive finite absolute tolerance");
  for (const chem::Reaction& r : m.reactions) {
    for (const chem::SpeciesAmount& a : r.reactants) {
      require(a.species >= 0 && a.species < species, "reactant species in range");
      require(a.amount >= 1.0 && a.amount <= chem::max_reactant_coefficient &&
                  a.amount == std::floor(a.amount),
              "reactant coefficient an integer from 1 to max_reactant_coefficient");
    }
    for (const chem::SpeciesAmount& a : r.products) {
      require(a.species >= 0 && a.species < species, "product species in range");
      require(std::isfinite(a.amount) && a.amount >= 0.0, "finite non-negative yield");
    }
    for (const double p : r.parameters) require(std::isfinite(p), "finite rate parameters");
    require(r.external_rate < static_cast<int>(m.external_rate_names.size()),
            "external rate index in range");
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  chem::Mechanism mechanism;
  try {
    mechanism = chem::parse_mechanism(text, "fuzz.json");
  } catch (const foehn::Error&) {
    return 0;  // the documented answer to bad input
  }
  require_consistent(mechanism);
  // What the writer writes from an accepted mechanism the reader must read back unchanged: an
  // error here is a finding, not bad input.
  const std::string written = chem::mechanism_to_json(mechanism);
  try {
    const chem::Mechanism again = chem::parse_mechanism(written, "round trip");
    require(chem::mechanism_to_json(again) == written,
            "mechanism_to_json round-trips through parse_mechanism");
  } catch (const foehn::Error& error) {
    std::fprintf(stderr, "round trip: %s\n", error.what());
    require(false, "mechanism_to_json output is accepted by parse_mechanism");
  }
  try {
    (void)chem::compile(mechanism);
  } catch (const foehn::Error&) {
    // compile() may refuse a mechanism the reader accepted, but only with foehn::Error.
  }
  return 0;
}
