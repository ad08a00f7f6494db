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
#include <utility>
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
  user_defined = 7,      // k set per cell by name, any reactants (MICM's USER_DEFINED)
  surface = 8,           // uptake on aerosol: k from T and two per-cell values (MICM's SURFACE)
  ternary_chemical_activation = 9,         // k0 / (1 + k0 M / kinf) F (MICM, CAMP)
  ternary_chemical_activation_jpl19 = 10,  // Troe k_f + k_int (1 - k_f / kinf) (JPL 19-5)
};

// Parameter slots per type (unused slots are 0). Arrhenius: A B C D E. Troe: k0_A k0_B k0_C
// kinf_A kinf_B kinf_C Fc N. CMAQ_H2O2: k1_A k1_C k2_A k2_C. CMAQ_OH_HNO3: k0_A k0_C k2_A k2_C
// k3_A k3_C. TERNARY_CHEMICAL_ACTIVATION: as Troe. TERNARY_CHEMICAL_ACTIVATION_JPL19: k0_A k0_B
// k0_C k0_D kinf_A kinf_B kinf_C kinf_D kint_A kint_B kint_C kint_D Fc N. SURFACE: slot 0 unused
// (1), reaction probability, the gas species' diffusion coefficient [m2 s-1] and molecular weight
// [kg mol-1]. The other external types have no parameters (slot 0 holds the scaling factor
// once compiled).
inline constexpr int max_rate_parameters = 16;

// Keys a file carries for other tools: the OpenAtmos schema's "__"-prefixed user keys, kept
// (sorted by key) with their values as JSON text, and written back by the JSON/YAML writers.
using UserProperties = std::vector<std::pair<std::string, std::string>>;

// The unit of every concentration, of M in the fall-off forms and hence of the rate parameters.
// Foehn's JSON and KPP mechanisms are in molecule cm^-3 (the atmospheric-chemistry habit); MICM
// and the OpenAtmos v1 schema use SI, mol m^-3. A mechanism is solved in the unit it was read in;
// the OpenAtmos v1 writer converts to SI (in_concentration_unit).
enum class ConcentrationUnit : int { molecule_per_cm3 = 0, mol_per_m3 = 1 };

// Where a species held constant takes its value from when the user gives none: the OpenAtmos v1
// species keys MICM reads ("constant concentration [mol m-3]", "constant mixing ratio
// [mol mol-1]", "is third body"), or nothing (Foehn's own "constant": the user's value, else 0).
enum class ConstantSource : int { user = 0, concentration = 1, mixing_ratio = 2, third_body = 3 };

struct Species {
  std::string name;
  double absolute_tolerance = 1.0e-12;
  bool constant = false;  // concentration held fixed (e.g. M, O2 as a bath): f and J rows are 0
  // For a constant species: where its value comes from, and the file's amount (concentration:
  // mol m^-3 whatever the mechanism's unit; mixing ratio: mol mol^-1; otherwise unused).
  ConstantSource constant_source = ConstantSource::user;
  double constant_amount = 0.0;
  UserProperties user_properties{};
};

// Mass action multiplies a reactant's concentration `coefficient` times, and the compiled
// system stores one factor per unit: coefficients above this are refused (no elementary or
// lumped atmospheric reaction comes near it), so a typo such as 1e9 is an error naming the
// field instead of a runaway allocation.
inline constexpr int max_reactant_coefficient = 16;
// A product's yield beyond this (in magnitude) is refused: lumped yields stay well below 100,
// and a yield of 1e308 once passed every check and made the first step non-finite.
inline constexpr double max_product_yield = 1000.0;

struct SpeciesAmount {
  int species = 0;
  // reactants: integer coefficient, 1 .. max_reactant_coefficient; products: yield (a finite
  // value >= 0, at most max_product_yield)
  double amount = 1.0;
};

// A SURFACE reaction reads two per-cell values, named after the reaction with these suffixes and
// kept next to each other in Mechanism::external_rate_names: the aerosol's effective radius [m]
// and its particle number concentration [m^-3] (MICM's "SURF.<name>.effective radius [m]" and
// "SURF.<name>.particle number concentration [# m-3]"; '#' would start a comment in an options
// file, so Foehn's names avoid it).
inline constexpr std::string_view surface_radius_suffix = ".effective_radius";
inline constexpr std::string_view surface_number_suffix = ".particle_number_concentration";

struct Reaction {
  std::string name;  // required for the external types (names the per-cell rate)
  ReactionType type = ReactionType::arrhenius;
  std::array<double, max_rate_parameters> parameters{};
  std::vector<SpeciesAmount> reactants;
  std::vector<SpeciesAmount> products;
  int external_rate = -1;  // index into Mechanism::external_rate_names for external types
  // External types but SURFACE: k = scaling_factor * the per-cell rate (the OpenAtmos "scaling
  // factor").
  double scaling_factor = 1.0;
  UserProperties user_properties{};
  // The user keys of each reactant and product entry (parallel to the lists; empty: none).
  std::vector<UserProperties> reactant_user_properties, product_user_properties;
};

struct Mechanism {
  std::string name;
  std::vector<Species> species;
  std::vector<Reaction> reactions;
  // One per distinct external rate name (a SURFACE reaction has two, radius then number).
  std::vector<std::string> external_rate_names;
  ConcentrationUnit concentration_unit = ConcentrationUnit::molecule_per_cm3;
  UserProperties user_properties{};

