// CPU sorting of parcels by met box: a stable sort of indices by key, then every attribute
// permuted through one scratch vector.
#include <algorithm>
#include <cstdint>
#include <limits>
#include <numeric>
#include <vector>

#include "foehn/particles/sorting.hpp"
#include "foehn/runtime/error.hpp"

namespace foehn::particles {

namespace detail {
void check_sort_key_range(const MetGridGeometry& geometry) {
  if (geometry.point_count() > std::numeric_limits<std::uint32_t>::max()) {
    fail(ErrorCategory::invalid_input, "sort_by_met_box: the met grid has ",
         geometry.point_count(), " points; 32-bit sort keys allow at most 2^32 - 1");
  }
}
}  // namespace detail

namespace {
template <class T>
void permute(std::vector<T>& values, const std::vector<std::size_t>& order) {
  std::vector<T> sorted(values.size());
  for (std::size_t i = 0; i < order.size(); ++i) sorted[i] = values[order[i]];
  values.swap(sorted);
}
}  // namespace

void sort_by_met_box(ParticleSet& particles, const MetGrid& grid) {
  particles.validate();
  detail::check_sort_key_range(grid.geometry());
  const MetGridView view = grid.view();
  const std::size_t n = particles.size();
  std::vector<std::uint32_t> keys(n);
  for (std::size_t i = 0; i < n; ++i) {
    keys[i] = met_box_key(view, particles.longitude[i], particles.latitude[i],
                          particles.pressure[i]);
  }
  std::vector<std::size_t> order(n);
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return keys[a] < keys[b]; });
  permute(particles.longitude, order);
  permute(particles.latitude, order);
  permute(particles.pressure, order);
  permute(particles.time, order);
  permute(particles.id, order);
  permute(particles.status, order);
  for (const auto& name : particles.quantity_names()) permute(particles.quantity(name), order);
}

}  // namespace foehn::particles
