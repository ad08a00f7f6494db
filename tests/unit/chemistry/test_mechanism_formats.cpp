// Mechanism formats: one mechanism written by hand in Foehn's JSON, the OpenAtmos v1 schema
// (JSON and YAML) and KPP's .def/.spc/.eqn compiles to bitwise-identical systems and results;
// the shipped mechanisms' v1 forms match them; every format's writer round-trips; each reader
// refuses what it cannot represent with a message naming the file, the line or reaction and
// the item.

#include <gtest/gtest.h>

#include <sys/stat.h>
#include <chrono>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>
#include <string>
#include <vector>

#include "expect_rejected.hpp"
#include "foehn/chemistry/compiled_mechanism.hpp"
#include "foehn/chemistry/mechanism.hpp"
#include "foehn/chemistry/rosenbrock_solver.hpp"
#include "foehn/runtime/error.hpp"
#include "support/temp_dir.hpp"

namespace fc = foehn::chemistry;

namespace {

const std::string four_formats =
    std::string(FOEHN_TEST_DATA_DIR) + "/mechanisms/same_in_four_formats/";

template <class T>
bool same_bits(const std::vector<T>& a, const std::vector<T>& b) {
  return a.size() == b.size() &&
         (a.empty() || std::memcmp(a.data(), b.data(), a.size() * sizeof(T)) == 0);
}

// Everything compile() produces, compared bit for bit.
void expect_same_compiled(const fc::Mechanism& a, const fc::Mechanism& b, const std::string& what) {
  const fc::CompiledMechanism x = fc::compile(a);
  const fc::CompiledMechanism y = fc::compile(b);
  EXPECT_TRUE(same_bits(x.species_order, y.species_order)) << what;
  EXPECT_TRUE(same_bits(x.rate_type, y.rate_type)) << what;
  EXPECT_TRUE(same_bits(x.rate_parameters, y.rate_parameters)) << what;
  EXPECT_TRUE(same_bits(x.external_index, y.external_index)) << what;
  EXPECT_TRUE(same_bits(x.reactant_start, y.reactant_start)) << what;
  EXPECT_TRUE(same_bits(x.reactant_species, y.reactant_species)) << what;
  EXPECT_TRUE(same_bits(x.change_species, y.change_species)) << what;
  EXPECT_TRUE(same_bits(x.change_amount, y.change_amount)) << what;
  EXPECT_TRUE(same_bits(x.jacobian_slot, y.jacobian_slot)) << what;
  EXPECT_TRUE(same_bits(x.column, y.column)) << what;
  EXPECT_TRUE(same_bits(x.lu_update_target, y.lu_update_target)) << what;
  EXPECT_EQ(x.air_density_scale, y.air_density_scale) << what;
  ASSERT_EQ(a.species.size(), b.species.size()) << what;
  for (std::size_t i = 0; i < a.species.size(); ++i) {
    EXPECT_EQ(a.species[i].name, b.species[i].name) << what;
    EXPECT_EQ(a.species[i].constant, b.species[i].constant) << what << " " << a.species[i].name;
    EXPECT_EQ(a.species[i].absolute_tolerance, b.species[i].absolute_tolerance) << what;
  }
  EXPECT_EQ(a.external_rate_names, b.external_rate_names) << what;
}

// Ten minutes of the mechanism in three cells: concentrations after the solve, bit for bit.
std::vector<double> solve(const fc::Mechanism& m) {
  fc::RosenbrockOptions options;
  options.control.relative_tolerance = 1e-6;
  fc::CpuChemistrySolver solver(m, options);
  fc::ChemistryBatch batch = fc::make_batch(m, 3);
  const std::vector<double> initial = {1e4, 1e12, 1e9, 1e10, 1e6, 1e8, 1e10, 2.5e19, 5e18};
  for (std::int64_t c = 0; c < 3; ++c) {
    for (std::size_t s = 0; s < initial.size(); ++s)
      batch.concentrations[static_cast<std::size_t>(c) * initial.size() + s] =
          initial[s] * (1.0 + 0.1 * c);
    batch.temperature[static_cast<std::size_t>(c)] = 220.0 + 30.0 * c;
    batch.pressure[static_cast<std::size_t>(c)] = 2e4 + 3e4 * c;
    batch.external_rates[static_cast<std::size_t>(c) * 2] = 8e-3;       // jNO2
    batch.external_rates[static_cast<std::size_t>(c) * 2 + 1] = 1e-11;  // jO2
  }
  (void)solver.solve(batch, 600.0);
  return batch.concentrations;
}

std::string read_file(const std::string& path) {
  std::ifstream in(path);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

using foehn::testing::expect_rejected;

fc::Mechanism v1(const std::string& text) {
  return fc::parse_mechanism(text, "v1.json");
}
fc::Mechanism kpp(const std::string& text) {
  return fc::parse_kpp_mechanism(text, "m.eqn", "/nonexistent");
}

// A valid v1 document with `reaction` as its only reaction.
std::string v1_with(const std::string& reaction, const std::string& species_extra = "") {
  return R"({"version": "1.0.0", "species": [{"name": "A")" + species_extra +
         R"(}, {"name": "B"}], "phases": [{"name": "gas", "species": ["A", "B"]}], "reactions": [)" +
         reaction + "]}";
}

const std::string kpp_species = "#DEFVAR\nA = IGNORE; B = IGNORE;\n#EQUATIONS\n";

}  // namespace

TEST(MechanismFormats, OneMechanismInFourFormatsCompilesAndSolvesBitwiseTheSame) {
  const fc::Mechanism foehn_json = fc::read_mechanism(four_formats + "small.foehn.json");
  const fc::Mechanism v1_json = fc::read_mechanism(four_formats + "small.v1.json");
  const fc::Mechanism v1_yaml = fc::read_mechanism(four_formats + "small.v1.yaml");
  const fc::Mechanism kpp_def = fc::read_mechanism(four_formats + "small.def");
  ASSERT_EQ(foehn_json.reactions.size(), 10u);
  EXPECT_EQ(foehn_json.external_rate_names, (std::vector<std::string>{"jNO2", "jO2"}));
  expect_same_compiled(foehn_json, v1_json, "v1 JSON");
  expect_same_compiled(foehn_json, v1_yaml, "v1 YAML");
  expect_same_compiled(foehn_json, kpp_def, "KPP");
  const std::vector<double> reference = solve(foehn_json);
  for (double y : reference) EXPECT_TRUE(std::isfinite(y) && y >= 0.0);
  EXPECT_NE(reference[1], 1e12);  // O3 moved: the solve did something
  EXPECT_TRUE(same_bits(reference, solve(v1_json)));
  EXPECT_TRUE(same_bits(reference, solve(v1_yaml)));
  EXPECT_TRUE(same_bits(reference, solve(kpp_def)));
  // The v1 user keys were kept, on the mechanism and on a reaction component.
  ASSERT_EQ(v1_json.user_properties.size(), 1u);
  EXPECT_EQ(v1_json.user_properties[0].first, "__comment");
  ASSERT_EQ(v1_json.reactions[8].product_user_properties.size(), 1u);
  EXPECT_EQ(v1_json.reactions[8].product_user_properties[0].size(), 1u);
}

TEST(MechanismFormats, ShippedMechanismsMatchTheirOpenAtmosV1Forms) {
  int written = 0;
  for (const auto& entry : std::filesystem::directory_iterator(FOEHN_MECHANISM_DIR)) {
    if (entry.path().extension() != ".json") continue;
    const fc::Mechanism shipped = fc::read_mechanism(entry.path());
    const auto v1_path = entry.path().parent_path() / "openatmos_v1" / entry.path().filename();
    if (entry.path().filename() == "nox_stratosphere.json") {
      // O2 and H2O are held constant with no value: v1 cannot say that, so nothing is written.
      EXPECT_FALSE(std::filesystem::exists(v1_path));
      expect_rejected([&] { return fc::mechanism_to_openatmos_v1_json(shipped); },
                      {"nox_stratosphere", "species 'O2' is held constant"});
      continue;
    }
    ASSERT_TRUE(std::filesystem::exists(v1_path)) << v1_path;
    const fc::Mechanism v1_form = fc::read_mechanism(v1_path);
    EXPECT_EQ(v1_form.concentration_unit, fc::ConcentrationUnit::mol_per_m3) << v1_path;
    expect_same_compiled(fc::in_concentration_unit(shipped, fc::ConcentrationUnit::mol_per_m3),
                         v1_form, v1_path.string());
    // The file is what the writer writes today (regenerate: foehn-box -write_mechanism).
    EXPECT_EQ(read_file(v1_path.string()), fc::mechanism_to_openatmos_v1_json(shipped) + "\n")
        << v1_path;
    ++written;
  }
  EXPECT_EQ(written, 5);
}

TEST(MechanismFormats, WritersRoundTripThroughTheReaders) {
  // Written once (converted to mol m^-3), read and written again: the same file, JSON and YAML.
  const fc::Mechanism m = fc::read_mechanism(std::string(FOEHN_MECHANISM_DIR) + "/chapman.json");
  const std::string v1_json = fc::mechanism_to_openatmos_v1_json(m);
  const fc::Mechanism from_json = fc::parse_mechanism(v1_json, "w.json");
  const fc::Mechanism from_yaml =
      fc::parse_mechanism_yaml(fc::mechanism_to_openatmos_v1_yaml(m), "w.yaml");
  EXPECT_EQ(fc::mechanism_to_openatmos_v1_json(from_json), v1_json);
  EXPECT_EQ(fc::mechanism_to_openatmos_v1_json(from_yaml), v1_json);
  EXPECT_EQ(v1_json.find("tracer type"), std::string::npos);         // a key MICM refuses
  EXPECT_EQ(v1_json.find("concentration unit"), std::string::npos);  // MICM ignores it
  EXPECT_NE(v1_json.find("\"is third body\": true"), std::string::npos);
  const std::string foehn = fc::mechanism_to_json(from_json);
  EXPECT_EQ(fc::mechanism_to_json(fc::parse_mechanism(foehn, "f.json")), foehn);
}

// The schema's species flags and properties, and both spellings of a component's species: read,
// held constant, and written back as themselves (issue 33: Foehn refused them, and wrote
// "tracer type", which MICM refuses).
TEST(MechanismFormats, OpenAtmosV1FlagsAndPropertiesAreReadAndWrittenBack) {
  const fc::Mechanism m = v1(R"({"version": "1.0.0", "name": "flags",
      "species": [{"name": "A", "molecular weight [kg mol-1]": 0.046},
                  {"name": "M", "is third body": true},
                  {"name": "O2", "constant mixing ratio [mol mol-1]": 0.21},
                  {"name": "X", "constant concentration [mol m-3]": 1.5}],
      "phases": [{"name": "gas", "species": ["A", "M", "O2", "X"]}],
      "reactions": [{"type": "ARRHENIUS", "gas phase": "gas", "name": "R1", "A": 2.0,
                     "reactants": [{"name": "A"}, {"species name": "M"}],
                     "products": [{"name": "X", "coefficient": 1}]}]})");
  ASSERT_EQ(m.species.size(), 4u);
  EXPECT_FALSE(m.species[0].constant);
  EXPECT_TRUE(m.species[1].constant && m.species[2].constant && m.species[3].constant);
  ASSERT_EQ(m.reactions[0].reactants.size(), 2u);
  EXPECT_EQ(m.reactions[0].reactants[1].species, 1);
  const std::string written = fc::mechanism_to_openatmos_v1_json(m);
  for (const char* kept : {"\"molecular weight [kg mol-1]\": 0.046", "\"is third body\": true",
                           "\"constant mixing ratio [mol mol-1]\": 0.21",
                           "\"constant concentration [mol m-3]\": 1.5", "\"A\": 2.0"})
    EXPECT_NE(written.find(kept), std::string::npos) << kept << " not in " << written;
  EXPECT_EQ(written.find("__openatmos"), std::string::npos) << written;
  EXPECT_EQ(written.find("tracer type"), std::string::npos) << written;
  expect_same_compiled(m, v1(written), "written back");
}

