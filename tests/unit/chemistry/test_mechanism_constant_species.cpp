// Species a mechanism file holds constant with a value (the OpenAtmos v1 keys MICM reads:
// "constant concentration [mol m-3]", "constant mixing ratio [mol mol-1]", "is third body" and
// the older "tracer type: THIRD_BODY") take it as MICM does: the concentration given, x M, or M,
// where M = P / (R T) is MICM's air density. Checked against the ideal gas law written out here
// (R = 8.314462618 J K^-1 mol^-1), an analytic solution of a box with such species, both writers'
// round trips, and the refusals of contradictory or invalid values.

#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "expect_rejected.hpp"
#include "foehn/chemistry/chemistry_batch.hpp"
#include "foehn/chemistry/mechanism.hpp"
#include "foehn/chemistry/rosenbrock_solver.hpp"

namespace fc = foehn::chemistry;
using foehn::testing::expect_rejected;

namespace {

constexpr double gas_constant = 8.314462618;  // J K^-1 mol^-1 (CODATA; MICM's k_B N_A)
constexpr double avogadro = 6.02214076e23;

// M, O2 as a mixing ratio, X as a concentration, A and B exchanged through them:
// A + M -> B + M (k1), B + O2 -> A + O2 (k2), A + X -> B + X (k3), all in mol m^-3.
const std::string constants_yaml = R"(version: 1.0.0
name: constants
species:
  - name: M
    is third body: true
  - name: O2
    constant mixing ratio [mol mol-1]: 0.21
  - name: X
    constant concentration [mol m-3]: 2.5
  - name: A
  - name: B
phases:
  - name: gas
    species: [M, O2, X, A, B]
reactions:
  - type: ARRHENIUS
    gas phase: gas
    reactants: [{species name: A}, {species name: M}]
    products: [{species name: B}, {species name: M}]
    A: 1.0e-3
  - type: ARRHENIUS
    gas phase: gas
    reactants: [{species name: B}, {species name: O2}]
    products: [{species name: A}, {species name: O2}]
    A: 1.0e-2
  - type: ARRHENIUS
    gas phase: gas
    reactants: [{species name: A}, {species name: X}]
    products: [{species name: B}, {species name: X}]
    A: 0.05
)";

fc::Mechanism constants_mechanism() {
  return fc::parse_mechanism_yaml(constants_yaml, "constants.yaml");
}

double air(double temperature, double pressure) {
  return pressure / (gas_constant * temperature);
}

void expect_relative(double actual, double expected, double tolerance) {
  EXPECT_LE(std::abs(actual - expected), tolerance * std::abs(expected))
      << actual << " vs " << expected;
}

std::string v1_species(const std::string& species_entry) {
  return R"({"version": "1.0.0", "species": [)" + species_entry +
         R"(, {"name": "A"}], "phases": [{"name": "gas", "species": ["S", "A"]}],
    "reactions": [{"type": "ARRHENIUS", "gas phase": "gas", "A": 1,
                   "reactants": [{"species name": "A"}, {"species name": "S"}],
                   "products": [{"species name": "S"}]}]})";
}

}  // namespace

