// CPU reference backend: the FOEHN_HD steps, one parcel per loop iteration (OpenMP when the
// build found it; parcels are independent, so the result does not depend on the threads).
#include <cmath>
#include <cstdint>

#include "foehn/particles/advect.hpp"
#include "foehn/runtime/error.hpp"

namespace foehn::particles {

namespace detail {
void check_advect_arguments(double dt, int steps) {
  if (steps < 0 || !std::isfinite(dt)) {
    fail(ErrorCategory::invalid_input, "advect: need steps >= 0 and a finite dt, got steps = ",
         steps, ", dt = ", dt);
  }
}
}  // namespace detail

void advect(ParticleSet& particles, const MetGrid& grid, double t_start, double dt, int steps,
            Integrator scheme) {
  particles.validate();
  detail::check_advect_arguments(dt, steps);
  const GridWind wind{grid.view()};
  const auto n = static_cast<std::int64_t>(particles.size());
  double* lon = particles.longitude.data();
  double* lat = particles.latitude.data();
  double* p = particles.pressure.data();
  double* t = particles.time.data();
#pragma omp parallel for schedule(static)
  for (std::int64_t i = 0; i < n; ++i) {
    const ParcelPosition end =
        integrate(wind, ParcelPosition{lon[i], lat[i], p[i]}, t_start, dt, steps, scheme);
    lon[i] = end.longitude;
    lat[i] = end.latitude;
    p[i] = end.pressure;
    t[i] = t_start + steps * dt;
  }
}

}  // namespace foehn::particles
