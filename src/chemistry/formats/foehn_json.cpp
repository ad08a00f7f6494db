// Foehn's JSON schema (docs/chemistry.md): document -> Mechanism, and the writer. Every other
// JSON-shaped format is first brought to this schema (json_documents.hpp).

#include <cmath>
#include <fstream>
#include <limits>
#include <set>
#include <sstream>
#include <unordered_map>

#include <nlohmann/json.hpp>

#include "foehn/chemistry/mechanism.hpp"
#include "foehn/chemistry/rate_constants.hpp"
#include "foehn/runtime/error.hpp"
#include "json_documents.hpp"

namespace foehn::chemistry {
namespace formats {

const std::vector<TypeSpec>& type_specs() {
  // TROE's and TERNARY_CHEMICAL_ACTIVATION's: low- and high-pressure limits, broadening.
  const std::vector<ParameterSpec> falloff_parameters = {
      {"k0_A", 0, required, true}, {"k0_B", 1, 0.0, false},
      {"k0_C", 2, 0.0, false},     {"kinf_A", 3, required, true, true},
      {"kinf_B", 4, 0.0, false},   {"kinf_C", 5, 0.0, false},
      {"Fc", 6, 0.6, true},        {"N", 7, 1.0, false, false, true}};
  static const std::vector<TypeSpec> specs = {
      {ReactionType::arrhenius,
       "ARRHENIUS",
       {{"A", 0, required, true},
        {"B", 1, 0.0, false},
        {"C", 2, 0.0, false},
        {"D", 3, 300.0, true, true},
        {"E", 4, 0.0, false}}},
      {ReactionType::troe, "TROE", falloff_parameters},
      {ReactionType::photolysis, "PHOTOLYSIS", {}},
      {ReactionType::first_order_loss, "FIRST_ORDER_LOSS", {}},
      {ReactionType::emission, "EMISSION", {}},
      {ReactionType::cmaq_h2o2,
       "CMAQ_H2O2",
       {{"k1_A", 0, required, true},
        {"k1_C", 1, 0.0, false},
        {"k2_A", 2, required, true},
        {"k2_C", 3, 0.0, false}}},
      {ReactionType::cmaq_oh_hno3,
       "CMAQ_OH_HNO3",
       {{"k0_A", 0, required, true},
        {"k0_C", 1, 0.0, false},
        {"k2_A", 2, required, true, true},
        {"k2_C", 3, 0.0, false},
        {"k3_A", 4, required, true},
        {"k3_C", 5, 0.0, false}}},
      {ReactionType::user_defined, "USER_DEFINED", {}},
      {ReactionType::surface,
       "SURFACE",
       {{"reaction probability", 1, 1.0, true},
        {"diffusion coefficient [m2 s-1]", 2, required, true, true},
        {"molecular weight [kg mol-1]", 3, required, true, true}}},
      {ReactionType::ternary_chemical_activation, "TERNARY_CHEMICAL_ACTIVATION",
       falloff_parameters},
      {ReactionType::ternary_chemical_activation_jpl19,
       "TERNARY_CHEMICAL_ACTIVATION_JPL19",
       {{"k0_A", 0, required, true},
        {"k0_B", 1, 0.0, false},
        {"k0_C", 2, 0.0, false},
        {"k0_D", 3, 298.0, true, true},
        {"kinf_A", 4, required, true, true},
        {"kinf_B", 5, 0.0, false},
        {"kinf_C", 6, 0.0, false},
        {"kinf_D", 7, 298.0, true, true},
        {"kint_A", 8, required, true},
        {"kint_B", 9, 0.0, false},
        {"kint_C", 10, 0.0, false},
        {"kint_D", 11, 298.0, true, true},
        {"Fc", 12, 0.6, true},
        {"N", 13, 1.0, false, false, true}}},
  };
  return specs;
}

const TypeSpec& spec_of(ReactionType type) {
  for (const TypeSpec& spec : type_specs()) {
    if (spec.type == type) return spec;
  }
  fail(ErrorCategory::internal, "chemistry: unknown reaction type ", static_cast<int>(type));
}

bool is_external(ReactionType type) {
  return has_scaling_factor(type) || type == ReactionType::surface;
}

bool has_scaling_factor(ReactionType type) {
  return type == ReactionType::photolysis || type == ReactionType::first_order_loss ||
         type == ReactionType::emission || type == ReactionType::user_defined;
}

std::vector<std::string> external_rate_names_of(const Reaction& reaction) {
  if (reaction.type == ReactionType::surface)
    return {reaction.name + std::string(surface_radius_suffix),
            reaction.name + std::string(surface_number_suffix)};
  return {reaction.name};
}

namespace {

using nlohmann::json;

// Parses one reaction; `where` prefixes every message ("file: reaction 3 ('R3')").
class ReactionParser {
 public:
  // species_by_name: every species' index, so that a lookup does not scan the list (a
  // 60 000-species file took 4.4 s to read with linear scans, 0.04 s with the map).
  ReactionParser(Mechanism& mechanism, std::string source,
                 const std::unordered_map<std::string, int>& species_by_name, bool lists_required)
      : m_(mechanism),
        source_(std::move(source)),
        species_by_name_(species_by_name),
        lists_required_(lists_required) {}

