// What a reaction must give and what it may leave to the schema's defaults, per reaction type, as
// MICM's OpenAtmos v1 parser has it (type, gas phase, reactants and products required, EMISSION
// without reactants, FIRST_ORDER_LOSS without products, SURFACE with its gas-phase species and
// products; every rate parameter optional with MICM's default), and Foehn's own schema (the same
// lists required, A and the other pre-exponential factors too). A file cut short at a line
// boundary is refused or reads as the whole file: never as a different mechanism.

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "expect_rejected.hpp"
#include "foehn/chemistry/mechanism.hpp"
#include "foehn/runtime/error.hpp"

namespace fc = foehn::chemistry;
using foehn::testing::expect_rejected;
using nlohmann::json;

namespace {

// One complete reaction per gas-phase type of the v1 schema that Foehn reads, every key given.
json complete_v1_reactions() {
  return json::parse(R"([
    {"type": "ARRHENIUS", "gas phase": "gas", "name": "arr",
     "reactants": [{"species name": "A"}, {"species name": "B"}],
     "products": [{"species name": "C", "coefficient": 2}],
     "A": 2.0, "B": 0.5, "C": -100.0, "D": 250.0, "E": 1e-6},
    {"type": "TROE", "gas phase": "gas", "name": "troe",
     "reactants": [{"species name": "A"}, {"species name": "B"}],
     "products": [{"species name": "C", "coefficient": 2}],
     "k0_A": 2.0, "k0_B": 1.0, "k0_C": 10.0, "kinf_A": 3.0, "kinf_B": 2.0, "kinf_C": 20.0,
     "Fc": 0.5, "N": 2.0},
    {"type": "TERNARY_CHEMICAL_ACTIVATION", "gas phase": "gas", "name": "tca",
     "reactants": [{"species name": "A"}, {"species name": "B"}],
     "products": [{"species name": "C", "coefficient": 2}],
     "k0_A": 2.0, "k0_B": 1.0, "k0_C": 10.0, "kinf_A": 3.0, "kinf_B": 2.0, "kinf_C": 20.0,
     "Fc": 0.5, "N": 2.0},
    {"type": "TERNARY_CHEMICAL_ACTIVATION_JPL19", "gas phase": "gas", "name": "jpl",
     "reactants": [{"species name": "A"}, {"species name": "B"}],
     "products": [{"species name": "C", "coefficient": 2}],
     "k0_A": 2.0, "k0_B": 1.0, "k0_C": 10.0, "k0_D": 290.0, "kinf_A": 3.0, "kinf_B": 2.0,
     "kinf_C": 20.0, "kinf_D": 280.0, "kint_A": 4.0, "kint_B": 3.0, "kint_C": 30.0,
     "kint_D": 270.0, "Fc": 0.5, "N": 2.0},
    {"type": "PHOTOLYSIS", "gas phase": "gas", "name": "j",
     "reactants": [{"species name": "A"}], "products": [{"species name": "C", "coefficient": 2}],
     "scaling factor": 0.5},
    {"type": "USER_DEFINED", "gas phase": "gas", "name": "u",
     "reactants": [{"species name": "A"}, {"species name": "B"}],
     "products": [{"species name": "C", "coefficient": 2}], "scaling factor": 0.5},
    {"type": "EMISSION", "gas phase": "gas", "name": "e",
     "products": [{"species name": "C", "coefficient": 2}], "scaling factor": 0.5},
    {"type": "FIRST_ORDER_LOSS", "gas phase": "gas", "name": "l",
     "reactants": [{"species name": "B"}], "scaling factor": 0.5},
    {"type": "SURFACE", "gas phase": "gas", "name": "s", "gas-phase species": "A",
     "gas-phase products": [{"species name": "C", "coefficient": 2}],
     "reaction probability": 0.5}
  ])");
}

// Keys whose absence is an error, per type ("name": Foehn needs it for the per-cell rate).
std::map<std::string, std::vector<std::string>> required_v1_keys() {
  const std::vector<std::string> lists = {"type", "gas phase", "reactants", "products"};
  std::vector<std::string> external = lists;
  external.push_back("name");
  return {{"ARRHENIUS", lists},
          {"TROE", lists},
          {"TERNARY_CHEMICAL_ACTIVATION", lists},
          {"TERNARY_CHEMICAL_ACTIVATION_JPL19", lists},
          {"PHOTOLYSIS", external},
          {"USER_DEFINED", external},
          {"EMISSION", {"type", "gas phase", "products", "name"}},
          {"FIRST_ORDER_LOSS", {"type", "gas phase", "reactants", "name"}},
          {"SURFACE", {"type", "gas phase", "gas-phase species", "gas-phase products", "name"}}};
}