TEST(MechanismConstantSpecies, FileValuesAreMicmsAtTheConditions) {
  const fc::Mechanism m = constants_mechanism();
  ASSERT_EQ(m.concentration_unit, fc::ConcentrationUnit::mol_per_m3);
  const fc::Species& third_body = m.species[0];
  const fc::Species& o2 = m.species[1];
  const fc::Species& x = m.species[2];
  EXPECT_EQ(third_body.constant_source, fc::ConstantSource::third_body);
  EXPECT_EQ(o2.constant_source, fc::ConstantSource::mixing_ratio);
  EXPECT_EQ(x.constant_source, fc::ConstantSource::concentration);
  EXPECT_TRUE(third_body.constant && o2.constant && x.constant);
  EXPECT_EQ(m.species[3].constant_source, fc::ConstantSource::user);
  for (const auto& [t, p] : {std::pair{250.0, 80000.0}, std::pair{298.15, 101325.0}}) {
    const auto value = [&](const fc::Species& s, fc::ConcentrationUnit unit) {
      return fc::file_constant_concentration(s, unit, t, p);
    };
    expect_relative(value(third_body, fc::ConcentrationUnit::mol_per_m3), air(t, p), 1e-9);
    expect_relative(value(o2, fc::ConcentrationUnit::mol_per_m3), 0.21 * air(t, p), 1e-9);
    EXPECT_EQ(value(x, fc::ConcentrationUnit::mol_per_m3), 2.5);
    // In molecule cm^-3: N_A 1e-6 molecule cm^-3 per mol m^-3.
    expect_relative(value(third_body, fc::ConcentrationUnit::molecule_per_cm3),
                    air(t, p) * avogadro * 1e-6, 1e-9);
    expect_relative(value(x, fc::ConcentrationUnit::molecule_per_cm3), 2.5 * avogadro * 1e-6,
                    1e-12);
    EXPECT_TRUE(std::isnan(value(m.species[3], fc::ConcentrationUnit::mol_per_m3)));
  }
}

TEST(MechanismConstantSpecies, BatchesTakeTheFileValuesPerCell) {
  const fc::Mechanism m = constants_mechanism();
  fc::ChemistryBatch batch = fc::make_batch(m, 2);
  // make_batch: at its own conditions (298.15 K, 101325 Pa).
  expect_relative(batch.concentrations[0], air(298.15, 101325.0), 1e-9);
  batch.temperature = {220.0, 300.0};
  batch.pressure = {20000.0, 100000.0};
  fc::set_file_constant_concentrations(m, batch);
  for (std::size_t c = 0; c < 2; ++c) {
    const double air_c = air(batch.temperature[c], batch.pressure[c]);
    expect_relative(batch.concentrations[c * 5 + 0], air_c, 1e-9);
    expect_relative(batch.concentrations[c * 5 + 1], 0.21 * air_c, 1e-9);
    EXPECT_EQ(batch.concentrations[c * 5 + 2], 2.5);
    EXPECT_EQ(batch.concentrations[c * 5 + 3], 0.0);  // the user's species: untouched
  }
}

// A <-> B with constant partners is linear: A(t) = A_eq + (A0 - A_eq) exp(-(a + b) t), with
// a = k1 M + k3 X and b = k2 x M. The solve must follow it with no value given for M, O2, X.
TEST(MechanismConstantSpecies, BoxWithFileConstantsFollowsTheAnalyticSolution) {
  const fc::Mechanism m = constants_mechanism();
  const double t = 250.0, p = 80000.0, duration = 10.0;
  fc::ChemistryBatch batch = fc::make_batch(m, 1);
  batch.temperature[0] = t;
  batch.pressure[0] = p;
  fc::set_file_constant_concentrations(m, batch);
  batch.concentrations[3] = 1.0;  // A
  fc::RosenbrockOptions options;
  options.control.relative_tolerance = 1e-10;
  options.absolute_tolerance.assign(m.species.size(), 1e-14);
  fc::CpuChemistrySolver solver(m, options);
  (void)solver.solve(batch, duration);
  const double a = 1.0e-3 * air(t, p) + 0.05 * 2.5, b = 1.0e-2 * 0.21 * air(t, p);
  const double equilibrium = b / (a + b);
  const double expected = equilibrium + (1.0 - equilibrium) * std::exp(-(a + b) * duration);
  expect_relative(batch.concentrations[3], expected, 1e-7);
  expect_relative(batch.concentrations[4], 1.0 - expected, 1e-7);
  expect_relative(batch.concentrations[0], air(t, p), 1e-9);  // held
}

