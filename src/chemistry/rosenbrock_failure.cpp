// Failed cells: the per-step report (summarize, accumulate) and the errors that name what went
// wrong, down to the cell, the species or conserved total, and the reaction where a rate is at
// fault (docs/chemistry_solver.md lists the cases).

#include <cmath>
#include <cstddef>
#include <vector>

#include "foehn/chemistry/rosenbrock_solver.hpp"
#include "foehn/runtime/error.hpp"

namespace foehn::chemistry {

std::string_view cell_status_name(CellStatus status) {
  switch (status) {
    case CellStatus::success:
      return "success";
    case CellStatus::too_many_steps:
      return "too many steps";
    case CellStatus::step_too_small:
      return "step size too small (the error stayed above the tolerance down to -chem_min_step)";
    case CellStatus::singular_matrix:
      return "singular iteration matrix";
    case CellStatus::non_finite_state:
      return "non-finite concentration";
    case CellStatus::negative_state:
      return "negative concentration beyond the tolerance";
    case CellStatus::conservation_violated:
      return "conserved total changed beyond the tolerance";
    case CellStatus::rounding_limited:
      return "rates beyond what double precision resolves";
  }
  return "unknown status";
}

bool culprit_is_species(CellStatus status) {
  return status == CellStatus::non_finite_state || status == CellStatus::negative_state ||
         status == CellStatus::rounding_limited;
}

ChemistryStepReport summarize(const CellStatistics* statistics, std::int64_t cells,
                              std::int64_t first_cell_index, const int* species_order) {
  ChemistryStepReport report;
  report.cells = cells;
  for (std::int64_t c = 0; c < cells; ++c) {
    const CellStatistics& s = statistics[c];
    if (s.status != 0) {
      if (report.failed_cells++ == 0) {
        report.first_failed_cell = first_cell_index + c;
        report.first_failure = static_cast<CellStatus>(s.status);
        report.first_failure_culprit =
            s.culprit >= 0 && species_order != nullptr && culprit_is_species(report.first_failure)
                ? species_order[s.culprit]
                : s.culprit;
        report.first_failure_before = s.culprit_before;
        report.first_failure_after = s.culprit_after;
      }
    }
    report.accepted += s.accepted;
    report.rejected += s.rejected;
    report.function_evaluations += s.function_evaluations;
    report.jacobian_evaluations += s.jacobian_evaluations;
    report.solves += s.solves;
    report.clipped += s.clipped;
    if (s.accepted + s.rejected > report.most_attempts) {
      report.most_attempts = s.accepted + s.rejected;
      report.hardest_cell = first_cell_index + c;
    }
  }
  return report;
}

void accumulate(ChemistryStepReport& total, const ChemistryStepReport& part) {
  if (part.failed_cells > 0 &&
      (total.failed_cells == 0 || part.first_failed_cell < total.first_failed_cell)) {
    total.first_failed_cell = part.first_failed_cell;
    total.first_failure = part.first_failure;
    total.first_failure_culprit = part.first_failure_culprit;
    total.first_failure_before = part.first_failure_before;
    total.first_failure_after = part.first_failure_after;
  }
  total.cells += part.cells;
  total.failed_cells += part.failed_cells;
  total.accepted += part.accepted;
  total.rejected += part.rejected;
  total.function_evaluations += part.function_evaluations;
  total.jacobian_evaluations += part.jacobian_evaluations;
  total.solves += part.solves;
  total.clipped += part.clipped;
  if (part.most_attempts > total.most_attempts) {
    total.most_attempts = part.most_attempts;
    total.hardest_cell = part.hardest_cell;
  }
}

void throw_if_failed(const ChemistryStepReport& report, std::string_view backend) {
  if (report.failed_cells == 0) return;
  fail(ErrorCategory::numerical, "chemistry (", backend, "): ", report.failed_cells, " of ",
       report.cells, " cells failed; first: cell ", report.first_failed_cell, " (",
       cell_status_name(report.first_failure),
       "). Loosen the tolerances, raise -chem_max_steps or check the cell's inputs");
}

namespace {

bool leaves_physical_range(CellStatus status) {
  return culprit_is_species(status) || status == CellStatus::conservation_violated;
}

// The reaction with the largest first-order rate (k x the other reactants' concentrations,
// s^-1) at the cell's stored state, among those that change `species` (-1: all); -1 if none.
int fastest_reaction(const Mechanism& mechanism, const std::vector<double>& k, const double* y,
                     int species, double& first_order_rate) {
  int fastest = -1;
  first_order_rate = 0.0;
  for (std::size_t r = 0; r < mechanism.reactions.size(); ++r) {
    const Reaction& reaction = mechanism.reactions[r];
    if (reaction.reactants.empty()) continue;
    bool changes = species < 0;
    for (const auto* list : {&reaction.reactants, &reaction.products})
      for (const SpeciesAmount& entry : *list) changes = changes || entry.species == species;
    if (!changes) continue;
    // Per unit of the first reactant: k times the concentrations of all the others.
    double rate = std::fabs(k[r]);
    bool first = true;
    for (const SpeciesAmount& entry : reaction.reactants) {
      for (int unit = 0; unit < static_cast<int>(entry.amount); ++unit) {
        if (first) {
          first = false;
          continue;
        }
        rate *= std::fabs(y[entry.species]);
      }
    }
    if (fastest < 0 || !(rate <= first_order_rate)) {
      fastest = static_cast<int>(r);
      first_order_rate = rate;
    }
  }
  return fastest;
}

}  // namespace

void throw_if_failed(const ChemistryStepReport& report, std::string_view backend,
                     const Mechanism& mechanism, const ChemistryBatch& batch) {
  if (report.failed_cells == 0) return;
  const std::int64_t cell = report.first_failed_cell;
  if (cell < 0 || cell >= batch.cell_count) throw_if_failed(report, backend);
  // Compiled again only on this failure path; reactions keep the mechanism's order.
  const CompiledMechanism compiled = compile(mechanism, SpeciesOrdering::natural);
  const CompiledMechanismView view = compiled.view();
  const auto c = static_cast<std::size_t>(cell);
  const auto rates = static_cast<std::size_t>(view.external_rate_count);
  std::vector<double> k(static_cast<std::size_t>(view.reaction_count));
  compute_rate_constants(view, batch.temperature[c], batch.pressure[c],
                         batch.external_rates.data() + c * rates, k.data());
  for (std::size_t r = 0; r < k.size(); ++r) {
    if (std::isfinite(k[r])) continue;
    const Reaction& reaction = mechanism.reactions[r];
    fail(ErrorCategory::invalid_input, "chemistry (", backend, "): the rate constant of reaction ",
         r, " ('", reaction.name, "') [", mechanism.equation(reaction), "] is ", k[r], " in cell ",
         cell, " (T ", batch.temperature[c], " K, P ", batch.pressure[c],
         " Pa): its parameters overflow there, so ", report.failed_cells, " of ", report.cells,
         " cells failed");
  }
  // A finite rate constant whose rate (k x the concentrations) overflows at the cell's state.
  const double* y = batch.concentrations.data() + c * mechanism.species.size();
  for (std::size_t r = 0; r < k.size(); ++r) {
    const Reaction& reaction = mechanism.reactions[r];
    double rate = k[r];
    for (const SpeciesAmount& entry : reaction.reactants)
      for (int unit = 0; unit < static_cast<int>(entry.amount); ++unit) rate *= y[entry.species];
    if (std::isfinite(rate)) continue;
    fail(ErrorCategory::invalid_input, "chemistry (", backend, "): the rate of reaction ", r, " ('",
         reaction.name, "') [", mechanism.equation(reaction), "] is ", rate, " in cell ", cell,
         " (rate constant ", k[r],
         " times its reactants' concentrations overflows double precision), so ",
         report.failed_cells, " of ", report.cells, " cells failed");
  }
  const CellStatus status = report.first_failure;
  double first_order_rate = 0.0;
  if (!leaves_physical_range(status)) {
    // The solver's own limits; the fastest reaction says what needed the small steps.
    const int fastest = fastest_reaction(mechanism, k, y, -1, first_order_rate);
    if (fastest < 0) throw_if_failed(report, backend);
    const Reaction& reaction = mechanism.reactions[static_cast<std::size_t>(fastest)];
    fail(ErrorCategory::numerical, "chemistry (", backend, "): ", report.failed_cells, " of ",
         report.cells, " cells failed; first: cell ", cell, " (", cell_status_name(status),
         "); its fastest reaction is ", fastest, " ('", reaction.name, "') [",
         mechanism.equation(reaction), "] at ", first_order_rate,
         " s^-1 (first order). Loosen the tolerances, raise -chem_max_steps, use rodas3 or "
         "rodas4 (stiffly accurate) or check the cell's inputs");
  }

  const int culprit = report.first_failure_culprit;
  std::string what;
  int species = -1;
  if (culprit_is_species(status) && culprit >= 0 &&
      culprit < static_cast<int>(mechanism.species.size())) {
    species = culprit;
    what = foehn::detail::concat("species '",
                                 mechanism.species[static_cast<std::size_t>(culprit)].name, "' ");
    what += status == CellStatus::rounding_limited
                ? std::string(
                      "has a rounding error in its stage solve above its tolerance even "
                      "at the smallest step (-chem_min_step)")
                : foehn::detail::concat("is ", report.first_failure_after);
  } else if (status == CellStatus::conservation_violated) {
    const ConservationAnalysis analysis = find_conserved_totals(mechanism);
    if (culprit >= 0 && culprit < static_cast<int>(analysis.totals.size())) {
      what = foehn::detail::concat(
          "the conserved total ",
          describe_conserved_total(mechanism, analysis.totals[static_cast<std::size_t>(culprit)]),
          " went from ", report.first_failure_before, " to ", report.first_failure_after);
    }
  }
  const int fastest = fastest_reaction(mechanism, k, y, species, first_order_rate);
  std::string reaction_note;
  if (fastest >= 0) {
    const Reaction& reaction = mechanism.reactions[static_cast<std::size_t>(fastest)];
    reaction_note =
        foehn::detail::concat("; the fastest reaction", species >= 0 ? " changing it" : "", " is ",
                              fastest, " ('", reaction.name, "') [", mechanism.equation(reaction),
                              "] at ", first_order_rate, " s^-1 (first order)");
  }
  // A precision limit is not a state out of range: its remedy is the step or the rates.
  const bool precision = status == CellStatus::rounding_limited;
  fail(ErrorCategory::invalid_input, "chemistry (", backend, "): cell ", cell,
       precision ? " cannot be integrated in double precision (" : " left the physical range (",
       cell_status_name(status), "): ", what, reaction_note,
       ". The result would be wrong, so it is refused (", report.failed_cells, " of ", report.cells,
       " cells failed); ",
       precision ? "rate x step is beyond what double precision resolves: check the rates, or "
                   "lower -chem_max_step"
                 : "check the rates and the cell's inputs");
}

}  // namespace foehn::chemistry