  void parse(const json& item, std::size_t index) {
    where_ = source_ + ": reaction " + std::to_string(index);
    if (!item.is_object()) fail(ErrorCategory::invalid_input, where_, ": must be a JSON object");
    Reaction reaction;
    if (item.contains("name")) reaction.name = string_field(item, "name");
    if (!reaction.name.empty()) where_ += " ('" + reaction.name + "')";
    if (!item.contains("type"))
      fail(ErrorCategory::invalid_input, where_, ": field 'type' is missing");
    const std::string type_name = string_field(item, "type");
    const TypeSpec* spec = nullptr;
    for (const TypeSpec& candidate : type_specs()) {
      if (type_name == candidate.name) spec = &candidate;
    }
    if (spec == nullptr) {
      fail(ErrorCategory::invalid_input, where_, ": field 'type': unknown reaction type '",
           type_name,
           "' (ARRHENIUS, TROE, PHOTOLYSIS, FIRST_ORDER_LOSS, EMISSION, USER_DEFINED, SURFACE, "
           "TERNARY_CHEMICAL_ACTIVATION, TERNARY_CHEMICAL_ACTIVATION_JPL19, CMAQ_H2O2, "
           "CMAQ_OH_HNO3)");
    }
    reaction.type = spec->type;
    reaction.reactants =
        amounts(item, "reactants", "coefficient", reaction.reactant_user_properties);
    reaction.products = amounts(item, "products", "yield", reaction.product_user_properties);
    where_ += " [" + m_.equation(reaction) + "]";

    std::set<std::string> known = {"name", "type", "reactants", "products"};
    for (const ParameterSpec& p : spec->parameters) {
      known.insert(p.key);
      reaction.parameters[static_cast<std::size_t>(p.slot)] = parameter(item, p);
    }
    if (has_scaling_factor(reaction.type)) {
      known.insert("scaling factor");
      if (item.contains("scaling factor"))
        reaction.scaling_factor = number(item.at("scaling factor"), "scaling factor");
      if (reaction.scaling_factor < 0.0)
        fail(ErrorCategory::invalid_input, where_, ": field 'scaling factor' is negative (",
             reaction.scaling_factor, ")");
    }
    for (const auto& [key, value] : item.items()) {
      if (known.count(key) == 0 && !is_user_key(key)) {
        fail(ErrorCategory::invalid_input, where_, ": field '", key, "' is not a parameter of ",
             spec->name);
      }
    }
    reaction.user_properties = user_properties_of(item);
    require_lists(item, reaction.type, *spec);
    check_shape(reaction);
    if (is_external(reaction.type)) {
      if (reaction.name.empty()) {
        fail(ErrorCategory::invalid_input, where_, ": field 'name' is required for ", spec->name,
             " (it names the per-cell rate)");
      }
      reaction.external_rate = external_slot(reaction);
    }
    m_.reactions.push_back(std::move(reaction));
  }

 private:
  void require_lists(const json& item, ReactionType type, const TypeSpec& spec) const {
    // As in the OpenAtmos v1 schema: the lists are required (EMISSION has no reactants,
    // FIRST_ORDER_LOSS no products), so that a YAML file cut short inside a reaction is refused
    // instead of read as a reaction without its products. (JSON cut short does not parse: its
    // documents may leave 'products' out for a pure loss, as they always could.)
    if (lists_required_ && type != ReactionType::emission && !item.contains("reactants"))
      fail(ErrorCategory::invalid_input, where_, ": field 'reactants' is missing (required for ",
           spec.name, ")");
    if (lists_required_ && type != ReactionType::first_order_loss && !item.contains("products"))
      fail(ErrorCategory::invalid_input, where_, ": field 'products' is missing (required for ",
           spec.name, "; a reaction with no products has \"products\": [])");
  }

