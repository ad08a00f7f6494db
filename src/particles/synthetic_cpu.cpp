// Synthetic met fields and parcel sets on the host: the FOEHN_HD functors of synthetic.hpp
// sampled on grid points (OpenMP over points when the build has it: the turbulent field costs
// a few microseconds per point), random global parcels, log-pressure levels.
#include <cmath>
#include <cstdint>
#include <numbers>

#include "foehn/particles/synthetic.hpp"
#include "foehn/runtime/error.hpp"

namespace foehn::particles {

namespace {
template <class WindField>
WindLevel sample_points(const MetGridGeometry& geometry, const WindField& wind, double t) {
  geometry.validate();
  WindLevel level;
  const std::size_t points = geometry.point_count();
  level.u.resize(points);
  level.v.resize(points);
  level.omega.resize(points);
  const double dlon = 2.0 * std::numbers::pi / geometry.nlon;
  const auto count = static_cast<std::int64_t>(points);
#pragma omp parallel for schedule(static)
  for (std::int64_t n = 0; n < count; ++n) {
    const auto i = static_cast<int>(n % geometry.nlon);
    const auto j = static_cast<int>((n / geometry.nlon) % geometry.nlat);
    const auto k = static_cast<std::size_t>(n / (static_cast<std::int64_t>(geometry.nlon) * geometry.nlat));
    const WindSample w = wind(geometry.first_longitude + i * dlon,
                              geometry.first_latitude + j * geometry.latitude_spacing,
                              geometry.pressure_levels[k], t);
    level.u[static_cast<std::size_t>(n)] = w.u;
    level.v[static_cast<std::size_t>(n)] = w.v;
    level.omega[static_cast<std::size_t>(n)] = w.omega;
  }
  return level;
}
}  // namespace

WindLevel sample_on_grid(const MetGridGeometry& geometry, const SolidBodyWind& wind, double t) {
  return sample_points(geometry, wind, t);
}

WindLevel sample_on_grid(const MetGridGeometry& geometry, const TurbulentWind& wind, double t) {
  return sample_points(geometry, wind, t);
}

MetGrid make_solid_body_grid(const MetGridGeometry& geometry, double alpha,
                             double vertical_velocity) {
  const WindLevel level = sample_on_grid(geometry, SolidBodyWind{alpha, vertical_velocity}, 0.0);
  return MetGrid(geometry, level, level);
}

MetGrid make_turbulent_grid(const MetGridGeometry& geometry, const TurbulentWind& wind) {
  return MetGrid(geometry, sample_on_grid(geometry, wind, geometry.t0),
                 sample_on_grid(geometry, wind, geometry.t1));
}

namespace detail {
void validate_random_parcels(const RandomGlobalParcels& spec) {
  if (!std::isfinite(spec.z_bottom) || !std::isfinite(spec.z_top) || !(spec.z_top > spec.z_bottom) ||
      !std::isfinite(spec.time) || spec.first_id < 0) {
    fail(ErrorCategory::invalid_input, "random parcels: need finite z_top > z_bottom, a finite "
         "time and first_id >= 0, got z = ", spec.z_bottom, " .. ", spec.z_top, " m, time ",
         spec.time, ", first_id ", spec.first_id);
  }
}
}  // namespace detail

ParticleSet make_random_global_parcels(const RandomGlobalParcels& spec) {
  detail::validate_random_parcels(spec);
  ParticleSet set;
  for (std::size_t i = 0; i < spec.count; ++i) {
    const std::int64_t id = spec.first_id + static_cast<std::int64_t>(i);
    const ParcelPosition x = spec.position(id);
    set.add(x.longitude, x.latitude, x.pressure, spec.time, id);
  }
  return set;
}

std::vector<double> log_pressure_levels(int n, double z_bottom, double z_top) {
  if (n < 2 || !std::isfinite(z_bottom) || !std::isfinite(z_top) || !(z_top > z_bottom)) {
    fail(ErrorCategory::invalid_input, "log_pressure_levels: need n >= 2 and z_top > z_bottom, "
         "got n = ", n, ", z = ", z_bottom, " .. ", z_top, " m");
  }
  std::vector<double> levels(static_cast<std::size_t>(n));
  for (int k = 0; k < n; ++k) {
    const double z = z_bottom + (z_top - z_bottom) * k / (n - 1);
    levels[static_cast<std::size_t>(k)] = reference_pressure * std::exp(-z / scale_height);
  }
  return levels;
}

}  // namespace foehn::particles
