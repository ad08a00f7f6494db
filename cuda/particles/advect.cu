// CUDA backend of the particle transport: the device met grid (interleaved on the device) and
// advection with one thread per parcel, running the FOEHN_HD steps of integrators.hpp.
#include <cmath>
#include <cstdint>
#include <numeric>

#include "foehn/particles/advect.hpp"
#include "foehn/runtime/cuda_check.hpp"
#include "foehn/runtime/error.hpp"

namespace foehn::particles {

namespace detail {
void validate_met_input(const MetGridGeometry& geometry, const WindLevel& at_t0,
                        const WindLevel& at_t1);
void check_advect_arguments(double dt, int steps);
void validate_next_met_time(const MetGridGeometry& geometry, const WindLevel& next,
                            double t_next);
}  // namespace detail

namespace {

constexpr int block_size = 256;

int grid_size(std::size_t n) {
  return static_cast<int>((n + block_size - 1) / block_size);
}

__global__ void interleave_wind(const double* __restrict__ u, const double* __restrict__ v,
                                const double* __restrict__ omega, std::size_t points,
                                double* __restrict__ wind) {
  const std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;
  if (i >= points) return;
  wind[3 * i + 0] = u[i];
  wind[3 * i + 1] = v[i];
  wind[3 * i + 2] = omega[i];
}

__global__ void advect_parcels(MetGridView grid, double* __restrict__ lon,
                               double* __restrict__ lat, double* __restrict__ p,
                               double* __restrict__ t, std::size_t n, double t_start, double dt,
                               int steps, Integrator scheme) {
  const std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;
  if (i >= n) return;
  const GridWind wind{grid};
  const ParcelPosition end =
      integrate(wind, ParcelPosition{lon[i], lat[i], p[i]}, t_start, dt, steps, scheme);
  lon[i] = end.longitude;
  lat[i] = end.latitude;
  p[i] = end.pressure;
  t[i] = t_start + steps * dt;
}

}  // namespace

DeviceMetGrid::DeviceMetGrid(const MetGrid& grid, const Stream& stream)
    : geometry_(grid.geometry()),
      levels_(grid.geometry().pressure_levels.size(), stream),
      wind_(grid.interleaved_wind().size(), stream) {
  levels_.copy_from_host_async(geometry_.pressure_levels, stream);
  wind_.copy_from_host_async(grid.interleaved_wind(), stream);
  stream.synchronize();
}

DeviceMetGrid::DeviceMetGrid(MetGridGeometry geometry, const WindLevel& at_t0,
                             const WindLevel& at_t1, const Stream& stream)
    : geometry_(std::move(geometry)) {
  detail::validate_met_input(geometry_, at_t0, at_t1);
  const std::size_t points = geometry_.point_count();
  levels_ = DeviceArray<double>(geometry_.pressure_levels.size(), stream);
  levels_.copy_from_host_async(geometry_.pressure_levels, stream);
  wind_ = DeviceArray<double>(2 * points * 3, stream);
  DeviceArray<double> u(points, stream), v(points, stream), omega(points, stream);
  const WindLevel* levels[2] = {&at_t0, &at_t1};
  for (int l = 0; l < 2; ++l) {
    u.copy_from_host_async(levels[l]->u, stream);
    v.copy_from_host_async(levels[l]->v, stream);
    omega.copy_from_host_async(levels[l]->omega, stream);
    interleave_wind<<<grid_size(points), block_size, 0, native(stream)>>>(
        u.data(), v.data(), omega.data(), points, wind_.data() + l * points * 3);
    FOEHN_CUDA_CHECK_LAUNCH("interleave_wind");
    // The staging arrays are reused for t1: the t0 kernel must have read them first, and the
    // pageable host sources must stay valid only until we return.
    stream.synchronize();
  }
}

DeviceMetGrid::DeviceMetGrid(MetGridGeometry geometry, DeviceArray<double> interleaved_wind,
                             const Stream& stream)
    : geometry_(std::move(geometry)), wind_(std::move(interleaved_wind)) {
  geometry_.validate();
  if (wind_.size() != 2 * geometry_.point_count() * 3) {
    fail(ErrorCategory::invalid_input, "DeviceMetGrid: the interleaved wind has ", wind_.size(),
         " values, the grid needs 2 x ", geometry_.point_count(), " x 3");
  }
  levels_ = DeviceArray<double>(geometry_.pressure_levels.size(), stream);
  levels_.copy_from_host_async(geometry_.pressure_levels, stream);
  stream.synchronize();
}

void DeviceMetGrid::advance(const WindLevel& next, double t_next, const Stream& stream) {
  detail::validate_next_met_time(geometry_, next, t_next);
  const std::size_t points = geometry_.point_count();
  FOEHN_CUDA_CHECK(cudaMemcpyAsync(wind_.data(), wind_.data() + points * 3,
                                   points * 3 * sizeof(double), cudaMemcpyDeviceToDevice,
                                   native(stream)));
  DeviceArray<double> u(points, stream), v(points, stream), omega(points, stream);
  u.copy_from_host_async(next.u, stream);
  v.copy_from_host_async(next.v, stream);
  omega.copy_from_host_async(next.omega, stream);
  interleave_wind<<<grid_size(points), block_size, 0, native(stream)>>>(
      u.data(), v.data(), omega.data(), points, wind_.data() + points * 3);
  FOEHN_CUDA_CHECK_LAUNCH("interleave_wind");
  stream.synchronize();  // the staging arrays and pageable sources die when we return
  geometry_.t0 = geometry_.t1;
  geometry_.t1 = t_next;
}

void advect(DeviceParticleSet& particles, const DeviceMetGrid& grid, double t_start, double dt,
            int steps, const Stream& stream, Integrator scheme) {
  detail::check_advect_arguments(dt, steps);
  const std::size_t n = particles.size();
  if (n == 0) return;
  advect_parcels<<<grid_size(n), block_size, 0, native(stream)>>>(
      grid.view(), particles.longitude.data(), particles.latitude.data(),
      particles.pressure.data(), particles.time.data(), n, t_start, dt, steps, scheme);
  FOEHN_CUDA_CHECK_LAUNCH("advect_parcels");
  stream.synchronize();
}

}  // namespace foehn::particles