  std::string string_field(const json& item, const char* key) const {
    const json& value = item.at(key);
    if (!value.is_string())
      fail(ErrorCategory::invalid_input, where_, ": field '", key, "' must be a string");
    return value.get<std::string>();
  }

  double number(const json& value, const std::string& field) const {
    if (!value.is_number())
      fail(ErrorCategory::invalid_input, where_, ": field '", field, "' must be a number");
    const double x = value.get<double>();
    if (!std::isfinite(x))
      fail(ErrorCategory::invalid_input, where_, ": field '", field, "' is not finite");
    return x;
  }

  double parameter(const json& item, const ParameterSpec& p) const {
    if (!item.contains(p.key)) {
      if (std::isnan(p.default_value)) {
        fail(ErrorCategory::invalid_input, where_, ": field '", p.key, "' is missing");
      }
      return p.default_value;
    }
    const double x = number(item.at(p.key), p.key);
    if (p.non_negative && x < 0.0)
      fail(ErrorCategory::invalid_input, where_, ": field '", p.key, "' is negative (", x, ")");
    if (p.nonzero && x == 0.0)
      fail(ErrorCategory::invalid_input, where_, ": field '", p.key,
           "' is 0; the rate constant divides by it");
    if (p.positive && !(x > 0.0))
      fail(ErrorCategory::invalid_input, where_, ": field '", p.key, "' is ", x,
           "; it must be positive (the rate constant divides by it)");
    return x;
  }

  std::vector<SpeciesAmount> amounts(const json& item, const char* list, const char* amount_key,
                                     std::vector<UserProperties>& entry_properties) const {
    std::vector<SpeciesAmount> result;
    if (!item.contains(list)) return result;
    const json& entries = item.at(list);
    if (!entries.is_array())
      fail(ErrorCategory::invalid_input, where_, ": field '", list, "' must be an array");
    for (std::size_t e = 0; e < entries.size(); ++e) {
      const std::string field = std::string(list) + "[" + std::to_string(e) + "]";
      const json& entry = entries[e];
      if (!entry.is_object() || !entry.contains("species name") ||
          !entry.at("species name").is_string()) {
        fail(ErrorCategory::invalid_input, where_, ": field '", field,
             ".species name' is missing or not a string");
      }
      const std::string species = entry.at("species name").get<std::string>();
      // A key this schema does not have would otherwise be dropped: a product's "coefficient"
      // (the OpenAtmos key) read as yield 1 was a silent wrong answer.
      for (const auto& [key, value] : entry.items()) {
        if (key != "species name" && key != amount_key && !is_user_key(key)) {
          fail(ErrorCategory::invalid_input, where_, ": field '", field, ".", key,
               "' is not part of a ", list == std::string("reactants") ? "reactant" : "product",
               " (expected 'species name' and '", amount_key, "')");
        }
      }
      SpeciesAmount amount;
      UserProperties properties = user_properties_of(entry);
      if (!properties.empty()) {
        entry_properties.resize(e);
        entry_properties.push_back(std::move(properties));
      }
      const auto found = species_by_name_.find(species);
      amount.species = found == species_by_name_.end() ? -1 : found->second;
      if (amount.species < 0) {
        fail(ErrorCategory::invalid_input, where_, ": field '", field, "': unknown species '",
             species, "'");
      }
      if (entry.contains(amount_key))
        amount.amount = number(entry.at(amount_key), field + "." + amount_key);
      if (amount.amount < 0.0) {
        fail(ErrorCategory::invalid_input, where_, ": field '", field, ".", amount_key,
             "' is negative");
      }
      // Mass action needs integer reactant orders: the Jacobian relies on repeated factors.
      if (std::string(list) == "reactants" &&
          (amount.amount < 1.0 || amount.amount > max_reactant_coefficient ||
           amount.amount != std::floor(amount.amount))) {
        fail(ErrorCategory::invalid_input, where_, ": field '", field, ".coefficient' is ",
             amount.amount, "; it must be an integer from 1 to ", max_reactant_coefficient);
      }
      result.push_back(amount);
    }
    if (!entry_properties.empty()) entry_properties.resize(result.size());
    return result;
  }

