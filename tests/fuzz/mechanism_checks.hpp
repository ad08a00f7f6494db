#pragma once
// What every mechanism reader promises about a Mechanism it returns (the fuzz targets of the
// mechanism formats check it), and the round trips of the writers.

#include <cmath>
#include <cstdio>
#include <string>

#include <vector>

#include "foehn/chemistry/chemistry_batch.hpp"
#include "foehn/chemistry/compiled_mechanism.hpp"
#include "foehn/chemistry/mechanism.hpp"
#include "foehn/runtime/error.hpp"
#include "fuzz_support.hpp"

namespace foehn::fuzz {

namespace chem = foehn::chemistry;

inline void require_consistent(const chem::Mechanism& m) {
  const auto species = static_cast<int>(m.species.size());
  for (const chem::Species& s : m.species) {
    require(std::isfinite(s.absolute_tolerance) && s.absolute_tolerance > 0.0,
            "positive finite absolute tolerance");
    // A file's constant value belongs to a constant species and is a finite amount >= 0.
    require(s.constant || s.constant_source == chem::ConstantSource::user,
            "a constant value only on a constant species");
    require(std::isfinite(s.constant_amount) && s.constant_amount >= 0.0,
            "finite non-negative constant amount");
  }
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

// The rate constants at two conditions: the compiled (kernel) path and the host path agree bit
// for bit, compute_rate_constants reports the first non-finite one, and check_rate_constants
// refuses exactly when one is not finite (never a silent 0 or inf in a solve).
inline void check_rate_constants(const chem::Mechanism& mechanism) {
  chem::CompiledMechanism compiled;
  try {
    compiled = chem::compile(mechanism, chem::SpeciesOrdering::natural);
  } catch (const foehn::Error&) {
    return;
  }
  chem::ChemistryBatch batch = chem::make_batch(mechanism, 2);
  batch.temperature = {180.0, 330.0};
  batch.pressure = {100.0, 110000.0};
  for (double& rate : batch.external_rates) rate = 1.0;
  const std::size_t rates = mechanism.external_rate_names.size();
  std::vector<double> k(mechanism.reactions.size());
  for (std::size_t c = 0; c < 2; ++c) {
    const int first =
        chem::compute_rate_constants(compiled.view(), batch.temperature[c], batch.pressure[c],
                                     batch.external_rates.data() + c * rates, k.data());
    int expected_first = -1;
    for (std::size_t r = 0; r < k.size(); ++r) {
      const double host = chem::reaction_rate_constant(
          mechanism.reactions[r], mechanism.concentration_unit, batch.temperature[c],
          batch.pressure[c], batch.external_rates.data() + c * rates);
      require(host == k[r], "host and compiled rate constants agree");
      require(std::isfinite(k[r]) || k[r] == HUGE_VAL, "a rate constant is finite or +inf");
      if (expected_first < 0 && !std::isfinite(k[r])) expected_first = static_cast<int>(r);
    }
    require(first == expected_first, "compute_rate_constants reports the first non-finite one");
    bool refused = false;
    try {
      chem::check_rate_constants(mechanism, batch, static_cast<std::int64_t>(c), 1);
    } catch (const foehn::Error& error) {
      require(error.category() == foehn::ErrorCategory::invalid_input,
              "check_rate_constants refuses with invalid_input");
      refused = true;
    }
    require(refused == (first >= 0), "check_rate_constants refuses exactly a non-finite rate");
  }
}

// A YAML text Foehn wrote ends with 'version' (the last key in sorted order): cut at any line
// boundary it is refused or reads as the whole mechanism.
inline void check_cuts_of_written_yaml(const std::string& yaml) {
  constexpr std::size_t most_lines = 400;  // the fuzzer's time goes to new inputs, not this
  const std::string whole =
      chem::mechanism_to_json(chem::parse_mechanism_yaml(yaml, "written.yaml"));
  std::size_t lines = 0;
  for (std::size_t end = yaml.find('\n'); end != std::string::npos && end + 1 < yaml.size();
       end = yaml.find('\n', end + 1)) {
    if (++lines > most_lines) return;
    try {
      const chem::Mechanism cut = chem::parse_mechanism_yaml(yaml.substr(0, end + 1), "cut.yaml");
      require(chem::mechanism_to_json(cut) == whole,
              "a cut written YAML file is refused or the whole mechanism");
    } catch (const foehn::Error&) {
    }
  }
}

}  // namespace foehn::fuzz