TEST(MechanismFormats, OpenAtmosV1RefusesWhatMicmWouldRefuseOrMisread) {
  expect_rejected(
      [&] {
        return v1(v1_with(R"({"type": "PHOTOLYSIS", "gas phase": "gas", "name": "j",
                              "reactants": [{"name": "A"}, {"name": "B"}]})"));
      },
      {"reaction 0 ('j')", "PHOTOLYSIS has 2 reactants", "exactly one"});
  expect_rejected(
      [&] {
        return v1(v1_with(R"({"type": "ARRHENIUS", "gas phase": "gas", "A": 1,
                              "reactants": [{"name": "A", "species name": "A"}]})"));
      },
      {"reactants[0]", "both 'name' and 'species name'"});
  expect_rejected([&] { return v1(v1_with("", R"(, "is third body": "yes")")); },
                  {"species 0 ('A')", "'is third body' must be true or false"});
  expect_rejected([&] { return v1(v1_with("", R"(, "constant concentration [mol m-3]": -1)")); },
                  {"species 0 ('A')", "is negative"});
  // Foehn lets two photolysis reactions share the rate jNO2; MICM needs unique labels.
  fc::Mechanism shared = fc::read_mechanism(four_formats + "small.foehn.json");
  for (fc::Species& species : shared.species)
    if (species.name == "O2") species.constant = false;  // (refused too: no v1 value; above)
  expect_rejected([&] { return fc::mechanism_to_openatmos_v1_json(shared); },
                  {"two PHOTOLYSIS reactions are named 'jNO2'"});
}

