// The synthetic test case: make_synthetic_mechanism is calibrated against the sparsity of real
// tropospheric mechanisms (CAM trop_mozart: 737 Jacobian nonzeros on 95 species, 87 fill-ins),
// and make_synthetic_batch gives valid, deterministic cells for any mechanism.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "foehn/chemistry/chemistry_batch.hpp"
#include "foehn/chemistry/compiled_mechanism.hpp"
#include "foehn/chemistry/rate_constants.hpp"

namespace fc = foehn::chemistry;

namespace {

fc::Mechanism load(const char* name) { return fc::read_mechanism(std::string(FOEHN_MECHANISM_DIR) + "/" + name); }

bool is_short_lived(const std::string& name) {
  for (const char* r : {"OH", "HO2", "NO3", "XO2", "C2O3"}) {
    if (name == r) return true;
  }
  return name.size() >= 2 && name[0] == 'R' && name.find_first_not_of("0123456789", 1) == std::string::npos;
}

// Sizes and the value checks of validate_batch (which lives in chemistry_batch.cpp).
void expect_valid(const fc::Mechanism& m, const fc::ChemistryBatch& b, std::int64_t cells) {
  const auto n = static_cast<std::size_t>(cells);
  ASSERT_EQ(b.cell_count, cells);
  ASSERT_EQ(b.concentrations.size(), n * m.species.size());
  ASSERT_EQ(b.temperature.size(), n);
  ASSERT_EQ(b.pressure.size(), n);
  ASSERT_EQ(b.external_rates.size(), n * m.external_rate_names.size());
  for (double y : b.concentrations) EXPECT_TRUE(std::isfinite(y) && y > 0.0) << y;
  for (double t : b.temperature) EXPECT_TRUE(t >= 220.0 && t <= 300.0) << t;
  for (double p : b.pressure) EXPECT_TRUE(p >= 20000.0 && p <= 101325.0) << p;
  for (double r : b.external_rates) EXPECT_TRUE(std::isfinite(r) && r >= 0.0) << r;
}

}  // namespace

TEST(SyntheticMechanism, SparsityIsCalibratedToRealMechanisms) {
  for (std::uint64_t seed = 1; seed <= 5; ++seed) {
    const fc::Mechanism m = fc::make_synthetic_mechanism(80, 190, seed);
    ASSERT_EQ(m.species.size(), 80u);
    ASSERT_EQ(m.reactions.size(), 190u);
    const fc::CompiledMechanism c = fc::compile(m);
    // 8-12% of 80^2 (trop_mozart: 8.2%), Markowitz fill-in at most 20% of that (real: 12%).
    EXPECT_GE(c.jacobian_nonzeros, 500) << "seed " << seed;
    EXPECT_LE(c.jacobian_nonzeros, 750) << "seed " << seed;
    EXPECT_LE(c.fill_in * 5, c.jacobian_nonzeros) << "seed " << seed << ": fill-in " << c.fill_in;
    int photolysis = 0, bimolecular = 0, first_order_arrhenius = 0;
    for (const fc::Reaction& r : m.reactions) {
      int order = 0;
      for (const fc::SpeciesAmount& a : r.reactants) order += static_cast<int>(a.amount);
      photolysis += r.type == fc::ReactionType::photolysis;
      bimolecular += order == 2;
      first_order_arrhenius += r.type == fc::ReactionType::arrhenius && order == 1;
    }
    EXPECT_GE(photolysis, 8) << "seed " << seed;   // ~5-8% of 190
    EXPECT_LE(photolysis, 19) << "seed " << seed;
    EXPECT_GE(bimolecular, 140) << "seed " << seed;  // mostly bimolecular
    EXPECT_GE(first_order_arrhenius, 2) << "seed " << seed;  // thermal decompositions
    EXPECT_EQ(static_cast<int>(m.external_rate_names.size()), photolysis);
  }
}

