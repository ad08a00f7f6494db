#pragma once
// A batch of cells stored in one of the layouts of cell_layout.hpp (species in COMPILED order),
// and the per-cell driver that both the GPU's thread-per-cell kernel and the host layout tests
// call: rate constants from T, P and the external rates, then the adaptive integration.

#include <cstdint>

#include "foehn/chemistry/cell_layout.hpp"
#include "foehn/chemistry/compiled_mechanism.hpp"
#include "foehn/chemistry/rosenbrock.hpp"
#include "foehn/runtime/host_device.hpp"

namespace foehn::chemistry {

// Plain pointers (device or host). Fields marked "layout" are stored with the batch's layout and
// the given width; the others are plain per-cell arrays.
struct CellStorage {
  std::int64_t cells = 0;
  int work_width = 0;
  double* concentrations = nullptr;      // layout, width species_count
  double* external_rates = nullptr;      // layout, width max(external_rate_count, 1)
  double* rate_constants = nullptr;      // layout, width reaction_count
  double* work = nullptr;                // layout, width work_width
  const double* temperature = nullptr;   // [cell]
  const double* pressure = nullptr;      // [cell]
  CellStatistics* statistics = nullptr;  // [cell]; next_step carries over between calls
};

template <class Layout>
FOEHN_HD void integrate_stored_cell(const CompiledMechanismView& m, const RosenbrockTableau& method,
                                    const RosenbrockControl& control, const CellChecks& checks,
                                    const CellStorage& storage, std::int64_t cell,
                                    double duration) {
  const std::int64_t cells = storage.cells;
  const auto rates = Layout::span(storage.rate_constants, cell, m.reaction_count, cells);
  const int external_width = m.external_rate_count > 0 ? m.external_rate_count : 1;
  compute_rate_constants(m, storage.temperature[cell], storage.pressure[cell],
                         Layout::span(storage.external_rates, cell, external_width, cells), rates);
  CellStatistics& stats = storage.statistics[cell];
  stats = integrate_cell(m, method, control, checks, duration, stats.next_step, rates,
                         Layout::span(storage.concentrations, cell, m.species_count, cells),
                         Layout::span(storage.work, cell, storage.work_width, cells));
}

}  // namespace foehn::chemistry
