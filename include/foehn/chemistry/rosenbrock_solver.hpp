#pragma once
// The chemistry solver a chemistry-transport model calls once per chemistry step: every cell of a
// ChemistryBatch is integrated independently over `duration` seconds with an adaptive Rosenbrock
// method. CpuChemistrySolver is the reference (OpenMP over cells); CudaChemistrySolver
// (cuda_chemistry.hpp) runs the same per-cell code on the GPU.

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "foehn/chemistry/chemistry_batch.hpp"
#include "foehn/chemistry/compiled_mechanism.hpp"
#include "foehn/chemistry/conservation.hpp"
#include "foehn/chemistry/mechanism.hpp"
#include "foehn/chemistry/rosenbrock.hpp"
#include "foehn/chemistry/rosenbrock_tableau.hpp"

namespace foehn::chemistry {

struct RosenbrockOptions {
  RosenbrockMethod method = RosenbrockMethod::rodas3;
  RosenbrockControl control;
  // Per species in MECHANISM order, molecule cm^-3; empty: each Species::absolute_tolerance.
  std::vector<double> absolute_tolerance;
  SpeciesOrdering ordering = SpeciesOrdering::markowitz;
  // A failed cell (CellStatus != success) makes solve() throw after all cells are done (the
  // batch then holds every cell's state where it stopped). false: only reported.
  bool throw_on_failure = true;
};

// Everything both backends derive once from a mechanism and options.
struct PreparedMechanism {
  Mechanism mechanism;
  CompiledMechanism compiled;
  RosenbrockTableau tableau;
  RosenbrockControl control;
  std::vector<double> absolute_tolerance;  // COMPILED order
  bool throw_on_failure = true;
  // The mechanism's conserved totals (mechanism order, for messages) and the same in CSR form
  // over COMPILED species (what the kernels check).
  ConservationAnalysis conservation;
  std::vector<int> conserved_start, conserved_species;
  std::vector<double> conserved_weight;
  [[nodiscard]] int conserved_count() const { return static_cast<int>(conservation.totals.size()); }
  [[nodiscard]] int work_width() const {
    return rosenbrock_work_width(compiled.view(), tableau.stages, conserved_count());
  }
  // Host pointers into this object.
  [[nodiscard]] CellChecks checks() const {
    return {absolute_tolerance.data(), conserved_count(), conserved_start.data(),
            conserved_species.data(), conserved_weight.data()};
  }
};

// Checks the options (tolerances finite and > 0, sizes, step limits) and compiles the mechanism.
// Throws foehn::Error(invalid_input) naming the option and value.
[[nodiscard]] PreparedMechanism prepare_mechanism(const Mechanism& mechanism,
                                                  const RosenbrockOptions& options);

// Sum of the per-cell statistics of one chemistry step.
struct ChemistryStepReport {
  std::int64_t cells = 0;
  std::int64_t failed_cells = 0;
  std::int64_t first_failed_cell = -1;
  CellStatus first_failure = CellStatus::success;
  // The first failed cell's culprit (CellStatistics::culprit; a species in MECHANISM order, or
  // a conserved total's index), its value at the start of the step and where it stopped.
  int first_failure_culprit = -1;
  double first_failure_before = 0.0;
  double first_failure_after = 0.0;
  std::int64_t accepted = 0;
  std::int64_t rejected = 0;
  std::int64_t function_evaluations = 0;
  std::int64_t jacobian_evaluations = 0;
  std::int64_t solves = 0;
  std::int64_t clipped = 0;
  int most_attempts = 0;  // accepted + rejected of the hardest cell
  std::int64_t hardest_cell = -1;
};

// `species_order` (compiled position -> mechanism species) maps a species culprit to the
// mechanism's order; nullptr: the culprit is kept as is.
[[nodiscard]] ChemistryStepReport summarize(const CellStatistics* statistics, std::int64_t cells,
                                            std::int64_t first_cell_index = 0,
                                            const int* species_order = nullptr);
// True for the statuses whose culprit is a species (not a conserved total).
[[nodiscard]] bool culprit_is_species(CellStatus status);
// Adds a report of another range of cells (CPU+GPU split) into `total`.
void accumulate(ChemistryStepReport& total, const ChemistryStepReport& part);
[[nodiscard]] std::string_view cell_status_name(CellStatus status);
// Throws foehn::Error(numerical) naming the first failed cell when report.failed_cells > 0.
void throw_if_failed(const ChemistryStepReport& report, std::string_view backend);
// The same, but first looks at the first failed cell's rate constants (from the batch's
// temperature, pressure and external rates, which the solver does not change): when one is not
// finite (parameters that overflow at that temperature), the mechanism is at fault, not the
// solver, and the error is invalid_input naming the reaction, its equation and the cell. A
// state that left the physical range (non-finite, negative beyond tolerance, a conserved total
// off, rates beyond what double precision resolves) is invalid_input too, naming the cell, the
// species or total, and for rounding the reaction with the largest rate changing that species.
void throw_if_failed(const ChemistryStepReport& report, std::string_view backend,
                     const Mechanism& mechanism, const ChemistryBatch& batch);

class CpuChemistrySolver {
 public:
  CpuChemistrySolver(const Mechanism& mechanism, const RosenbrockOptions& options = {});

  // All cells over `duration` seconds (> 0). Each cell starts from the step it ended with in the
  // previous call (when the batch has the same number of cells) or control.initial_step.
  ChemistryStepReport solve(ChemistryBatch& batch, double duration);
  // Cells [first, first + count) only (the CPU part of a CPU+GPU split). `threads` > 0 limits
  // the OpenMP threads.
  ChemistryStepReport solve_range(ChemistryBatch& batch, double duration, std::int64_t first,
                                  std::int64_t count, int threads = 0);

  [[nodiscard]] const std::vector<CellStatistics>& cell_statistics() const { return statistics_; }
  [[nodiscard]] const PreparedMechanism& prepared() const { return prepared_; }
  // Sets the carried-over first steps of cells [first, first + steps.size()) of a batch of
  // `cells` cells (0: start from control.initial_step): a cell moved here from another solver
  // keeps its step size.
  void set_next_steps(std::int64_t cells, std::int64_t first, std::span<const double> steps);

 private:
  PreparedMechanism prepared_;
  std::vector<CellStatistics> statistics_;  // per cell of the last batch (next_step carried over)
};

}  // namespace foehn::chemistry