TEST(MechanismConstantSpecies, WritersKeepWhereTheValueComesFrom) {
  const fc::Mechanism m = constants_mechanism();
  const std::vector<std::pair<std::string, fc::Mechanism>> written = {
      {"foehn json", fc::parse_mechanism(fc::mechanism_to_json(m), "w.json")},
      {"v1 json", fc::parse_mechanism(fc::mechanism_to_openatmos_v1_json(m), "w1.json")},
      {"v1 yaml", fc::parse_mechanism_yaml(fc::mechanism_to_openatmos_v1_yaml(m), "w1.yaml")},
  };
  for (const auto& [label, back] : written) {
    ASSERT_EQ(back.species.size(), m.species.size()) << label;
    for (std::size_t i = 0; i < m.species.size(); ++i) {
      EXPECT_EQ(back.species[i].constant, m.species[i].constant) << label << " " << i;
      EXPECT_EQ(back.species[i].constant_source, m.species[i].constant_source) << label << " " << i;
      EXPECT_EQ(back.species[i].constant_amount, m.species[i].constant_amount) << label << " " << i;
    }
  }
  // Converted to molecule cm^-3 (Foehn's schema), the file's amount keeps its SI meaning.
  const fc::Mechanism cgs = fc::in_concentration_unit(m, fc::ConcentrationUnit::molecule_per_cm3);
  expect_relative(
      fc::file_constant_concentration(cgs.species[2], cgs.concentration_unit, 250.0, 80000.0),
      2.5 * avogadro * 1e-6, 1e-12);
  // A species built in code with a source is written with it.
  fc::Mechanism coded = m;
  coded.species[2].user_properties.clear();
  coded.species[2].constant_source = fc::ConstantSource::mixing_ratio;
  coded.species[2].constant_amount = 0.5;
  const fc::Mechanism back =
      fc::parse_mechanism(fc::mechanism_to_openatmos_v1_json(coded), "coded.json");
  EXPECT_EQ(back.species[2].constant_source, fc::ConstantSource::mixing_ratio);
  EXPECT_EQ(back.species[2].constant_amount, 0.5);
}

TEST(MechanismConstantSpecies, TheOlderTracerTypeThirdBodyIsTheAir) {
  const fc::Mechanism m =
      fc::parse_mechanism(v1_species(R"({"name": "S", "tracer type": "THIRD_BODY"})"), "t.json");
  EXPECT_EQ(m.species[0].constant_source, fc::ConstantSource::third_body);
}

TEST(MechanismConstantSpecies, ContradictoryOrInvalidValuesAreRefused) {
  const auto v1 = [](const std::string& entry) {
    return [entry] { return fc::parse_mechanism(v1_species(entry), "c.json"); };
  };
  expect_rejected(
      v1(R"({"name": "S", "is third body": true, "constant concentration [mol m-3]": 1})"),
      {"c.json", "species", "'S'", "both give the constant species its value"});
  expect_rejected(v1(R"({"name": "S", "constant concentration [mol m-3]": 1,
                         "constant mixing ratio [mol mol-1]": 0.1})"),
                  {"'S'", "both give"});
  expect_rejected(v1(R"({"name": "S", "constant mixing ratio [mol mol-1]": -0.1})"),
                  {"'S'", "constant mixing ratio [mol mol-1]", "negative"});
  expect_rejected(v1(R"({"name": "S", "constant concentration [mol m-3]": "1"})"),
                  {"'S'", "constant concentration [mol m-3]", "finite number"});
  expect_rejected(v1(R"({"name": "S", "is third body": 1})"), {"'S'", "is third body"});
  // YAML's infinities and NaN are numbers to the YAML reader: refused like any other.
  for (const char* value : {".inf", "-.inf", ".nan", "1e999"}) {
    const std::string yaml = std::string(R"(version: "1"
species:
  - name: S
    constant concentration [mol m-3]: )") +
                             value + R"(
  - name: A
phases: [{name: gas, species: [S, A]}]
reactions:
  - {type: ARRHENIUS, gas phase: gas, reactants: [{species name: A}], products: []}
)";
    expect_rejected([&] { return fc::parse_mechanism_yaml(yaml, "c.yaml"); },
                    {"c.yaml", "'S'", "constant concentration [mol m-3]"});
  }
  // Foehn's schema: the kept key on a species that is not constant is a contradiction.
  expect_rejected(
      [] {
        return fc::parse_mechanism(R"({"species": [{"name": "S", "constant": false,
            "__openatmos constant concentration [mol m-3]": 1}], "reactions": []})",
                                   "f.json");
      },
      {"f.json", "'S'", "'constant' is false"});
}
