// CUDA sorting of parcels by met box: keys from the same FOEHN_HD met_box_key as the CPU,
// CUB's radix sort of (key, index) pairs over only the bits the grid's point count needs
// (stable, so the permutation equals the CPU's std::stable_sort), then one gather per
// attribute into a spare buffer that is swapped in.
#include <cub/device/device_radix_sort.cuh>

#include <bit>
#include <cstdint>
#include <utility>

#include "foehn/particles/sorting.hpp"
#include "foehn/runtime/cuda_check.hpp"
#include "foehn/runtime/error.hpp"

namespace foehn::particles {

namespace detail {
void check_sort_key_range(const MetGridGeometry& geometry);
}  // namespace detail

namespace {

constexpr int block_size = 256;

unsigned int blocks_for(std::size_t n) {
  return static_cast<unsigned int>((n + block_size - 1) / block_size);
}

__global__ void compute_box_keys(MetGridView grid, const double* __restrict__ lon,
                                 const double* __restrict__ lat, const double* __restrict__ p,
                                 std::size_t n, std::uint32_t* __restrict__ keys,
                                 std::uint32_t* __restrict__ order) {
  const std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;
  if (i >= n) return;
  keys[i] = met_box_key(grid, lon[i], lat[i], p[i]);
  order[i] = static_cast<std::uint32_t>(i);
}

template <class T>
__global__ void gather(const T* __restrict__ source, const std::uint32_t* __restrict__ order,
                       std::size_t n, T* __restrict__ target) {
  const std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;
  if (i < n) target[i] = source[order[i]];
}

template <class T>
void ensure_size(DeviceArray<T>& array, std::size_t n, const Stream& stream) {
  if (array.size() != n) array = DeviceArray<T>(n, stream);
}

template <class T>
void permute(DeviceArray<T>& values, DeviceArray<T>& spare, const DeviceArray<std::uint32_t>& order,
             const Stream& stream) {
  const std::size_t n = values.size();
  ensure_size(spare, n, stream);
  gather<<<blocks_for(n), block_size, 0, native(stream)>>>(values.data(), order.data(), n,
                                                            spare.data());
  FOEHN_CUDA_CHECK_LAUNCH("gather (parcel sort)");
  std::swap(values, spare);
}

}  // namespace

void DeviceParticleSorter::sort(DeviceParticleSet& particles, const DeviceMetGrid& grid,
                                const Stream& stream) {
  detail::check_sort_key_range(grid.geometry());
  const std::size_t n = particles.size();
  if (n < 2) return;
  if (n > 0xFFFFFFFFu) {
    fail(ErrorCategory::invalid_input, "DeviceParticleSorter: ", n,
         " parcels; 32-bit sort indices allow at most 2^32 - 1");
  }
  ensure_size(keys_, n, stream);
  ensure_size(sorted_keys_, n, stream);
  ensure_size(order_, n, stream);
  ensure_size(sorted_order_, n, stream);
  compute_box_keys<<<blocks_for(n), block_size, 0, native(stream)>>>(
      grid.view(), particles.longitude.data(), particles.latitude.data(),
      particles.pressure.data(), n, keys_.data(), order_.data());
  FOEHN_CUDA_CHECK_LAUNCH("compute_box_keys");

  // Only the bits a key can use: fewer radix passes for smaller grids.
  const auto largest_key = static_cast<std::uint32_t>(grid.geometry().point_count() - 1);
  const int end_bit = std::max(1, static_cast<int>(std::bit_width(largest_key)));
  const auto count = static_cast<std::int64_t>(n);
  std::size_t scratch_bytes = 0;
  FOEHN_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(
      nullptr, scratch_bytes, keys_.data(), sorted_keys_.data(), order_.data(),
      sorted_order_.data(), count, 0, end_bit, native(stream)));
  if (cub_scratch_.size() < scratch_bytes) cub_scratch_ = DeviceArray<unsigned char>(scratch_bytes, stream);
  FOEHN_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(
      cub_scratch_.data(), scratch_bytes, keys_.data(), sorted_keys_.data(), order_.data(),
      sorted_order_.data(), count, 0, end_bit, native(stream)));

  permute(particles.longitude, spare_double_, sorted_order_, stream);
  permute(particles.latitude, spare_double_, sorted_order_, stream);
  permute(particles.pressure, spare_double_, sorted_order_, stream);
  permute(particles.time, spare_double_, sorted_order_, stream);
  permute(particles.id, spare_id_, sorted_order_, stream);
  permute(particles.status, spare_status_, sorted_order_, stream);
  for (auto& quantity : particles.quantities) permute(quantity, spare_double_, sorted_order_, stream);
  // The spare buffers now hold the unsorted arrays, which the stream may still be reading:
  // keep the call synchronous so a caller reusing or freeing the set cannot race it.
  stream.synchronize();
}

}  // namespace foehn::particles
