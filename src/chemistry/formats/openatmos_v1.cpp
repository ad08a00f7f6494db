// The OpenAtmos mechanism configuration schema, version 1 (what MICM reads): validated here
// against the schema and rewritten as a document of Foehn's schema, and written back out.
// What the schema has that Foehn's gas-phase solver does not (aerosol and phase-transfer
// reaction types) is refused by name; keys outside the schema are refused; "__" keys are kept.

#include <cmath>
#include <map>
#include <regex>
#include <set>
#include <string>

#include "foehn/chemistry/mechanism.hpp"
#include "foehn/runtime/error.hpp"
#include "json_documents.hpp"

namespace foehn::chemistry::formats {
namespace {

using nlohmann::json;

constexpr double boltzmann = 1.380649e-23;  // J K^-1 (exact, SI 2019): C = -Ea / k_B

// Reaction types of the schema that are not gas-phase kinetics with mass-action rates.
const std::set<std::string>& unsupported_v1_types() {
  static const std::set<std::string> types = {"BRANCHED_NO_RO2",
                                              "TUNNELING",
                                              "CONDENSED_PHASE_ARRHENIUS",
                                              "CONDENSED_PHASE_PHOTOLYSIS",
                                              "SIMPOL_PHASE_TRANSFER",
                                              "AQUEOUS_EQUILIBRIUM",
                                              "WET_DEPOSITION",
                                              "HL_PHASE_TRANSFER",
                                              "TAYLOR_SERIES"};
  return types;
}

// The species properties a SURFACE rate needs, and where v1 files keep them.
const std::string molecular_weight_key = "molecular weight [kg mol-1]";
const std::string diffusion_key = "diffusion coefficient [m2 s-1]";

// Species properties the schema defines for aerosol and phase-transfer processes: validated
// (numbers) and kept; SURFACE reactions read the molecular weight and diffusion coefficient.
const std::set<std::string>& physical_species_keys() {
  static const std::set<std::string> keys = {"molecular weight [kg mol-1]",
                                             "diffusion coefficient [m2 s-1]",
                                             "HLC(298K) [mol m-3 Pa-1]",
                                             "HLC exponential factor [K]",
                                             "N star",
                                             "density [kg m-3]"};
  return keys;
}

// A v1 key the reader keeps as a user property of Foehn's mechanism (the writer restores it).
std::string kept_key(const std::string& v1_key) {
  return "__openatmos " + v1_key;
}

class V1Reader {
 public:
  explicit V1Reader(std::string source) : source_(std::move(source)) {}

  json translate(const json& v1) {
    if (!v1.is_object())
      fail(ErrorCategory::invalid_input, source_, ": top level must be an object");
    check_version(v1.at("version"));
    json out = json::object();
    out["concentration unit"] = "mol m-3";  // MICM's unit, unless the file says otherwise
    for (const auto& [key, value] : v1.items()) {
      if (key == "version" || key == "species" || key == "phases" || key == "reactions") continue;
      if (key == "name") {
        if (!value.is_string())
          fail(ErrorCategory::invalid_input, source_, ": field 'name' must be a string");
        out["name"] = value;
      } else if (key == "__concentration unit") {
        out["concentration unit"] = value;  // checked by the Foehn-schema parser
      } else if (is_user_key(key)) {
        out[key] = value;
      } else if (key == "emissions") {
        // Emission inventories, species maps and sources (v1.3) configure the host model's
        // emission input, not the kinetics: kept and written back, not used (Foehn's emissions
        // enter through EMISSION reactions and their per-cell rates).
        if (!value.is_object())
          fail(ErrorCategory::invalid_input, source_, ": field 'emissions' must be an object");
        out[kept_key(key)] = value;
      } else if (key == "aerosol representations" || key == "aerosol processes") {
        fail(ErrorCategory::invalid_input, source_, ": field '", key,
             "' (condensed-phase chemistry, OpenAtmos v1.2) is not part of Foehn's gas-phase "
             "solver");
      } else {
        fail(ErrorCategory::invalid_input, source_, ": field '", key,
             "' is not part of the OpenAtmos v1 schema (version, name, species, phases, "
             "reactions, emissions)");
      }
    }
    out["species"] = species(array_field(v1, "species", source_));
    if (v1.contains("phases")) phases(array_field(v1, "phases", source_));
    // A property given in a phase's species entry (where MUSICA's files put the diffusion
    // coefficient) is kept as the species' own; the writer puts it back in the phase.
    for (json& entry : out["species"]) {
      const auto found = phase_properties_.find(entry.at("name").get<std::string>());
      if (found == phase_properties_.end()) continue;
      for (const auto& [key, value] : found->second) entry[kept_key(key)] = value;
    }
    out["reactions"] = json::array();
    const json& reactions = array_field(v1, "reactions", source_);
    for (std::size_t r = 0; r < reactions.size(); ++r)
      out["reactions"].push_back(reaction(reactions[r], r));
    return out;
  }