// MICM's defaults for the optional keys (mechanism_configuration's v1 types, written out here):
// a reaction without the key reads as one with this value.
std::map<std::string, double> micm_defaults(const std::string& type) {
  if (type == "ARRHENIUS") return {{"A", 1.0}, {"B", 0.0}, {"C", 0.0}, {"D", 300.0}, {"E", 0.0}};
  if (type == "TROE" || type == "TERNARY_CHEMICAL_ACTIVATION")
    return {{"k0_A", 1.0},   {"k0_B", 0.0},   {"k0_C", 0.0}, {"kinf_A", 1.0},
            {"kinf_B", 0.0}, {"kinf_C", 0.0}, {"Fc", 0.6},   {"N", 1.0}};
  if (type == "TERNARY_CHEMICAL_ACTIVATION_JPL19")
    return {{"k0_A", 1.0},   {"k0_B", 0.0},     {"k0_C", 0.0},     {"k0_D", 298.0}, {"kinf_A", 1.0},
            {"kinf_B", 0.0}, {"kinf_C", 0.0},   {"kinf_D", 298.0}, {"kint_A", 1.0}, {"kint_B", 0.0},
            {"kint_C", 0.0}, {"kint_D", 298.0}, {"Fc", 0.6},       {"N", 1.0}};
  if (type == "SURFACE") return {{"reaction probability", 1.0}};
  return {{"scaling factor", 1.0}};
}

json v1_document(const json& reaction) {
  json document = json::parse(R"({"version": "1.0.0", "name": "required",
    "species": [{"name": "A", "molecular weight [kg mol-1]": 0.1,
                 "diffusion coefficient [m2 s-1]": 1e-5}, {"name": "B"}, {"name": "C"}],
    "phases": [{"name": "gas", "species": ["A", "B", "C"]}]})");
  document["reactions"] = json::array();
  document["reactions"].push_back(reaction);
  return document;
}

// The mechanism in Foehn's JSON: two mechanisms are the same when these texts are.
std::string canonical(const fc::Mechanism& m) {
  return fc::mechanism_to_json(m);
}

std::string read_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// Every cut of `text` at a line boundary short of the whole text: refused (invalid_input), or
// the full mechanism. Returns how many cuts were refused.
template <class Parse>
int expect_every_cut_refused_or_whole(const std::string& text, const std::string& label,
                                      Parse parse) {
  const std::string whole = canonical(parse(text));
  int refused = 0;
  for (std::size_t end = text.find('\n'); end != std::string::npos;
       end = text.find('\n', end + 1)) {
    const std::string cut = text.substr(0, end + 1);
    if (cut.size() == text.size()) break;
    try {
      const fc::Mechanism m = parse(cut);
      EXPECT_EQ(canonical(m), whole)
          << label << " cut after byte " << cut.size() << " read as a different mechanism";
    } catch (const foehn::Error& error) {
      EXPECT_EQ(error.category(), foehn::ErrorCategory::invalid_input) << error.what();
      ++refused;
    }
  }
  return refused;
}

}  // namespace

TEST(MechanismRequiredKeys, EveryRequiredKeyOfEveryTypeIsRequired) {
  const auto required = required_v1_keys();
  for (const json& reaction : complete_v1_reactions()) {
    const std::string type = reaction.at("type").get<std::string>();
    // Complete, it reads (in JSON and in YAML).
    (void)fc::parse_mechanism(v1_document(reaction).dump(), "full.json");
    for (const std::string& key : required.at(type)) {
      json cut = reaction;
      cut.erase(key);
      const std::string text = v1_document(cut).dump(2);
      SCOPED_TRACE(type + " without '" + key + "'");
      expect_rejected([&] { return fc::parse_mechanism(text, "cut.json"); },
                      {"cut.json", "reaction 0", key.c_str()});
      expect_rejected([&] { return fc::parse_mechanism_yaml(text, "cut.yaml"); },
                      {"cut.yaml", "reaction 0", key.c_str()});
    }
  }
}

TEST(MechanismRequiredKeys, OptionalKeysTakeMicmsDefaults) {
  for (const json& reaction : complete_v1_reactions()) {
    const std::string type = reaction.at("type").get<std::string>();
    const auto defaults = micm_defaults(type);
    for (const auto& [key, value] : defaults) {
      json without = reaction, with = reaction;
      without.erase(key);
      with[key] = value;
      SCOPED_TRACE(type + " without '" + key + "'");
      EXPECT_EQ(canonical(fc::parse_mechanism(v1_document(without).dump(), "without.json")),
                canonical(fc::parse_mechanism(v1_document(with).dump(), "with.json")));
    }
  }
}

