// The CPU Rosenbrock solver: exact solutions (linear decay, 2A -> B), observed orders of the four
// methods at fixed steps, Robertson against Hairer & Wanner, independent per-cell step control,
// layouts (the GPU's storage) bitwise equal to the reference, failures and bad options.

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "../../support/error_category.hpp"
#include "foehn/chemistry/cell_storage.hpp"
#include "foehn/chemistry/rosenbrock_solver.hpp"
#include "foehn/runtime/error.hpp"

namespace fc = foehn::chemistry;

namespace {

constexpr fc::RosenbrockMethod all_methods[] = {
    fc::RosenbrockMethod::ros2, fc::RosenbrockMethod::ros3, fc::RosenbrockMethod::rodas3,
    fc::RosenbrockMethod::rodas4};

fc::Mechanism load(const char* name) {
  return fc::read_mechanism(std::string(FOEHN_MECHANISM_DIR) + "/" + name);
}

fc::Mechanism parse(const std::string& reactions) {
  return fc::parse_mechanism(
      R"({"species": [{"name": "A"}, {"name": "B"}], "reactions": [)" + reactions + "]}", "test");
}

// A -> B with k = 0.5 s^-1.
fc::Mechanism decay() {
  return parse(
      R"({"type": "ARRHENIUS", "reactants": [{"species name": "A"}], "products": [{"species name": "B"}], "A": 0.5})");
}

fc::RosenbrockOptions tight(fc::RosenbrockMethod method, double rtol) {
  fc::RosenbrockOptions options;
  options.method = method;
  options.control.relative_tolerance = rtol;
  options.control.max_steps = 1000000;
  return options;
}

template <class Action>
std::string message_of(Action action) {
  try {
    action();
  } catch (const foehn::Error& e) {
    return e.what();
  }
  ADD_FAILURE() << "no foehn::Error thrown";
  return {};
}

fc::ChemistryBatch single_cell(const fc::Mechanism& m, std::vector<double> y) {
  fc::ChemistryBatch batch = fc::make_batch(m, 1);
  batch.concentrations = std::move(y);
  return batch;
}

}  // namespace

TEST(RosenbrockSolver, LinearDecayMatchesTheExponentialAndConservesMass) {
  fc::Mechanism m = decay();
  for (auto& s : m.species) s.absolute_tolerance = 1e-14;
  for (fc::RosenbrockMethod method : all_methods) {
    fc::CpuChemistrySolver solver(m, tight(method, 1e-8));
    fc::ChemistryBatch batch = single_cell(m, {1.0, 0.0});
    const fc::ChemistryStepReport report = solver.solve(batch, 4.0);
    const double exact = std::exp(-0.5 * 4.0);
    EXPECT_NEAR(batch.concentrations[0], exact, 1e-6 * exact) << fc::rosenbrock_method_name(method);
    EXPECT_NEAR(batch.concentrations[0] + batch.concentrations[1], 1.0, 1e-13)
        << "linear invariant (rounding only)";
    EXPECT_EQ(report.failed_cells, 0);
    EXPECT_GT(report.accepted, 3);
  }
}