 private:
  static const json& array_field(const json& object, const char* key, const std::string& where) {
    if (!object.contains(key) || !object.at(key).is_array())
      fail(ErrorCategory::invalid_input, where, ": field '", key, "' is missing or not an array");
    return object.at(key);
  }

  void check_version(const json& version) const {
    if (!version.is_string())
      fail(ErrorCategory::invalid_input, source_,
           ": field 'version' must be a string such as \"1.0.0\"");
    const std::string text = version.get<std::string>();
    // "1", "1.0" or "1.0.0": major 1 and up to two more dot-separated numbers (semantic
    // versioning's core; "1.x", "1..0" and "1.0.0-beta" are not versions this reader knows).
    static const std::regex semantic_version(R"(1(\.(0|[1-9][0-9]{0,8})){0,2})");
    if (text.size() > 32 || !std::regex_match(text, semantic_version))
      fail(ErrorCategory::invalid_input, source_, ": field 'version' is '", text.substr(0, 32),
           text.size() > 32 ? "...'" : "'",
           "; this reader knows version 1 of the OpenAtmos schema, written \"1\", \"1.0\" or "
           "\"1.0.0\"");
  }

  double number(const json& value, const std::string& where, const std::string& key) const {
    if (!value.is_number() || !std::isfinite(value.get<double>()))
      fail(ErrorCategory::invalid_input, where, ": field '", key, "' must be a finite number");
    return value.get<double>();
  }

  json species(const json& list) {
    json out = json::array();
    for (std::size_t i = 0; i < list.size(); ++i) {
      const json& entry = list[i];
      std::string where = source_ + ": species " + std::to_string(i);
      if (!entry.is_object() || !entry.contains("name") || !entry.at("name").is_string())
        fail(ErrorCategory::invalid_input, where, ": field 'name' is missing or not a string");
      const std::string name = entry.at("name").get<std::string>();
      where += " ('" + name + "')";
      json s = {{"name", name}};
      for (const auto& [key, value] : entry.items()) {
        if (key == "name") continue;
        if (key == "absolute tolerance" || key == "__absolute tolerance") {
          s["absolute tolerance"] = value;  // MICM reads the "__" form; checked by the parser
        } else if (key == "tracer type") {  // the schema's earlier spelling of the flags below
          const std::string type = value.is_string() ? value.get<std::string>() : "";
          if (type != "THIRD_BODY" && type != "CONSTANT")
            fail(ErrorCategory::invalid_input, where,
                 ": field 'tracer type' must be \"THIRD_BODY\" or \"CONSTANT\"");
          s["constant"] = true;
          if (type == "THIRD_BODY") s[kept_key("is third body")] = true;
        } else if (key == "is third body") {
          // M: its concentration is the air's, held fixed within a step as Foehn's constant
          // species are (the box gives it; MICM computes it from T and p).
          if (!value.is_boolean())
            fail(ErrorCategory::invalid_input, where,
                 ": field 'is third body' must be true or false");
          if (value.get<bool>()) {
            s["constant"] = true;
            s[kept_key(key)] = true;
          }
        } else if (key == "constant concentration [mol m-3]" ||
                   key == "constant mixing ratio [mol mol-1]") {
          const double amount = number(value, where, key);
          if (amount < 0.0)
            fail(ErrorCategory::invalid_input, where, ": field '", key, "' is negative");
          s["constant"] = true;
          s[kept_key(key)] = amount;
        } else if (key == "phase") {
          if (!value.is_string())
            fail(ErrorCategory::invalid_input, where, ": field 'phase' must be a string");
        } else if (physical_species_keys().count(key) != 0) {
          s[kept_key(key)] = number(value, where, key);  // unused here, written back
        } else if (is_user_key(key)) {
          s[key] = value;
        } else {
          fail(ErrorCategory::invalid_input, where, ": field '", key,
               "' is not part of an OpenAtmos v1 species");
        }
      }
      species_names_.insert(name);
      if (entry.contains(molecular_weight_key))
        surface_properties_[name][molecular_weight_key] = entry.at(molecular_weight_key);
      if (entry.contains(diffusion_key))
        surface_properties_[name][diffusion_key] = entry.at(diffusion_key);
      out.push_back(std::move(s));
    }
    return out;
  }

