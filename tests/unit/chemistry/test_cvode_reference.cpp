// CVODE reference integrator against closed forms and published values (first-order decay,
// Robertson at t = 40 from Hairer & Wanner), its input checks and error reporting, and the
// comparison helpers on hand-computed data.

#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <functional>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "foehn/chemistry/chemistry_batch.hpp"
#include "foehn/chemistry/comparison.hpp"
#include "foehn/chemistry/compiled_mechanism.hpp"
#include "foehn/chemistry/cvode_reference.hpp"
#include "foehn/runtime/error.hpp"

namespace fc = foehn::chemistry;
using Vector = std::vector<double>;

namespace {

fc::Mechanism load(const char* name) { return fc::read_mechanism(std::string(FOEHN_MECHANISM_DIR) + "/" + name); }

// Arrhenius parameters for a temperature-independent k: A = k, B = C = E = 0, D = 300.
std::array<double, fc::max_rate_parameters> constant_rate(double k) { return {k, 0.0, 0.0, 300.0, 0.0}; }

// A -> B with k = 0.5 s^-1.
fc::Mechanism first_order_decay() {
  fc::Mechanism m;
  m.name = "first order decay";
  m.species = {{"A"}, {"B"}};
  fc::Reaction r;
  r.name = "R1";
  r.parameters = constant_rate(0.5);
  r.reactants = {{0, 1.0}};
  r.products = {{1, 1.0}};
  m.reactions = {r};
  return m;
}

// A + M -> B with M a constant bath species (listed first so that mechanism and compiled order
// can differ), k = 1e-3 cm^3 s^-1: with M = 100 the decay of A is first order with rate 0.1.
fc::Mechanism bath_decay() {
  fc::Mechanism m;
  m.name = "bath decay";
  m.species = {{"M", 1.0e-12, true}, {"A"}, {"B"}};
  fc::Reaction r;
  r.name = "R1";
  r.parameters = constant_rate(1.0e-3);
  r.reactants = {{1, 1.0}, {0, 1.0}};
  r.products = {{2, 1.0}};
  m.reactions = {r};
  return m;
}

fc::CvodeOptions tight_options(bool sparse_klu, double rtol, double atol, int species) {
  fc::CvodeOptions options;
  options.relative_tolerance = rtol;
  options.absolute_tolerance.assign(static_cast<std::size_t>(species), atol);
  options.sparse_klu = sparse_klu;
  return options;
}

void expect_relative(double actual, double expected, double tolerance, const std::string& what) {
  EXPECT_LE(std::abs(actual - expected), tolerance * std::abs(expected))
      << what << ": " << actual << " vs " << expected;
}

// Runs `action`, expects a foehn::Error of `category` whose message contains every part.
void expect_error(const std::function<void()>& action, foehn::ErrorCategory category,
                  const std::vector<std::string>& parts) {
  try {
    action();
    ADD_FAILURE() << "no foehn::Error thrown";
  } catch (const foehn::Error& error) {
    EXPECT_EQ(error.category(), category) << error.what();
    for (const std::string& part : parts) {
      EXPECT_NE(std::string(error.what()).find(part), std::string::npos)
          << "message lacks '" << part << "': " << error.what();
    }
  }
}

}  // namespace

TEST(CvodeReference, FirstOrderDecayMatchesExponential) {
  const fc::Mechanism mechanism = first_order_decay();
  const fc::CompiledMechanism compiled = fc::compile(mechanism);
  for (const bool klu : {true, false}) {
    fc::CvodeReferenceSolver solver(mechanism, compiled, tight_options(klu, 1e-8, 1e-14, 2));
    const Vector k{0.5};
    for (const double duration : {0.1, 1.0, 3.0, 10.0}) {
      Vector y(2);
      y[static_cast<std::size_t>(compiled.compiled_index[0])] = 1.0;
      const fc::CvodeStatistics stats = solver.integrate_cell(k.data(), y.data(), duration);
      const double a = y[static_cast<std::size_t>(compiled.compiled_index[0])];
      const double b = y[static_cast<std::size_t>(compiled.compiled_index[1])];
      const std::string what = std::string(klu ? "KLU" : "dense") + " t=" + std::to_string(duration);
      expect_relative(a, std::exp(-0.5 * duration), 1e-6, what + " A");
      expect_relative(b, 1.0 - std::exp(-0.5 * duration), 1e-6, what + " B");
      EXPECT_GT(stats.steps, 0) << what;
      EXPECT_GT(stats.rhs_evaluations, 0) << what;
      EXPECT_GT(stats.jacobian_evaluations, 0) << what;
    }
  }
}