// The writer converts molecule cm^-3 to MICM's mol m^-3: the same rates, so a box run of the
// converted mechanism from the converted state ends in the converted concentrations.
TEST(MechanismFormats, MoleculesPerCm3AndMolPerM3GiveTheSameRun) {
  const fc::Mechanism cgs = fc::read_mechanism(std::string(FOEHN_MECHANISM_DIR) + "/chapman.json");
  const fc::Mechanism si = fc::parse_mechanism(fc::mechanism_to_openatmos_v1_json(cgs), "w.json");
  ASSERT_EQ(si.concentration_unit, fc::ConcentrationUnit::mol_per_m3);
  const double per_mol_m3 = 6.02214076e23 * 1e-6;  // molecule cm^-3 in one mol m^-3
  // M, O2, O, O1D, O3 at 30 km, molecule cm^-3; photolysis of the afternoon.
  const std::vector<double> initial = {3.8e17, 8.0e16, 1.0e7, 1.0e1, 3.0e12};
  const auto run = [&](const fc::Mechanism& m, double scale) {
    fc::RosenbrockOptions options;
    options.control.relative_tolerance = 1e-8;
    fc::CpuChemistrySolver solver(m, options);
    fc::ChemistryBatch batch = fc::make_batch(m, 1);
    for (std::size_t s = 0; s < initial.size(); ++s) batch.concentrations[s] = initial[s] / scale;
    batch.temperature[0] = 230.0;
    batch.pressure[0] = 1200.0;
    const double rates[] = {1.2e-11, 7.0e-5, 5.0e-4};  // s^-1 in either unit
    for (int r = 0; r < 3; ++r) batch.external_rates[static_cast<std::size_t>(r)] = rates[r];
    (void)solver.solve(batch, 3600.0);
    for (double& c : batch.concentrations) c *= scale;
    return batch.concentrations;
  };
  const std::vector<double> a = run(cgs, 1.0), b = run(si, per_mol_m3);
  ASSERT_EQ(a.size(), b.size());
  EXPECT_NE(a[4], initial[4]);  // O3 moved
  for (std::size_t s = 0; s < a.size(); ++s)
    EXPECT_NEAR(b[s], a[s], 1e-9 * std::abs(a[s]) + 1e-30) << cgs.species[s].name;
}