  // Index of a species or external rate by name; -1 when absent.
  [[nodiscard]] int species_index(std::string_view species_name) const;
  [[nodiscard]] int external_rate_index(std::string_view rate_name) const;
  // "NO + O3 -> NO2 + O2": used in error messages and docs.
  [[nodiscard]] std::string equation(const Reaction& reaction) const;
};

[[nodiscard]] std::string_view reaction_type_name(ReactionType type);

// The value MICM gives a species its file holds constant, at temperature T [K] and pressure P
// [Pa], in `unit`: the concentration given, mixing ratio x M, or M itself, where M = P / (R T)
// mol m^-3 (R = k_B N_A, as MICM computes the air density) converted to `unit`. NaN for a species
// whose value is the user's (ConstantSource::user) or that is not constant.
[[nodiscard]] double file_constant_concentration(const Species& species, ConcentrationUnit unit,
                                                 double temperature, double pressure);
[[nodiscard]] std::string_view concentration_unit_name(ConcentrationUnit unit);

// The same mechanism in `unit`, with the same rates: a rate constant of reactant order n scaled
// by f^(n-1) and one multiplying [M] inside a fall-off form (TROE's k0, CMAQ's k2/k3) by f^n,
// f = N_A x 1e-6 molecule cm^-3 per mol m^-3 going to SI; absolute tolerances by 1/f.
// Photolysis and first-order loss (s^-1) are unchanged, and so is an emission (its per-cell rate
// is given in the unit of the run). What the OpenAtmos v1 writer does: MICM reads every file in
// mol m^-3. invalid_input naming the reaction when a parameter overflows.
[[nodiscard]] Mechanism in_concentration_unit(const Mechanism& mechanism, ConcentrationUnit unit);

// The formats of docs/chemistry.md. Readers throw foehn::Error(invalid_input) naming the source,
// the line where the format has lines, the reaction (index, name, equation) and the field.
enum class MechanismFormat {
  foehn_json,         // Foehn's own JSON
  openatmos_v1_json,  // OpenAtmos mechanism configuration v1 (MICM), JSON
  openatmos_v1_yaml,  // the same schema in YAML
  kpp,                // KPP .def/.eqn/.spc (#INCLUDE followed from the file's folder)
};

// JSON text: Foehn's schema, or OpenAtmos v1 when the document has a top-level "version".
[[nodiscard]] Mechanism parse_mechanism(std::string_view json_text, std::string_view source_name);
// YAML text of the OpenAtmos v1 schema (or of Foehn's, with the same keys).
[[nodiscard]] Mechanism parse_mechanism_yaml(std::string_view yaml_text,
                                             std::string_view source_name);
// A KPP file; #INCLUDE names are resolved against `include_folder`.
[[nodiscard]] Mechanism parse_kpp_mechanism(std::string_view kpp_text, std::string_view source_name,
                                            const std::filesystem::path& include_folder);
// The format a file name implies: .json, .yaml/.yml, .def/.eqn/.kpp; anything else is an error
// naming the file and the extensions known.
[[nodiscard]] MechanismFormat mechanism_format_of(const std::filesystem::path& path);
// Reads a file in the format its extension names (JSON: either schema); a missing or
// unreadable file is ErrorCategory::io.
[[nodiscard]] Mechanism read_mechanism(const std::filesystem::path& path);
// Writes Foehn's JSON schema (round trips through parse_mechanism).
[[nodiscard]] std::string mechanism_to_json(const Mechanism& mechanism);
// Writes the OpenAtmos v1 schema, JSON or YAML, as MICM reads it: in mol m^-3 (a mechanism in
// molecule cm^-3 is converted, in_concentration_unit), M as "is third body", the v1 species
// properties the reader kept ("__openatmos <key>") restored. invalid_input for what MICM would
// refuse or misread: a species other than M held constant without a v1 value, two photolysis,
// emission or loss reactions with one name (the name labels the rate), a photolysis or loss
// without exactly one reactant. Foehn's CMAQ_H2O2 and CMAQ_OH_HNO3 forms have no v1 type: they
// are written with CAMP's type names and parameter keys, which only Foehn and CAMP read.
[[nodiscard]] std::string mechanism_to_openatmos_v1_json(const Mechanism& mechanism);
[[nodiscard]] std::string mechanism_to_openatmos_v1_yaml(const Mechanism& mechanism);

// CB05-sized random tropospheric mechanism for benchmarks: hubs OH HO2 NO NO2 O3 NO3 XO2 C2O3, an
// inorganic core, downhill organic cascades, mostly bimolecular, ~6-9% photolysis, some thermal
// decompositions; every species is a reactant; the weighted mass never grows. 80/190 gives ~690
// Jacobian nonzeros and ~50 Markowitz fill-ins (like real mechanisms). Deterministic per seed.
// See src/chemistry/synthetic_mechanism.cpp and docs/chemistry.md.
[[nodiscard]] Mechanism make_synthetic_mechanism(int species = 80, int reactions = 190,
                                                 std::uint64_t seed = 1);

}  // namespace foehn::chemistry