// Fixed steps (min_step = max_step = h, a tolerance no error exceeds): the error of A -> B,
// 2B -> C (not a Riccati equation, which some methods integrate exactly) at t = 1 against a tight
// adaptive RODAS4 run must fall at least as h^p.
TEST(RosenbrockSolver, ObservedOrdersAtFixedSteps) {
  const fc::Mechanism m = fc::parse_mechanism(
      R"({"species": [{"name": "A"}, {"name": "B"}, {"name": "C"}], "reactions": [
          {"type": "ARRHENIUS", "reactants": [{"species name": "A"}], "products": [{"species name": "B"}], "A": 1.0},
          {"type": "ARRHENIUS", "reactants": [{"species name": "B", "coefficient": 2}],
           "products": [{"species name": "C"}], "A": 1.0}]})",
      "chain");
  fc::RosenbrockOptions reference_options = tight(fc::RosenbrockMethod::rodas4, 1e-14);
  reference_options.absolute_tolerance = {1e-16, 1e-16, 1e-16};
  fc::ChemistryBatch reference = single_cell(m, {1.0, 0.0, 0.0});
  fc::CpuChemistrySolver(m, reference_options).solve(reference, 1.0);
  const int expected_order[] = {2, 3, 3, 4};
  int index = 0;
  for (fc::RosenbrockMethod method : all_methods) {
    std::vector<double> errors;
    for (double h : {1.0 / 32, 1.0 / 64, 1.0 / 128}) {
      fc::RosenbrockOptions options;
      options.method = method;
      options.control.relative_tolerance = 1e30;
      options.control.min_step = options.control.max_step = options.control.initial_step = h;
      fc::CpuChemistrySolver solver(m, options);
      fc::ChemistryBatch batch = single_cell(m, {1.0, 0.0, 0.0});
      const fc::ChemistryStepReport report = solver.solve(batch, 1.0);
      EXPECT_EQ(report.accepted, std::llround(1.0 / h));
      EXPECT_EQ(report.rejected, 0);
      errors.push_back(std::abs(batch.concentrations[1] - reference.concentrations[1]));
    }
    // At least the method's order (RODAS4 converges faster than h^4 on this problem at these h).
    const double order = std::log2(errors[0] / errors[1]);
    EXPECT_GE(order, expected_order[index] - 0.3)
        << fc::rosenbrock_method_name(method) << " errors " << errors[0] << " " << errors[1] << " "
        << errors[2];
    ++index;
  }
}

// Hairer & Wanner II, sec. IV.10 (values at t = 40 to 16 digits).
TEST(RosenbrockSolver, RobertsonAtFortySeconds) {
  fc::Mechanism m = load("robertson.json");
  for (auto& s : m.species) s.absolute_tolerance = 1e-14;
  const double reference[] = {0.7158270687193195, 9.185534764557910e-6, 0.2841637457458498};
  for (fc::RosenbrockMethod method : all_methods) {
    fc::RosenbrockOptions options;
    options.method = method;
    options.control.relative_tolerance = method == fc::RosenbrockMethod::ros2 ? 1e-7 : 1e-9;
    options.control.max_steps = 1000000;
    options.control.initial_step = 1e-6;
    fc::CpuChemistrySolver solver(m, options);
    fc::ChemistryBatch batch = single_cell(m, {1.0, 0.0, 0.0});
    solver.solve(batch, 40.0);
    for (int i = 0; i < 3; ++i) {
      EXPECT_NEAR(batch.concentrations[i], reference[i], 2e-5 * reference[i])
          << fc::rosenbrock_method_name(method) << " species " << i;
    }
  }
}

// A cell's steps depend on that cell only: solving an easy cell next to a very stiff one gives
// bitwise the answer (and the statistics) of solving it alone.
TEST(RosenbrockSolver, EveryCellHasItsOwnStepControl) {
  const fc::Mechanism m = load("robertson.json");
  fc::CpuChemistrySolver solver(m, {});
  fc::ChemistryBatch pair = fc::make_batch(m, 2);
  pair.concentrations = {1e-6, 0.0, 0.0, 1.0, 0.0, 0.0};  // cell 0 nearly inert, cell 1 stiff
  fc::ChemistryBatch alone = fc::make_batch(m, 1);
  alone.concentrations = {1e-6, 0.0, 0.0};
  solver.solve(pair, 10.0);
  const std::vector<fc::CellStatistics> pair_stats = solver.cell_statistics();
  fc::CpuChemistrySolver solver_alone(m, {});
  solver_alone.solve(alone, 10.0);
  for (int i = 0; i < 3; ++i) EXPECT_EQ(pair.concentrations[i], alone.concentrations[i]);
  EXPECT_EQ(pair_stats[0].accepted, solver_alone.cell_statistics()[0].accepted);
  EXPECT_LT(pair_stats[0].accepted + pair_stats[0].rejected,
            pair_stats[1].accepted + pair_stats[1].rejected);
}

// The next chemistry step starts from the step a cell ended with, not from initial_step.
TEST(RosenbrockSolver, StepsCarryOverBetweenChemistrySteps) {
  const fc::Mechanism m = load("robertson.json");
  fc::RosenbrockOptions options;
  options.control.initial_step = 1e-8;
  fc::CpuChemistrySolver solver(m, options);
  fc::ChemistryBatch batch = single_cell(m, {1.0, 0.0, 0.0});
  const fc::ChemistryStepReport first = solver.solve(batch, 100.0);
  const double carried = solver.cell_statistics()[0].next_step;
  EXPECT_GT(carried, 1.0);
  const fc::ChemistryStepReport second = solver.solve(batch, 100.0);
  EXPECT_LT(second.accepted, first.accepted);
}