  // The reaction's first per-cell slot: its names' existing slots when an earlier reaction has
  // the same names (they share the rate), else new slots at the end, next to each other.
  int external_slot(const Reaction& reaction) {
    const std::vector<std::string> names = external_rate_names_of(reaction);
    const auto found = external_rate_by_name_.find(names.front());
    if (found == external_rate_by_name_.end()) {
      const int first = static_cast<int>(m_.external_rate_names.size());
      for (std::size_t i = 0; i < names.size(); ++i) {
        if (!external_rate_by_name_.emplace(names[i], first + static_cast<int>(i)).second)
          fail(ErrorCategory::invalid_input, where_, ": its per-cell rate '", names[i],
               "' is already the rate of another reaction");
        m_.external_rate_names.push_back(names[i]);
      }
      return first;
    }
    for (std::size_t i = 1; i < names.size(); ++i) {
      const auto next = external_rate_by_name_.find(names[i]);
      if (next == external_rate_by_name_.end() ||
          next->second != found->second + static_cast<int>(i))
        fail(ErrorCategory::invalid_input, where_, ": its per-cell rates '", names.front(),
             "' and '", names[i], "' must belong to SURFACE reactions of this name only");
    }
    return found->second;
  }

  void check_shape(const Reaction& r) const {
    if (r.type == ReactionType::surface) {
      if (r.reactants.size() != 1 || r.reactants[0].amount != 1.0)
        fail(ErrorCategory::invalid_input, where_,
             ": field 'reactants' must hold one species with coefficient 1 for SURFACE (the gas "
             "taken up)");
      if (r.parameters[1] > 1.0)
        fail(ErrorCategory::invalid_input, where_, ": field 'reaction probability' is ",
             r.parameters[1], "; a probability is at most 1");
    }
    if (r.type == ReactionType::emission && !r.reactants.empty()) {
      fail(ErrorCategory::invalid_input, where_, ": field 'reactants' must be empty for EMISSION");
    }
    if (r.type == ReactionType::first_order_loss &&
        (r.reactants.size() != 1 || r.reactants[0].amount != 1.0)) {
      fail(ErrorCategory::invalid_input, where_,
           ": field 'reactants' must hold one species with coefficient 1 for FIRST_ORDER_LOSS");
    }
    if (r.type != ReactionType::emission && r.reactants.empty()) {
      fail(ErrorCategory::invalid_input, where_, ": field 'reactants' is empty");
    }
  }

