#include "box_options.hpp"

#include <petscsys.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <set>
#include <sstream>

#include "foehn/petsc/petsc_check.hpp"
#include "foehn/runtime/backend.hpp"
#include "foehn/runtime/error.hpp"
#include "petsc_application.hpp"

namespace foehn::app {

namespace {

using chemistry::GpuChemistryStrategy;
using chemistry::SpeciesOrdering;

// Which options were given on the command line (or in an options file), for the checks that
// reject options which the chosen mechanism, case or backend would silently ignore.
struct GivenOptions {
  bool synthetic_species = false, synthetic_reactions = false, synthetic_seed = false;
  bool case_seed = false, temperature = false, pressure = false, concentrations = false,
       external_rates = false;
  bool chem_step = false, output_interval = false, output_cells = false;
  bool threads = false, gpu_strategy = false, gpu_layout = false, gpu_threads_per_block = false;
  bool split_initial_fraction = false, split_damping = false;
};

// The raw text of the options that are parsed after PetscOptionsEnd.
struct RawOptions {
  std::array<char, PETSC_MAX_PATH_LEN> mechanism{}, output{};
  std::array<char, 64> initial_case{}, method{}, ordering{}, backend{}, strategy{}, layout{};
  std::array<char, 16384> concentrations{}, external_rates{};
  PetscInt cells = 1, synthetic_species = 80, synthetic_reactions = 190, synthetic_seed = 1;
  PetscInt case_seed = 1, output_cells = 0, max_steps = 0, threads = 0, threads_per_block = 0;
  PetscBool no_clip = PETSC_FALSE;
  PetscBool old_backend = PETSC_FALSE;  // -backend, renamed to -foehn_backend
};

std::string trim(const std::string& text) {
  const auto first = text.find_first_not_of(" \t");
  if (first == std::string::npos) return "";
  const auto last = text.find_last_not_of(" \t");
  return text.substr(first, last - first + 1);
}

// A finite number >= 0, the whole text.
double parse_amount(const std::string& option, const std::string& name, const std::string& text) {
  errno = 0;
  char* end = nullptr;
  const double value = std::strtod(text.c_str(), &end);
  if (text.empty() || end != text.c_str() + text.size() || errno == ERANGE ||
      !std::isfinite(value) || value < 0.0) {
    fail(ErrorCategory::invalid_input, option, ": value '", text, "' of '", name,
         "' is not a finite number >= 0");
  }
  return value;
}

// "NAME=VALUE,NAME=VALUE" (spaces around names and values allowed; empty items skipped).
std::vector<NamedValue> parse_named_values(const std::string& option, const std::string& list) {
  std::vector<NamedValue> values;
  std::set<std::string> seen;
  std::stringstream in(list);
  std::string item;
  while (std::getline(in, item, ',')) {
    item = trim(item);
    if (item.empty()) continue;
    const auto equals = item.find('=');
    if (equals == std::string::npos) {
      fail(ErrorCategory::invalid_input, option, ": '", item, "' is not NAME=VALUE");
    }
    NamedValue entry;
    entry.name = trim(item.substr(0, equals));
    if (entry.name.empty())
      fail(ErrorCategory::invalid_input, option, ": '", item, "' has no name");
    entry.value = parse_amount(option, entry.name, trim(item.substr(equals + 1)));
    if (!seen.insert(entry.name).second) {
      fail(ErrorCategory::invalid_input, option, ": '", entry.name, "' is given twice");
    }
    values.push_back(entry);
  }
  return values;
}

PetscErrorCode query_options(BoxOptions& o, RawOptions& raw, GivenOptions& given) {
  chemistry::RosenbrockControl& c = o.solver.control;
  chemistry::SplitSettings& s = o.split;
  PetscBool set = PETSC_FALSE;
  raw.threads_per_block = s.gpu.threads_per_block;
  raw.max_steps = c.max_steps;
  // PetscOptionsString leaves the buffer unchanged when the option is absent: start from the
  // defaults (its "current value" argument only feeds -help).
  auto set_default = [](auto& buffer, const char* text) {
    std::snprintf(buffer.data(), buffer.size(), "%s", text);
  };
  set_default(raw.initial_case, "uniform");
  set_default(raw.method, "rodas3");
  set_default(raw.ordering, "markowitz");
  set_default(raw.backend, "cpu");
  set_default(raw.strategy, "automatic");
  set_default(raw.layout, "interleaved");

  PetscOptionsBegin(PETSC_COMM_WORLD, nullptr, "foehn-box options", nullptr);
  // Mechanism.
  PetscCall(PetscOptionsString("-mechanism",
                               "Mechanism: a JSON file (docs/chemistry.md) or 'synthetic'", nullptr,
                               "", raw.mechanism.data(), raw.mechanism.size(), nullptr));
  PetscCall(PetscOptionsInt("-synthetic_species", "synthetic mechanism: species", nullptr,
                            raw.synthetic_species, &raw.synthetic_species, &set));
  given.synthetic_species = set == PETSC_TRUE;
  PetscCall(PetscOptionsInt("-synthetic_reactions", "synthetic mechanism: reactions", nullptr,
                            raw.synthetic_reactions, &raw.synthetic_reactions, &set));
  given.synthetic_reactions = set == PETSC_TRUE;
  PetscCall(PetscOptionsInt("-synthetic_seed", "synthetic mechanism: seed", nullptr,
                            raw.synthetic_seed, &raw.synthetic_seed, &set));
  given.synthetic_seed = set == PETSC_TRUE;
  // Cells and their initial state.
  PetscCall(PetscOptionsInt("-cells", "Number of independent cells (boxes)", nullptr, raw.cells,
                            &raw.cells, nullptr));
  PetscCall(PetscOptionsString(
      "-case",
      "Initial state: uniform (every cell from -temperature, -pressure, "
      "-concentrations, -external_rates) or synthetic (make_synthetic_batch)",
      nullptr, "uniform", raw.initial_case.data(), raw.initial_case.size(), nullptr));
  PetscCall(PetscOptionsInt("-case_seed", "synthetic case: seed", nullptr, raw.case_seed,
                            &raw.case_seed, &set));
  given.case_seed = set == PETSC_TRUE;
  PetscCall(PetscOptionsReal("-temperature", "uniform case: temperature (K)", nullptr,
                             o.temperature, &o.temperature, &set));
  given.temperature = set == PETSC_TRUE;
  PetscCall(PetscOptionsReal("-pressure", "uniform case: pressure (Pa)", nullptr, o.pressure,
                             &o.pressure, &set));
  given.pressure = set == PETSC_TRUE;
  PetscCall(PetscOptionsString("-concentrations",
                               "uniform case: initial concentrations NAME=VALUE,... "
                               "(molecule cm^-3; species not named: 0)",
                               nullptr, "", raw.concentrations.data(), raw.concentrations.size(),
                               &set));
  given.concentrations = set == PETSC_TRUE;
  PetscCall(
      PetscOptionsString("-external_rates",
                         "uniform case: external rates NAME=VALUE,... (photolysis "
                         "and first-order loss s^-1, emission molecule cm^-3 s^-1; not named: 0)",
                         nullptr, "", raw.external_rates.data(), raw.external_rates.size(), &set));
  given.external_rates = set == PETSC_TRUE;
  // Time and output.
  PetscCall(PetscOptionsReal("-duration", "Simulated time (s), required", nullptr, o.duration,
                             &o.duration, nullptr));
  PetscCall(PetscOptionsReal("-chem_step", "Chemistry step (s); default: the duration", nullptr,
                             o.chem_step, &o.chem_step, &set));
  given.chem_step = set == PETSC_TRUE;
  PetscCall(PetscOptionsReal("-output_interval",
                             "Time between CSV rows (s), a whole number of chemistry "
                             "steps; default: every chemistry step",
                             nullptr, o.output_interval, &o.output_interval, &set));
  given.output_interval = set == PETSC_TRUE;
  PetscCall(PetscOptionsString(
      "-output", "CSV file of the concentrations (time,cell,<species>); default: none", nullptr, "",
      raw.output.data(), raw.output.size(), nullptr));
  PetscCall(PetscOptionsInt("-output_cells",
                            "Only the first this many cells go into the CSV; default: all "
                            "(at most 1000)",
                            nullptr, raw.output_cells, &raw.output_cells, &set));
  given.output_cells = set == PETSC_TRUE;
  // Solver.
  PetscCall(PetscOptionsString("-chem_method", "Rosenbrock method: ros2, ros3, rodas3, rodas4",
                               nullptr, "rodas3", raw.method.data(), raw.method.size(), nullptr));
  PetscCall(PetscOptionsReal("-chem_rtol", "Relative tolerance", nullptr, c.relative_tolerance,
                             &c.relative_tolerance, nullptr));
  PetscCall(PetscOptionsReal("-chem_atol",
                             "Absolute tolerance of every species (molecule cm^-3); default: "
                             "each species' tolerance from the mechanism",
                             nullptr, o.absolute_tolerance, &o.absolute_tolerance, nullptr));
  PetscCall(PetscOptionsInt("-chem_max_steps", "Most step attempts per cell and chemistry step",
                            nullptr, raw.max_steps, &raw.max_steps, nullptr));
  PetscCall(PetscOptionsReal("-chem_initial_step", "First step of a cell (s)", nullptr,
                             c.initial_step, &c.initial_step, nullptr));
  PetscCall(PetscOptionsReal("-chem_min_step", "Smallest step (s); below it a cell fails", nullptr,
                             c.min_step, &c.min_step, nullptr));
  PetscCall(PetscOptionsReal("-chem_max_step", "Largest step (s); 0: the chemistry step", nullptr,
                             c.max_step, &c.max_step, nullptr));
  PetscCall(PetscOptionsBool("-chem_no_clip", "Keep negative concentrations (no clipping to 0)",
                             nullptr, raw.no_clip, &raw.no_clip, nullptr));
  PetscCall(PetscOptionsString("-chem_ordering",
                               "Species ordering of the sparse LU: natural, minimum_degree, "
                               "markowitz",
                               nullptr, "markowitz", raw.ordering.data(), raw.ordering.size(),
                               nullptr));
  // Backend.
  PetscCall(PetscOptionsString("-foehn_backend",
                               "Where cells are integrated: cpu, cuda, split (CPU + GPU) "
                               "or auto (cuda if a GPU is usable, else cpu)",
                               nullptr, "cpu", raw.backend.data(), raw.backend.size(), nullptr));
  PetscCall(PetscOptionsInt("-threads", "cpu, split: OpenMP threads; 0: all (split: all but one)",
                            nullptr, raw.threads, &raw.threads, &set));
  given.threads = set == PETSC_TRUE;
  PetscCall(PetscOptionsString("-gpu_strategy",
                               "cuda, split: thread_per_cell, block_per_cell or automatic", nullptr,
                               "automatic", raw.strategy.data(), raw.strategy.size(), &set));
  given.gpu_strategy = set == PETSC_TRUE;
  PetscCall(PetscOptionsString("-gpu_layout",
                               "cuda, split: device layout per_cell, block_interleaved or "
                               "interleaved",
                               nullptr, "interleaved", raw.layout.data(), raw.layout.size(), &set));
  given.gpu_layout = set == PETSC_TRUE;
  PetscCall(PetscOptionsInt("-gpu_threads_per_block",
                            "cuda, split: threads per block of thread_per_cell", nullptr,
                            raw.threads_per_block, &raw.threads_per_block, &set));
  given.gpu_threads_per_block = set == PETSC_TRUE;
  PetscCall(PetscOptionsReal("-split_initial_fraction",
                             "split: share of the cells on the GPU in the first "
                             "step",
                             nullptr, s.initial_gpu_fraction, &s.initial_gpu_fraction, &set));
  given.split_initial_fraction = set == PETSC_TRUE;
  PetscCall(PetscOptionsReal("-split_damping", "split: damping of the balancing, in (0, 1]",
                             nullptr, s.damping, &s.damping, &set));
  given.split_damping = set == PETSC_TRUE;
  PetscOptionsEnd();
  // Not listed by -help: only looked for, so that scripts still passing it fail loudly.
  PetscCall(PetscOptionsHasName(nullptr, nullptr, "-backend", &raw.old_backend));
  return 0;
}

template <class Enum, std::size_t N>
Enum parse_choice(const char* option, const std::string& value,
                  const std::array<std::pair<const char*, Enum>, N>& choices) {
  std::string names;
  for (const auto& [name, choice] : choices) {
    if (value == name) return choice;
    names += std::string(names.empty() ? "" : ", ") + name;
  }
  fail(ErrorCategory::invalid_input, option, ": unknown value '", value, "' (valid: ", names, ")");
}

void reject_unless(bool applies, bool given, const char* option, const char* needs) {
  if (given && !applies) {
    fail(ErrorCategory::invalid_input, option, " is only read with ", needs);
  }
}

// True when t is a whole number of steps (to 1e-9 of a step).
bool whole_steps(double t, double step) {
  const double steps = t / step;
  return std::round(steps) >= 1.0 &&
         std::fabs(steps - std::round(steps)) <= 1e-9 * std::max(1.0, std::fabs(steps));
}

void require_positive(const char* option, double value, const char* unit) {
  if (!(std::isfinite(value) && value > 0.0)) {
    fail(ErrorCategory::invalid_input, option, " must be a finite number > 0 ", unit, ", got ",
         value);
  }
}

// -foehn_backend: cpu, cuda, split, or auto (cuda where a GPU is usable, else cpu, with the
// reason in o.backend_notice).
void parse_backend_option(BoxOptions& o, const std::string& value) {
  o.backend_automatic = value == "auto";
  if (o.backend_automatic) {
    std::ostringstream notice;
    o.backend =
        select_backend(value, &notice) == Backend::cuda ? BoxBackend::cuda : BoxBackend::cpu;
    o.backend_notice = notice.str();
    return;
  }
  for (const BoxBackend backend : {BoxBackend::cpu, BoxBackend::cuda, BoxBackend::split})
    if (value == backend_name(backend)) {
      o.backend = backend;
      return;
    }
  fail(ErrorCategory::invalid_input, "-foehn_backend: unknown value '", value,
       "' (valid: cpu, cuda, split, auto)");
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

void convert_and_check(BoxOptions& o, const RawOptions& raw, const GivenOptions& given) {
  if (raw.old_backend == PETSC_TRUE) {
    fail(ErrorCategory::invalid_input,
         "-backend was renamed to -foehn_backend (cpu, cuda, split or auto), the option name of "
         "every "
         "Foehn program");
  }
  o.mechanism = raw.mechanism.data();
  if (o.mechanism.empty()) {
    fail(ErrorCategory::invalid_input,
         "no mechanism: give -mechanism FILE.json or -mechanism synthetic");
  }
  const bool synthetic_mechanism = o.mechanism == "synthetic";
  reject_unless(synthetic_mechanism, given.synthetic_species, "-synthetic_species",
                "-mechanism synthetic");
  reject_unless(synthetic_mechanism, given.synthetic_reactions, "-synthetic_reactions",
                "-mechanism synthetic");
  reject_unless(synthetic_mechanism, given.synthetic_seed, "-synthetic_seed",
                "-mechanism synthetic");
  if (raw.synthetic_species < 4 || raw.synthetic_reactions < 1 || raw.synthetic_seed < 0) {
    fail(ErrorCategory::invalid_input, "-synthetic_species (", raw.synthetic_species,
         ") must be >= 4, ", "-synthetic_reactions (", raw.synthetic_reactions,
         ") >= 1 and -synthetic_seed (", raw.synthetic_seed, ") >= 0");
  }
  o.synthetic_species = static_cast<int>(raw.synthetic_species);
  o.synthetic_reactions = static_cast<int>(raw.synthetic_reactions);
  o.synthetic_seed = static_cast<std::uint64_t>(raw.synthetic_seed);

  if (raw.cells < 1) fail(ErrorCategory::invalid_input, "-cells must be >= 1, got ", raw.cells);
  o.cells = raw.cells;
  o.initial_case = parse_choice<InitialCase, 2>(
      "-case", raw.initial_case.data(),
      {{{"uniform", InitialCase::uniform}, {"synthetic", InitialCase::synthetic}}});
  const bool uniform = o.initial_case == InitialCase::uniform;
  reject_unless(!uniform, given.case_seed, "-case_seed", "-case synthetic");
  reject_unless(uniform, given.temperature, "-temperature", "-case uniform");
  reject_unless(uniform, given.pressure, "-pressure", "-case uniform");
  reject_unless(uniform, given.concentrations, "-concentrations", "-case uniform");
  reject_unless(uniform, given.external_rates, "-external_rates", "-case uniform");
  if (raw.case_seed < 0)
    fail(ErrorCategory::invalid_input, "-case_seed must be >= 0, got ", raw.case_seed);
  o.case_seed = static_cast<std::uint64_t>(raw.case_seed);
  require_positive("-temperature", o.temperature, "(K)");
  require_positive("-pressure", o.pressure, "(Pa)");
  o.concentrations = parse_named_values("-concentrations", raw.concentrations.data());
  o.external_rates = parse_named_values("-external_rates", raw.external_rates.data());

  require_positive("-duration", o.duration, "(s; the simulated time is required)");
  if (!given.chem_step) o.chem_step = o.duration;
  require_positive("-chem_step", o.chem_step, "(s)");
  if (o.chem_step > o.duration * (1.0 + 1e-12)) {
    fail(ErrorCategory::invalid_input, "-chem_step (", o.chem_step,
         " s) is longer than -duration (", o.duration, " s)");
  }
  o.output = raw.output.data();
  const bool output = !o.output.empty();
  reject_unless(output, given.output_interval, "-output_interval", "-output FILE.csv");
  reject_unless(output, given.output_cells, "-output_cells", "-output FILE.csv");
  if (!given.output_interval) o.output_interval = o.chem_step;
  require_positive("-output_interval", o.output_interval, "(s)");
  if (!whole_steps(o.output_interval, o.chem_step)) {
    fail(ErrorCategory::invalid_input, "-output_interval (", o.output_interval,
         " s) must be a whole number of chemistry steps of ", o.chem_step, " s (-chem_step)");
  }
  if (given.output_cells) {
    if (raw.output_cells < 1 || raw.output_cells > o.cells) {
      fail(ErrorCategory::invalid_input, "-output_cells must be in 1..", o.cells, " (-cells), got ",
           raw.output_cells);
    }
    o.output_cells = raw.output_cells;
  } else {
    o.output_cells = std::min(o.cells, max_default_output_cells);
    o.output_cells_capped = output && o.cells > max_default_output_cells;
  }

  o.solver.method = chemistry::parse_rosenbrock_method(raw.method.data());
  o.solver.ordering =
      parse_choice<SpeciesOrdering, 3>("-chem_ordering", raw.ordering.data(),
                                       {{{"natural", SpeciesOrdering::natural},
                                         {"minimum_degree", SpeciesOrdering::minimum_degree},
                                         {"markowitz", SpeciesOrdering::markowitz}}});
  if (raw.max_steps < 1)
    fail(ErrorCategory::invalid_input, "-chem_max_steps must be >= 1, got ", raw.max_steps);
  o.solver.control.max_steps = static_cast<int>(raw.max_steps);
  o.solver.control.clip_negative = raw.no_clip != PETSC_TRUE;
  require_positive("-chem_rtol", o.solver.control.relative_tolerance, "");
  if (o.absolute_tolerance != 0.0)
    require_positive("-chem_atol", o.absolute_tolerance, "(molecule cm^-3)");
  require_positive("-chem_initial_step", o.solver.control.initial_step, "(s)");
  require_positive("-chem_min_step", o.solver.control.min_step, "(s)");
  if (!(std::isfinite(o.solver.control.max_step) && o.solver.control.max_step >= 0.0)) {
    fail(ErrorCategory::invalid_input,
         "-chem_max_step must be >= 0 s (0: the chemistry step), got ", o.solver.control.max_step);
  }
  // Failed cells are reported by the driver after the step's summary line (main.cpp).
  o.solver.throw_on_failure = false;

  parse_backend_option(o, raw.backend.data());
  // With auto, both the CPU's and the GPU's settings may apply (the header says which backend
  // ran), so neither is refused; split's own settings still need split.
  const bool automatic = o.backend_automatic;
  const bool gpu = o.backend != BoxBackend::cpu || automatic;
  const bool cpu = o.backend != BoxBackend::cuda || automatic;
  const bool split = o.backend == BoxBackend::split;
  reject_unless(cpu, given.threads, "-threads", "-foehn_backend cpu, split or auto");
  reject_unless(gpu, given.gpu_strategy, "-gpu_strategy", "-foehn_backend cuda, split or auto");
  reject_unless(gpu, given.gpu_layout, "-gpu_layout", "-foehn_backend cuda, split or auto");
  reject_unless(gpu, given.gpu_threads_per_block, "-gpu_threads_per_block",
                "-foehn_backend cuda, split or auto");
  reject_unless(split, given.split_initial_fraction, "-split_initial_fraction",
                "-foehn_backend split");
  reject_unless(split, given.split_damping, "-split_damping", "-foehn_backend split");
  if (raw.threads < 0)
    fail(ErrorCategory::invalid_input, "-threads must be >= 0 (0: all), got ", raw.threads);
  o.threads = static_cast<int>(raw.threads);
  o.split.cpu_threads = o.threads;
  o.split.gpu.strategy = chemistry::parse_gpu_chemistry_strategy(raw.strategy.data());
  o.split.gpu.layout = chemistry::parse_cell_layout(raw.layout.data());
  if (raw.threads_per_block < 1 || raw.threads_per_block > 1024) {
    fail(ErrorCategory::invalid_input, "-gpu_threads_per_block must be in 1..1024, got ",
         raw.threads_per_block);
  }
  o.split.gpu.threads_per_block = static_cast<int>(raw.threads_per_block);
  if (!(o.split.initial_gpu_fraction >= 0.0 && o.split.initial_gpu_fraction <= 1.0)) {
    fail(ErrorCategory::invalid_input, "-split_initial_fraction must be in [0, 1], got ",
         o.split.initial_gpu_fraction);
  }
  if (!(o.split.damping > 0.0 && o.split.damping <= 1.0)) {
    fail(ErrorCategory::invalid_input, "-split_damping must be in (0, 1], got ", o.split.damping);
  }
  require_gpu_if_asked(o);
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
  GivenOptions given;
  FOEHN_PETSC_CHECK(query_options(o, raw, given));
  if (help_requested()) return o;
  convert_and_check(o, raw, given);
  return o;
}

}  // namespace foehn::app