TEST(CvodeReference, ReusedSolverRepeatsItselfAndZeroDurationIsIdentity) {
  const fc::Mechanism mechanism = first_order_decay();
  const fc::CompiledMechanism compiled = fc::compile(mechanism);
  fc::CvodeReferenceSolver solver(mechanism, compiled, tight_options(true, 1e-6, 1e-12, 2));
  const Vector k{0.5};
  Vector first{1.0, 0.0}, second{1.0, 0.0};
  const fc::CvodeStatistics a = solver.integrate_cell(k.data(), first.data(), 2.0);
  const fc::CvodeStatistics b = solver.integrate_cell(k.data(), second.data(), 2.0);
  EXPECT_EQ(first, second);  // CVodeReInit restarts from scratch: same steps, same result
  EXPECT_EQ(a.steps, b.steps);

  Vector unchanged{0.3, 0.7};
  const fc::CvodeStatistics none = solver.integrate_cell(k.data(), unchanged.data(), 0.0);
  EXPECT_EQ(unchanged, (Vector{0.3, 0.7}));
  EXPECT_EQ(none.steps, 0);

  fc::CvodeReferenceSolver moved = std::move(solver);
  Vector third{1.0, 0.0};
  moved.integrate_cell(k.data(), third.data(), 2.0);
  EXPECT_EQ(third, first);
}

TEST(CvodeReference, BatchUsesMechanismOrderAndKeepsConstantSpecies) {
  const fc::Mechanism mechanism = bath_decay();
  const fc::CompiledMechanism compiled = fc::compile(mechanism);
  for (const bool klu : {true, false}) {
    fc::CvodeReferenceSolver solver(mechanism, compiled, tight_options(klu, 1e-9, 1e-14, 3));
    fc::ChemistryBatch batch = fc::make_batch(mechanism, 3);
    for (std::size_t cell = 0; cell < 3; ++cell) {
      batch.concentrations[cell * 3 + 0] = 100.0;                             // M
      batch.concentrations[cell * 3 + 1] = static_cast<double>(cell + 1);    // A
    }
    const fc::CvodeStatistics stats = solver.integrate_batch(batch, 5.0);
    EXPECT_GT(stats.steps, 3);
    const double decay = std::exp(-0.1 * 5.0);
    for (std::size_t cell = 0; cell < 3; ++cell) {
      const double a0 = static_cast<double>(cell + 1);
      const std::string what = std::string(klu ? "KLU" : "dense") + " cell " + std::to_string(cell);
      EXPECT_EQ(batch.concentrations[cell * 3 + 0], 100.0) << what;
      expect_relative(batch.concentrations[cell * 3 + 1], a0 * decay, 1e-6, what + " A");
      expect_relative(batch.concentrations[cell * 3 + 2], a0 * (1.0 - decay), 1e-6, what + " B");
    }
  }
}

TEST(CvodeReference, RobertsonMatchesHairerWannerAtT40) {
  const fc::Mechanism mechanism = load("robertson.json");
  const fc::CompiledMechanism compiled = fc::compile(mechanism);
  const Vector published{0.7158270687193195, 9.185534764557910e-6, 0.2841637457458498};
  for (const bool klu : {true, false}) {
    fc::CvodeReferenceSolver solver(mechanism, compiled, tight_options(klu, 1e-10, 1e-14, 3));
    fc::ChemistryBatch batch = fc::make_batch(mechanism, 1);
    batch.concentrations = {1.0, 0.0, 0.0};
    const fc::CvodeStatistics stats = solver.integrate_batch(batch, 40.0);
    for (std::size_t s = 0; s < 3; ++s) {
      expect_relative(batch.concentrations[s], published[s], 1e-5,
                      std::string(klu ? "KLU " : "dense ") + mechanism.species[s].name);
    }
    EXPECT_GT(stats.steps, 50);  // stiff: many steps at rtol 1e-10, but far below max_steps
    EXPECT_GT(stats.linear_setups, 0);
  }
}

