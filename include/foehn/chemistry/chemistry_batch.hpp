#pragma once
// The host-side state of many independent chemistry cells (grid boxes): what a chemistry-transport
// model hands to the solver each chemistry step. Species are in the MECHANISM's order (the order
// of the file), cells are contiguous ([cell][species]); the solvers convert to their own layout.

#include <cstdint>
#include <vector>

#include "foehn/chemistry/mechanism.hpp"

namespace foehn::chemistry {

struct ChemistryBatch {
  std::int64_t cell_count = 0;
  std::vector<double> concentrations;  // [cell][species], molecule cm^-3 (>= 0, finite)
  std::vector<double> temperature;     // [cell], K (> 0)
  std::vector<double> pressure;        // [cell], Pa (> 0)
  // [cell][external rate] in Mechanism::external_rate_names order: photolysis and first-order
  // loss in s^-1, emissions in molecule cm^-3 s^-1 (>= 0, finite).
  std::vector<double> external_rates;
};

// Allocates a batch of `cells` cells for `mechanism` (concentrations 0, T = 298.15 K,
// P = 101325 Pa, external rates 0), the species its file holds constant at their file values
// for those conditions (set_file_constant_concentrations).
[[nodiscard]] ChemistryBatch make_batch(const Mechanism& mechanism, std::int64_t cells);

// Sets every species the mechanism's file holds constant with a value (OpenAtmos v1 "constant
// concentration", "constant mixing ratio", "is third body"; Species::constant_source) to that
// value at each cell's temperature and pressure, as MICM does: call it after setting T and P,
// then override with the user's own values. Species whose value is the user's are untouched.
void set_file_constant_concentrations(const Mechanism& mechanism, ChemistryBatch& batch);

// A reaction's rate constant at (T, P) with the cell's external rates (as the solvers compute
// it, in the mechanism's unit); +inf when a parameter or an intermediate overflows.
[[nodiscard]] double reaction_rate_constant(const Reaction& reaction, ConcentrationUnit unit,
                                            double temperature, double pressure,
                                            const double* external_rates);
// Throws foehn::Error(invalid_input) naming the reaction (index, name, type, equation), the cell
// and its conditions when a rate constant of cells [first, first + count) is not finite: the
// solvers would otherwise fail the cell with a singular matrix, or (before the rate forms turned
// an overflowing intermediate into +inf) compute a rate of 0 without saying so.
void check_rate_constants(const Mechanism& mechanism, const ChemistryBatch& batch,
                          std::int64_t first, std::int64_t count);

// Throws foehn::Error(invalid_input) naming the array, the cell and the species/rate when a size
// does not match the mechanism or a value is negative, zero where it must not be, or not finite.
void validate_batch(const Mechanism& mechanism, const ChemistryBatch& batch);
// The same for cells [first, first + count) only (sizes are always checked in full): two backends
// may validate their own ranges of one batch concurrently while writing results to theirs.
void validate_batch_range(const Mechanism& mechanism, const ChemistryBatch& batch,
                          std::int64_t first, std::int64_t count);

// A CB05-like test case for a synthetic mechanism: per-cell T (220-300 K), P (200-1013 hPa),
// photolysis rates following a solar zenith angle (some cells in the dark), and initial
// concentrations with realistic spread (radicals small, reservoirs large). Deterministic per seed.
[[nodiscard]] ChemistryBatch make_synthetic_batch(const Mechanism& mechanism, std::int64_t cells,
                                                  std::uint64_t seed = 1);

}  // namespace foehn::chemistry
