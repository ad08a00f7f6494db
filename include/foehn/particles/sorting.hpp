#pragma once
// Periodic sorting of parcels by met-grid box, so that parcels next to each other in memory
// read the same met data (MPTRAC's locality optimisation). The key of a parcel is the flat
// index (k * nlat + j) * nlon + i of the lower corner of its interpolation box, i.e. the
// met memory order; the sort is stable, so equal keys keep their order and the permutation is
// deterministic. Every attribute (positions, time, id, status, all quantities) is permuted.

#include <cstddef>
#include <cstdint>

#include "foehn/particles/interpolation.hpp"
#include "foehn/particles/met_grid.hpp"
#include "foehn/particles/particle_set.hpp"
#include "foehn/runtime/device_array.hpp"
#include "foehn/runtime/host_device.hpp"
#include "foehn/runtime/stream.hpp"

namespace foehn::particles {

FOEHN_HD std::uint32_t met_box_key(const MetGridView& grid, double lon, double lat, double p) {
  const InterpolationStencil s = make_stencil(grid, lon, lat, p, grid.t0);
  return static_cast<std::uint32_t>((static_cast<std::size_t>(s.k0) * grid.nlat + s.j0) *
                                        grid.nlon + s.i0);
}

// CPU: stable sort of all arrays by met box. invalid_input when the grid has 2^32 points or
// more (the keys are 32-bit) or the parcels are invalid.
void sort_by_met_box(ParticleSet& particles, const MetGrid& grid);

// CUDA: CUB radix sort of (key, index) pairs over only the key bits the grid needs, then a
// gather of every attribute into a spare buffer, swapped in (no copy back). The scratch and
// spare buffers are kept between calls and grow when the set does.
class DeviceParticleSorter {
 public:
  void sort(DeviceParticleSet& particles, const DeviceMetGrid& grid, const Stream& stream);

 private:
  DeviceArray<std::uint32_t> keys_, sorted_keys_;
  DeviceArray<std::uint32_t> order_, sorted_order_;
  DeviceArray<unsigned char> cub_scratch_;
  DeviceArray<double> spare_double_;
  DeviceArray<std::int64_t> spare_id_;
  DeviceArray<std::uint8_t> spare_status_;
};

}  // namespace foehn::particles
