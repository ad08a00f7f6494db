#pragma once
// Internal to the mechanism readers and writers: every JSON-shaped format (Foehn's JSON, the
// OpenAtmos v1 schema in JSON or YAML) is brought to one nlohmann::json document of Foehn's
// schema, which one parser turns into a Mechanism. nlohmann-json and yaml-cpp stay in this folder.

#include <limits>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "foehn/chemistry/mechanism.hpp"

namespace foehn::chemistry::formats {

// The OpenAtmos schema lets any object carry keys starting with "__" for other tools.
[[nodiscard]] inline bool is_user_key(std::string_view key) {
  return key.size() > 2 && key.substr(0, 2) == "__";
}

// A rate parameter of a reaction type: its key in the JSON schemas, its slot in
// Reaction::parameters, its default (NaN: required in Foehn's schema) and its range.
struct ParameterSpec {
  const char* key;
  int slot;
  double default_value;
  bool non_negative;
  // The rate formula divides by it (D, N) or by the rate it scales (kinf_A, k2_A): zero gives
  // an infinite or NaN rate constant, which the solver reports as a singular matrix.
  bool positive = false;
  // Troe's N: the formula divides by it, so zero is refused; MUSICA's T1S2 gives negative values,
  // which MICM computes with, so they are read too.
  bool nonzero = false;
};
inline constexpr double required = std::numeric_limits<double>::quiet_NaN();

struct TypeSpec {
  ReactionType type;
  const char* name;  // as in the files: "ARRHENIUS", ...
  std::vector<ParameterSpec> parameters;
};
[[nodiscard]] const std::vector<TypeSpec>& type_specs();
[[nodiscard]] const TypeSpec& spec_of(ReactionType type);
// Photolysis, first-order loss, emission, user-defined (the rate set per cell by name, times the
// scaling factor) and SURFACE (two per-cell aerosol values): these read per-cell values.
[[nodiscard]] bool is_external(ReactionType type);
[[nodiscard]] bool has_scaling_factor(ReactionType type);
// The per-cell value names a reaction of an external type reads (SURFACE: radius, then number).
[[nodiscard]] std::vector<std::string> external_rate_names_of(const Reaction& reaction);

// Whether `text` is UTF-8 that a JSON document can hold (nlohmann's own check): names read from
// YAML or KPP text must be, or no writer could write them back.
[[nodiscard]] inline bool is_json_text(std::string_view text) {
  try {
    (void)nlohmann::json(std::string(text)).dump();
    return true;
  } catch (const nlohmann::json::exception&) {
    return false;
  }
}

// `text` with every byte that is not valid UTF-8 replaced by U+FFFD (nlohmann's own replacement):
// for names taken from outside a document, such as a file name, which writers must be able to
// write back.
[[nodiscard]] inline std::string as_json_text(std::string_view text) {
  return nlohmann::json::parse(nlohmann::json(std::string(text))
                                   .dump(-1, ' ', false, nlohmann::json::error_handler_t::replace))
      .get<std::string>();
}

// Foehn's schema (docs/chemistry.md) as a parsed document -> Mechanism. `lists_required`:
// every reaction must give 'reactants' (but EMISSION) and 'products' (but FIRST_ORDER_LOSS), as
// in MICM's schema; set for YAML text and v1 documents, where a cut file could otherwise lose
// them unseen.
[[nodiscard]] Mechanism mechanism_from_foehn_document(const nlohmann::json& document,
                                                      const std::string& source,
                                                      bool lists_required);
// A parsed OpenAtmos v1 document, validated against the schema, -> a document of Foehn's schema.
[[nodiscard]] nlohmann::json foehn_document_from_openatmos_v1(const nlohmann::json& document,
                                                              const std::string& source);
// Mechanism -> OpenAtmos v1 document.
[[nodiscard]] nlohmann::json openatmos_v1_document(const Mechanism& mechanism);

// JSON text -> document; a parse error names the source and says when the text was cut short.
[[nodiscard]] nlohmann::json parse_json_text(std::string_view text, const std::string& source);
// YAML text -> document (plain scalars that read as numbers or booleans become those; quoted
// ones stay strings); a parse error names the source, line and column.
[[nodiscard]] nlohmann::json parse_yaml_text(std::string_view text, const std::string& source);
[[nodiscard]] std::string yaml_text(const nlohmann::json& document);

// Writes where a constant species' value comes from (Species::constant_source) as the OpenAtmos v1
// key `prefix` + "constant concentration [mol m-3]", "... mixing ratio [mol mol-1]" or "is third
// body", replacing any such key already there; nothing for ConstantSource::user.
void put_constant_source(nlohmann::json& entry, const Species& species, const std::string& prefix);

// The user keys of `object` (in key order), values as JSON text.
[[nodiscard]] UserProperties user_properties_of(const nlohmann::json& object);
// Puts `properties` back into `object`.
void add_user_properties(nlohmann::json& object, const UserProperties& properties);

}  // namespace foehn::chemistry::formats