TEST(CvodeReference, RejectsInvalidInputWithClearMessages) {
  const fc::Mechanism mechanism = load("robertson.json");
  const fc::CompiledMechanism compiled = fc::compile(mechanism);
  fc::CvodeReferenceSolver solver(mechanism, compiled, {});
  const Vector k{0.04, 3e7, 1e4};
  Vector y{1.0, 0.0, 0.0};
  const auto invalid = foehn::ErrorCategory::invalid_input;

  expect_error([&] { solver.integrate_cell(k.data(), y.data(), -1.0); }, invalid, {"duration", "-1", "robertson"});
  expect_error([&] { solver.integrate_cell(k.data(), y.data(), std::nan("")); }, invalid, {"duration"});
  Vector nan_y{1.0, std::numeric_limits<double>::quiet_NaN(), 0.0};
  expect_error([&] { solver.integrate_cell(k.data(), nan_y.data(), 1.0); }, invalid, {"concentration", "nan"});
  Vector inf_k{0.04, std::numeric_limits<double>::infinity(), 1e4};
  expect_error([&] { solver.integrate_cell(inf_k.data(), y.data(), 1.0); }, invalid, {"rate constant", "R2"});
  expect_error([&] { solver.integrate_cell(nullptr, y.data(), 1.0); }, invalid, {"null"});

  fc::ChemistryBatch batch = fc::make_batch(mechanism, 2);
  batch.concentrations[3] = 1.0;
  expect_error([&] { solver.integrate_batch(batch, -5.0); }, invalid, {"duration", "2 cells"});
  fc::ChemistryBatch nan_batch = batch;
  nan_batch.concentrations[4] = std::numeric_limits<double>::quiet_NaN();
  expect_error([&] { solver.integrate_batch(nan_batch, 1.0); }, invalid, {"cell 1", "'B'"});
  fc::ChemistryBatch short_batch = batch;
  short_batch.concentrations.pop_back();
  expect_error([&] { solver.integrate_batch(short_batch, 1.0); }, invalid, {"concentrations", "5"});

  expect_error([&] { fc::CvodeReferenceSolver(mechanism, compiled, tight_options(true, 1e-6, 1e-12, 2)); },
               invalid, {"2 absolute tolerances", "3 species"});
  expect_error([&] { fc::CvodeReferenceSolver(mechanism, compiled, tight_options(true, 1e-6, 0.0, 3)); },
               invalid, {"absolute tolerance", "must be positive"});
  expect_error([&] { fc::CvodeReferenceSolver(mechanism, compiled, tight_options(true, -1.0, 1e-12, 3)); },
               invalid, {"relative tolerance"});
  const fc::CompiledMechanism other = fc::compile(first_order_decay());
  expect_error([&] { fc::CvodeReferenceSolver(mechanism, other, {}); }, invalid, {"does not belong", "robertson"});
}

TEST(CvodeReference, ReportsSolverFailureWithCellAndFlag) {
  const fc::Mechanism mechanism = load("robertson.json");
  const fc::CompiledMechanism compiled = fc::compile(mechanism);
  fc::CvodeOptions options = tight_options(true, 1e-10, 1e-14, 3);
  options.max_steps = 5;
  fc::CvodeReferenceSolver solver(mechanism, compiled, options);
  fc::ChemistryBatch batch = fc::make_batch(mechanism, 2);
  batch.concentrations = {1.0, 0.0, 0.0, 1.0, 0.0, 0.0};
  expect_error([&] { solver.integrate_batch(batch, 40.0); }, foehn::ErrorCategory::numerical,
               {"CV_TOO_MUCH_WORK", "cell 0", "3 species", "KLU"});
}

TEST(ChemistryComparison, SpeciesNrmseOnHandComputedData) {
  // [cell][species]: species 0 varies (range 2), species 1 is constant 5 (scale max|x| = 5),
  // species 2 is 0 everywhere (left out).
  const Vector reference{1.0, 5.0, 0.0, 2.0, 5.0, 0.0, 3.0, 5.0, 0.0};
  const Vector candidate{1.0, 5.5, 0.0, 2.5, 5.0, 1.0, 2.5, 4.0, 0.0};
  const std::vector<fc::SpeciesError> errors = fc::species_nrmse(reference, candidate, 3, 3);
  ASSERT_EQ(errors.size(), 2u);
  EXPECT_EQ(errors[0].species, 0);
  EXPECT_NEAR(errors[0].nrmse, std::sqrt(0.5 / 3.0) / 2.0, 1e-15);
  EXPECT_NEAR(errors[0].max_relative, 0.25, 1e-15);
  EXPECT_EQ(errors[1].species, 1);
  EXPECT_NEAR(errors[1].nrmse, std::sqrt(1.25 / 3.0) / 5.0, 1e-15);
  EXPECT_NEAR(errors[1].max_relative, 0.2, 1e-15);
  EXPECT_EQ(fc::worst_species(errors).species, 0);
  EXPECT_EQ(fc::worst_species({}).species, -1);

  EXPECT_EQ(fc::max_relative_error(reference, candidate, 0.0), std::numeric_limits<double>::infinity());
  EXPECT_NEAR(fc::max_relative_error(reference, candidate, 10.0), 0.1, 1e-15);
  EXPECT_EQ(fc::max_relative_error(reference, reference, 0.0), 0.0);

  Vector broken = candidate;
  broken[4] = std::numeric_limits<double>::quiet_NaN();
  const std::vector<fc::SpeciesError> with_nan = fc::species_nrmse(reference, broken, 3, 3);
  EXPECT_EQ(fc::worst_species(with_nan).species, 1);
  EXPECT_TRUE(std::isnan(fc::max_relative_error(reference, broken, 1.0)));

  expect_error([&] { (void)fc::species_nrmse(reference, Vector(8), 3, 3); }, foehn::ErrorCategory::invalid_input,
               {"9", "3 cells x 3 species"});
  expect_error([&] { (void)fc::max_relative_error(reference, Vector(8), 0.0); },
               foehn::ErrorCategory::invalid_input, {"8"});
}
