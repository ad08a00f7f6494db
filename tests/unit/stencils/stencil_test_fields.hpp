#pragma once
// Initial fields shared by the CPU and GPU stencil tests.

#include <cstdint>
#include <cstring>
#include <vector>

#include "foehn/stencils/stencil_grid.hpp"

namespace foehn::stencils::testing {

// Integers in [-64, 64) scaled by 1/8 from a fixed linear congruential sequence (halo included),
// so the field is non-trivial and the run is the same on every machine. With α = 1/32 every
// product of the scheme is then exact; `general` adds a non-dyadic part so that rounding, and a
// different operation order or an FMA, would show.
template <typename T>
std::vector<T> pseudo_random_field(const StencilGrid& grid, bool general = false,
                                   std::uint32_t seed = 12345u) {
  std::vector<T> field(grid.size());
  std::uint32_t state = seed;
  for (T& value : field) {
    state = state * 1664525u + 1013904223u;
    const int integer = static_cast<int>(state >> 25) - 64;
    value = static_cast<T>(integer) / T(8);
    if (general) value += static_cast<T>(static_cast<double>(state & 0xFFFFu) / 70000.0);
  }
  return field;
}

// The published initial condition: 1 on the central cube of the interior, 0 elsewhere.
template <typename T>
std::vector<T> cube_field(const StencilGrid& g) {
  std::vector<T> field(g.size(), T(0));
  for (int k = g.nz / 4; k < 3 * g.nz / 4; ++k)
    for (int y = g.ny / 4; y < 3 * g.ny / 4; ++y)
      for (int x = g.nx / 4; x < 3 * g.nx / 4; ++x)
        field[g.index(x + halo_width, y + halo_width, k)] = T(1);
  return field;
}

// Number of positions where the two fields differ in any bit (so -0 != +0, NaN == same NaN).
template <typename T>
std::size_t bitwise_differences(const std::vector<T>& a, const std::vector<T>& b) {
  if (a.size() != b.size()) return a.size() + b.size();
  std::size_t count = 0;
  for (std::size_t i = 0; i < a.size(); ++i)
    count += std::memcmp(&a[i], &b[i], sizeof(T)) == 0 ? 0 : 1;
  return count;
}

}  // namespace foehn::stencils::testing