  void phases(const json& list) {
    for (std::size_t i = 0; i < list.size(); ++i) {
      const json& entry = list[i];
      const std::string where = source_ + ": phase " + std::to_string(i);
      if (!entry.is_object() || !entry.contains("name") || !entry.at("name").is_string())
        fail(ErrorCategory::invalid_input, where, ": field 'name' is missing or not a string");
      std::set<std::string>& members = phase_species_[entry.at("name").get<std::string>()];
      for (const auto& [key, value] : entry.items()) {
        if (key == "name" || is_user_key(key)) continue;
        if (key != "species" || !value.is_array())
          fail(ErrorCategory::invalid_input, where, ": field '", key,
               "' is not part of an OpenAtmos v1 phase (name, species: [names])");
        for (const json& member : value) {
          // A phase lists plain names or objects {"name": ..., properties} (MUSICA's TS1 gives
          // diffusion coefficients there).
          const json& name =
              member.is_object() && member.contains("name") ? member.at("name") : member;
          if (!name.is_string() || species_names_.count(name.get<std::string>()) == 0)
            fail(ErrorCategory::invalid_input, where, ": species ", name.dump(),
                 " is not declared under 'species'");
          members.insert(name.get<std::string>());
          if (member.is_object()) phase_member_properties(member, where);
        }
      }
    }
  }

  void phase_member_properties(const json& member, const std::string& where) {
    const std::string name = member.at("name").get<std::string>();
    const std::string entry = where + ": species '" + name + "'";
    for (const auto& [key, value] : member.items()) {
      if (key == "name") continue;
      if (physical_species_keys().count(key) != 0) {
        const double amount = number(value, entry, key);
        phase_properties_[name][key] = amount;
        surface_properties_[name][key] = amount;
      } else if (is_user_key(key)) {
        phase_properties_[name][key] = value;
      } else {
        fail(ErrorCategory::invalid_input, entry, ": field '", key,
             "' is not part of an OpenAtmos v1 phase species");
      }
    }
  }