// The storage layouts the GPU uses, driven on the host by the same per-cell code: bitwise the
// reference solver's result for every layout.
TEST(RosenbrockSolver, LayoutsGiveBitwiseTheReferenceResult) {
  const fc::Mechanism m = fc::make_synthetic_mechanism(40, 95, 3);
  const std::int64_t cells = 37;  // not a multiple of the interleaving block
  fc::ChemistryBatch batch = fc::make_synthetic_batch(m, cells, 5);
  fc::RosenbrockOptions options;
  options.absolute_tolerance.assign(m.species.size(), 1e-3);
  fc::CpuChemistrySolver reference(m, options);
  fc::ChemistryBatch expected = batch;
  reference.solve(expected, 120.0);
  const fc::PreparedMechanism& p = reference.prepared();
  const fc::CompiledMechanismView view = p.compiled.view();
  const int n = view.species_count;
  const int ext = std::max(view.external_rate_count, 1);

  auto run = [&](auto layout) {
    using Layout = decltype(layout);
    std::vector<double> y(Layout::storage(n, cells)), e(Layout::storage(ext, cells)),
        k(Layout::storage(view.reaction_count, cells)), w(Layout::storage(p.work_width(), cells));
    std::vector<fc::CellStatistics> stats(cells);
    fc::CellStorage storage{cells,
                            p.work_width(),
                            y.data(),
                            e.data(),
                            k.data(),
                            w.data(),
                            batch.temperature.data(),
                            batch.pressure.data(),
                            stats.data()};
    for (std::int64_t c = 0; c < cells; ++c) {
      const auto ys = Layout::span(y.data(), c, n, cells);
      for (int i = 0; i < n; ++i) ys[i] = batch.concentrations[c * n + p.compiled.species_order[i]];
      const auto es = Layout::span(e.data(), c, ext, cells);
      for (int r = 0; r < view.external_rate_count; ++r)
        es[r] = batch.external_rates[c * view.external_rate_count + r];
    }
    for (std::int64_t c = 0; c < cells; ++c) {
      fc::integrate_stored_cell<Layout>(view, p.tableau, p.control, p.checks(), storage, c, 120.0);
    }
    for (std::int64_t c = 0; c < cells; ++c) {
      const auto ys = Layout::span(y.data(), c, n, cells);
      for (int i = 0; i < n; ++i) {
        ASSERT_EQ(ys[i], expected.concentrations[c * n + p.compiled.species_order[i]])
            << "layout " << static_cast<int>(Layout::kind) << " cell " << c << " species " << i;
      }
      EXPECT_EQ(stats[c].accepted, reference.cell_statistics()[c].accepted);
    }
  };
  run(fc::PerCellLayout{});
  run(fc::BlockInterleavedLayout<4>{});
  run(fc::BlockInterleavedLayout<32>{});
  run(fc::InterleavedLayout{});
}

TEST(RosenbrockSolver, FailedCellsAreNamedOrReported) {
  const fc::Mechanism m = load("robertson.json");
  fc::RosenbrockOptions options;
  options.control.max_steps = 5;
  options.control.initial_step = 10.0;  // enough for an inert cell, far too long for a stiff one
  fc::CpuChemistrySolver solver(m, options);
  fc::ChemistryBatch batch = fc::make_batch(m, 3);
  batch.concentrations = {0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 1.0, 0.0, 0.0};
  const std::string message = message_of([&] { solver.solve(batch, 40.0); });
  EXPECT_NE(message.find("cell 1"), std::string::npos) << message;
  EXPECT_NE(message.find("too many steps"), std::string::npos) << message;

  options.throw_on_failure = false;
  fc::CpuChemistrySolver quiet(m, options);
  batch.concentrations = {0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 1.0, 0.0, 0.0};
  const fc::ChemistryStepReport report = quiet.solve(batch, 40.0);
  EXPECT_EQ(report.failed_cells, 2);
  EXPECT_EQ(report.first_failed_cell, 1);
  EXPECT_EQ(quiet.cell_statistics()[0].status, 0);
}

