#pragma once
// The published stencil test case and an exact comparison, for tests, benchmarks and anyone
// checking a port of the operator against Foehn's reference.

#include <cstddef>
#include <cstring>
#include <vector>

#include "foehn/stencils/stencil_grid.hpp"

namespace foehn::stencils {

// The published initial condition: 1 on the central cube of the interior (the middle half in
// x, y and z), 0 elsewhere, halo included.
template <typename T>
std::vector<T> published_cube_field(const StencilGrid& g) {
  std::vector<T> field(g.size(), T(0));
  for (int k = g.nz / 4; k < 3 * g.nz / 4; ++k)
    for (int y = g.ny / 4; y < 3 * g.ny / 4; ++y)
      for (int x = g.nx / 4; x < 3 * g.nx / 4; ++x)
        field[g.index(x + halo_width, y + halo_width, k)] = T(1);
  return field;
}

// Number of positions where the two fields differ in any bit (so -0 != +0, NaN == same NaN);
// fields of different sizes count as differing everywhere.
template <typename T>
std::size_t bitwise_differences(const std::vector<T>& a, const std::vector<T>& b) {
  if (a.size() != b.size()) return a.size() + b.size();
  std::size_t count = 0;
  for (std::size_t i = 0; i < a.size(); ++i)
    count += std::memcmp(&a[i], &b[i], sizeof(T)) == 0 ? 0 : 1;
  return count;
}

}  // namespace foehn::stencils
