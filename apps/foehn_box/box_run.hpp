#pragma once
// The pieces of a foehn-box run: the mechanism and the initial cells from the options, the
// chemistry backend behind one interface (CPU, GPU, CPU+GPU split) and the CSV output.

#include <cstdint>
#include <memory>
#include <string>

#include "box_options.hpp"
#include "foehn/chemistry/chemistry_batch.hpp"
#include "foehn/chemistry/mechanism.hpp"
#include "foehn/chemistry/rosenbrock_solver.hpp"
#include "foehn/runtime/atomic_file.hpp"

namespace foehn::app {

// The JSON file of -mechanism, or the synthetic mechanism. Also fills the absolute tolerance
// vector of o.solver when -chem_atol was given.
chemistry::Mechanism load_mechanism(BoxOptions& o);
// -write_mechanism: the schema its extension and -write_mechanism_schema name, written atomically.
void write_mechanism_file(const chemistry::Mechanism& mechanism, const BoxOptions& o);

// Every cell's temperature, pressure, concentrations and external rates (validated).
// Names of -concentrations / -external_rates that the mechanism lacks are invalid_input, and
// so is a -cells count whose batch would not fit in the host memory (checked first).
chemistry::ChemistryBatch make_initial_batch(const chemistry::Mechanism& mechanism,
                                             const BoxOptions& o);

// Species and external rates that -case uniform leaves at 0 although they probably should not
// be: constant species (e.g. M) and external rates not named. Empty when there are none.
std::string uniform_case_notes(const chemistry::Mechanism& mechanism, const BoxOptions& o);

// One chemistry backend. The batch passed to advance() is the one passed to the constructor
// (the GPU keeps its own copy of the cells between steps; fetch() brings them back).
class BoxSolver {
 public:
  virtual ~BoxSolver() = default;
  // Integrates every cell over `duration` seconds. Never throws on failed cells: the report
  // says how many failed (the caller throws after printing the step).
  virtual chemistry::ChemistryStepReport advance(chemistry::ChemistryBatch& batch,
                                                 double duration) = 0;
  // Makes `batch` hold the current concentrations (a download for the GPU backends).
  virtual void fetch(chemistry::ChemistryBatch& batch) { (void)batch; }
  // Backend details for the header line, e.g. "cuda, thread_per_cell, interleaved".
  [[nodiscard]] virtual std::string describe() const = 0;
  // Extra text for a step's line (split: the GPU fraction), may be empty.
  [[nodiscard]] virtual std::string step_note() const { return ""; }
  // The name given to chemistry::throw_if_failed.
  [[nodiscard]] virtual const char* failure_name() const = 0;
};

// Throws foehn::Error(unavailable) for cuda/split in a build without CUDA (or without a GPU).
std::unique_ptr<BoxSolver> make_box_solver(const chemistry::Mechanism& mechanism,
                                           const BoxOptions& o, chemistry::ChemistryBatch& batch);

// The CSV of -output: header time,cell,<species in mechanism order>, one row per output time
// and cell (the first `cells` cells), %.17g. Written under a temporary name, renamed by commit().
class CsvOutput {
 public:
  // Checks now that the file can be written (io error otherwise).
  CsvOutput(const std::string& path, const chemistry::Mechanism& mechanism, std::int64_t cells);
  void write(double time, const chemistry::ChemistryBatch& batch);
  void commit();
  [[nodiscard]] std::int64_t rows() const { return rows_; }

 private:
  AtomicOutputFile file_;
  std::int64_t cells_ = 0;
  std::size_t species_ = 0;
  std::int64_t rows_ = 0;
};

}  // namespace foehn::app
