// libFuzzer target: the netCDF met reader, called as foehn-trajectories calls it: the file's
// layout and coordinates (read_met_file_info), then the winds of a time (read_met_wind). Bad
// input must throw foehn::Error; what comes back must keep the reader's promises.

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "foehn/particles/io/met_netcdf.hpp"
#include "foehn/runtime/error.hpp"
#include "fuzz_support.hpp"
#include "netcdf_checks.hpp"

namespace {

using foehn::fuzz::require;
namespace particles = foehn::particles;

bool all_finite(const std::vector<double>& values) {
  return std::all_of(values.begin(), values.end(), [](double x) { return std::isfinite(x); });
}

void require_consistent(const particles::MetFileInfo& info) {
  require(!info.times.empty(), "at least one time");
  for (std::size_t k = 1; k < info.times.size(); ++k)
    require(info.times[k] > info.times[k - 1], "strictly increasing times");
  require(info.vertical_velocity == "omega" || info.vertical_velocity == "w",
          "vertical velocity named omega or w");
  particles::MetGridGeometry geometry = info.geometry;
  geometry.t1 = geometry.t0 + 1.0;
  try {
    geometry.validate();
  } catch (const foehn::Error&) {
    require(false, "a grid that MetGridGeometry::validate accepts");
  }
}

void require_consistent(const particles::WindLevel& wind, const particles::MetFileInfo& info) {
  const std::size_t points = info.geometry.point_count();
  for (const std::vector<double>* component : {&wind.u, &wind.v, &wind.omega}) {
    require(component->size() == points, "one wind value per grid point");
    require(all_finite(*component), "finite winds");
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static foehn::fuzz::InputFile input("nc");
  try {
    const particles::MetFileInfo info = particles::read_met_file_info(input.write(data, size));
    require_consistent(info);
    // One time only: each read opens the file again, which costs a netCDF-4 file ~7 ms under
    // ASan. The last time, so that reads at an offset into the time dimension are covered.
    require_consistent(particles::read_met_wind(info, info.times.size() - 1), info);
  } catch (const foehn::Error&) {
    // The documented answer to bad input.
  }
  foehn::fuzz::require_no_open_netcdf_file();
  return 0;
}