// Finite parameters, a rate constant that overflows at the cell's temperature only (cell 1 is
// hot enough, cell 0 is not): invalid_input naming the reaction and the first failed cell.
TEST(RosenbrockSolver, RateConstantThatOverflowsIsNamed) {
  const fc::Mechanism m = parse(
      R"({"type": "ARRHENIUS", "name": "R_hot", "reactants": [{"species name": "A"}],
          "products": [{"species name": "B"}], "A": 1e-300, "C": 300000})");
  fc::CpuChemistrySolver solver(m);
  fc::ChemistryBatch batch = fc::make_batch(m, 2);
  batch.concentrations = {1.0, 0.0, 1.0, 0.0};
  batch.temperature = {1000.0, 200.0};  // k = 1e-300 e^300 = 2e-170; 1e-300 e^1500 = inf
  try {
    solver.solve(batch, 10.0);
    ADD_FAILURE() << "no error";
  } catch (const foehn::Error& e) {
    EXPECT_EQ(e.category(), foehn::ErrorCategory::invalid_input);
    EXPECT_NE(std::string(e.what()).find("reaction 0 ('R_hot') [A -> B] is inf in cell 1 (T 200 K"),
              std::string::npos)
        << e.what();
  }
}

TEST(RosenbrockSolver, BadOptionsAndInputsAreRejected) {
  const fc::Mechanism m = load("robertson.json");
  auto category = [&](const fc::RosenbrockOptions& o) {
    return foehn::testing::category_of([&] { fc::CpuChemistrySolver solver(m, o); });
  };
  fc::RosenbrockOptions o;
  o.control.relative_tolerance = -1.0;
  EXPECT_EQ(category(o), foehn::ErrorCategory::invalid_input);
  o = {};
  o.absolute_tolerance = {1e-3, 1e-3};
  EXPECT_EQ(category(o), foehn::ErrorCategory::invalid_input);
  o = {};
  o.absolute_tolerance = {1e-3, std::nan(""), 1e-3};
  EXPECT_EQ(category(o), foehn::ErrorCategory::invalid_input);
  o = {};
  o.control.max_steps = 0;
  EXPECT_EQ(category(o), foehn::ErrorCategory::invalid_input);

  fc::CpuChemistrySolver solver(m, {});
  fc::ChemistryBatch batch = single_cell(m, {1.0, std::nan(""), 0.0});
  const std::string message = message_of([&] { solver.solve(batch, 1.0); });
  EXPECT_NE(message.find("'B'"), std::string::npos) << message;
  batch = single_cell(m, {1.0, 0.0, 0.0});
  EXPECT_EQ(foehn::testing::category_of([&] { solver.solve(batch, -1.0); }),
            foehn::ErrorCategory::invalid_input);
  batch.temperature[0] = 0.0;
  EXPECT_EQ(foehn::testing::category_of([&] { solver.solve(batch, 1.0); }),
            foehn::ErrorCategory::invalid_input);
  batch = single_cell(m, {1.0, 0.0});
  EXPECT_EQ(foehn::testing::category_of([&] { solver.solve(batch, 1.0); }),
            foehn::ErrorCategory::invalid_input);
}

// Concentrations that an accepted step drives slightly negative are clipped and counted.
TEST(RosenbrockSolver, NegativeConcentrationsAreClippedAndCounted) {
  fc::Mechanism m = decay();
  fc::RosenbrockOptions options;
  options.control.relative_tolerance = 1e30;  // every step accepted: ros2 at h = 40 overshoots
  options.method = fc::RosenbrockMethod::ros2;
  options.control.min_step = options.control.max_step = options.control.initial_step = 40.0;
  fc::ChemistryBatch batch = single_cell(m, {1.0, 0.0});
  fc::CpuChemistrySolver clip(m, options);
  fc::ChemistryBatch clipped = batch;
  clip.solve(clipped, 40.0);
  options.control.clip_negative = false;
  fc::CpuChemistrySolver keep(m, options);
  keep.solve(batch, 40.0);
  if (batch.concentrations[0] < 0.0) {
    EXPECT_EQ(clipped.concentrations[0], 0.0);
    EXPECT_EQ(clip.cell_statistics()[0].clipped, 1);
  } else {
    EXPECT_EQ(clip.cell_statistics()[0].clipped, 0);
  }
}
