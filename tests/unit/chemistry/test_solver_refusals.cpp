// "Right or refused": the Rosenbrock solvers either return a state that is finite, not negative
// beyond tolerance and keeps the mechanism's conserved totals, or refuse with foehn::Error
// naming the cell and the species, total or reaction. Checked against independent values: the
// exact solution of A -> 2 B, the quasi-steady asymptote of Robertson in mol m^-3, the conserved
// totals worked out by hand, and randomised mechanisms whose weighted mass every reaction keeps.

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "expect_rejected.hpp"
#include "foehn/chemistry/conservation.hpp"
#include "foehn/chemistry/rosenbrock_solver.hpp"

namespace fc = foehn::chemistry;

namespace {

constexpr fc::RosenbrockMethod all_methods[] = {
    fc::RosenbrockMethod::ros2, fc::RosenbrockMethod::ros3, fc::RosenbrockMethod::rodas3,
    fc::RosenbrockMethod::rodas4};

std::string method_name(fc::RosenbrockMethod method) {
  return std::string(fc::rosenbrock_method_name(method));
}

// A -> 2 B by a photolysis rate jA (molecule cm^-3, atol 1e-3).
fc::Mechanism a_to_2b() {
  return fc::parse_mechanism(
      R"({"name": "a2b", "species": [{"name": "A", "absolute tolerance": 1e-3},
          {"name": "B", "absolute tolerance": 1e-3}],
          "reactions": [{"type": "PHOTOLYSIS", "name": "jA",
          "reactants": [{"species name": "A"}], "products": [{"species name": "B", "yield": 2}]}]})",
      "a2b");
}

std::vector<std::string> totals_of(const fc::Mechanism& m) {
  std::vector<std::string> out;
  for (const fc::ConservedTotal& t : fc::find_conserved_totals(m).totals)
    out.push_back(fc::describe_conserved_total(m, t));
  return out;
}

}  // namespace

TEST(ConservedTotals, FoundExactlyFromTheStoichiometry) {
  EXPECT_EQ(totals_of(a_to_2b()), std::vector<std::string>{"2 A + B"});
  const fc::Mechanism robertson =
      fc::read_mechanism(std::string(FOEHN_MECHANISM_DIR) + "/robertson.json");
  EXPECT_EQ(totals_of(robertson), std::vector<std::string>{"A + B + C"});
  // E5 (Hairer & Wanner II, sec. IV.10): y1 -> y2 + y3, y1 + y3 -> y4, y2 + y3 -> nothing,
  // y4 -> y3 (tests/unit/chemistry/python/e5.json has the rates).
  const fc::Mechanism e5 = fc::parse_mechanism(
      R"({"species": [{"name": "y1"}, {"name": "y2"}, {"name": "y3"}, {"name": "y4"}],
          "reactions": [
          {"type": "ARRHENIUS", "A": 1, "reactants": [{"species name": "y1"}],
           "products": [{"species name": "y2"}, {"species name": "y3"}]},
          {"type": "ARRHENIUS", "A": 1, "reactants": [{"species name": "y1"},
           {"species name": "y3"}], "products": [{"species name": "y4"}]},
          {"type": "ARRHENIUS", "A": 1, "reactants": [{"species name": "y2"},
           {"species name": "y3"}], "products": []},
          {"type": "ARRHENIUS", "A": 1, "reactants": [{"species name": "y4"}],
           "products": [{"species name": "y3"}]}]})",
      "e5");
  EXPECT_EQ(totals_of(e5), std::vector<std::string>{"-y2 + y3 + y4"});
  // Fractional yields as exact ratios; a constant species carries no weight; an emission
  // conserves nothing it produces.
  const fc::Mechanism fractional = fc::parse_mechanism(
      R"({"species": [{"name": "X"}, {"name": "Y"}, {"name": "Z"}, {"name": "M", "constant": true}],
          "reactions": [{"type": "ARRHENIUS", "A": 1, "reactants": [{"species name": "X"},
          {"species name": "M"}], "products": [{"species name": "Y", "yield": 0.4},
          {"species name": "Z", "yield": 0.6}]}]})",
      "fractional");
  const std::vector<std::string> totals = totals_of(fractional);
  ASSERT_EQ(totals.size(), 2u);
  // Every total t satisfies t . S = 0 for the single reaction (X -1, Y +0.4, Z +0.6).
  for (const fc::ConservedTotal& t : fc::find_conserved_totals(fractional).totals) {
    double change = 0.0;
    for (std::size_t j = 0; j < t.species.size(); ++j) {
      EXPECT_NE(t.species[j], 3) << "the constant M has a weight";
      const double net = t.species[j] == 0 ? -1.0 : t.species[j] == 1 ? 0.4 : 0.6;
      change += t.weight[j] * net;
    }
    EXPECT_NEAR(change, 0.0, 1e-14);
  }
  const fc::Mechanism emitted = fc::parse_mechanism(
      R"({"species": [{"name": "A"}, {"name": "B"}], "reactions": [{"type": "EMISSION",
          "name": "eA", "products": [{"species name": "A"}]}, {"type": "ARRHENIUS", "A": 1,
          "reactants": [{"species name": "A"}], "products": [{"species name": "B"}]}]})",
      "emitted");
  EXPECT_TRUE(totals_of(emitted).empty());
  // A yield that is no ratio of small integers: nothing is checked, and the reason says so.
  const fc::Mechanism irrational = fc::parse_mechanism(
      R"({"species": [{"name": "A"}, {"name": "B"}], "reactions": [{"type": "ARRHENIUS",
          "A": 1, "name": "R_pi", "reactants": [{"species name": "A"}],
          "products": [{"species name": "B", "yield": 1.4142135623730951}]}]})",
      "irrational");
  const fc::ConservationAnalysis analysis = fc::find_conserved_totals(irrational);
  EXPECT_TRUE(analysis.totals.empty());
  EXPECT_NE(analysis.not_checked.find("R_pi"), std::string::npos) << analysis.not_checked;
}