TEST(SyntheticMechanism, HubsReactWithManySpecies) {
  const fc::Mechanism m = fc::make_synthetic_mechanism(80, 190, 1);
  std::vector<int> as_reactant(m.species.size(), 0);
  for (const fc::Reaction& r : m.reactions) {
    for (const fc::SpeciesAmount& a : r.reactants) ++as_reactant[static_cast<std::size_t>(a.species)];
  }
  EXPECT_GE(as_reactant[static_cast<std::size_t>(m.species_index("OH"))], 40);
  for (const char* hub : {"HO2", "NO", "NO2", "O3", "NO3"}) {
    ASSERT_GE(m.species_index(hub), 0) << hub;
    EXPECT_GE(as_reactant[static_cast<std::size_t>(m.species_index(hub))], 3) << hub;
  }
}

TEST(SyntheticMechanism, DeterministicPerSeed) {
  for (std::uint64_t seed : {1u, 2u, 9u}) {
    EXPECT_EQ(fc::mechanism_to_json(fc::make_synthetic_mechanism(80, 190, seed)),
              fc::mechanism_to_json(fc::make_synthetic_mechanism(80, 190, seed)));
  }
  // It is a valid mechanism of the JSON schema (e.g. for foehn-box input files).
  const std::string json = fc::mechanism_to_json(fc::make_synthetic_mechanism(80, 190, 4));
  EXPECT_EQ(fc::mechanism_to_json(fc::parse_mechanism(json, "synthetic.json")), json);
  EXPECT_NE(fc::mechanism_to_json(fc::make_synthetic_mechanism(80, 190, 1)),
            fc::mechanism_to_json(fc::make_synthetic_mechanism(80, 190, 2)));
}

TEST(SyntheticMechanism, EverySpeciesIsAReactantAndYieldsAreBounded) {
  struct Size { int species, reactions; };
  for (const Size size : {Size{80, 190}, Size{40, 95}, Size{20, 50}, Size{4, 10}}) {
    for (std::uint64_t seed = 1; seed <= 5; ++seed) {
      const fc::Mechanism m = fc::make_synthetic_mechanism(size.species, size.reactions, seed);
      ASSERT_EQ(static_cast<int>(m.species.size()), size.species);
      EXPECT_LE(static_cast<int>(m.reactions.size()), size.reactions);
      if (size.species >= 40) {
        EXPECT_EQ(static_cast<int>(m.reactions.size()), size.reactions);
      }
      std::vector<bool> reactant(m.species.size(), false);
      for (const fc::Reaction& r : m.reactions) {
        double order = 0.0, yields = 0.0;
        for (const fc::SpeciesAmount& a : r.reactants) {
          reactant[static_cast<std::size_t>(a.species)] = true;
          order += a.amount;
        }
        for (const fc::SpeciesAmount& a : r.products) {
          EXPECT_GT(a.amount, 0.0);
          yields += a.amount;
        }
        // At most the reactant count plus a radical-production term (photolysis X -> 2 HO2 + ...).
        EXPECT_LE(yields, order + 2.0) << m.equation(r);
      }
      for (std::size_t s = 0; s < m.species.size(); ++s) {
        EXPECT_TRUE(reactant[s]) << size.species << "/" << size.reactions << " seed " << seed << ": "
                                 << m.species[s].name << " is never a reactant";
      }
      EXPECT_NO_THROW((void)fc::compile(m));
    }
  }
}

