#pragma once
// Reproducible random doubles for tests: `count` values uniform in [low, high) from a seeded
// mt19937_64, so a failure names a seed that brings it back.
#include <cstddef>
#include <cstdint>
#include <random>
#include <vector>

namespace foehn::testing {

inline std::vector<double> random_values(std::size_t count, std::uint64_t seed, double low = -1.0e3,
                                         double high = 1.0e3) {
  std::mt19937_64 engine(seed);
  std::uniform_real_distribution<double> value(low, high);
  std::vector<double> values(count);
  for (double& v : values) v = value(engine);
  return values;
}

}  // namespace foehn::testing
