// The CPU reference of the chemistry solver: OpenMP over cells, each thread with its own
// cell-contiguous workspace (a cell's ~15 KB stays in L1/L2 while it is integrated).

#include <omp.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <vector>

#include "foehn/chemistry/rosenbrock_solver.hpp"
#include "foehn/runtime/error.hpp"

namespace foehn::chemistry {
namespace {

void require_positive_finite(const char* option, double value) {
  if (!(std::isfinite(value) && value > 0.0)) {
    fail(ErrorCategory::invalid_input, "chemistry solver: option ", option, " = ", value,
         " must be a positive finite number");
  }
}

}  // namespace

PreparedMechanism prepare_mechanism(const Mechanism& mechanism, const RosenbrockOptions& options) {
  const RosenbrockControl& c = options.control;
  require_positive_finite("relative_tolerance", c.relative_tolerance);
  require_positive_finite("min_step", c.min_step);
  require_positive_finite("initial_step", c.initial_step);
  require_positive_finite("safety", c.safety);
  require_positive_finite("fac_reject", c.fac_reject);
  if (!(std::isfinite(c.max_step) && c.max_step >= 0.0)) {
    fail(ErrorCategory::invalid_input, "chemistry solver: option max_step = ", c.max_step,
         " must be >= 0 (0: the whole chemistry step)");
  }
  if (c.max_steps < 1) {
    fail(ErrorCategory::invalid_input, "chemistry solver: option max_steps = ", c.max_steps,
         " must be >= 1");
  }
  if (!(c.fac_min > 0.0 && c.fac_min <= 1.0 && c.fac_max >= 1.0 && std::isfinite(c.fac_max))) {
    fail(ErrorCategory::invalid_input, "chemistry solver: step factors must satisfy 0 < fac_min (",
         c.fac_min, ") <= 1 <= fac_max (", c.fac_max, ")");
  }
  if (mechanism.species.empty()) {
    fail(ErrorCategory::invalid_input, "chemistry solver: mechanism '", mechanism.name,
         "' has no species");
  }
  const std::size_t species = mechanism.species.size();
  if (!options.absolute_tolerance.empty() && options.absolute_tolerance.size() != species) {
    fail(ErrorCategory::invalid_input, "chemistry solver: ", options.absolute_tolerance.size(),
         " absolute tolerances given for ", species, " species");
  }

  PreparedMechanism prepared;
  prepared.mechanism = mechanism;
  prepared.compiled = compile(mechanism, options.ordering);
  prepared.tableau = rosenbrock_tableau(options.method);
  prepared.control = c;
  prepared.throw_on_failure = options.throw_on_failure;
  prepared.absolute_tolerance.resize(species);
  for (std::size_t position = 0; position < species; ++position) {
    const auto s = static_cast<std::size_t>(prepared.compiled.species_order[position]);
    const double tolerance = options.absolute_tolerance.empty()
                                 ? mechanism.species[s].absolute_tolerance
                                 : options.absolute_tolerance[s];
    if (!(std::isfinite(tolerance) && tolerance > 0.0)) {
      fail(ErrorCategory::invalid_input, "chemistry solver: absolute tolerance of species '",
           mechanism.species[s].name, "' is ", tolerance, " (must be positive and finite)");
    }
    prepared.absolute_tolerance[position] = tolerance;
  }
  // Conserved totals, mechanism order -> compiled order for the kernels.
  prepared.conservation = find_conserved_totals(mechanism);
  prepared.conserved_start.push_back(0);
  for (const ConservedTotal& total : prepared.conservation.totals) {
    for (std::size_t j = 0; j < total.species.size(); ++j) {
      prepared.conserved_species.push_back(
          prepared.compiled.compiled_index[static_cast<std::size_t>(total.species[j])]);
      prepared.conserved_weight.push_back(total.weight[j]);
    }
    prepared.conserved_start.push_back(static_cast<int>(prepared.conserved_species.size()));
  }
  return prepared;
}

CpuChemistrySolver::CpuChemistrySolver(const Mechanism& mechanism, const RosenbrockOptions& options)
    : prepared_(prepare_mechanism(mechanism, options)) {}

void CpuChemistrySolver::set_next_steps(std::int64_t cells, std::int64_t first,
                                        std::span<const double> steps) {
  const auto count = static_cast<std::int64_t>(steps.size());
  if (cells < 0 || first < 0 || first + count > cells) {
    fail(ErrorCategory::invalid_input, "chemistry solver: next steps for cells [", first, ", ",
         first + count, ") outside a batch of ", cells, " cells");
  }
  if (static_cast<std::int64_t>(statistics_.size()) != cells) {
    statistics_.assign(static_cast<std::size_t>(cells), CellStatistics{});
  }
  for (std::int64_t c = 0; c < count; ++c)
    statistics_[static_cast<std::size_t>(first + c)].next_step = steps[c];
}

ChemistryStepReport CpuChemistrySolver::solve(ChemistryBatch& batch, double duration) {
  ChemistryStepReport report = solve_range(batch, duration, 0, batch.cell_count);
  if (prepared_.throw_on_failure) throw_if_failed(report, "CPU", prepared_.mechanism, batch);
  return report;
}

ChemistryStepReport CpuChemistrySolver::solve_range(ChemistryBatch& batch, double duration,
                                                    std::int64_t first, std::int64_t count,
                                                    int threads) {
  require_positive_finite("duration (chemistry step)", duration);
  validate_batch_range(prepared_.mechanism, batch, first, count);
  if (static_cast<std::int64_t>(statistics_.size()) != batch.cell_count) {
    statistics_.assign(static_cast<std::size_t>(batch.cell_count), CellStatistics{});
  }
  const CompiledMechanismView view = prepared_.compiled.view();
  const int n = view.species_count;
  const int reactions = view.reaction_count;
  const int rates = view.external_rate_count;
  const int work_width = prepared_.work_width();
  const std::vector<int>& order = prepared_.compiled.species_order;
  const RosenbrockTableau tableau = prepared_.tableau;
  const RosenbrockControl control = prepared_.control;
  const CellChecks checks = prepared_.checks();
  const int thread_count = threads > 0 ? threads : omp_get_max_threads();

#pragma omp parallel num_threads(thread_count)
  {
    std::vector<double> k(static_cast<std::size_t>(reactions));
    std::vector<double> y(static_cast<std::size_t>(n));
    std::vector<double> work(static_cast<std::size_t>(work_width));
    // Dynamic: cells differ in cost (sunrise cells take many more steps than dark ones).
#pragma omp for schedule(dynamic, 16)
    for (std::int64_t cell = first; cell < first + count; ++cell) {
      const auto c = static_cast<std::size_t>(cell);
      double* concentrations = batch.concentrations.data() + c * static_cast<std::size_t>(n);
      compute_rate_constants(view, batch.temperature[c], batch.pressure[c],
                             batch.external_rates.data() + c * static_cast<std::size_t>(rates),
                             k.data());
      for (int i = 0; i < n; ++i)
        y[static_cast<std::size_t>(i)] = concentrations[order[static_cast<std::size_t>(i)]];
      CellStatistics& stats = statistics_[c];
      stats =
          integrate_cell(view, tableau, control, checks, duration, stats.next_step,
                         CellSpan<1>{k.data()}, CellSpan<1>{y.data()}, CellSpan<1>{work.data()});
      for (int i = 0; i < n; ++i)
        concentrations[order[static_cast<std::size_t>(i)]] = y[static_cast<std::size_t>(i)];
    }
  }
  return summarize(statistics_.data() + first, count, first, order.data());
}

}  // namespace foehn::chemistry