TEST(SyntheticBatch, SizesRangesAndPhotolysis) {
  const fc::Mechanism m = fc::make_synthetic_mechanism(80, 190, 1);
  const std::int64_t cells = 400;
  const fc::ChemistryBatch b = fc::make_synthetic_batch(m, cells, 3);
  expect_valid(m, b, cells);
  const std::size_t n = m.species.size(), e = m.external_rate_names.size();
  int dark = 0;
  for (std::size_t c = 0; c < static_cast<std::size_t>(cells); ++c) {
    bool all_zero = true;
    for (std::size_t x = 0; x < e; ++x) {
      const double j = b.external_rates[c * e + x];
      EXPECT_LE(j, 1e-2);
      all_zero = all_zero && j == 0.0;
    }
    dark += all_zero;
    for (std::size_t s = 0; s < n; ++s) {
      const double y = b.concentrations[c * n + s];
      if (is_short_lived(m.species[s].name)) {
        EXPECT_TRUE(y >= 1e5 && y <= 1e8) << m.species[s].name << " " << y;
      } else {
        EXPECT_TRUE(y >= 1e9 && y <= 1e12) << m.species[s].name << " " << y;
      }
    }
  }
  EXPECT_GE(dark, 60);  // about a quarter of 400
  EXPECT_LE(dark, 140);
  // One j_max per reaction: j_1 / j_0 is the same in every lit cell.
  double ratio = 0.0;
  for (std::size_t c = 0; c < static_cast<std::size_t>(cells); ++c) {
    if (b.external_rates[c * e] == 0.0) continue;
    const double here = b.external_rates[c * e + 1] / b.external_rates[c * e];
    if (ratio == 0.0) ratio = here;
    EXPECT_NEAR(here, ratio, 1e-12 * ratio) << "cell " << c;
  }
  EXPECT_GT(ratio, 0.0);
  // Warmer cells lower in the column have higher pressure on average.
  double t_low_p = 0.0, t_high_p = 0.0;
  int low = 0, high = 0;
  for (std::size_t c = 0; c < static_cast<std::size_t>(cells); ++c) {
    if (b.pressure[c] < 50000.0) { t_low_p += b.temperature[c]; ++low; } else { t_high_p += b.temperature[c]; ++high; }
  }
  ASSERT_GT(low, 0);
  ASSERT_GT(high, 0);
  EXPECT_LT(t_low_p / low, t_high_p / high);
}

TEST(SyntheticBatch, DeterministicPerSeedAndPerCell) {
  const fc::Mechanism m = fc::make_synthetic_mechanism(80, 190, 2);
  const fc::ChemistryBatch a = fc::make_synthetic_batch(m, 50, 7);
  const fc::ChemistryBatch b = fc::make_synthetic_batch(m, 50, 7);
  EXPECT_EQ(a.concentrations, b.concentrations);
  EXPECT_EQ(a.temperature, b.temperature);
  EXPECT_EQ(a.pressure, b.pressure);
  EXPECT_EQ(a.external_rates, b.external_rates);
  const fc::ChemistryBatch other = fc::make_synthetic_batch(m, 50, 8);
  EXPECT_NE(a.concentrations, other.concentrations);
  EXPECT_NE(a.temperature, other.temperature);
  // A cell's values do not depend on the number of cells.
  const fc::ChemistryBatch first = fc::make_synthetic_batch(m, 13, 7);
  const std::size_t n = m.species.size(), e = m.external_rate_names.size();
  EXPECT_TRUE(std::equal(first.concentrations.begin(), first.concentrations.end(), a.concentrations.begin()));
  EXPECT_TRUE(std::equal(first.external_rates.begin(), first.external_rates.end(), a.external_rates.begin()));
  EXPECT_TRUE(std::equal(first.temperature.begin(), first.temperature.end(), a.temperature.begin()));
  EXPECT_EQ(first.concentrations.size(), 13 * n);
  EXPECT_EQ(first.external_rates.size(), 13 * e);
  EXPECT_EQ(fc::make_synthetic_batch(m, 0, 7).concentrations.size(), 0u);
}

TEST(SyntheticBatch, WorksForShippedMechanisms) {
  for (const char* file : {"robertson.json", "chapman.json", "nox_stratosphere.json", "hires.json", "pollu.json"}) {
    const fc::Mechanism m = load(file);
    const fc::ChemistryBatch b = fc::make_synthetic_batch(m, 20, 4);
    expect_valid(m, b, 20);
    EXPECT_EQ(fc::make_synthetic_batch(m, 20, 4).concentrations, b.concentrations) << file;
  }
  const fc::Mechanism chapman = load("chapman.json");
  const fc::ChemistryBatch b = fc::make_synthetic_batch(chapman, 10, 1);
  const std::size_t n = chapman.species.size();
  const auto m_index = static_cast<std::size_t>(chapman.species_index("M"));
  const auto o2_index = static_cast<std::size_t>(chapman.species_index("O2"));
  for (std::size_t c = 0; c < 10; ++c) {
    const double air = fc::air_number_density(b.temperature[c], b.pressure[c]);
    EXPECT_DOUBLE_EQ(b.concentrations[c * n + m_index], air);  // constant M from T and P
    EXPECT_DOUBLE_EQ(b.concentrations[c * n + o2_index], 0.2095 * air);
  }
}
