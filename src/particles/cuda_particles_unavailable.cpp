// CPU-only builds: the device met grid and the CUDA advection exist (so code using them
// links) and say why they cannot run.
#include "foehn/particles/advect.hpp"
#include "foehn/particles/sorting.hpp"
#include "foehn/particles/synthetic.hpp"
#include "foehn/particles/transport.hpp"
#include "foehn/runtime/error.hpp"

namespace foehn::particles {

namespace {
[[noreturn]] void unavailable(const char* what) {
  fail(ErrorCategory::unavailable, "Foehn was built without CUDA: ", what,
       " needs the CUDA backend (configure with -DFOEHN_CUDA=ON)");
}
}  // namespace

DeviceMetGrid::DeviceMetGrid(const MetGrid&, const Stream&) { unavailable("DeviceMetGrid"); }
DeviceMetGrid::DeviceMetGrid(MetGridGeometry, const WindLevel&, const WindLevel&, const Stream&) {
  unavailable("DeviceMetGrid");
}
void advect(DeviceParticleSet&, const DeviceMetGrid&, double, double, int, const Stream&,
            Integrator) {
  unavailable("particle advection on the GPU");
}

DeviceMetGrid::DeviceMetGrid(MetGridGeometry, DeviceArray<double>, const Stream&) {
  unavailable("DeviceMetGrid");
}
void DeviceMetGrid::advance(const WindLevel&, double, const Stream&) {
  unavailable("DeviceMetGrid");
}
TransportReport transport(DeviceParticleSet&, const DeviceMetGrid&, const TransportClock&,
                          const TransportSettings&, const Stream&) {
  unavailable("parcel transport on the GPU");
}
void DeviceParticleSorter::sort(DeviceParticleSet&, const DeviceMetGrid&, const Stream&) {
  unavailable("parcel sorting on the GPU");
}
DeviceMetGrid make_solid_body_device_grid(const MetGridGeometry&, double, double, const Stream&) {
  unavailable("synthetic met grids on the GPU");
}
DeviceParticleSet make_random_global_device_parcels(const RandomGlobalParcels&, const Stream&) {
  unavailable("random parcels on the GPU");
}
DeviceMetGrid make_turbulent_device_grid(const MetGridGeometry&, const TurbulentWind&,
                                         const Stream&) {
  unavailable("synthetic met grids on the GPU");
}

}  // namespace foehn::particles
