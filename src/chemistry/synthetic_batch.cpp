// Test cases for any mechanism: per-cell temperature/pressure of an atmospheric column,
// photolysis following a solar zenith angle (about a quarter of the cells in the dark), emissions
// and first-order losses where the mechanism has them, and initial concentrations with a
// realistic spread (radicals 1e5-1e8 molecule cm^-3, everything else 1e9-1e12, bath gases from
// the air number density).
//
// Each cell draws from its own generator seeded from (seed, cell), so a cell's values do not
// depend on how many cells there are or on any loop order; per-rate maxima (j_max, emission
// strength) depend only on the rate's NAME, so they are the same in every cell and every seed.
// Random numbers: std::mt19937_64 (sequence fixed by the standard) converted by hand, not
// std::uniform_real_distribution (library-specific), so results are the same everywhere.

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "foehn/chemistry/chemistry_batch.hpp"
#include "foehn/chemistry/rate_constants.hpp"
#include "foehn/runtime/error.hpp"

namespace foehn::chemistry {
namespace {

std::uint64_t splitmix64(std::uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

std::uint64_t name_hash(std::string_view name) {  // FNV-1a, then mixed
  std::uint64_t h = 0xCBF29CE484222325ull;
  for (char ch : name) h = (h ^ static_cast<unsigned char>(ch)) * 0x100000001B3ull;
  return splitmix64(h);
}

double to_unit(std::uint64_t bits) {
  return static_cast<double>(bits >> 11) * 0x1.0p-53;
}

double log_uniform(double low, double high, double u) {
  return low * std::pow(high / low, u);
}

// Short-lived species: the synthetic generator's hubs and organic radicals ("R<k>"), and the
// common radical names of real mechanisms.
bool is_radical(std::string_view name) {
  for (std::string_view r : {"OH", "HO2", "NO3", "XO2", "XO2N", "C2O3", "CXO3", "MEO2", "RO2", "O",
                             "O1D", "O(1D)", "O3P", "CL", "CLO", "ROR", "TO2", "CRO", "H"}) {
    if (name == r) return true;
  }
  if (name.size() >= 2 && name[0] == 'R' &&
      name.find_first_not_of("0123456789", 1) == std::string_view::npos)
    return true;
  return false;
}

// Fraction of the air number density for bath gases (also when not flagged constant).
double bath_fraction(std::string_view name) {
  if (name == "M") return 1.0;
  if (name == "N2") return 0.7808;
  if (name == "O2") return 0.2095;
  if (name == "H2O") return 0.01;
  return 0.0;
}

}  // namespace

ChemistryBatch make_synthetic_batch(const Mechanism& mechanism, std::int64_t cells,
                                    std::uint64_t seed) {
  if (cells < 0)
    fail(ErrorCategory::invalid_input, "make_synthetic_batch: negative cell count ", cells);
  const std::size_t n = mechanism.species.size();
  const std::size_t e = mechanism.external_rate_names.size();
  const auto count = static_cast<std::size_t>(cells);

  // Per external rate: its type (from the first reaction naming it) and its name-derived maximum.
  std::vector<ReactionType> rate_type(e, ReactionType::photolysis);
  std::vector<bool> seen(e, false);
  for (const Reaction& r : mechanism.reactions) {
    if (r.external_rate >= 0 && static_cast<std::size_t>(r.external_rate) < e &&
        !seen[static_cast<std::size_t>(r.external_rate)]) {
      seen[static_cast<std::size_t>(r.external_rate)] = true;
      rate_type[static_cast<std::size_t>(r.external_rate)] = r.type;
    }
  }
  std::vector<double> rate_max(e);
  for (std::size_t x = 0; x < e; ++x) {
    const double u = to_unit(name_hash(mechanism.external_rate_names[x]));
    switch (rate_type[x]) {
      case ReactionType::emission:
        rate_max[x] = log_uniform(1e4, 1e6, u);
        break;  // molecule cm^-3 s^-1
      case ReactionType::first_order_loss:
        rate_max[x] = log_uniform(1e-6, 1e-4, u);
        break;  // s^-1 (deposition-like)
      default:
        rate_max[x] = log_uniform(1e-5, 1e-2, u);
        break;  // photolysis j_max, s^-1
    }
  }

  ChemistryBatch batch;
  batch.cell_count = cells;
  batch.concentrations.assign(count * n, 0.0);
  batch.temperature.assign(count, 0.0);
  batch.pressure.assign(count, 0.0);
  batch.external_rates.assign(count * e, 0.0);
  const std::uint64_t base = splitmix64(seed ^ 0x5EED5EED5EED5EEDull);
  for (std::size_t c = 0; c < count; ++c) {
    std::mt19937_64 random(
        splitmix64(base + 0xD1B54A32D192ED03ull * static_cast<std::uint64_t>(c)));
    auto unit = [&]() { return to_unit(random()); };
    // Altitude 0-12 km: T from a 6.5 K/km lapse rate with +-5 K spread, P barometric (scale
    // height 7.46 km: 1013 hPa at the ground, ~200 hPa at 12 km).
    const double altitude = 12.0 * unit();
    batch.temperature[c] = std::clamp(300.0 - 6.5 * altitude + 10.0 * (unit() - 0.5), 220.0, 300.0);
    batch.pressure[c] = std::clamp(101325.0 * std::exp(-altitude / 7.46), 20000.0, 101325.0);
    // cos(solar zenith): a quarter of the cells at night (j = 0), the rest uniform in (0, 1].
    const double night = unit();
    const double cos_zenith = night < 0.25 ? 0.0 : 1.0 - unit();
    const double emission_factor = 0.5 + unit();
    for (std::size_t x = 0; x < e; ++x) {
      double value = rate_max[x];
      if (rate_type[x] == ReactionType::emission) {
        value *= emission_factor;
      } else if (rate_type[x] != ReactionType::first_order_loss) {
        value *= cos_zenith;
      }
      batch.external_rates[c * e + x] = value;
    }
    const double air = air_number_density(batch.temperature[c], batch.pressure[c]);
    for (std::size_t s = 0; s < n; ++s) {
      const Species& species = mechanism.species[s];
      const double u = unit();  // drawn for every species so the stream does not depend on kinds
      const double bath = bath_fraction(species.name);
      double y;
      if (bath > 0.0) {
        y = bath * air;
      } else if (species.constant) {
        y = air;
      } else if (is_radical(species.name)) {
        y = log_uniform(1e5, 1e8, u);
      } else if (species.name == "O3") {
        y = log_uniform(1e11, 1e12, u);
      } else {
        y = log_uniform(1e9, 1e12, u);
      }
      batch.concentrations[c * n + s] = y;
    }
  }
  // Species the mechanism's file holds constant with a value take it (in the mechanism's unit).
  set_file_constant_concentrations(mechanism, batch);
  return batch;
}

}  // namespace foehn::chemistry
