#pragma once
// What every mechanism reader promises about a Mechanism it returns (the fuzz targets of the
// mechanism formats check it), and the round trips of the writers.

#include <cmath>
#include <cstdio>
#include <string>

#include "foehn/chemistry/compiled_mechanism.hpp"
#include "foehn/chemistry/mechanism.hpp"
#include "foehn/runtime/error.hpp"
#include "fuzz_support.hpp"

namespace foehn::fuzz {

namespace chem = foehn::chemistry;

inline void require_consistent(const chem::Mechanism& m) {
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
    // A SURFACE reaction reads two per-cell values, at external_rate and the next slot.
    const int per_cell = r.type == chem::ReactionType::surface ? 2 : 1;
    require(r.external_rate + (r.external_rate >= 0 ? per_cell - 1 : 0) <
                static_cast<int>(m.external_rate_names.size()),
            "external rate index in range");
  }
}

// Whatever a reader accepted, both writers must write something their readers take back
// unchanged (an error here is a finding, not bad input); compile() may refuse only with
// foehn::Error.
inline void check_writers_and_compile(const chem::Mechanism& mechanism) {
  const std::string written = chem::mechanism_to_json(mechanism);
  try {
    const chem::Mechanism again = chem::parse_mechanism(written, "round trip");
    require(chem::mechanism_to_json(again) == written,
            "mechanism_to_json round-trips through parse_mechanism");
  } catch (const foehn::Error& error) {
    std::fprintf(stderr, "round trip: %s\n", error.what());
    require(false, "the writers' output is accepted by the readers");
  }
  // The v1 writer may refuse what MICM would refuse or misread (invalid_input, a documented
  // answer); what it writes (in mol m^-3) reads back and writes again to the same text.
  std::string v1;
  try {
    v1 = chem::mechanism_to_openatmos_v1_json(mechanism);
  } catch (const foehn::Error& error) {
    require(error.category() == foehn::ErrorCategory::invalid_input,
            "the v1 writer refuses only with invalid_input");
    return;
  }
  try {
    const chem::Mechanism from_v1 = chem::parse_mechanism(v1, "v1 round trip");
    require(chem::mechanism_to_openatmos_v1_json(from_v1) == v1,
            "mechanism_to_openatmos_v1_json round-trips through parse_mechanism");
  } catch (const foehn::Error& error) {
    std::fprintf(stderr, "v1 round trip: %s\n", error.what());
    require(false, "the v1 writer's output is accepted by the reader");
  }
  try {
    (void)chem::compile(mechanism);
  } catch (const foehn::Error&) {
  }
}

}  // namespace foehn::fuzz
