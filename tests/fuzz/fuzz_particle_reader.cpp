// libFuzzer target: the netCDF parcel-file reader (read_particle_file) on a file, as
// foehn-trajectories reads its initial parcels. Bad input must throw foehn::Error; a set that
// comes back must keep the reader's promises (consistent, finite, latitudes in range, ids
// unique, known statuses).

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <numbers>
#include <vector>

#include "foehn/particles/io/particle_file.hpp"
#include "foehn/runtime/error.hpp"
#include "fuzz_support.hpp"
#include "netcdf_checks.hpp"

namespace {

using foehn::fuzz::require;
namespace particles = foehn::particles;

void require_consistent(const particles::ParticleSet& parcels) {
  try {
    parcels.validate();
  } catch (const foehn::Error&) {
    require(false, "a set that ParticleSet::validate accepts");
  }
  for (std::size_t i = 0; i < parcels.size(); ++i) {
    require(std::fabs(parcels.latitude[i]) <= std::numbers::pi / 2 + 1e-12,
            "latitude in [-90, 90]");
    require(parcels.status[i] == particles::ParcelStatus::active ||
                parcels.status[i] == particles::ParcelStatus::left_domain,
            "a known status");
  }
  std::vector<std::int64_t> ids = parcels.id;
  std::sort(ids.begin(), ids.end());
  require(std::adjacent_find(ids.begin(), ids.end()) == ids.end(), "unique ids");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static foehn::fuzz::InputFile input("nc");
  try {
    require_consistent(particles::read_particle_file(input.write(data, size)));
  } catch (const foehn::Error&) {
    // The documented answer to bad input.
  }
  foehn::fuzz::require_no_open_netcdf_file();
  return 0;
}
