#pragma once
// Helpers shared by the particle tests.
#include <cmath>

namespace foehn::particles::test {

// Central angle between two points on the sphere (rad), robust for small distances.
inline double central_angle(double lon1, double lat1, double lon2, double lat2) {
  const double x1 = std::cos(lat1) * std::cos(lon1), y1 = std::cos(lat1) * std::sin(lon1),
               z1 = std::sin(lat1);
  const double x2 = std::cos(lat2) * std::cos(lon2), y2 = std::cos(lat2) * std::sin(lon2),
               z2 = std::sin(lat2);
  const double cx = y1 * z2 - z1 * y2, cy = z1 * x2 - x1 * z2, cz = x1 * y2 - y1 * x2;
  return std::atan2(std::sqrt(cx * cx + cy * cy + cz * cz), x1 * x2 + y1 * y2 + z1 * z2);
}

}  // namespace foehn::particles::test