  Mechanism& m_;
  std::string source_;
  std::string where_;
  const std::unordered_map<std::string, int>& species_by_name_;
  std::unordered_map<std::string, int> external_rate_by_name_;
  bool lists_required_;
};

// Top-level, species: keys outside the schema are refused like reaction keys are.
void check_keys(const json& object, std::initializer_list<const char*> known,
                const std::string& where) {
  for (const auto& [key, value] : object.items()) {
    if (is_user_key(key)) continue;
    bool found = false;
    for (const char* k : known) found = found || key == k;
    if (!found) fail(ErrorCategory::invalid_input, where, ": field '", key, "' is not known");
  }
}

// The OpenAtmos v1 keys that give a constant species its value, as the v1 reader keeps them (and
// Foehn's writers write them back): MICM computes the species from them, so Foehn does too.
void constant_source(const json& entry, Species& s, const std::string& where) {
  static const std::pair<const char*, ConstantSource> keys[] = {
      {"__openatmos constant concentration [mol m-3]", ConstantSource::concentration},
      {"__openatmos constant mixing ratio [mol mol-1]", ConstantSource::mixing_ratio},
      {"__openatmos is third body", ConstantSource::third_body}};
  const char* given = nullptr;
  for (const auto& [key, source] : keys) {
    if (!entry.contains(key)) continue;
    const json& value = entry.at(key);
    if (source == ConstantSource::third_body) {
      if (!value.is_boolean())
        fail(ErrorCategory::invalid_input, where, ": field '", key, "' must be true or false");
      if (!value.get<bool>()) continue;
    } else {
      if (!value.is_number() || !std::isfinite(value.get<double>()) || value.get<double>() < 0.0)
        fail(ErrorCategory::invalid_input, where, ": field '", key,
             "' must be a finite number >= 0");
      s.constant_amount = value.get<double>();
    }
    // MICM keeps one parameterization per species: two are a contradiction, not a choice.
    if (given != nullptr)
      fail(ErrorCategory::invalid_input, where, ": fields '", given, "' and '", key,
           "' both give the constant species its value; give one");
    given = key;
    s.constant_source = source;
  }
  if (given != nullptr && !s.constant)
    fail(ErrorCategory::invalid_input, where, ": field '", given,
         "' gives a constant value, but 'constant' is false");
}

ConcentrationUnit unit_from_name(const json& value, const std::string& where) {
  for (ConcentrationUnit unit :
       {ConcentrationUnit::molecule_per_cm3, ConcentrationUnit::mol_per_m3}) {
    if (value.is_string() && value.get<std::string>() == concentration_unit_name(unit)) return unit;
  }
  fail(ErrorCategory::invalid_input, where,
       ": field 'concentration unit' must be \"molecule cm-3\" or \"mol m-3\"");
}

}  // namespace

UserProperties user_properties_of(const json& object) {
  UserProperties properties;
  for (const auto& [key, value] : object.items()) {
    if (is_user_key(key))
      properties.emplace_back(key, value.dump(-1, ' ', false, json::error_handler_t::replace));
  }
  return properties;
}

void add_user_properties(json& object, const UserProperties& properties) {
  for (const auto& [key, text] : properties) object[key] = json::parse(text);
}

void put_constant_source(json& entry, const Species& species, const std::string& prefix) {
  if (!species.constant || species.constant_source == ConstantSource::user) return;
  const std::string concentration = prefix + "constant concentration [mol m-3]";
  const std::string mixing_ratio = prefix + "constant mixing ratio [mol mol-1]";
  const std::string third_body = prefix + "is third body";
  for (const std::string& key : {concentration, mixing_ratio, third_body}) entry.erase(key);
  if (species.constant_source == ConstantSource::third_body)
    entry[third_body] = true;
  else
    entry[species.constant_source == ConstantSource::concentration ? concentration : mixing_ratio] =
        species.constant_amount;
}

}  // namespace formats

using formats::has_scaling_factor;
using formats::is_external;
using formats::ParameterSpec;
using formats::spec_of;
using formats::TypeSpec;
using nlohmann::json;

std::string_view reaction_type_name(ReactionType type) {
  return spec_of(type).name;
}

std::string_view concentration_unit_name(ConcentrationUnit unit) {
  return unit == ConcentrationUnit::mol_per_m3 ? "mol m-3" : "molecule cm-3";
}

double file_constant_concentration(const Species& species, ConcentrationUnit unit,
                                   double temperature, double pressure) {
  if (!species.constant || species.constant_source == ConstantSource::user)
    return std::numeric_limits<double>::quiet_NaN();
  // mol m^-3 -> the mechanism's unit (air_density_scale_of: molecule cm^-3 -> unit).
  const double from_si = air_density_scale_of(static_cast<int>(unit)) /
                         air_density_scale_of(static_cast<int>(ConcentrationUnit::mol_per_m3));
  if (species.constant_source == ConstantSource::concentration)
    return species.constant_amount * from_si;
  // P / (k_B T) molecule m^-3 / N_A = P / (R T) mol m^-3, MICM's air density.
  const double air =
      air_number_density(temperature, pressure) * air_density_scale_of(static_cast<int>(unit));
  return species.constant_source == ConstantSource::third_body ? air
                                                               : species.constant_amount * air;
}

int Mechanism::species_index(std::string_view species_name) const {
  for (std::size_t i = 0; i < species.size(); ++i) {
    if (species[i].name == species_name) return static_cast<int>(i);
  }
  return -1;
}

int Mechanism::external_rate_index(std::string_view rate_name) const {
  for (std::size_t i = 0; i < external_rate_names.size(); ++i) {
    if (external_rate_names[i] == rate_name) return static_cast<int>(i);
  }
  return -1;
}

std::string Mechanism::equation(const Reaction& reaction) const {
  std::ostringstream out;
  auto side = [&](const std::vector<SpeciesAmount>& list) {
    if (list.empty()) out << "(nothing)";
    for (std::size_t i = 0; i < list.size(); ++i) {
      if (i > 0) out << " + ";
      if (list[i].amount != 1.0) out << list[i].amount << " ";
      out << species[static_cast<std::size_t>(list[i].species)].name;
    }
  };
  side(reaction.reactants);
  out << " -> ";
  side(reaction.products);
  return out.str();
}

Mechanism formats::mechanism_from_foehn_document(const json& document, const std::string& source,
                                                 bool lists_required) {
  if (!document.is_object())
    fail(ErrorCategory::invalid_input, source, ": top level must be a JSON object");
  check_keys(document, {"name", "description", "concentration unit", "species", "reactions"},
             source);
  Mechanism mechanism;
  if (document.contains("name") && document.at("name").is_string())
    mechanism.name = document.at("name").get<std::string>();
  if (document.contains("concentration unit"))
    mechanism.concentration_unit = unit_from_name(document.at("concentration unit"), source);
  mechanism.user_properties = user_properties_of(document);
  if (!document.contains("species") || !document.at("species").is_array()) {
    fail(ErrorCategory::invalid_input, source, ": field 'species' is missing or not an array");
  }
  const json& species = document.at("species");
  std::unordered_map<std::string, int> species_by_name;
  for (std::size_t i = 0; i < species.size(); ++i) {
    const json& entry = species[i];
    const std::string where = source + ": species " + std::to_string(i);
    if (!entry.is_object() || !entry.contains("name") || !entry.at("name").is_string()) {
      fail(ErrorCategory::invalid_input, where, ": field 'name' is missing or not a string");
    }
    Species s;
    s.name = entry.at("name").get<std::string>();
    check_keys(entry, {"name", "absolute tolerance", "constant"}, where + " ('" + s.name + "')");
    s.user_properties = user_properties_of(entry);
    if (!species_by_name.emplace(s.name, static_cast<int>(i)).second)
      fail(ErrorCategory::invalid_input, where, ": duplicate species '", s.name, "'");
    if (entry.contains("absolute tolerance")) {
      const json& atol = entry.at("absolute tolerance");
      if (!atol.is_number() || !std::isfinite(atol.get<double>()) || atol.get<double>() <= 0.0) {
        fail(ErrorCategory::invalid_input, where, " ('", s.name,
             "'): field 'absolute tolerance' must be a positive number");
      }
      s.absolute_tolerance = atol.get<double>();
    }
    if (entry.contains("constant")) {
      if (!entry.at("constant").is_boolean())
        fail(ErrorCategory::invalid_input, where, " ('", s.name,
             "'): field 'constant' must be true or false");
      s.constant = entry.at("constant").get<bool>();
    }
    constant_source(entry, s, where + " ('" + s.name + "')");
    mechanism.species.push_back(std::move(s));
  }
  if (!document.contains("reactions") || !document.at("reactions").is_array()) {
    fail(ErrorCategory::invalid_input, source, ": field 'reactions' is missing or not an array");
  }
  ReactionParser parser(mechanism, source, species_by_name, lists_required);
  const json& reactions = document.at("reactions");
  for (std::size_t r = 0; r < reactions.size(); ++r) parser.parse(reactions[r], r);
  return mechanism;
}

std::string mechanism_to_json(const Mechanism& mechanism) {
  json document;
  document["name"] = mechanism.name;
  document["concentration unit"] = concentration_unit_name(mechanism.concentration_unit);
  formats::add_user_properties(document, mechanism.user_properties);
  document["species"] = json::array();
  for (const Species& s : mechanism.species) {
    json entry = {
        {"name", s.name}, {"absolute tolerance", s.absolute_tolerance}, {"constant", s.constant}};
    formats::add_user_properties(entry, s.user_properties);
    formats::put_constant_source(entry, s, "__openatmos ");
    document["species"].push_back(std::move(entry));
  }
  document["reactions"] = json::array();
  for (const Reaction& r : mechanism.reactions) {
    const TypeSpec& spec = spec_of(r.type);
    json item;
    item["type"] = spec.name;
    if (!r.name.empty()) item["name"] = r.name;
    auto amounts = [&](const std::vector<SpeciesAmount>& list,
                       const std::vector<UserProperties>& properties, const char* amount_key) {
      json entries = json::array();
      for (std::size_t i = 0; i < list.size(); ++i) {
        json entry = {
            {"species name", mechanism.species[static_cast<std::size_t>(list[i].species)].name},
            {amount_key, list[i].amount}};
        if (i < properties.size()) formats::add_user_properties(entry, properties[i]);
        entries.push_back(std::move(entry));
      }
      return entries;
    };
    item["reactants"] = amounts(r.reactants, r.reactant_user_properties, "coefficient");
    item["products"] = amounts(r.products, r.product_user_properties, "yield");
    for (const ParameterSpec& p : spec.parameters)
      item[p.key] = r.parameters[static_cast<std::size_t>(p.slot)];
    if (has_scaling_factor(r.type)) item["scaling factor"] = r.scaling_factor;
    formats::add_user_properties(item, r.user_properties);
    document["reactions"].push_back(std::move(item));
  }
  // A mechanism built in code may hold names that are not UTF-8: written with U+FFFD rather
  // than an exception from inside the writer (the readers refuse such names).
  return document.dump(2, ' ', false, json::error_handler_t::replace);
}

}  // namespace foehn::chemistry