TEST(MechanismFormats, OpenAtmosV1MeaningsAreHonoured) {
  // MICM's unit unless the file says otherwise; M from the ideal gas law in mol m^-3.
  const fc::Mechanism si = v1(v1_with(
      R"({"type": "ARRHENIUS", "gas phase": "gas", "reactants": [{"species name": "A"}],
          "products": [{"species name": "B", "coefficient": 2}], "Ea": 2.0e-20})"));
  EXPECT_EQ(si.concentration_unit, fc::ConcentrationUnit::mol_per_m3);
  EXPECT_DOUBLE_EQ(fc::compile(si).air_density_scale, 1e6 / 6.02214076e23);
  EXPECT_EQ(si.reactions[0].products[0].amount, 2.0);                        // not silently 1
  EXPECT_DOUBLE_EQ(si.reactions[0].parameters[2], -2.0e-20 / 1.380649e-23);  // C = -Ea / k_B
  EXPECT_EQ(si.reactions[0].parameters[0], 1.0);  // the schema's default A
  // scaling factor multiplies the per-cell rate.
  const fc::Mechanism scaled = v1(v1_with(
      R"({"type": "FIRST_ORDER_LOSS", "gas phase": "gas", "name": "dep",
          "reactants": [{"species name": "A"}], "scaling factor": 3.0})"));
  const fc::CompiledMechanism c = fc::compile(scaled);
  const double per_cell[] = {0.25};
  EXPECT_EQ(fc::rate_constant(c.rate_type[0], c.rate_parameters.data(), c.external_index[0], 250.0,
                              1e5, per_cell, c.air_density_scale),
            0.75);
}