// j up to 1e20 s^-1 gives the exact answer (A gone, B = 2 A0 to the tolerance) with every
// method, up to 1e40 with rodas3/rodas4; beyond what a double resolves, or a rate that
// overflows, is refused naming the reaction.
TEST(SolverRefusals, HugeRatesAreRightOrRefusedNamingTheReaction) {
  const fc::Mechanism m = a_to_2b();
  for (fc::RosenbrockMethod method : all_methods) {
    for (double j : {1.0, 1e20, 1e30, 1e40, 1e60, 1e300}) {
      fc::RosenbrockOptions options;
      options.method = method;
      fc::CpuChemistrySolver solver(m, options);
      fc::ChemistryBatch batch = fc::make_batch(m, 1);
      batch.concentrations = {1e10, 0.0};
      batch.external_rates = {j};
      const std::string what = method_name(method) + " j " + std::to_string(j);
      try {
        solver.solve(batch, 40.0);
        const double exact_a = 1e10 * std::exp(-j * 40.0);
        EXPECT_NEAR(batch.concentrations[0], exact_a, 1e-4 * 1e10 + 1e-3) << what;
        EXPECT_NEAR(batch.concentrations[1], 2e10 - 2.0 * exact_a, 1e-4 * 2e10) << what;
        EXPECT_LE(j, 1e40) << what << ": accepted";
      } catch (const foehn::Error& e) {
        // invalid_input when double precision cannot resolve the rate; numerical when the
        // method's error estimate cannot (ros2 and ros3 are not stiffly accurate).
        EXPECT_TRUE(e.category() == foehn::ErrorCategory::invalid_input ||
                    e.category() == foehn::ErrorCategory::numerical)
            << e.what();
        EXPECT_NE(std::string(e.what()).find("'jA'"), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find("cell 0"), std::string::npos) << e.what();
        EXPECT_GE(j, 1e30) << what << ": refused: " << e.what();
      }
    }
  }
}

// Robertson with the classic rates converted to mol m^-3 (k2 = 1.8e25): after the first
// 1e-10 s, B is quasi-steady (k1 A = k3 B C), so dC/dt = k2 (k1 A / (k3 C))^2 and
// C(t)^3 = 3 k2 k1^2 t / k3^2 with A = 1 - C: C(40) = 4.5733e-7. The conserved A + B + C = 1.
TEST(SolverRefusals, RobertsonInMolPerCubicMetreMatchesTheAsymptote) {
  const fc::Mechanism m =
      fc::read_mechanism(std::string(FOEHN_MECHANISM_DIR) + "/openatmos_v1/robertson.json");
  const double k1 = 0.04, k2 = 1.806642228e25, k3 = 6.02214076e21;
  const double c_expected = std::cbrt(3.0 * k2 * k1 * k1 * 40.0 / (k3 * k3));
  for (fc::RosenbrockMethod method : all_methods) {
    fc::RosenbrockOptions options;
    options.method = method;
    fc::CpuChemistrySolver solver(m, options);
    fc::ChemistryBatch batch = fc::make_batch(m, 1);
    batch.concentrations = {1.0, 0.0, 0.0};
    try {
      solver.solve(batch, 40.0);
    } catch (const foehn::Error& e) {
      ADD_FAILURE() << method_name(method) << ": " << e.what();
      continue;
    }
    const std::vector<double>& y = batch.concentrations;
    EXPECT_NEAR(y[2], c_expected, 1e-3 * c_expected) << method_name(method);
    EXPECT_NEAR(y[0] + y[1] + y[2], 1.0, 1e-9) << method_name(method);
  }
}