// Foehn's schema in YAML requires the lists as v1 does (a YAML file cut at a line boundary still
// parses); in JSON, which does not parse once cut, 'products' may still be left out for a pure
// loss. The pre-exponential factors are required in both.
TEST(MechanismRequiredKeys, FoehnSchemaRequiresTheListsInYamlAndThePreExponentialFactors) {
  const auto foehn = [](const std::string& reaction) {
    return R"({"species": [{"name": "A"}, {"name": "B"}], "reactions": [)" + reaction + "]}";
  };
  const std::string no_products =
      foehn(R"({"type": "ARRHENIUS", "A": 1, "reactants": [{"species name": "A"}]})");
  expect_rejected([&] { return fc::parse_mechanism_yaml(no_products, "f.yaml"); },
                  {"f.yaml", "reaction 0", "'products' is missing"});
  EXPECT_TRUE(fc::parse_mechanism(no_products, "f.json").reactions[0].products.empty());
  expect_rejected(
      [&] {
        return fc::parse_mechanism_yaml(
            foehn(R"({"type": "ARRHENIUS", "A": 1, "products": [{"species name": "A"}]})"),
            "f.yaml");
      },
      {"reaction 0", "'reactants' is missing"});
  for (const auto parse :
       {+[](const std::string& t) { return fc::parse_mechanism(t, "f.json"); },
        +[](const std::string& t) { return fc::parse_mechanism_yaml(t, "f.yaml"); }}) {
    expect_rejected(
        [&] {
          return parse(foehn(R"({"type": "TROE", "kinf_A": 1, "products": [],
              "reactants": [{"species name": "A"}]})"));
        },
        {"reaction 0", "'k0_A' is missing"});
    // EMISSION has no reactants and FIRST_ORDER_LOSS no products to give.
    (void)parse(foehn(R"({"type": "EMISSION", "name": "e",
        "products": [{"species name": "A"}]}, {"type": "FIRST_ORDER_LOSS", "name": "l",
        "reactants": [{"species name": "B"}]})"));
  }
}

// Non-finite parameters are refused at load naming the reaction and the key, in every type:
// YAML's .inf/.nan and a decimal beyond the largest double.
TEST(MechanismRequiredKeys, NonFiniteParametersAreRefusedAtLoad) {
  for (const json& reaction : complete_v1_reactions()) {
    const std::string type = reaction.at("type").get<std::string>();
    const auto defaults = micm_defaults(type);
    for (const auto& [key, value] : defaults) {
      for (const char* bad : {".inf", "-.inf", ".nan", "1e999"}) {
        // JSON text is YAML (flow style), where these plain scalars are numbers.
        json item = reaction;
        item[key] = "@@bad@@";
        std::string text = v1_document(item).dump();
        text.replace(text.find("\"@@bad@@\""), 9, bad);
        SCOPED_TRACE(type + " " + key + ": " + bad);
        expect_rejected([&] { return fc::parse_mechanism_yaml(text, "bad.yaml"); },
                        {"bad.yaml", "reaction 0", key.c_str()});
      }
    }
  }
}

// Cut at every line: JSON files (Foehn's schema and v1) do not parse once cut; the v1 YAML Foehn
// writes puts 'version' last (as MUSICA's own YAML does), so a cut YAML file has no version and,
// holding v1's 'phases', is refused.
TEST(MechanismRequiredKeys, FilesCutAtEveryLineAreRefusedOrWhole) {
  const std::filesystem::path folder(FOEHN_MECHANISM_DIR);
  int files = 0;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(folder)) {
    if (entry.path().extension() != ".json") continue;
    ++files;
    const std::string text = read_file(entry.path());
    const std::string name = entry.path().filename().string();
    const auto json_parse = [&](const std::string& t) { return fc::parse_mechanism(t, name); };
    const fc::Mechanism m = json_parse(text);
    EXPECT_GT(expect_every_cut_refused_or_whole(text, name, json_parse), 0) << name;
    const auto yaml_parse = [&](const std::string& t) {
      return fc::parse_mechanism_yaml(t, name + ".yaml");
    };
    // The v1 writers need a value for every constant species but the air: given one here.
    fc::Mechanism writable = m;
    for (fc::Species& s : writable.species) {
      if (s.constant && s.constant_source == fc::ConstantSource::user && s.name != "M") {
        s.constant_source = fc::ConstantSource::concentration;
        s.constant_amount = 1.0;
      }
    }
    const std::string yaml = fc::mechanism_to_openatmos_v1_yaml(writable);
    std::string trimmed = yaml;
    while (!trimmed.empty() && trimmed.back() == '\n') trimmed.pop_back();
    EXPECT_EQ(trimmed.substr(trimmed.rfind('\n') + 1, 8), "version:")
        << name << ": 'version' is not the YAML's last line";
    EXPECT_GT(expect_every_cut_refused_or_whole(yaml, name + ".yaml", yaml_parse), 0) << name;
    const std::string v1_json = fc::mechanism_to_openatmos_v1_json(writable) + "\n";
    EXPECT_GT(expect_every_cut_refused_or_whole(v1_json, name + " (v1)", json_parse), 0) << name;
  }
  EXPECT_GE(files, 10);
}

TEST(MechanismRequiredKeys, AV1DocumentWithoutItsVersionSaysSo) {
  expect_rejected(
      [] {
        return fc::parse_mechanism_yaml(R"(name: cut
species: [{name: A}]
phases: [{name: gas, species: [A]}]
reactions: []
)",
                                        "cut.yaml");
      },
      {"cut.yaml", "'version' is missing", "cut short"});
}