TEST(MechanismFormats, OpenAtmosV1RefusesWhatItCannotRepresent) {
  const std::string arrhenius =
      R"("gas phase": "gas", "reactants": [{"species name": "A"}], "A": 1.0)";
  expect_rejected(
      [&] { return v1(v1_with(R"({"type": "HL_PHASE_TRANSFER", "gas phase": "gas"})")); },
      {"v1.json", "reaction 0", "HL_PHASE_TRANSFER", "not of Foehn's gas-phase solver"});
  expect_rejected(
      [&] {
        return v1(v1_with(R"({"type": "ARRHENIUS", "name": "r", "Q": 1, )" + arrhenius + "}"));
      },
      {"reaction 0 ('r')", "field 'Q'", "not a parameter of ARRHENIUS"});
  expect_rejected(
      [&] { return v1(v1_with(R"({"type": "ARRHENIUS", "C": 1, "Ea": 1, )" + arrhenius + "}")); },
      {"'C' and 'Ea'"});
  expect_rejected(
      [&] { return v1(v1_with(R"({"type": "ARRHENIUS", "gas phase": "aqueous", "A": 1})")); },
      {"field 'gas phase' names no phase"});
  expect_rejected(
      [&] {
        return v1(v1_with(R"({"type": "ARRHENIUS", "gas phase": "gas", "A": 1,
                              "reactants": [{"species name": "A", "yield": 1}]})"));
      },
      {"reactants[0].yield", "not part of a reaction component"});
  expect_rejected(
      [&] {
        return v1(v1_with(R"({"type": "ARRHENIUS", )" + arrhenius + "}", R"(, "colour": "red")"));
      },
      {"species 0 ('A')", "field 'colour'"});
  expect_rejected([&] { return v1(R"({"version": "2.0.0", "species": [], "reactions": []})"); },
                  {"field 'version' is '2.0.0'"});
  // Malformed versions of the right major number were once accepted.
  for (const char* malformed : {"1.x", "1..0", "1.0.0.0", "1.0.0-beta", "10", "1.01", "1."}) {
    const std::string expected = std::string("field 'version' is '") + malformed + "'";
    expect_rejected(
        [&] {
          return v1(std::string(R"({"version": ")") + malformed +
                    R"(", "species": [], "reactions": []})");
        },
        {expected.c_str()});
  }
  expect_rejected(
      [&] {
        return v1(R"({"version": ")" + std::string(100000, '1') +
                  R"(", "species": [], "reactions": []})");
      },
      {"field 'version' is '11111111", "...'"});
  for (const char* good : {"1", "1.0", "1.0.0", "1.2.3"})
    EXPECT_NO_THROW(v1(std::string(R"({"version": ")") + good +
                       R"(", "species": [{"name": "A"}], "reactions": []})"))
        << good;
  expect_rejected(
      [&] {
        return v1(
            R"({"version": "1.0.0", "species": [{"name": "A"}], "reactions": [], "extra": 1})");
      },
      {"field 'extra'"});
  // Foehn's own schema: a product "coefficient" is refused, not read as yield 1.
  expect_rejected(
      [&] {
        return fc::parse_mechanism(R"({"species": [{"name": "A"}, {"name": "B"}], "reactions": [
            {"type": "ARRHENIUS", "A": 1, "reactants": [{"species name": "A"}],
             "products": [{"species name": "B", "coefficient": 2}]}]})",
                                   "foehn.json");
      },
      {"foehn.json", "products[0].coefficient", "expected 'species name' and 'yield'"});
}