  // SURFACE (uptake of one gas on aerosol): its v1 keys become Foehn's, with the gas species'
  // molecular weight and diffusion coefficient, which the rate needs, copied in.
  json surface_reaction(const json& item, const std::string& where,
                        const std::set<std::string>* phase) const {
    json out = {{"type", "SURFACE"}};
    for (const auto& [key, value] : item.items()) {
      if (key == "type" || key == "gas phase") continue;
      if (key == "name" || key == "reaction probability" || is_user_key(key)) {
        out[key] = value;  // checked by the Foehn-schema parser
      } else if (key == "gas-phase species") {
        if (!value.is_string())
          fail(ErrorCategory::invalid_input, where, ": field 'gas-phase species' must be a string");
        const json gas = json::array({{{"species name", value}}});
        out["reactants"] = components(gas, where, "gas-phase species", "coefficient", phase);
      } else if (key == "gas-phase products") {
        out["products"] = components(value, where, "gas-phase products", "yield", phase);
      } else if (key == "condensed phase") {
        if (!value.is_string() || phase_species_.count(value.get<std::string>()) == 0)
          fail(ErrorCategory::invalid_input, where,
               ": field 'condensed phase' names no phase of 'phases' (", value.dump(), ")");
      } else {
        fail(ErrorCategory::invalid_input, where, ": field '", key,
             "' is not a parameter of SURFACE in the OpenAtmos v1 schema (name, gas phase, "
             "gas-phase species, gas-phase products, reaction probability, condensed phase)");
      }
    }
    if (!out.contains("reactants"))
      fail(ErrorCategory::invalid_input, where, ": field 'gas-phase species' is missing");
    // Required by the schema (MICM refuses the reaction without it): a file cut short inside
    // the reaction must not read as an uptake with no products.
    if (!out.contains("products"))
      fail(ErrorCategory::invalid_input, where,
           ": field 'gas-phase products' is missing (required for SURFACE)");
    const std::string gas = out.at("reactants")[0].at("species name").get<std::string>();
    if (species_names_.count(gas) == 0)
      fail(ErrorCategory::invalid_input, where, ": field 'gas-phase species': unknown species '",
           gas, "'");
    const auto properties = surface_properties_.find(gas);
    for (const std::string& key : {molecular_weight_key, diffusion_key}) {
      if (properties == surface_properties_.end() || properties->second.count(key) == 0)
        fail(ErrorCategory::invalid_input, where, ": the SURFACE rate needs the '", key,
             "' of its gas-phase species '", gas,
             "' (in its 'species' entry or its entry in the gas phase)");
      out[key] = properties->second.at(key);
    }
    return out;
  }

  json components(const json& list, const std::string& where, const char* field,
                  const char* foehn_amount_key, const std::set<std::string>* phase) const {
    if (!list.is_array())
      fail(ErrorCategory::invalid_input, where, ": field '", field, "' must be an array");
    json out = json::array();
    for (std::size_t e = 0; e < list.size(); ++e) {
      const std::string item = std::string(field) + "[" + std::to_string(e) + "]";
      const json& entry = list[e];
      // "name" is the schema's key, "species name" its alias (and MICM's older spelling).
      if (!entry.is_object())
        fail(ErrorCategory::invalid_input, where, ": field '", item, "' must be an object");
      if (entry.contains("name") && entry.contains("species name"))
        fail(ErrorCategory::invalid_input, where, ": field '", item,
             "' has both 'name' and 'species name' (one is the other's alias)");
      const char* name_key = entry.contains("name") ? "name" : "species name";
      if (!entry.contains(name_key) || !entry.at(name_key).is_string())
        fail(ErrorCategory::invalid_input, where, ": field '", item,
             ".name' (or 'species name') is missing or not a string");
      const std::string name = entry.at(name_key).get<std::string>();
      if (phase != nullptr && phase->count(name) == 0 && species_names_.count(name) != 0)
        fail(ErrorCategory::invalid_input, where, ": field '", item, "': species '", name,
             "' is not in the reaction's gas phase");
      json c = {{"species name", name}};
      for (const auto& [key, value] : entry.items()) {
        if (key == name_key) continue;
        if (key == "coefficient") {
          const double amount = number(value, where, item + ".coefficient");
          if (amount < 0.0)
            fail(ErrorCategory::invalid_input, where, ": field '", item,
                 ".coefficient' is negative");
          c[foehn_amount_key] = amount;
        } else if (is_user_key(key)) {
          c[key] = value;
        } else {
          fail(ErrorCategory::invalid_input, where, ": field '", item, ".", key,
               "' is not part of a reaction component ('name' or 'species name', 'coefficient')");
        }
      }
      out.push_back(std::move(c));
    }
    return out;
  }

  // The schema requires 'reactants' and 'products' of every gas-phase type but EMISSION and
  // FIRST_ORDER_LOSS: the Foehn-schema parser checks that for every v1 document (lists_required),
  // after the keys' own errors.

