// foehn-box: the chemistry box model. A mechanism (JSON file or synthetic), the conditions and
// initial concentrations of one or many independent cells, a time span split into chemistry
// steps -> the concentrations over time (CSV) and the solver's statistics, on the CPU, the GPU
// or both (docs/chemistry.md).

#include <cmath>
#include <cstdio>
#include <optional>
#include <string>

#include "box_options.hpp"
#include "box_run.hpp"
#include "foehn/chemistry/rosenbrock_solver.hpp"
#include "foehn/runtime/error.hpp"
#include "foehn/runtime/stopwatch.hpp"
#include "petsc_application.hpp"

namespace foehn::app {
namespace {

using namespace foehn::chemistry;

constexpr const char* usage =
    "foehn-box: chemistry box model (mechanism, conditions, cells, time span -> concentrations)\n"
    "usage: foehn-box -mechanism FILE.json|synthetic -duration S [options]   "
    "(a control file: -options_file box.opts)\n"
    "Every cell is integrated independently with an adaptive Rosenbrock method over chemistry\n"
    "steps of -chem_step seconds; rows time,cell,<species in mechanism order> go to -output.\n"
    "Mechanisms: Foehn JSON, OpenAtmos v1 (.json with \"version\", .yaml), KPP (.def/.eqn).\n"
    "Units: T in K, P in Pa, time in s, concentrations in the mechanism's unit (molecule cm^-3;\n"
    "mol m^-3 for OpenAtmos v1 files unless they say otherwise) (docs/chemistry.md).\n"
    "conversion: foehn-box -mechanism m.def -write_mechanism m.yaml   (no -duration: only that)\n"
    "examples: foehn-box -mechanism data/mechanisms/robertson.json -concentrations A=1 -duration "
    "40\n"
    "              -chem_method rodas4 -chem_rtol 1e-8 -chem_atol 1e-14 -output robertson.csv\n"
    "          foehn-box -mechanism synthetic -cells 10000 -case synthetic -duration 3600 "
    "-chem_step 600\n"
    "              -foehn_backend auto   (cpu by default; cuda, split, or auto: the GPU if there "
    "is one)\n\n";

const char* ordering_name(SpeciesOrdering ordering) {
  switch (ordering) {
    case SpeciesOrdering::natural:
      return "natural";
    case SpeciesOrdering::minimum_degree:
      return "minimum_degree";
    case SpeciesOrdering::markowitz:
      return "markowitz";
  }
  return "unknown";
}

long long as_ll(std::int64_t value) {
  return static_cast<long long>(value);
}

void print_header(const BoxOptions& o, const Mechanism& mechanism,
                  const PreparedMechanism& prepared, std::int64_t steps, const BoxSolver& solver) {
  const RosenbrockControl& c = o.solver.control;
  std::printf(
      "foehn-box: mechanism '%s' (%s): %zu species, %zu reactions, %zu external rates\n",
      mechanism.name.c_str(), o.mechanism == "synthetic" ? "synthetic" : o.mechanism.c_str(),
      mechanism.species.size(), mechanism.reactions.size(), mechanism.external_rate_names.size());
  std::printf("  Jacobian nonzeros %lld (incl. diagonal), LU fill-in %lld (%s ordering)\n",
              as_ll(prepared.compiled.jacobian_nonzeros), as_ll(prepared.compiled.fill_in),
              ordering_name(o.solver.ordering));
  if (o.initial_case == InitialCase::uniform) {
    std::printf(
        "  cells %lld, case uniform: T %g K, P %g Pa, %zu initial concentrations, %zu external "
        "rates "
        "given\n",
        as_ll(o.cells), o.temperature, o.pressure, o.concentrations.size(),
        o.external_rates.size());
  } else {
    std::printf("  cells %lld, case synthetic (seed %llu)\n", as_ll(o.cells),
                static_cast<unsigned long long>(o.case_seed));
  }
  char atol[64] = "per species (mechanism)";
  if (o.absolute_tolerance > 0.0) std::snprintf(atol, sizeof atol, "%g", o.absolute_tolerance);
  std::printf(
      "  %g s in %lld chemistry step(s) of %g s; %s, rtol %g, atol %s, max %d attempts per "
      "step%s\n",
      o.duration, as_ll(steps), o.chem_step,
      std::string(rosenbrock_method_name(o.solver.method)).c_str(), c.relative_tolerance, atol,
      c.max_steps, c.clip_negative ? "" : ", no clipping");
  std::printf("  backend: %s%s\n", solver.describe().c_str(),
              o.backend_automatic ? " (-foehn_backend auto)" : "");
  if (!o.backend_notice.empty())
    std::printf("  %s", o.backend_notice.c_str());  // why auto chose the CPU
  if (!o.output.empty()) {
    std::printf("  output: %s, cells 0..%lld every %g s%s\n", o.output.c_str(),
                as_ll(o.output_cells - 1), o.output_interval,
                o.output_cells_capped ? " (capped at 1000 cells: -output_cells N for more)" : "");
  }
  std::printf("%s", uniform_case_notes(mechanism, o).c_str());
  std::fflush(stdout);
}

void print_step(std::int64_t step, double t, const ChemistryStepReport& r, double seconds,
                const std::string& note) {
  std::printf(
      "step %5lld  t %-12g s  accepted %-9lld rejected %-7lld f-evals %-10lld failed %lld  "
      "wall %.4f s%s\n",
      as_ll(step), t, as_ll(r.accepted), as_ll(r.rejected), as_ll(r.function_evaluations),
      as_ll(r.failed_cells), seconds, note.c_str());
  std::fflush(stdout);
}

void print_cell_zero(const Mechanism& mechanism, const ChemistryBatch& batch, double t) {
  constexpr std::size_t most = 12;
  std::printf("cell 0 at t = %g s:", t);
  for (std::size_t i = 0; i < mechanism.species.size() && i < most; ++i)
    std::printf(" %s %.10g", mechanism.species[i].name.c_str(), batch.concentrations[i]);
  if (mechanism.species.size() > most) std::printf(" ... (-output for all species)");
  std::printf("\n");
}

void run_box() {
  BoxOptions o = read_box_options();
  if (help_requested()) return;
  reject_unused_options("foehn-box");
  const Stopwatch wall;

  const Mechanism mechanism = load_mechanism(o);
  if (!o.write_mechanism.empty()) {
    write_mechanism_file(mechanism, o);
    std::printf("foehn-box: mechanism '%s' (%zu species, %zu reactions, %s) written to %s\n",
                mechanism.name.c_str(), mechanism.species.size(), mechanism.reactions.size(),
                std::string(concentration_unit_name(mechanism.concentration_unit)).c_str(),
                o.write_mechanism.c_str());
    if (o.convert_only) return;
  }
  const PreparedMechanism prepared = prepare_mechanism(mechanism, o.solver);  // checks the options
  ChemistryBatch batch = make_initial_batch(mechanism, o);
  std::optional<CsvOutput> csv;
  if (!o.output.empty())
    csv.emplace(o.output, mechanism, o.output_cells);  // fails now if unwritable

  // Chemistry steps of chem_step; the last one ends exactly at the duration (may be shorter).
  const auto steps = static_cast<std::int64_t>(std::ceil(o.duration / o.chem_step * (1.0 - 1e-12)));
  const auto steps_per_output =
      static_cast<std::int64_t>(std::llround(o.output_interval / o.chem_step));
  const std::unique_ptr<BoxSolver> solver = make_box_solver(mechanism, o, batch);
  print_header(o, mechanism, prepared, steps, *solver);

  if (csv) csv->write(0.0, batch);
  ChemistryStepReport total;
  double solve_seconds = 0.0, t = 0.0;
  for (std::int64_t step = 0; step < steps; ++step) {
    const double end = step + 1 == steps ? o.duration : static_cast<double>(step + 1) * o.chem_step;
    const Stopwatch clock;
    const ChemistryStepReport report = solver->advance(batch, end - t);
    const double seconds = clock.seconds();
    solve_seconds += seconds;
    t = end;
    accumulate(total, report);
    print_step(step, t, report, seconds, solver->step_note());
    // numerical: exit code 1, no CSV left behind; a rate constant that overflows: exit 2
    throw_if_failed(report, solver->failure_name(), mechanism, batch);
    if (csv && ((step + 1) % steps_per_output == 0 || step + 1 == steps)) {
      solver->fetch(batch);
      csv->write(t, batch);
    }
  }
  solver->fetch(batch);
  if (csv) csv->commit();

  const double cell_steps = static_cast<double>(o.cells) * static_cast<double>(steps);
  std::printf(
      "foehn-box: %lld steps x %lld cells: accepted %lld, rejected %lld, f-evals %lld, Jacobians "
      "%lld, "
      "solves %lld, clipped %lld, failed cells 0\n",
      as_ll(steps), as_ll(o.cells), as_ll(total.accepted), as_ll(total.rejected),
      as_ll(total.function_evaluations), as_ll(total.jacobian_evaluations), as_ll(total.solves),
      as_ll(total.clipped));
  std::printf(
      "  hardest cell %lld (%d attempts in one step); chemistry %.4f s, %.4g cells*steps/s; "
      "wall %.3f s\n",
      as_ll(total.hardest_cell), total.most_attempts, solve_seconds,
      solve_seconds > 0.0 ? cell_steps / solve_seconds : 0.0, wall.seconds());
  if (csv) std::printf("  %lld rows in %s\n", as_ll(csv->rows()), o.output.c_str());
  print_cell_zero(mechanism, batch, t);
}

}  // namespace
}  // namespace foehn::app

int main(int argc, char** argv) {
  return foehn::app::run_petsc_application(argc, argv, {"foehn-box", foehn::app::usage},
                                           foehn::app::run_box);
}