// The check inside the step code itself: a "conserved" total that the mechanism does not keep
// (A alone, in A -> 2 B) makes the cell fail with conservation_violated naming total 0, and a
// NaN concentration fails as non-finite (what the GPU kernels report per cell as well).
TEST(SolverRefusals, StepCodeReportsTheCulprit) {
  const fc::Mechanism m = a_to_2b();
  fc::RosenbrockOptions options;
  const fc::PreparedMechanism p = fc::prepare_mechanism(m, options);
  const fc::CompiledMechanismView view = p.compiled.view();
  const int a = p.compiled.compiled_index[0];
  const int start[] = {0, 1};
  const int species[] = {a};
  const double weight[] = {1.0};
  fc::CellChecks checks = p.checks();
  checks.conserved_count = 1;
  checks.conserved_start = start;
  checks.conserved_species = species;
  checks.conserved_weight = weight;
  std::vector<double> k = {1.0}, y(2),
                      work(static_cast<std::size_t>(
                          fc::rosenbrock_work_width(view, p.tableau.stages, 1)));
  y[static_cast<std::size_t>(a)] = 1e10;
  fc::CellStatistics stats =
      fc::integrate_cell(view, p.tableau, p.control, checks, 10.0, 0.0, fc::CellSpan<1>{k.data()},
                         fc::CellSpan<1>{y.data()}, fc::CellSpan<1>{work.data()});
  EXPECT_EQ(stats.status, static_cast<int>(fc::CellStatus::conservation_violated));
  EXPECT_EQ(stats.culprit, 0);
  EXPECT_EQ(stats.culprit_before, 1e10);
  EXPECT_LT(stats.culprit_after, 1e6);
  // With the mechanism's own totals the same cell is fine.
  y.assign(2, 0.0);
  y[static_cast<std::size_t>(a)] = 1e10;
  stats = fc::integrate_cell(view, p.tableau, p.control, p.checks(), 10.0, 0.0,
                             fc::CellSpan<1>{k.data()}, fc::CellSpan<1>{y.data()},
                             fc::CellSpan<1>{work.data()});
  EXPECT_EQ(stats.status, 0);
}

// A randomised mechanism in which every reaction keeps the weighted mass sum_s w_s y_s (w_s in
// 1..3): unimolecular splits and bimolecular combinations with rates over 12 decades. Every
// method either keeps the mass to its tolerance with a finite, non-negative state, or refuses.
TEST(SolverRefusals, RandomMechanismsKeepTheirMassOrRefuse) {
  int solved = 0, refused = 0;
  for (unsigned seed = 1; seed <= 12; ++seed) {
    std::mt19937_64 random(seed);
    const int n = 4 + static_cast<int>(random() % 5);
    std::vector<int> mass(static_cast<std::size_t>(n));
    for (int& w : mass) w = 1 + static_cast<int>(random() % 3);
    fc::Mechanism m;
    m.name = "random" + std::to_string(seed);
    for (int s = 0; s < n; ++s) {
      fc::Species species;
      species.name = "S" + std::to_string(s);
      species.absolute_tolerance = 1e-3;
      m.species.push_back(species);
    }
    std::uniform_real_distribution<double> decades(-3.0, 9.0);
    for (int r = 0; r < 3 * n; ++r) {
      fc::Reaction reaction;
      reaction.name = "R" + std::to_string(r);
      reaction.parameters[0] = std::pow(10.0, decades(random));
      reaction.parameters[3] = 300.0;  // Arrhenius D
      const int x = static_cast<int>(random() % n), y = static_cast<int>(random() % n);
      // x + y -> species of the same total mass (a split into units of mass-1 species when one
      // exists, else the heaviest single product that fits, padded with mass-1 species).
      int remaining =
          mass[static_cast<std::size_t>(x)] + (r % 2 == 0 ? mass[static_cast<std::size_t>(y)] : 0);
      if (r % 2 == 0) {
        if (x == y) {
          reaction.reactants.push_back({x, 2.0});
        } else {
          reaction.reactants.push_back({x, 1.0});
          reaction.reactants.push_back({y, 1.0});
        }
        reaction.parameters[0] *= 1e-10;  // per molecule cm^-3 of the partner
      } else {
        reaction.reactants.push_back({x, 1.0});
      }
      for (int attempt = 0; attempt < 40 && remaining > 0; ++attempt) {
        const int p = static_cast<int>(random() % n);
        if (mass[static_cast<std::size_t>(p)] <= remaining && p != x) {
          reaction.products.push_back({p, 1.0});
          remaining -= mass[static_cast<std::size_t>(p)];
        }
      }
      if (remaining != 0) continue;  // no products of that mass: drop the reaction
      m.reactions.push_back(reaction);
    }
    if (m.reactions.empty()) continue;
    for (fc::RosenbrockMethod method : all_methods) {
      for (double rtol : {1e-3, 1e-6}) {
        fc::RosenbrockOptions options;
        options.method = method;
        options.control.relative_tolerance = rtol;
        options.control.max_steps = 20000;
        fc::CpuChemistrySolver solver(m, options);
        fc::ChemistryBatch batch = fc::make_batch(m, 1);
        std::uniform_real_distribution<double> initial(0.0, 1e10);
        double mass_before = 0.0;
        for (int s = 0; s < n; ++s) {
          batch.concentrations[static_cast<std::size_t>(s)] = initial(random);
          mass_before +=
              mass[static_cast<std::size_t>(s)] * batch.concentrations[static_cast<std::size_t>(s)];
        }
        try {
          solver.solve(batch, 3600.0);
        } catch (const foehn::Error&) {
          ++refused;
          continue;
        }
        ++solved;
        double mass_after = 0.0;
        for (int s = 0; s < n; ++s) {
          const double value = batch.concentrations[static_cast<std::size_t>(s)];
          EXPECT_TRUE(std::isfinite(value) && value >= 0.0) << m.name << " S" << s;
          mass_after += mass[static_cast<std::size_t>(s)] * value;
        }
        EXPECT_NEAR(mass_after, mass_before, 10.0 * rtol * mass_before + 1.0)
            << m.name << " " << method_name(method) << " rtol " << rtol;
      }
    }
  }
  std::printf("random mechanisms: %d solves kept the mass, %d refused\n", solved, refused);
  EXPECT_GT(solved, 0);
}