TEST(MechanismFormats, YamlErrorsNameTheLine) {
  expect_rejected(
      [] { return fc::parse_mechanism_yaml("version: \"1.0.0\"\nspecies: [\n", "m.yaml"); },
      {"m.yaml", "not valid YAML", "line"});
  expect_rejected(
      [] { return fc::parse_mechanism_yaml("version: 1.0.0\nname: a\nname: b\n", "m.yaml"); },
      {"m.yaml", "line 3", "'name' appears twice"});
  // A quoted number stays a string, and a parameter must be a number.
  expect_rejected(
      [] {
        return fc::parse_mechanism_yaml(
            "version: '1.0'\nspecies: [{name: A}]\nphases: [{name: gas, species: [A]}]\n"
            "reactions: [{type: ARRHENIUS, gas phase: gas, reactants: [{species name: A}], A: "
            "'3'}]\n",
            "m.yaml");
      },
      {"m.yaml", "reaction 0", "field 'A' must be a number"});
  expect_rejected([] { return fc::parse_mechanism_yaml("a: &x [*x]\n", "m.yaml"); }, {"m.yaml"});
}

// A document nested 1e5 levels deep (in a user "__" key, where anything is allowed) parsed, then
// crashed with a stack overflow when it was copied or written: refused while parsing, in JSON and
// in YAML alike.
TEST(MechanismFormats, DeeplyNestedDocumentsAreRefusedNamingTheDepth) {
  const std::string deep = std::string(100000, '[') + std::string(100000, ']');
  const std::string json = R"({"version": "1.0.0", "__deep": )" + deep +
                           R"(, "species": [{"name": "A"}], "phases": [], "reactions": []})";
  expect_rejected([&] { return fc::parse_mechanism(json, "deep.json"); },
                  {"deep.json", "JSON nested deeper than 64 levels"});
  expect_rejected([&] { return fc::parse_mechanism_yaml("__deep: " + deep + "\n", "deep.yaml"); },
                  {"deep.yaml"});
  // 60 levels in a user key are fine.
  const std::string fine = std::string(60, '[') + std::string(60, ']');
  EXPECT_NO_THROW(fc::parse_mechanism(
      R"({"version": "1.0.0", "name": "n", "__fine": )" + fine +
          R"(, "species": [{"name": "A"}], "phases": [{"name": "gas", "species": ["A"]}],
          "reactions": []})",
      "fine.json"));
}

