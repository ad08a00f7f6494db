#include "box_options.hpp"

#include <petscsys.h>
#include <filesystem>

#include <algorithm>
#include <climits>
#include <cmath>
#include <set>
#include <sstream>
#include <string_view>

#include "foehn/petsc/option_table.hpp"
#include "foehn/petsc/petsc_check.hpp"
#include "foehn/runtime/backend.hpp"
#include "foehn/runtime/error.hpp"
#include "option_paths.hpp"
#include "petsc_application.hpp"

namespace foehn::app {

namespace {

using chemistry::CellLayoutKind;
using chemistry::GpuChemistryStrategy;
using chemistry::RosenbrockMethod;
using chemistry::SpeciesOrdering;
using petsc::IntegerRange;
using petsc::OptionTable;
using petsc::RealRange;

// The CUDA block-per-cell strategy launches one block per cell, and a grid has at most 2^31 - 1
// blocks: the most cells a run may have on every backend.
constexpr IntegerRange cell_range{1, INT_MAX};
// Chemistry steps are counted in 64 bits, but a run of more than 2^31 - 1 of them never ends.
constexpr double max_chemistry_steps = INT_MAX;
// Seeds are 64-bit; the options read them as non-negative 64-bit integers.
constexpr IntegerRange seed_range{0, LLONG_MAX};

// The text of the options that are resolved after reading: the backend and the NAME=VALUE
// lists.
struct RawOptions {
  std::string backend = "cpu";
  std::string concentrations, external_rates;
  bool no_clip = false;
};

std::string trim(std::string_view text) {
  const auto first = text.find_first_not_of(" \t");
  if (first == std::string_view::npos) return "";
  const auto last = text.find_last_not_of(" \t");
  return std::string(text.substr(first, last - first + 1));
}

// "NAME=VALUE,NAME=VALUE" (spaces around names and values allowed), each value a finite
// number >= 0, each name once; an empty item ("A=1,,B=2") is an error, not skipped.
std::vector<NamedValue> parse_named_values(const std::string& option, const std::string& list) {
  std::vector<NamedValue> values;
  std::set<std::string> seen;
  for (const std::string& raw_item : petsc::split_option_list(option, list)) {
    const std::string item = trim(raw_item);
    const auto equals = item.find('=');
    if (equals == std::string::npos)
      fail(ErrorCategory::invalid_input, option, ": '", item, "' is not NAME=VALUE");
    NamedValue entry;
    entry.name = trim(item.substr(0, equals));
    if (entry.name.empty())
      fail(ErrorCategory::invalid_input, option, ": '", item, "' has no name");
    entry.value = petsc::parse_real(option + " " + entry.name, trim(item.substr(equals + 1)),
                                    RealRange::at_least(0.0));
    if (!seen.insert(entry.name).second)
      fail(ErrorCategory::invalid_input, option, ": '", entry.name, "' is given twice");
    values.push_back(entry);
  }
  return values;
}

// The mechanism: a file or a synthetic one, and what to write it as.
void declare_mechanism_options(OptionTable& table, BoxOptions& o) {
  table
      .input_path("-mechanism", "Mechanism: a JSON file (docs/chemistry.md) or 'synthetic'",
                  &o.mechanism)
      .integer("-synthetic_species", "synthetic mechanism: species", &o.synthetic_species,
               {4, 10000})
      .integer("-synthetic_reactions", "synthetic mechanism: reactions", &o.synthetic_reactions,
               {1, 1000000})
      .integer("-synthetic_seed", "synthetic mechanism: seed", &o.synthetic_seed, seed_range)
      .output_file("-write_mechanism",
                   "Write the mechanism read to this file (.json, .yaml/.yml: OpenAtmos v1 YAML); "
                   "without -duration, only that",
                   &o.write_mechanism, {".json", ".yaml", ".yml"})
      .choice("-write_mechanism_schema",
              "Schema of a .json -write_mechanism: openatmos_v1 (MICM) or foehn",
              &o.write_mechanism_schema,
              {{"openatmos_v1", BoxOptions::MechanismSchema::openatmos_v1},
               {"foehn", BoxOptions::MechanismSchema::foehn}});
}

// The cells and their initial state.
void declare_cell_options(OptionTable& table, BoxOptions& o, RawOptions& raw) {
  table.integer("-cells", "Number of independent cells (boxes)", &o.cells, cell_range)
      .choice("-case",
              "Initial state: uniform (every cell from -temperature, -pressure, "
              "-concentrations, -external_rates) or synthetic (make_synthetic_batch)",
              &o.initial_case,
              {{"uniform", InitialCase::uniform}, {"synthetic", InitialCase::synthetic}})
      .integer("-case_seed", "synthetic case: seed", &o.case_seed, seed_range)
      .real("-temperature", "uniform case: temperature (K)", &o.temperature, RealRange::above(0.0))
      .real("-pressure", "uniform case: pressure (Pa)", &o.pressure, RealRange::above(0.0))
      .text("-concentrations",
            "uniform case: initial concentrations NAME=VALUE,... in the mechanism's unit "
            "(molecule cm^-3 for Foehn JSON and KPP, mol m^-3 for OpenAtmos v1; >= 0; species "
            "not named: 0, except a constant species whose file gives its value, as MICM "
            "computes it: constant concentration, mixing ratio x P/(R T), third body P/(R T))",
            &raw.concentrations)
      .text("-external_rates",
            "uniform case: external rates NAME=VALUE,... (photolysis and first-order loss "
            "s^-1, emission and user-defined in the mechanism's unit, SURFACE reaction X: "
            "X.effective_radius in m and X.particle_number_concentration in m^-3; >= 0; not "
            "named: 0)",
            &raw.external_rates);
}

// Simulated time and the CSV output.
void declare_time_and_output_options(OptionTable& table, BoxOptions& o) {
  table.real("-duration", "Simulated time (s), required", &o.duration, RealRange::above(0.0))
      .real("-chem_step", "Chemistry step (s), at most -duration; default: the duration",
            &o.chem_step, RealRange::above(0.0))
      .real("-output_interval",
            "Time between CSV rows (s), a whole number of chemistry steps; default: every "
            "chemistry step",
            &o.output_interval, RealRange::above(0.0))
      .output_file("-output", "CSV file of the concentrations (time,cell,<species>); default: none",
                   &o.output, {".csv"})
      .integer("-output_cells",
               "Only the first this many cells go into the CSV, at most -cells; default: all "
               "(at most 1000)",
               &o.output_cells, cell_range);
}

// The Rosenbrock solver.
void declare_solver_options(OptionTable& table, BoxOptions& o, RawOptions& raw) {
  chemistry::RosenbrockControl& c = o.solver.control;
  table
      .choice("-chem_method", "Rosenbrock method", &o.solver.method,
              {{"ros2", RosenbrockMethod::ros2},
               {"ros3", RosenbrockMethod::ros3},
               {"rodas3", RosenbrockMethod::rodas3},
               {"rodas4", RosenbrockMethod::rodas4}})
      .real("-chem_rtol", "Relative tolerance", &c.relative_tolerance,
            RealRange::above_up_to(0.0, 1.0))
      .real("-chem_atol",
            "Absolute tolerance of every species (the mechanism's unit); 0: each species' "
            "tolerance from the mechanism",
            &o.absolute_tolerance, RealRange::at_least(0.0))
      .integer("-chem_max_steps", "Most step attempts per cell and chemistry step", &c.max_steps,
               {1, INT_MAX})
      .real("-chem_initial_step", "First step of a cell (s)", &c.initial_step,
            RealRange::above(0.0))
      .real("-chem_min_step", "Smallest step (s); below it a cell fails", &c.min_step,
            RealRange::above(0.0))
      .real("-chem_max_step", "Largest step (s); 0: the chemistry step", &c.max_step,
            RealRange::at_least(0.0))
      .flag("-chem_no_clip", "Keep negative concentrations (no clipping to 0)", &raw.no_clip)
      .choice("-chem_ordering", "Species ordering of the sparse LU", &o.solver.ordering,
              {{"natural", SpeciesOrdering::natural},
               {"minimum_degree", SpeciesOrdering::minimum_degree},
               {"markowitz", SpeciesOrdering::markowitz}});
}

// Where the cells are integrated.
void declare_backend_options(OptionTable& table, BoxOptions& o, RawOptions& raw) {
  chemistry::SplitSettings& s = o.split;
  table
      .choice("-foehn_backend",
              "Where cells are integrated: cpu, cuda, split (CPU + GPU) or auto (cuda if a GPU "
              "is usable, else cpu)",
              &raw.backend, {"cpu", "cuda", "split", "auto"})
      .integer("-threads", "cpu, split: OpenMP threads; 0: all (split: all but one)", &o.threads,
               {0, 4096})
      .choice("-gpu_strategy", "cuda, split: how cells map to GPU threads", &s.gpu.strategy,
              {{"thread_per_cell", GpuChemistryStrategy::thread_per_cell},
               {"block_per_cell", GpuChemistryStrategy::block_per_cell},
               {"automatic", GpuChemistryStrategy::automatic}})
      .choice("-gpu_layout", "cuda, split: device layout of the cells", &s.gpu.layout,
              {{"per_cell", CellLayoutKind::per_cell},
               {"block_interleaved", CellLayoutKind::block_interleaved},
               {"interleaved", CellLayoutKind::interleaved}})
      .integer("-gpu_threads_per_block", "cuda, split: threads per block of thread_per_cell",
               &s.gpu.threads_per_block, {1, 1024})
      .real("-split_initial_fraction", "split: share of the cells on the GPU in the first step",
            &s.initial_gpu_fraction, RealRange::closed(0.0, 1.0))
      .real("-split_damping", "split: damping of the balancing", &s.damping,
            RealRange::above_up_to(0.0, 1.0));
}

// In the order -help lists them.
void declare(OptionTable& table, BoxOptions& o, RawOptions& raw) {
  declare_mechanism_options(table, o);
  declare_cell_options(table, o, raw);
  declare_time_and_output_options(table, o);
  declare_solver_options(table, o, raw);
  declare_backend_options(table, o, raw);
}

// Options that only one mechanism, case, output or backend reads: given with another, they
// would be silently ignored.
void reject_unless(const OptionTable& table, bool applies, const char* option, const char* needs) {
  if (!applies && table.was_set(option))
    fail(ErrorCategory::invalid_input, option, " is only read with ", needs);
}

// True when t is a whole number (>= 1) of steps (to 1e-9 of a step).
bool whole_steps(double t, double step) {
  const double steps = t / step;
  return std::round(steps) >= 1.0 &&
         std::fabs(steps - std::round(steps)) <= 1e-9 * std::max(1.0, std::fabs(steps));
}

// auto: cuda where a GPU is usable, else cpu, with the reason in o.backend_notice.
void resolve_backend(BoxOptions& o, const std::string& value) {
  o.backend_automatic = value == "auto";
  if (o.backend_automatic) {
    std::ostringstream notice;
    o.backend =
        select_backend(value, &notice) == Backend::cuda ? BoxBackend::cuda : BoxBackend::cpu;
    o.backend_notice = notice.str();
    return;
  }
  o.backend = value == "cuda"    ? BoxBackend::cuda
              : value == "split" ? BoxBackend::split
                                 : BoxBackend::cpu;
}

// cuda and split need a usable GPU: refused here, before the mechanism is read, with the
// message every Foehn program gives (unavailable, exit code 1). Called after the checks of
// bad input, which take precedence (exit code 2).
void require_gpu_if_asked(const BoxOptions& o) {
  if (o.backend == BoxBackend::cpu || o.backend_automatic) return;
  try {
    select_backend("cuda", nullptr);
  } catch (const Error& error) {
    if (o.backend != BoxBackend::split) throw;
    fail(error.category(), "-foehn_backend split runs cells on the GPU too: ", error.what());
  }
}

void check_mechanism_and_case(const OptionTable& table, BoxOptions& o, const RawOptions& raw) {
  if (o.mechanism.empty())
    fail(ErrorCategory::invalid_input,
         "no mechanism: give -mechanism FILE.json or -mechanism synthetic");
  const bool synthetic_mechanism = o.mechanism == "synthetic";
  if (!synthetic_mechanism) require_input_file("-mechanism", o.mechanism);
  for (const char* option : {"-synthetic_species", "-synthetic_reactions", "-synthetic_seed"})
    reject_unless(table, synthetic_mechanism, option, "-mechanism synthetic");
  const bool uniform = o.initial_case == InitialCase::uniform;
  reject_unless(table, !uniform, "-case_seed", "-case synthetic");
  for (const char* option : {"-temperature", "-pressure", "-concentrations", "-external_rates"})
    reject_unless(table, uniform, option, "-case uniform");
  if (table.was_set("-concentrations"))
    o.concentrations = parse_named_values("-concentrations", raw.concentrations);
  if (table.was_set("-external_rates"))
    o.external_rates = parse_named_values("-external_rates", raw.external_rates);
}

void check_time_and_output(const OptionTable& table, BoxOptions& o) {
  reject_unless(table, !o.write_mechanism.empty(), "-write_mechanism_schema",
                "-write_mechanism FILE");
  if (!o.write_mechanism.empty()) {
    require_output_file_not_folder("-write_mechanism", o.write_mechanism);
    const std::string extension = std::filesystem::path(o.write_mechanism).extension().string();
    if (o.write_mechanism_schema == BoxOptions::MechanismSchema::foehn && extension != ".json")
      fail(ErrorCategory::invalid_input,
           "-write_mechanism_schema foehn needs a .json -write_mechanism (", o.write_mechanism,
           ")");
    if (!table.was_set("-duration")) {
      // Conversion only: an option of the run would otherwise be ignored without a word.
      for (const char* option : {"-chem_step", "-output", "-output_interval", "-output_cells"})
        reject_unless(table, false, option,
                      "-duration S (a run; without it only -write_mechanism)");
      o.convert_only = true;
      return;
    }
  }
  if (!table.was_set("-duration"))
    fail(ErrorCategory::invalid_input, "-duration S is required: the simulated time, s");
  if (!table.was_set("-chem_step")) o.chem_step = o.duration;
  if (o.chem_step > o.duration * (1.0 + 1e-12))
    fail(ErrorCategory::invalid_input, "-chem_step (", o.chem_step,
         " s) is longer than -duration (", o.duration, " s)");
  if (!(o.duration / o.chem_step <= max_chemistry_steps))
    fail(ErrorCategory::invalid_input, "-duration ", o.duration, " s in steps of -chem_step ",
         o.chem_step, " s is more than ", INT_MAX, " chemistry steps");
  const bool output = !o.output.empty();
  reject_unless(table, output, "-output_interval", "-output FILE.csv");
  reject_unless(table, output, "-output_cells", "-output FILE.csv");
  if (output) require_output_file_not_folder("-output", o.output);
  if (!table.was_set("-output_interval")) o.output_interval = o.chem_step;
  if (!whole_steps(o.output_interval, o.chem_step))
    fail(ErrorCategory::invalid_input, "-output_interval (", o.output_interval,
         " s) must be a whole number of chemistry steps of -chem_step ", o.chem_step, " s");
  if (table.was_set("-output_cells")) {
    if (o.output_cells > o.cells)
      fail(ErrorCategory::invalid_input, "-output_cells ", o.output_cells, " is more than -cells ",
           o.cells);
  } else {
    o.output_cells = std::min(o.cells, max_default_output_cells);
    o.output_cells_capped = output && o.cells > max_default_output_cells;
  }
}

void check_backend(const OptionTable& table, BoxOptions& o, const RawOptions& raw) {
  resolve_backend(o, raw.backend);
  // With auto, both the CPU's and the GPU's settings may apply (the header says which backend
  // ran), so neither is refused; split's own settings still need split.
  const bool automatic = o.backend_automatic;
  const bool gpu = o.backend != BoxBackend::cpu || automatic;
  const bool cpu = o.backend != BoxBackend::cuda || automatic;
  const bool split = o.backend == BoxBackend::split;
  reject_unless(table, cpu, "-threads", "-foehn_backend cpu, split or auto");
  for (const char* option : {"-gpu_strategy", "-gpu_layout", "-gpu_threads_per_block"})
    reject_unless(table, gpu, option, "-foehn_backend cuda, split or auto");
  reject_unless(table, split, "-split_initial_fraction", "-foehn_backend split");
  reject_unless(table, split, "-split_damping", "-foehn_backend split");
  o.split.cpu_threads = o.threads;
}

}  // namespace

const char* backend_name(BoxBackend backend) {
  switch (backend) {
    case BoxBackend::cpu:
      return "cpu";
    case BoxBackend::cuda:
      return "cuda";
    case BoxBackend::split:
      return "split";
  }
  return "unknown";
}

BoxOptions read_box_options() {
  BoxOptions o;
  RawOptions raw;
  OptionTable table(PETSC_COMM_WORLD, "foehn-box options");
  declare(table, o, raw);
  table.read();
  // Not listed by -help: only looked for, so that scripts still passing it fail loudly.
  PetscBool old_backend = PETSC_FALSE;
  FOEHN_PETSC_CHECK(PetscOptionsHasName(nullptr, nullptr, "-backend", &old_backend));
  if (help_requested()) return o;
  if (old_backend == PETSC_TRUE)
    fail(ErrorCategory::invalid_input,
         "-backend was renamed to -foehn_backend (cpu, cuda, split or auto), the option name of "
         "every Foehn program");
  check_mechanism_and_case(table, o, raw);
  check_time_and_output(table, o);
  o.solver.control.clip_negative = !raw.no_clip;
  // Failed cells are reported by the driver after the step's summary line (main.cpp).
  o.solver.throw_on_failure = false;
  check_backend(table, o, raw);
  require_gpu_if_asked(o);
  return o;
}

}  // namespace foehn::app