// SURFACE uptake N2O5 -> 2 HNO3 on 1e40 particles m^-3 (k ~ 1e26 s^-1; MUSICA's TS1 box has
// 1e11): the exact answer or a refusal naming the reaction.
TEST(SolverRefusals, HugeSurfaceUptakeIsRightOrRefusedNamingTheReaction) {
  fc::Mechanism m;
  m.name = "uptake";
  m.species = {{"N2O5", 1e-3}, {"HNO3", 1e-3}};
  fc::Reaction uptake;
  uptake.name = "usr_N2O5_aer";
  uptake.type = fc::ReactionType::surface;
  uptake.parameters[0] = 1.0;
  uptake.parameters[1] = 0.02;   // reaction probability
  uptake.parameters[2] = 1e-5;   // diffusion coefficient, m2 s-1
  uptake.parameters[3] = 0.108;  // molecular weight, kg mol-1
  uptake.reactants = {{0, 1.0}};
  uptake.products = {{1, 2.0}};
  uptake.external_rate = 0;
  m.reactions = {uptake};
  m.external_rate_names = {"usr_N2O5_aer.effective_radius",
                           "usr_N2O5_aer.particle_number_concentration"};
  for (fc::RosenbrockMethod method : all_methods) {
    for (double particles : {1e11, 1e30, 1e40, 1e300}) {
      fc::RosenbrockOptions options;
      options.method = method;
      fc::CpuChemistrySolver solver(m, options);
      fc::ChemistryBatch batch = fc::make_batch(m, 1);
      batch.concentrations = {1e10, 0.0};
      batch.external_rates = {2.820947917738780e-8, particles};
      const std::string what = method_name(method) + " N " + std::to_string(particles);
      try {
        solver.solve(batch, 600.0);
        // k = 0.0012 s^-1 at 1e11 particles (MUSICA's TS1 value), proportional to N.
        const double k = 0.0012047148028973113 * particles / 1e11;
        const double exact_a = 1e10 * std::exp(-k * 600.0);
        EXPECT_NEAR(batch.concentrations[0], exact_a, 1e-3 * 1e10) << what;
        EXPECT_NEAR(batch.concentrations[1], 2e10 - 2.0 * exact_a, 1e-3 * 2e10) << what;
      } catch (const foehn::Error& e) {
        EXPECT_NE(std::string(e.what()).find("'usr_N2O5_aer'"), std::string::npos) << e.what();
        EXPECT_GE(particles, 1e30) << what << ": refused: " << e.what();
      }
    }
  }
}