TEST(MechanismFormats, KppRateLawsMapOntoFoehnsTypes) {
  const fc::Mechanism m = kpp(kpp_species +
                              "<a> A = B : k_3rd(temp, cair, 1.0E-31, 2.0, 3.0E-11, 1.0, 0.6);\n"
                              "<b> A = 0.5 B : TROE(1.0E-31, 2.0, 3.0E-11, 1.0, TEMP, C_M);\n"
                              "<c> 2A = B : 1.0D-12*EXP(-300.D0/TEMP);\n"
                              "<d> A + hv = B : PHOTOL(3);\n");
  ASSERT_EQ(m.reactions.size(), 4u);
  EXPECT_EQ(m.reactions[0].type, fc::ReactionType::troe);
  EXPECT_EQ(m.reactions[0].parameters[1], -2.0);  // (300/T)^n = (T/300)^-n
  EXPECT_EQ(m.reactions[1].parameters[6], 0.6);
  EXPECT_EQ(m.reactions[1].products[0].amount, 0.5);
  EXPECT_EQ(m.reactions[2].reactants[0].amount, 2.0);
  EXPECT_EQ(m.reactions[2].parameters[2], -300.0);
  EXPECT_EQ(m.external_rate_names, (std::vector<std::string>{"PHOTOL(3)"}));
  EXPECT_EQ(m.concentration_unit, fc::ConcentrationUnit::molecule_per_cm3);
}

TEST(MechanismFormats, KppRefusesWhatItCannotRepresent) {
  expect_rejected([] { return kpp(kpp_species + "A = B : ARR2(1.0E-12, 300.0);\n"); },
                  {"m.eqn", "line 4", "ARR2", "sign of B0"});
  expect_rejected([] { return kpp(kpp_species + "\n<r7> A = B : USER_RATE(TEMP);\n"); },
                  {"line 5 <r7>", "USER_RATE(TEMP)", "Foehn does not know"});
  expect_rejected([] { return kpp(kpp_species + "A = C : 1.0;\n"); },
                  {"species 'C' is not declared"});
  expect_rejected([] { return kpp(kpp_species + "A = B - 0.5 A : 1.0;\n"); },
                  {"negative stoichiometric"});
  expect_rejected([] { return kpp(kpp_species + "A = B : 1.0\n"); },
                  {"no closing ';'", "truncated"});
  expect_rejected([] { return kpp("{ unclosed\n" + kpp_species); }, {"line 1", "not closed"});
  expect_rejected([] { return kpp(kpp_species + "1.5 A = B : 1.0;\n"); }, {"integer from 1"});
  expect_rejected([] { return kpp("A = B : 1.0;\n"); }, {"outside any section"});
  expect_rejected([] { return kpp("#MODEL small_strato\n"); }, {"#MODEL", "KPP's installation"});
  try {
    (void)kpp("#INCLUDE missing.spc\n");
    ADD_FAILURE() << "accepted a missing include";
  } catch (const foehn::Error& error) {
    EXPECT_EQ(error.category(), foehn::ErrorCategory::io);
    EXPECT_NE(std::string(error.what()).find("missing.spc"), std::string::npos);
  }
}

