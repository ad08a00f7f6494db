#pragma once
// Initial fields shared by the CPU and GPU stencil tests.

#include <cstdint>
#include <vector>

#include "foehn/stencils/reference_fields.hpp"
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

// The bitwise comparison lives in the library (reference_fields.hpp).
using stencils::bitwise_differences;

}  // namespace foehn::stencils::testing
