// Allocation and validation of host chemistry batches. Validation runs before every solve: a NaN
// or negative concentration would otherwise surface much later as a rejected step or a silently
// wrong answer in some cell, far from its cause.

#include "foehn/chemistry/chemistry_batch.hpp"

#include <array>
#include <cmath>
#include <cstddef>
#include <sstream>
#include <string>

#include "foehn/chemistry/rate_constants.hpp"

#include "foehn/runtime/error.hpp"

namespace foehn::chemistry {
namespace {

void check_size(const char* array, std::size_t actual, std::int64_t cells, std::size_t per_cell) {
  const std::size_t expected = static_cast<std::size_t>(cells) * per_cell;
  if (actual != expected) {
    fail(ErrorCategory::invalid_input, "chemistry batch: '", array, "' has ", actual,
         " values, expected ", expected, " (", cells, " cells x ", per_cell, ")");
  }
}

// ", rate 'jO3' 1e-5 s^-1" for the per-cell values an external type reads, else nothing.
std::string external_rate_text(const Mechanism& mechanism, const Reaction& reaction,
                               const ChemistryBatch& batch, std::size_t cell) {
  if (reaction.external_rate < 0) return "";
  const std::size_t rates = mechanism.external_rate_names.size();
  const int reads = reaction.type == ReactionType::surface ? 2 : 1;
  std::ostringstream out;
  for (int i = 0; i < reads; ++i) {
    const auto slot = static_cast<std::size_t>(reaction.external_rate + i);
    out << ", '" << mechanism.external_rate_names[slot]
        << "' = " << batch.external_rates[cell * rates + slot];
  }
  return out.str();
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
  set_file_constant_concentrations(mechanism, batch);
  return batch;
}

void set_file_constant_concentrations(const Mechanism& mechanism, ChemistryBatch& batch) {
  const std::size_t species = mechanism.species.size();
  check_size("temperature", batch.temperature.size(), batch.cell_count, 1);
  check_size("pressure", batch.pressure.size(), batch.cell_count, 1);
  check_size("concentrations", batch.concentrations.size(), batch.cell_count, species);
  for (std::size_t i = 0; i < species; ++i) {
    const Species& s = mechanism.species[i];
    if (!s.constant || s.constant_source == ConstantSource::user) continue;
    for (std::size_t c = 0; c < static_cast<std::size_t>(batch.cell_count); ++c)
      batch.concentrations[c * species + i] = file_constant_concentration(
          s, mechanism.concentration_unit, batch.temperature[c], batch.pressure[c]);
  }
}

double reaction_rate_constant(const Reaction& reaction, ConcentrationUnit unit, double temperature,
                              double pressure, const double* external_rates) {
  // What compile() hands the kernels: the external types' scaling factor in slot 0.
  std::array<double, max_rate_parameters> parameters = reaction.parameters;
  if (reaction.external_rate >= 0) parameters[0] = reaction.scaling_factor;
  return rate_constant(static_cast<int>(reaction.type), parameters.data(), reaction.external_rate,
                       temperature, pressure, external_rates,
                       air_density_scale_of(static_cast<int>(unit)));
}

void check_rate_constants(const Mechanism& mechanism, const ChemistryBatch& batch,
                          std::int64_t first, std::int64_t count) {
  const std::size_t rates = mechanism.external_rate_names.size();
  check_size("temperature", batch.temperature.size(), batch.cell_count, 1);
  check_size("pressure", batch.pressure.size(), batch.cell_count, 1);
  check_size("external_rates", batch.external_rates.size(), batch.cell_count, rates);
  if (first < 0 || count < 0 || first + count > batch.cell_count)
    fail(ErrorCategory::invalid_input, "chemistry batch: cells [", first, ", ", first + count,
         ") outside a batch of ", batch.cell_count, " cells");
  for (std::int64_t cell = first; cell < first + count; ++cell) {
    const auto c = static_cast<std::size_t>(cell);
    for (std::size_t r = 0; r < mechanism.reactions.size(); ++r) {
      const Reaction& reaction = mechanism.reactions[r];
      const double k =
          reaction_rate_constant(reaction, mechanism.concentration_unit, batch.temperature[c],
                                 batch.pressure[c], batch.external_rates.data() + c * rates);
      if (std::isfinite(k)) continue;
      fail(ErrorCategory::invalid_input, "chemistry: the rate constant of reaction ", r, " ('",
           reaction.name, "') [", mechanism.equation(reaction), "] is ", k, " in cell ", cell,
           " (T ", batch.temperature[c], " K, P ", batch.pressure[c], " Pa",
           external_rate_text(mechanism, reaction, batch, c), "): its ",
           reaction_type_name(reaction.type),
           " parameters overflow there (an intermediate such as exp(C/T), k0 M or k0 M / kinf "
           "exceeds the largest double)");
    }
  }
}

void validate_batch(const Mechanism& mechanism, const ChemistryBatch& batch) {
  validate_batch_range(mechanism, batch, 0, batch.cell_count);
}

void validate_batch_range(const Mechanism& mechanism, const ChemistryBatch& batch,
                          std::int64_t first, std::int64_t count) {
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
      fail(ErrorCategory::invalid_input, "chemistry batch: cell ", cell, ": temperature ",
           temperature, " K is not a positive finite number");
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
