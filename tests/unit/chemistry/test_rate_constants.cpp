// Rate constants against values computed by hand (a separate Python evaluation of the published
// formulas, digits pasted below) at two (T, P) points, through the compiled path a kernel uses.

#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

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
  EXPECT_LE(std::abs(actual - expected), tolerance * std::abs(expected)) << actual << " vs " << expected;
}

}  // namespace

TEST(RateConstants, FormulasMatchHandValues) {
  const double arrhenius[fc::max_rate_parameters] = {1.2e-11, 0.7, -300.0, 298.0, 1e-6};
  const double troe[fc::max_rate_parameters] = {2.4e-30, -3.0, 0.0, 1.6e-12, 0.1, 0.0, 0.6, 1.0};
  const double h2o2[fc::max_rate_parameters] = {2.3e-13, 600.0, 1.7e-33, 1000.0};
  const double oh_hno3[fc::max_rate_parameters] = {2.4e-14, 460.0, 2.7e-17, 2199.0, 6.5e-34, 1335.0};
  for (const Point& p : points) {
    expect_relative(fc::air_number_density(p.temperature, p.pressure), p.air_density);
    const auto rate = [&](fc::ReactionType type, const double* parameters) {
      return fc::rate_constant(static_cast<int>(type), parameters, -1, p.temperature, p.pressure, static_cast<const double*>(nullptr));
    };
    expect_relative(rate(fc::ReactionType::arrhenius, arrhenius), p.arrhenius);
    expect_relative(rate(fc::ReactionType::troe, troe), p.troe);
    expect_relative(rate(fc::ReactionType::cmaq_h2o2, h2o2), p.h2o2);
    expect_relative(rate(fc::ReactionType::cmaq_oh_hno3, oh_hno3), p.oh_hno3);
  }
}

TEST(RateConstants, CompiledMechanismUsesFileParametersAndExternalRates) {
  const fc::Mechanism m = fc::read_mechanism(std::string(FOEHN_MECHANISM_DIR) + "/nox_stratosphere.json");
  const fc::CompiledMechanism compiled = fc::compile(m);
  const fc::CompiledMechanismView view = compiled.view();
  std::vector<double> external(m.external_rate_names.size());
  for (std::size_t i = 0; i < external.size(); ++i) external[i] = 1e-3 * static_cast<double>(i + 1);
  std::vector<double> k(m.reactions.size());
  for (const Point& p : points) {
    fc::compute_rate_constants(view, p.temperature, p.pressure, external.data(), k.data());
    expect_relative(k[5], p.troe);      // NO2 + NO3 + M
    expect_relative(k[9], p.oh_hno3);   // OH + HNO3
    expect_relative(k[10], p.h2o2);     // HO2 + HO2
    expect_relative(k[0], 3.0e-12 * std::exp(-1500.0 / p.temperature));  // NO + O3, B=0 D=300 E=0
    expect_relative(k[11], 6.0e-34 * std::pow(p.temperature / 300.0, -2.4));
    for (std::size_t r = 0; r < m.reactions.size(); ++r) {
      if (m.reactions[r].external_rate >= 0) {
        EXPECT_EQ(k[r], external[static_cast<std::size_t>(m.reactions[r].external_rate)]) << m.reactions[r].name;
      }
    }
  }
}
