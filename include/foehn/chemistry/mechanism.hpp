#pragma once
// A chemical mechanism as read from a file: species, reactions with their rate-constant type
// and parameters, reactants with stoichiometric coefficients and products with yields. Rate
// laws are mass action: rate = k * prod(y_reactant^coefficient). Host-only; `compile()` in
// compiled_mechanism.hpp turns it into the flat form the kernels use.

#include <array>
#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace foehn::chemistry {

enum class ReactionType : int {
  arrhenius = 0,         // k = A exp(C/T) (T/D)^B (1 + E P)
  troe = 1,              // fall-off with air number density M
  photolysis = 2,        // k set per cell by name
  first_order_loss = 3,  // k set per cell by name, one reactant
  emission = 4,          // k set per cell by name, no reactants (zero order)
  cmaq_h2o2 = 5,         // k = k1 + k2 M
  cmaq_oh_hno3 = 6,      // k = k0 + k3 M / (1 + k3 M / k2)
};

// Parameter slots per type (unused slots are 0). Arrhenius: A B C D E. Troe: k0_A k0_B k0_C
// kinf_A kinf_B kinf_C Fc N. CMAQ_H2O2: k1_A k1_C k2_A k2_C. CMAQ_OH_HNO3: k0_A k0_C k2_A k2_C
// k3_A k3_C. The external types have no parameters.
inline constexpr int max_rate_parameters = 8;

struct Species {
  std::string name;
  double absolute_tolerance = 1.0e-12;
  bool constant = false;  // concentration held fixed (e.g. M, O2 as a bath): f and J rows are 0
};

// Mass action multiplies a reactant's concentration `coefficient` times, and the compiled
// system stores one factor per unit: coefficients above this are refused (no elementary or
// lumped atmospheric reaction comes near it), so a typo such as 1e9 is an error naming the
// field instead of a runaway allocation.
inline constexpr int max_reactant_coefficient = 16;

struct SpeciesAmount {
  int species = 0;
  // reactants: integer coefficient, 1 .. max_reactant_coefficient; products: yield (any value
  // >= 0)
  double amount = 1.0;
};

struct Reaction {
  std::string name;  // required for the external types (names the per-cell rate)
  ReactionType type = ReactionType::arrhenius;
  std::array<double, max_rate_parameters> parameters{};
  std::vector<SpeciesAmount> reactants;
  std::vector<SpeciesAmount> products;
  int external_rate = -1;  // index into Mechanism::external_rate_names for external types
};

struct Mechanism {
  std::string name;
  std::vector<Species> species;
  std::vector<Reaction> reactions;
  std::vector<std::string> external_rate_names;  // one per distinct external rate name

  // Index of a species or external rate by name; -1 when absent.
  [[nodiscard]] int species_index(std::string_view species_name) const;
  [[nodiscard]] int external_rate_index(std::string_view rate_name) const;
  // "NO + O3 -> NO2 + O2": used in error messages and docs.
  [[nodiscard]] std::string equation(const Reaction& reaction) const;
};

[[nodiscard]] std::string_view reaction_type_name(ReactionType type);

// Parses the JSON schema of docs/chemistry.md; `source_name` appears in every error message.
// Throws foehn::Error(invalid_input) naming the source, reaction index/name/equation and field.
[[nodiscard]] Mechanism parse_mechanism(std::string_view json_text, std::string_view source_name);
// Reads a file and parses it; a missing or unreadable file is ErrorCategory::io.
[[nodiscard]] Mechanism read_mechanism(const std::filesystem::path& path);
// Writes the mechanism back to the same schema (round trips through parse_mechanism).
[[nodiscard]] std::string mechanism_to_json(const Mechanism& mechanism);

// CB05-sized random tropospheric mechanism for benchmarks: hubs OH HO2 NO NO2 O3 NO3 XO2 C2O3, an
// inorganic core, downhill organic cascades, mostly bimolecular, ~6-9% photolysis, some thermal
// decompositions; every species is a reactant; the weighted mass never grows. 80/190 gives ~690
// Jacobian nonzeros and ~50 Markowitz fill-ins (like real mechanisms). Deterministic per seed.
// See src/chemistry/synthetic_mechanism.cpp and docs/chemistry.md.
[[nodiscard]] Mechanism make_synthetic_mechanism(int species = 80, int reactions = 190,
                                                 std::uint64_t seed = 1);

}  // namespace foehn::chemistry
