#pragma once
// Meteorological wind on a regular longitude-latitude grid with irregular pressure levels and
// two time levels, the input of the trajectory integrators.
//
// Grid: longitude_i = first_longitude + i * 2 pi / nlon (periodic, the whole globe);
// latitude_j = first_latitude + j * latitude_spacing (radians, may include the poles);
// pressure levels strictly monotonic in either direction (Pa). Point (i, j, k) has the flat
// index (k * nlat + j) * nlon + i. The wind is stored as an array of structures, (u, v, omega)
// interleaved per point, time level t0 first then t1, so that one interpolation stencil loads
// the three components from the same cache lines.

#include <cstddef>
#include <vector>

#include "foehn/particles/interpolation.hpp"
#include "foehn/runtime/device_array.hpp"
#include "foehn/runtime/stream.hpp"

namespace foehn::particles {

struct MetGridGeometry {
  int nlon = 0;
  int nlat = 0;
  double first_longitude = 0.0;  // rad
  double first_latitude = 0.0;   // rad
  double latitude_spacing = 0.0; // rad, > 0
  std::vector<double> pressure_levels;  // Pa, strictly monotonic
  double t0 = 0.0;               // s
  double t1 = 0.0;               // s, > t0
  std::size_t point_count() const noexcept {
    return static_cast<std::size_t>(nlon) * nlat * pressure_levels.size();
  }
  // invalid_input for too few points, non-monotonic levels, NaN, t1 <= t0, a latitude
  // range outside [-pi/2, pi/2].
  void validate() const;
};

// Wind components on one time level, structure of arrays, each point_count() long: the form
// met files and synthetic generators produce.
struct WindLevel {
  std::vector<double> u;      // m/s, eastward
  std::vector<double> v;      // m/s, northward
  std::vector<double> omega;  // Pa/s
};

class MetGrid {
 public:
  // Validates geometry and winds (sizes, finiteness) and interleaves them.
  MetGrid(MetGridGeometry geometry, const WindLevel& at_t0, const WindLevel& at_t1);
  // Takes an interleaved wind (2 * point_count * 3 values, t0 then t1), e.g. copied from a
  // DeviceMetGrid; invalid_input for a wrong size or a non-finite value.
  MetGrid(MetGridGeometry geometry, std::vector<double> interleaved_wind);
  const MetGridGeometry& geometry() const noexcept { return geometry_; }
  const std::vector<double>& interleaved_wind() const noexcept { return wind_; }
  // A view for the FOEHN_HD interpolation; valid while this MetGrid lives.
  MetGridView view() const noexcept;
  // Replaces the two time levels by (old t1, `next` at time t_next).
  void advance(const WindLevel& next, double t_next);

 private:
  MetGridGeometry geometry_;
  std::vector<double> wind_;  // 2 * point_count * 3
};

// The same grid on the device; the interleaving happens in a kernel from SoA uploads, so the
// host never builds (and pins) a second copy of a large grid.
class DeviceMetGrid {
 public:
  DeviceMetGrid(const MetGrid& grid, const Stream& stream);
  DeviceMetGrid(MetGridGeometry geometry, const WindLevel& at_t0, const WindLevel& at_t1,
                const Stream& stream);
  // Takes an interleaved wind already on the device (2 * point_count * 3 values, t0 then t1),
  // e.g. filled by a synthetic-field kernel. invalid_input for a wrong size.
  DeviceMetGrid(MetGridGeometry geometry, DeviceArray<double> interleaved_wind,
                const Stream& stream);
  // Replaces the two time levels by (old t1, `next` at time t_next): the move to the next met
  // time in a run. The t1 half is copied on the device; only `next` crosses the bus.
  void advance(const WindLevel& next, double t_next, const Stream& stream);
  const MetGridGeometry& geometry() const noexcept { return geometry_; }
  // A view holding device pointers: pass it to kernels only.
  MetGridView view() const noexcept;
  const DeviceArray<double>& interleaved_wind() const noexcept { return wind_; }

 private:
  MetGridGeometry geometry_;
  DeviceArray<double> levels_;
  DeviceArray<double> wind_;
};

}  // namespace foehn::particles
