// Allocation and validation of host chemistry batches. Validation runs before every solve: a NaN
// or negative concentration would otherwise surface much later as a rejected step or a silently
// wrong answer in some cell, far from its cause.

#include "foehn/chemistry/chemistry_batch.hpp"

#include <cmath>
#include <cstddef>

#include "foehn/runtime/error.hpp"

namespace foehn::chemistry {
namespace {

void check_size(const char* array, std::size_t actual, std::int64_t cells, std::size_t per_cell) {
  const std::size_t expected = static_cast<std::size_t>(cells) * per_cell;
  if (actual != expected) {
    fail(ErrorCategory::invalid_input, "chemistry batch: '", array, "' has ", actual, " values, expected ",
         expected, " (", cells, " cells x ", per_cell, ")");
  }
}

}  // namespace

ChemistryBatch make_batch(const Mechanism& mechanism, std::int64_t cells) {
  if (cells < 0) fail(ErrorCategory::invalid_input, "chemistry batch: negative cell count ", cells);
  ChemistryBatch batch;
  const auto n = static_cast<std::size_t>(cells);
  batch.cell_count = cells;
  batch.concentrations.assign(n * mechanism.species.size(), 0.0);
  batch.temperature.assign(n, 298.15);
  batch.pressure.assign(n, 101325.0);
  batch.external_rates.assign(n * mechanism.external_rate_names.size(), 0.0);
  return batch;
}

void validate_batch(const Mechanism& mechanism, const ChemistryBatch& batch) {
  validate_batch_range(mechanism, batch, 0, batch.cell_count);
}

void validate_batch_range(const Mechanism& mechanism, const ChemistryBatch& batch, std::int64_t first,
                          std::int64_t count) {
  const std::int64_t cells = batch.cell_count;
  if (cells < 0) fail(ErrorCategory::invalid_input, "chemistry batch: negative cell count ", cells);
  const std::size_t species = mechanism.species.size();
  const std::size_t rates = mechanism.external_rate_names.size();
  check_size("concentrations", batch.concentrations.size(), cells, species);
  check_size("temperature", batch.temperature.size(), cells, 1);
  check_size("pressure", batch.pressure.size(), cells, 1);
  check_size("external_rates", batch.external_rates.size(), cells, rates);
  if (first < 0 || count < 0 || first + count > cells) {
    fail(ErrorCategory::invalid_input, "chemistry batch: cell range [", first, ", ", first + count,
         ") outside the batch of ", cells, " cells");
  }
  for (std::int64_t cell = first; cell < first + count; ++cell) {
    const auto c = static_cast<std::size_t>(cell);
    const double temperature = batch.temperature[c];
    const double pressure = batch.pressure[c];
    if (!(std::isfinite(temperature) && temperature > 0.0)) {
      fail(ErrorCategory::invalid_input, "chemistry batch: cell ", cell, ": temperature ", temperature,
           " K is not a positive finite number");
    }
    if (!(std::isfinite(pressure) && pressure > 0.0)) {
      fail(ErrorCategory::invalid_input, "chemistry batch: cell ", cell, ": pressure ", pressure,
           " Pa is not a positive finite number");
    }
    for (std::size_t s = 0; s < species; ++s) {
      const double value = batch.concentrations[c * species + s];
      if (!(std::isfinite(value) && value >= 0.0)) {
        fail(ErrorCategory::invalid_input, "chemistry batch: cell ", cell, ": concentration of '",
             mechanism.species[s].name, "' is ", value, " (must be finite and >= 0)");
      }
    }
    for (std::size_t r = 0; r < rates; ++r) {
      const double value = batch.external_rates[c * rates + r];
      if (!(std::isfinite(value) && value >= 0.0)) {
        fail(ErrorCategory::invalid_input, "chemistry batch: cell ", cell, ": external rate '",
             mechanism.external_rate_names[r], "' is ", value, " (must be finite and >= 0)");
      }
    }
  }
}

}  // namespace foehn::chemistry