// A mechanism or #INCLUDE that is a FIFO blocked the reader, /dev/zero read until memory ran
// out, and an #INCLUDE naming a folder was silently ignored: each is refused, naming it.
TEST(MechanismFormats, InputsThatAreNotFilesAreRefused) {
  foehn::testing::TempDir folder;
  ASSERT_EQ(::mkfifo((folder.path() / "fifo.json").c_str(), 0600), 0);
  ASSERT_EQ(::mkfifo((folder.path() / "fifo.spc").c_str(), 0600), 0);
  std::filesystem::create_directory(folder.path() / "folder.spc");
  const auto io_error_naming = [](const std::function<void()>& read, const std::string& part) {
    try {
      read();
      ADD_FAILURE() << "accepted " << part;
    } catch (const foehn::Error& error) {
      EXPECT_EQ(error.category(), foehn::ErrorCategory::io);
      EXPECT_NE(std::string(error.what()).find(part), std::string::npos) << error.what();
    }
  };
  io_error_naming([&] { (void)fc::read_mechanism(folder.path() / "fifo.json"); },
                  "fifo.json': is a FIFO, not a file");
  std::filesystem::create_symlink("/dev/zero", folder.path() / "zero.yaml");
  io_error_naming([&] { (void)fc::read_mechanism(folder.path() / "zero.yaml"); },
                  "zero.yaml': is a character device, not a file");
  std::filesystem::create_symlink("/dev/urandom", folder.path() / "random.json");
  io_error_naming([&] { (void)fc::read_mechanism(folder.path() / "random.json"); },
                  "random.json': is a character device, not a file");
  std::filesystem::create_symlink("/dev/zero", folder.path() / "zero.spc");
  std::filesystem::create_symlink("/dev/urandom", folder.path() / "random.spc");
  for (const char* include : {"fifo.spc", "folder.spc", "zero.spc", "random.spc"})
    io_error_naming(
        [&] {
          (void)fc::parse_kpp_mechanism(std::string("#INCLUDE ") + include + "\n", "m.eqn",
                                        folder.path());
        },
        std::string("#INCLUDE file '") + (folder.path() / include).string() + "': is a");
}

// A KPP file's name names its mechanism; a Latin-1 name ("r\xe9" "action.eqn") was kept as bytes
// that are not UTF-8, so the mechanism written from it could not be read back.
TEST(MechanismFormats, KppFileNamesThatAreNotUtf8StillWriteBack) {
  const fc::Mechanism m = fc::parse_kpp_mechanism(kpp_species + "<R1> A = B : 1.0E-3;\n",
                                                  "r\xe9"
                                                  "action.eqn",
                                                  "/nonexistent");
  EXPECT_EQ(m.name,
            "r\xef\xbf\xbd"
            "action");  // the byte replaced by U+FFFD
  for (const std::string& written :
       {fc::mechanism_to_json(m), fc::mechanism_to_openatmos_v1_json(m)})
    EXPECT_EQ(fc::parse_mechanism(written, "written.json").name, m.name);
  EXPECT_EQ(fc::parse_mechanism_yaml(fc::mechanism_to_openatmos_v1_yaml(m), "w.yaml").name, m.name);
}

// Each file including the next ten times, eight deep, was 10^8 reads; 200,000 #INLINE blocks
// never ended (each searched a fresh copy of the whole text). Both now take moments.
TEST(MechanismFormats, KppIncludeFanOutAndManyInlineBlocksAreBounded) {
  foehn::testing::TempDir folder;
  for (int level = 0; level < 8; ++level) {
    std::ofstream file(folder.path() / ("level" + std::to_string(level) + ".kpp"));
    for (int copy = 0; copy < 10; ++copy) file << "#INCLUDE level" << level + 1 << ".kpp\n";
  }
  std::ofstream(folder.path() / "level8.kpp") << "{ an empty leaf }\n";
  const auto started = std::chrono::steady_clock::now();
  expect_rejected(
      [&] { return fc::parse_kpp_mechanism("#INCLUDE level0.kpp\n", "fan.eqn", folder.path()); },
      {"#INCLUDE level", "more than 1000 files included in all"});
  std::string inline_blocks = "#DEFVAR\nA = IGNORE;\nB = IGNORE;\n";
  for (int block = 0; block < 200000; ++block)
    inline_blocks += "#INLINE F90_GLOBAL\n  x = 1\n#ENDINLINE\n";
  inline_blocks += "#EQUATIONS\n{1} A = B : 1.0;\n";
  const fc::Mechanism m = fc::parse_kpp_mechanism(inline_blocks, "inline.eqn", folder.path());
  EXPECT_EQ(m.reactions.size(), 1u);
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count(),
            30.0);
}

TEST(MechanismFormats, UnknownExtensionsAreNamed) {
  expect_rejected([] { return fc::read_mechanism("mechanism.txt"); },
                  {"mechanism.txt", "unknown mechanism format", ".yaml"});
}
