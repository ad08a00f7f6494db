// Rate constants against values computed by hand (a separate Python evaluation of the published
// formulas, digits pasted below) at two (T, P) points, through the compiled path a kernel uses.

#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "expect_rejected.hpp"
#include "foehn/chemistry/chemistry_batch.hpp"
#include "foehn/chemistry/compiled_mechanism.hpp"

namespace fc = foehn::chemistry;

namespace {

struct Point {
  double temperature, pressure, air_density, arrhenius, troe, h2o2, oh_hno3;
};
// Arrhenius A=1.2e-11 B=0.7 C=-300 D=298 E=1e-6; Troe NO2+NO3 (JPL: k0 2.4e-30 (T/300)^-3,
// kinf 1.6e-12 (T/300)^0.1, Fc 0.6, N 1); CMAQ_H2O2 2.3e-13 e^(600/T) + 1.7e-33 e^(1000/T) M;
// CMAQ_OH_HNO3 k0 2.4e-14 e^(460/T), k2 2.7e-17 e^(2199/T), k3 6.5e-34 e^(1335/T).
constexpr Point points[] = {
    {250.0, 5000.0, 1.4485941032079839e+18, 3.2121850074196754e-12, 8.504800892097234e-13,
     2.6697845164605e-12, 2.445881622394961e-13},
    {298.15, 101325.0, 2.4614924955148243e+19, 4.833486162588782e-12, 1.3451181660365388e-12,
     2.918212225496727e-12, 1.5409123770452037e-13},
};

void expect_relative(double actual, double expected, double tolerance = 1e-13) {
  EXPECT_LE(std::abs(actual - expected), tolerance * std::abs(expected))
      << actual << " vs " << expected;
}

}  // namespace

TEST(RateConstants, FormulasMatchHandValues) {
  const double arrhenius[fc::max_rate_parameters] = {1.2e-11, 0.7, -300.0, 298.0, 1e-6};
  const double troe[fc::max_rate_parameters] = {2.4e-30, -3.0, 0.0, 1.6e-12, 0.1, 0.0, 0.6, 1.0};
  const double h2o2[fc::max_rate_parameters] = {2.3e-13, 600.0, 1.7e-33, 1000.0};
  const double oh_hno3[fc::max_rate_parameters] = {2.4e-14, 460.0,   2.7e-17,
                                                   2199.0,  6.5e-34, 1335.0};
  for (const Point& p : points) {
    expect_relative(fc::air_number_density(p.temperature, p.pressure), p.air_density);
    const auto rate = [&](fc::ReactionType type, const double* parameters) {
      return fc::rate_constant(static_cast<int>(type), parameters, -1, p.temperature, p.pressure,
                               static_cast<const double*>(nullptr));
    };
    expect_relative(rate(fc::ReactionType::arrhenius, arrhenius), p.arrhenius);
    expect_relative(rate(fc::ReactionType::troe, troe), p.troe);
    expect_relative(rate(fc::ReactionType::cmaq_h2o2, h2o2), p.h2o2);
    expect_relative(rate(fc::ReactionType::cmaq_oh_hno3, oh_hno3), p.oh_hno3);
  }
}

TEST(RateConstants, CompiledMechanismUsesFileParametersAndExternalRates) {
  const fc::Mechanism m =
      fc::read_mechanism(std::string(FOEHN_MECHANISM_DIR) + "/nox_stratosphere.json");
  const fc::CompiledMechanism compiled = fc::compile(m);
  const fc::CompiledMechanismView view = compiled.view();
  std::vector<double> external(m.external_rate_names.size());
  for (std::size_t i = 0; i < external.size(); ++i) external[i] = 1e-3 * static_cast<double>(i + 1);
  std::vector<double> k(m.reactions.size());
  for (const Point& p : points) {
    fc::compute_rate_constants(view, p.temperature, p.pressure, external.data(), k.data());
    expect_relative(k[5], p.troe);                                       // NO2 + NO3 + M
    expect_relative(k[9], p.oh_hno3);                                    // OH + HNO3
    expect_relative(k[10], p.h2o2);                                      // HO2 + HO2
    expect_relative(k[0], 3.0e-12 * std::exp(-1500.0 / p.temperature));  // NO + O3, B=0 D=300 E=0
    expect_relative(k[11], 6.0e-34 * std::pow(p.temperature / 300.0, -2.4));
    for (std::size_t r = 0; r < m.reactions.size(); ++r) {
      if (m.reactions[r].external_rate >= 0) {
        EXPECT_EQ(k[r], external[static_cast<std::size_t>(m.reactions[r].external_rate)])
            << m.reactions[r].name;
      }
    }
  }
}

