#pragma once
// Options of foehn-box, read from the PETSc options database (so a control file is simply
// -options_file box.opts, one option per line).

#include <cstdint>
#include <string>
#include <vector>

#include "foehn/chemistry/rosenbrock_solver.hpp"
#include "foehn/chemistry/split_chemistry.hpp"

namespace foehn::app {

enum class BoxBackend { cpu, cuda, split };
enum class InitialCase { uniform, synthetic };

// One NAME=VALUE entry of -concentrations or -external_rates.
struct NamedValue {
  std::string name;
  double value = 0.0;
};

struct BoxOptions {
  // The mechanism: a JSON file, or "synthetic" (make_synthetic_mechanism).
  std::string mechanism;
  int synthetic_species = 80, synthetic_reactions = 190;
  std::uint64_t synthetic_seed = 1;
  // -write_mechanism: the mechanism read, written out (conversion between formats); without
  // -duration nothing is integrated.
  std::string write_mechanism;
  enum class MechanismSchema { openatmos_v1, foehn };
  MechanismSchema write_mechanism_schema = MechanismSchema::openatmos_v1;
  bool convert_only = false;

  // Initial state of every cell.
  std::int64_t cells = 1;
  InitialCase initial_case = InitialCase::uniform;
  std::uint64_t case_seed = 1;             // synthetic: make_synthetic_batch seed
  double temperature = 298.15;             // uniform: K
  double pressure = 101325.0;              // uniform: Pa
  std::vector<NamedValue> concentrations;  // uniform: molecule cm^-3 (species not named: 0)
  std::vector<NamedValue> external_rates;  // uniform: s^-1 or molecule cm^-3 s^-1 (not named: 0)

  // Time: duration split into chemistry steps of chem_step (the last one may be shorter).
  double duration = 0.0;
  double chem_step = 0.0;         // s; after reading: the duration when not given
  double output_interval = 0.0;   // s; after reading: chem_step when not given
  std::string output;             // CSV file; empty: none
  std::int64_t output_cells = 0;  // after reading: how many cells (the first ones) go into the CSV
  bool output_cells_capped =
      false;  // the default "all cells" was capped at max_default_output_cells

  // Solver. absolute_tolerance > 0 overrides the mechanism's per-species tolerances (the vector
  // in `solver` is filled once the mechanism is known: see rosenbrock_options()).
  chemistry::RosenbrockOptions solver;
  double absolute_tolerance = 0.0;

  // -foehn_backend, the option name every Foehn program uses (the old -backend is refused with
  // a message saying so). auto is resolved when the options are read: cuda where a GPU is
  // usable, else cpu; backend_notice then says why the CPU (empty otherwise).
  BoxBackend backend = BoxBackend::cpu;
  bool backend_automatic = false;
  std::string backend_notice;
  int threads = 0;                 // cpu/split: OpenMP threads; 0: all (split: all but one)
  chemistry::SplitSettings split;  // split.gpu: the GPU settings of cuda and split
};

inline constexpr std::int64_t max_default_output_cells = 1000;

// Reads every option (so -help lists them all, each with its range) and checks their values,
// the options that go together and the paths they name; invalid_input (exit code 2) naming the
// option for a bad value. With -help the checks are skipped.
BoxOptions read_box_options();

const char* backend_name(BoxBackend backend);

}  // namespace foehn::app