  json reaction(const json& item, std::size_t index) const {
    std::string where = source_ + ": reaction " + std::to_string(index);
    if (!item.is_object()) fail(ErrorCategory::invalid_input, where, ": must be an object");
    if (item.contains("name") && item.at("name").is_string())
      where += " ('" + item.at("name").get<std::string>() + "')";
    if (!item.contains("type") || !item.at("type").is_string())
      fail(ErrorCategory::invalid_input, where, ": field 'type' is missing or not a string");
    const std::string type = item.at("type").get<std::string>();
    if (unsupported_v1_types().count(type) != 0)
      fail(ErrorCategory::invalid_input, where, ": reaction type ", type,
           " is part of the OpenAtmos schema but not of Foehn's gas-phase solver (it supports "
           "ARRHENIUS, TROE, TERNARY_CHEMICAL_ACTIVATION, TERNARY_CHEMICAL_ACTIVATION_JPL19, "
           "PHOTOLYSIS, FIRST_ORDER_LOSS, EMISSION, USER_DEFINED, SURFACE, and CAMP's CMAQ_H2O2 "
           "and CMAQ_OH_HNO3)");
    const TypeSpec* spec = nullptr;
    for (const TypeSpec& candidate : type_specs()) {
      if (type == candidate.name) spec = &candidate;
    }
    if (spec == nullptr)
      fail(ErrorCategory::invalid_input, where, ": field 'type': unknown reaction type '", type,
           "'");

    const std::set<std::string>* phase = nullptr;
    if (item.contains("gas phase")) {
      const json& name = item.at("gas phase");
      const auto found =
          name.is_string() ? phase_species_.find(name.get<std::string>()) : phase_species_.end();
      if (found == phase_species_.end())
        fail(ErrorCategory::invalid_input, where,
             ": field 'gas phase' names no phase of 'phases' (", name.dump(), ")");
      phase = &found->second;
    } else {
      fail(ErrorCategory::invalid_input, where, ": field 'gas phase' is missing");
    }
    if (spec->type == ReactionType::surface) return surface_reaction(item, where, phase);

    json out = {{"type", type}};
    std::set<std::string> parameter_keys;
    for (const ParameterSpec& p : spec->parameters) parameter_keys.insert(p.key);
    for (const auto& [key, value] : item.items()) {
      if (key == "type" || key == "gas phase") continue;
      if (key == "name") {
        out["name"] = value;
      } else if (key == "reactants") {
        out["reactants"] = components(value, where, "reactants", "coefficient", phase);
      } else if (key == "products") {
        out["products"] = components(value, where, "products", "yield", phase);
      } else if (key == "Ea" && spec->type == ReactionType::arrhenius) {
        if (item.contains("C"))
          fail(ErrorCategory::invalid_input, where,
               ": fields 'C' and 'Ea' are both given (C = -Ea/k_B)");
        out["C"] = -number(value, where, "Ea") / boltzmann;
      } else if (parameter_keys.count(key) != 0 || is_user_key(key) ||
                 (key == "scaling factor" && has_scaling_factor(spec->type))) {
        out[key] = value;  // ranges checked by the Foehn-schema parser, with the same key names
      } else {
        fail(ErrorCategory::invalid_input, where, ": field '", key, "' is not a parameter of ",
             type, " in the OpenAtmos v1 schema");
      }
    }
    // The schema's defaults where Foehn's own schema requires the value.
    for (const char* key : {"A", "k0_A", "kinf_A", "kint_A"}) {
      if (parameter_keys.count(key) != 0 && !out.contains(key)) out[key] = 1.0;
    }
    // The schema gives photolysis and first-order loss one reactant (what MICM reads).
    if (spec->type == ReactionType::photolysis || spec->type == ReactionType::first_order_loss) {
      const std::size_t count = out.contains("reactants") ? out.at("reactants").size() : 0;
      if (count != 1)
        fail(ErrorCategory::invalid_input, where, ": ", type, " has ", count,
             " reactants; the OpenAtmos v1 schema gives it exactly one");
    }
    // Two photolysis, emission or loss reactions with one name share its per-cell rate here;
    // MICM refuses such a file, so the writer refuses to write one (not the reader's concern).
    return out;
  }

