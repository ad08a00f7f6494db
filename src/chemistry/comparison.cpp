// Error measures between a reference chemistry solution and a candidate (comparison.hpp).

#include "foehn/chemistry/comparison.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <limits>

#include "foehn/runtime/error.hpp"

namespace foehn::chemistry {
namespace {

void check_floor(double absolute_floor) {
  if (!(std::isfinite(absolute_floor) && absolute_floor >= 0.0)) {
    fail(ErrorCategory::invalid_input, "chemistry comparison: absolute floor ", absolute_floor,
         " must be finite and >= 0");
  }
}

// |x - y| / max(|x|, floor); 0/0 is "no error", d/0 an infinite one, NaN stays NaN.
double relative_difference(double reference, double candidate, double absolute_floor) {
  const double difference = std::abs(reference - candidate);
  const double scale = std::max(std::abs(reference), absolute_floor);
  if (std::isnan(difference)) return difference;
  if (scale == 0.0) return difference == 0.0 ? 0.0 : std::numeric_limits<double>::infinity();
  return difference / scale;
}

// max that lets a NaN through instead of dropping it (std::max keeps the first argument).
double max_keeping_nan(double a, double b) {
  if (std::isnan(a) || std::isnan(b)) return std::numeric_limits<double>::quiet_NaN();
  return std::max(a, b);
}

}  // namespace

std::vector<SpeciesError> species_nrmse(const std::vector<double>& reference,
                                        const std::vector<double>& candidate, std::int64_t cells,
                                        int species, double absolute_floor, double unresolved_below) {
  if (cells < 0 || species < 0) {
    fail(ErrorCategory::invalid_input, "species_nrmse: negative count (", cells, " cells, ", species,
         " species)");
  }
  check_floor(absolute_floor);
  const std::size_t expected = static_cast<std::size_t>(cells) * static_cast<std::size_t>(species);
  if (reference.size() != expected || candidate.size() != expected) {
    fail(ErrorCategory::invalid_input, "species_nrmse: reference has ", reference.size(),
         " values and candidate ", candidate.size(), ", expected ", expected, " (", cells,
         " cells x ", species, " species)");
  }
  std::vector<SpeciesError> errors;
  if (cells == 0) return errors;
  const auto stride = static_cast<std::size_t>(species);
  for (int s = 0; s < species; ++s) {
    double minimum = std::numeric_limits<double>::infinity();
    double maximum = -std::numeric_limits<double>::infinity();
    double largest_magnitude = 0.0;
    double squared_sum = 0.0;
    double max_relative = 0.0;
    for (std::size_t c = 0; c < static_cast<std::size_t>(cells); ++c) {
      const double x = reference[c * stride + static_cast<std::size_t>(s)];
      const double y = candidate[c * stride + static_cast<std::size_t>(s)];
      minimum = std::min(minimum, x);
      maximum = std::max(maximum, x);
      largest_magnitude = std::max(largest_magnitude, std::abs(x));
      squared_sum += (x - y) * (x - y);
      max_relative = max_keeping_nan(max_relative, relative_difference(x, y, absolute_floor));
    }
    const double range = maximum - minimum;
    const double scale = range > 0.0 ? range : largest_magnitude;
    if (scale == 0.0) continue;  // reference 0 everywhere: no scale to normalise by
    if (largest_magnitude <= unresolved_below) continue;  // below what the tolerances resolve
    const double rmse = std::sqrt(squared_sum / static_cast<double>(cells));
    errors.push_back(SpeciesError{s, rmse / scale, max_relative});
  }
  return errors;
}

SpeciesError worst_species(const std::vector<SpeciesError>& errors) {
  SpeciesError worst;
  for (const SpeciesError& error : errors) {
    if (std::isnan(worst.nrmse)) break;
    if (worst.species < 0 || std::isnan(error.nrmse) || error.nrmse > worst.nrmse) worst = error;
  }
  return worst;
}

double max_relative_error(const std::vector<double>& reference, const std::vector<double>& candidate,
                          double absolute_floor) {
  check_floor(absolute_floor);
  if (reference.size() != candidate.size()) {
    fail(ErrorCategory::invalid_input, "max_relative_error: reference has ", reference.size(),
         " values but candidate ", candidate.size());
  }
  double largest = 0.0;
  for (std::size_t i = 0; i < reference.size(); ++i) {
    largest = max_keeping_nan(largest, relative_difference(reference[i], candidate[i], absolute_floor));
  }
  return largest;
}

}  // namespace foehn::chemistry
