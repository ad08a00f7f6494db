// Synthetic met grids sampled directly into device memory: one thread per grid point and
// time level evaluates the FOEHN_HD wind functor of synthetic.hpp and writes the interleaved
// (u, v, omega) triple, so an ERA5-sized benchmark grid never exists on the host.
#include <cstdint>
#include <numbers>

#include "foehn/particles/synthetic.hpp"
#include "foehn/runtime/cuda_check.hpp"
#include "foehn/runtime/error.hpp"

namespace foehn::particles {

namespace {

constexpr int block_size = 256;

template <class WindField>
__global__ void sample_wind_kernel(WindField wind, int nlon, int nlat, const double* levels,
                                   double first_longitude, double longitude_spacing,
                                   double first_latitude, double latitude_spacing, double t0,
                                   double t1, std::size_t points, double* __restrict__ out) {
  const std::size_t flat = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;
  if (flat >= 2 * points) return;
  const int level = flat >= points ? 1 : 0;
  const std::size_t point = flat - level * points;
  const auto i = static_cast<int>(point % nlon);
  const auto j = static_cast<int>((point / nlon) % nlat);
  const auto k = static_cast<int>(point / (static_cast<std::size_t>(nlon) * nlat));
  const WindSample w = wind(first_longitude + i * longitude_spacing,
                            first_latitude + j * latitude_spacing, levels[k], level ? t1 : t0);
  out[3 * flat + 0] = w.u;
  out[3 * flat + 1] = w.v;
  out[3 * flat + 2] = w.omega;
}

template <class WindField>
DeviceMetGrid sample_on_device(const MetGridGeometry& geometry, const WindField& wind,
                               const Stream& stream) {
  geometry.validate();
  const std::size_t points = geometry.point_count();
  DeviceArray<double> levels(geometry.pressure_levels.size(), stream);
  levels.copy_from_host_async(geometry.pressure_levels, stream);
  DeviceArray<double> out(2 * points * 3, stream);
  const auto blocks = static_cast<unsigned int>((2 * points + block_size - 1) / block_size);
  sample_wind_kernel<<<blocks, block_size, 0, native(stream)>>>(
      wind, geometry.nlon, geometry.nlat, levels.data(), geometry.first_longitude,
      2.0 * std::numbers::pi / geometry.nlon, geometry.first_latitude, geometry.latitude_spacing,
      geometry.t0, geometry.t1, points, out.data());
  FOEHN_CUDA_CHECK_LAUNCH("sample_wind_kernel");
  DeviceMetGrid grid(geometry, std::move(out), stream);  // synchronises the stream
  return grid;
}

__global__ void fill_random_parcels(RandomGlobalParcels spec, std::size_t n,
                                    double* __restrict__ lon, double* __restrict__ lat,
                                    double* __restrict__ p, double* __restrict__ t,
                                    std::int64_t* __restrict__ id,
                                    std::uint8_t* __restrict__ status) {
  const std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;
  if (i >= n) return;
  const std::int64_t parcel_id = spec.first_id + static_cast<std::int64_t>(i);
  const ParcelPosition x = spec.position(parcel_id);
  lon[i] = x.longitude;
  lat[i] = x.latitude;
  p[i] = x.pressure;
  t[i] = spec.time;
  id[i] = parcel_id;
  status[i] = static_cast<std::uint8_t>(ParcelStatus::active);
}

}  // namespace

namespace detail {
void validate_random_parcels(const RandomGlobalParcels& spec);
}  // namespace detail

DeviceParticleSet make_random_global_device_parcels(const RandomGlobalParcels& spec,
                                                    const Stream& stream) {
  detail::validate_random_parcels(spec);
  const std::size_t n = spec.count;
  DeviceParticleSet set;
  set.longitude = DeviceArray<double>(n, stream);
  set.latitude = DeviceArray<double>(n, stream);
  set.pressure = DeviceArray<double>(n, stream);
  set.time = DeviceArray<double>(n, stream);
  set.id = DeviceArray<std::int64_t>(n, stream);
  set.status = DeviceArray<std::uint8_t>(n, stream);
  if (n > 0) {
    const auto blocks = static_cast<unsigned int>((n + block_size - 1) / block_size);
    fill_random_parcels<<<blocks, block_size, 0, native(stream)>>>(
        spec, n, set.longitude.data(), set.latitude.data(), set.pressure.data(), set.time.data(),
        set.id.data(), set.status.data());
    FOEHN_CUDA_CHECK_LAUNCH("fill_random_parcels");
  }
  stream.synchronize();
  return set;
}

DeviceMetGrid make_solid_body_device_grid(const MetGridGeometry& geometry, double alpha,
                                          double vertical_velocity, const Stream& stream) {
  return sample_on_device(geometry, SolidBodyWind{alpha, vertical_velocity}, stream);
}

DeviceMetGrid make_turbulent_device_grid(const MetGridGeometry& geometry,
                                         const TurbulentWind& wind, const Stream& stream) {
  return sample_on_device(geometry, wind, stream);
}

}  // namespace foehn::particles