// An overflowing parameter or intermediate is +inf (reported), never a plausible rate: k0 M of a
// TERNARY_CHEMICAL_ACTIVATION with k0_A 1e308 used to give k0 / (1 + inf) = 0 silently.
TEST(RateConstants, OverflowingIntermediatesAreNotFinite) {
  struct Case {
    fc::ReactionType type;
    std::vector<double> parameters;
    const char* what;
  };
  const std::vector<Case> cases = {
      {fc::ReactionType::arrhenius, {1e300, 0, 1e5, 300, 0}, "A exp(C/T) overflows"},
      {fc::ReactionType::arrhenius, {1e-300, 0, 1e6, 300, 0}, "exp(C/T) alone overflows"},
      {fc::ReactionType::arrhenius, {1, 400, 0, 1e-3, 0}, "(T/D)^B overflows"},
      {fc::ReactionType::arrhenius, {1e300, 0, 0, 300, 1e300}, "1 + E P overflows"},
      {fc::ReactionType::troe, {1e308, 0, 0, 1, 0, 0, 0.6, 1}, "k0 M overflows"},
      {fc::ReactionType::troe, {1, 0, 0, 1e-300, 0, 1e6, 0.6, 1}, "kinf's exp overflows"},
      {fc::ReactionType::ternary_chemical_activation, {1e308, 0, 0, 1, 0, 0, 0.6, 1}, "k0 M"},
      {fc::ReactionType::ternary_chemical_activation, {1, 0, 1e6, 1, 0, 0, 0.6, 1}, "k0's exp"},
      {fc::ReactionType::ternary_chemical_activation_jpl19,
       {1e308, 0, 0, 298, 1, 0, 0, 298, 1, 0, 0, 298, 0.6, 1},
       "k0 M"},
      {fc::ReactionType::ternary_chemical_activation_jpl19,
       {1, 0, 0, 298, 1, 0, 0, 298, 1e300, 0, 1e5, 298, 0.6, 1},
       "kint overflows"},
      {fc::ReactionType::cmaq_h2o2, {1, 0, 1e308, 0}, "k2 M overflows"},
      {fc::ReactionType::cmaq_oh_hno3, {1, 0, 1, 0, 1e308, 0}, "k3 M overflows"},
      {fc::ReactionType::cmaq_oh_hno3, {1e300, 1e5, 1, 0, 1, 0}, "k0 overflows"},
  };
  for (const Case& c : cases) {
    double p[fc::max_rate_parameters] = {};
    for (std::size_t i = 0; i < c.parameters.size(); ++i) p[i] = c.parameters[i];
    for (const Point& point : points) {
      const double k = fc::rate_constant(static_cast<int>(c.type), p, -1, point.temperature,
                                         point.pressure, static_cast<const double*>(nullptr));
      EXPECT_FALSE(std::isfinite(k))
          << fc::reaction_type_name(c.type) << ": " << c.what << " -> " << k;
    }
  }
  // SURFACE: a radius or number concentration that overflows the area; an external rate times a
  // scaling factor that overflows.
  const double surface[fc::max_rate_parameters] = {1.0, 0.02, 1e-5, 0.108};
  const double huge_aerosol[] = {1e200, 1e11};
  EXPECT_FALSE(std::isfinite(fc::rate_constant(static_cast<int>(fc::ReactionType::surface), surface,
                                               0, 250.0, 5000.0, huge_aerosol)));
  const double scaled[fc::max_rate_parameters] = {1e300};
  const double per_cell[] = {1e300};
  EXPECT_FALSE(std::isfinite(fc::rate_constant(static_cast<int>(fc::ReactionType::photolysis),
                                               scaled, 0, 250.0, 5000.0, per_cell)));
  // Underflow is no overflow: a k0 that underflows towards 0 stays a finite rate (no false alarm).
  const double tiny[fc::max_rate_parameters] = {1e-300, 0, -1e4, 1, 0, 0, 0.6, 1};
  const double k_tiny =
      fc::rate_constant(static_cast<int>(fc::ReactionType::ternary_chemical_activation), tiny, -1,
                        250.0, 5000.0, static_cast<const double*>(nullptr));
  EXPECT_TRUE(std::isfinite(k_tiny) && k_tiny >= 0.0 && k_tiny < 1e-300) << k_tiny;
}

// The issue's file: MICM's TERNARY_CHEMICAL_ACTIVATION with k0_A 1e308 loads (a finite number),
// and at the run's conditions its rate is an error naming the reaction and the conditions; a
// kernel sees the reaction's index.
TEST(RateConstants, AnOverflowingReactionIsNamedWithItsConditions) {
  const fc::Mechanism m = fc::parse_mechanism_yaml(R"(version: 1.0.0
name: overflow
species: [{name: A}, {name: B}]
phases: [{name: gas, species: [A, B]}]
reactions:
  - type: ARRHENIUS
    gas phase: gas
    name: fine
    reactants: [{species name: A}]
    products: [{species name: B}]
    A: 1.0e-3
  - type: TERNARY_CHEMICAL_ACTIVATION
    gas phase: gas
    name: huge k0
    reactants: [{species name: A}, {species name: B}]
    products: [{species name: B}]
    k0_A: 1e308
    kinf_A: 1.0e-11
)",
                                                   "overflow.yaml");
  fc::ChemistryBatch batch = fc::make_batch(m, 2);
  batch.temperature[1] = 250.0;
  batch.pressure[1] = 5000.0;
  EXPECT_TRUE(std::isinf(
      fc::reaction_rate_constant(m.reactions[1], m.concentration_unit, 250.0, 5000.0, nullptr)));
  foehn::testing::expect_rejected(
      [&] {
        fc::check_rate_constants(m, batch, 1, 1);
        return 0;
      },
      {"reaction 1 ('huge k0') [A + B -> B] is inf in cell 1 (T 250 K, P 5000 Pa)",
       "TERNARY_CHEMICAL_ACTIVATION parameters overflow"});
  const fc::CompiledMechanism compiled = fc::compile(m, fc::SpeciesOrdering::natural);
  std::vector<double> k(2);
  EXPECT_EQ(fc::compute_rate_constants(compiled.view(), 250.0, 5000.0,
                                       static_cast<const double*>(nullptr), k.data()),
            1);
  EXPECT_TRUE(std::isfinite(k[0]));
}