  std::string source_;
  std::set<std::string> species_names_;
  std::map<std::string, std::set<std::string>> phase_species_;
  // Per species: the properties its phase entries give (kept), and the molecular weight and
  // diffusion coefficient from wherever the file gives them (for SURFACE).
  std::map<std::string, std::map<std::string, json>> phase_properties_;
  std::map<std::string, std::map<std::string, json>> surface_properties_;
};

}  // namespace

json foehn_document_from_openatmos_v1(const json& document, const std::string& source) {
  return V1Reader(source).translate(document);
}

namespace {

const std::string kept_prefix = "__openatmos ";

// The v1 keys the reader kept ("__openatmos <key>", of a species or of the document) written back
// as themselves; other user keys as they are.
void add_kept_properties(json& entry, const UserProperties& properties) {
  for (const auto& [key, text] : properties) {
    if (key.rfind(kept_prefix, 0) == 0)
      entry[key.substr(kept_prefix.size())] = json::parse(text);
    else
      entry[key] = json::parse(text);
  }
}

bool has_constant_flag(const json& entry) {
  return entry.contains("is third body") || entry.contains("constant concentration [mol m-3]") ||
         entry.contains("constant mixing ratio [mol mol-1]");
}

// The molecular weight and diffusion coefficient of each species a SURFACE reaction takes up,
// from the reactions (where Foehn keeps them): v1 gives them to the species, not the reaction.
std::map<std::string, std::map<std::string, double>> surface_species_properties(
    const Mechanism& mechanism) {
  std::map<std::string, std::map<std::string, double>> properties;
  for (const Reaction& r : mechanism.reactions) {
    if (r.type != ReactionType::surface) continue;
    const std::string& gas =
        mechanism.species[static_cast<std::size_t>(r.reactants.at(0).species)].name;
    for (const auto& [key, slot] :
         {std::pair{molecular_weight_key, 3}, std::pair{diffusion_key, 2}}) {
      const double value = r.parameters[static_cast<std::size_t>(slot)];
      const auto [it, added] = properties[gas].emplace(key, value);
      if (!added && it->second != value)
        fail(ErrorCategory::invalid_input, "mechanism '", mechanism.name,
             "': SURFACE reactions of '", gas, "' give it two values of '", key, "' (", it->second,
             " and ", value, "); the OpenAtmos v1 schema keeps one per species");
    }
  }
  return properties;
}

// The species (with their kept and surface properties) and the gas phase that lists them.
void add_species_and_phase(json& document, const Mechanism& mechanism) {
  const auto surface_properties = surface_species_properties(mechanism);
  json species = json::array();
  json gas = {{"name", "gas"}, {"species", json::array()}};
  for (const Species& s : mechanism.species) {
    json entry = {{"name", s.name}, {"__absolute tolerance", s.absolute_tolerance}};
    add_kept_properties(entry, s.user_properties);
    put_constant_source(entry, s, "");
    if (s.constant && !has_constant_flag(entry)) {
      // A species held constant: v1 says how MICM is to know its value. M is the air.
      if (s.name != "M")
        fail(ErrorCategory::invalid_input, "mechanism '", mechanism.name, "': species '", s.name,
             "' is held constant, which the OpenAtmos v1 schema expresses only with its value: "
             "give it \"__openatmos constant concentration [mol m-3]\" or \"__openatmos constant "
             "mixing ratio [mol mol-1]\" (or \"__openatmos is third body\": true for the air)");
      entry["is third body"] = true;
    }
    const auto surface = surface_properties.find(s.name);
    if (surface != surface_properties.end())
      for (const auto& [key, value] : surface->second) entry[key] = value;
    // The diffusion coefficient goes in the gas phase's entry, where MUSICA's files keep it.
    json member = s.name;
    if (entry.contains(diffusion_key)) {
      member = {{"name", s.name}, {diffusion_key, entry.at(diffusion_key)}};
      entry.erase(diffusion_key);
    }
    species.push_back(std::move(entry));
    gas["species"].push_back(std::move(member));
  }
  document["species"] = std::move(species);
  document["phases"] = json::array({gas});
}

// Every reaction in the schema's keys; names of external rates must be unique per type.
json reactions_document(const Mechanism& mechanism) {
  json reactions = json::array();
  std::set<std::string> labels;  // "TYPE.name" of the external types: MICM needs them unique
  for (const Reaction& r : mechanism.reactions) {
    const TypeSpec& spec = spec_of(r.type);
    json item = {{"type", spec.name}, {"gas phase", "gas"}};
    if (!r.name.empty()) item["name"] = r.name;
    if (is_external(r.type) && !labels.insert(std::string(spec.name) + "." + r.name).second)
      fail(ErrorCategory::invalid_input, "mechanism '", mechanism.name, "': two ", spec.name,
           " reactions are named '", r.name,
           "'; in the OpenAtmos v1 schema the name labels the rate and MICM needs it unique");
    if ((r.type == ReactionType::photolysis || r.type == ReactionType::first_order_loss) &&
        r.reactants.size() != 1)
      fail(ErrorCategory::invalid_input, "mechanism '", mechanism.name, "': ", spec.name, " '",
           r.name, "' has ", r.reactants.size(),
           " reactants; the OpenAtmos v1 schema gives it exactly one");
    auto components = [&](const std::vector<SpeciesAmount>& list,
                          const std::vector<UserProperties>& properties) {
      json entries = json::array();
      for (std::size_t i = 0; i < list.size(); ++i) {
        json entry = {
            {"species name", mechanism.species[static_cast<std::size_t>(list[i].species)].name},
            {"coefficient", list[i].amount}};
        if (i < properties.size()) add_user_properties(entry, properties[i]);
        entries.push_back(std::move(entry));
      }
      return entries;
    };
    if (r.type == ReactionType::surface) {  // its own keys; D and M_w are the species'
      item["gas-phase species"] =
          mechanism.species[static_cast<std::size_t>(r.reactants.at(0).species)].name;
      item["gas-phase products"] = components(r.products, r.product_user_properties);
      item["reaction probability"] = r.parameters[1];
      add_user_properties(item, r.user_properties);
      reactions.push_back(std::move(item));
      continue;
    }
    // The schema has no reactants for EMISSION and no products for FIRST_ORDER_LOSS.
    if (r.type != ReactionType::emission || !r.reactants.empty())
      item["reactants"] = components(r.reactants, r.reactant_user_properties);
    if (r.type != ReactionType::first_order_loss || !r.products.empty())
      item["products"] = components(r.products, r.product_user_properties);
    for (const ParameterSpec& p : spec.parameters)
      item[p.key] = r.parameters[static_cast<std::size_t>(p.slot)];
    if (has_scaling_factor(r.type)) item["scaling factor"] = r.scaling_factor;
    add_user_properties(item, r.user_properties);
    reactions.push_back(std::move(item));
  }
  return reactions;
}

}  // namespace

json openatmos_v1_document(const Mechanism& given) {
  // MICM reads every v1 file in mol m^-3 and has no unit key: convert, do not annotate.
  const Mechanism mechanism = in_concentration_unit(given, ConcentrationUnit::mol_per_m3);
  json document = json::object();
  bool jpl19 = false;
  for (const Reaction& r : mechanism.reactions)
    jpl19 = jpl19 || r.type == ReactionType::ternary_chemical_activation_jpl19;
  // The version the file needs: the schema's JPL19 type came with 1.4, emissions with 1.3.
  document["version"] = jpl19 ? "1.4.0" : "1.0.0";
  document["name"] = mechanism.name;
  add_kept_properties(document, mechanism.user_properties);  // "emissions" among them
  if (document.contains("emissions") && !jpl19) document["version"] = "1.3.0";  // emissions: 1.3
  add_species_and_phase(document, mechanism);
  document["reactions"] = reactions_document(mechanism);
  return document;
}

}  // namespace foehn::chemistry::formats
