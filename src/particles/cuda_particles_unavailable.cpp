// CPU-only builds: the device met grid and the CUDA advection exist (so code using them
// links) and say why they cannot run.
#include "foehn/particles/advect.hpp"
#include "foehn/particles/sorting.hpp"
#include "foehn/particles/synthetic.hpp"
#include "foehn/particles/transport.hpp"
#include "foehn/runtime/error.hpp"

namespace foehn::particles {

DeviceMetGrid::DeviceMetGrid(const MetGrid&, const Stream&) { fail_built_without_cuda("DeviceMetGrid"); }
DeviceMetGrid::DeviceMetGrid(MetGridGeometry, const WindLevel&, const WindLevel&, const Stream&) {
  fail_built_without_cuda("DeviceMetGrid");
}
void advect(DeviceParticleSet&, const DeviceMetGrid&, double, double, int, const Stream&,
            Integrator) {
  fail_built_without_cuda("particle advection on the GPU");
}

DeviceMetGrid::DeviceMetGrid(MetGridGeometry, DeviceArray<double>, const Stream&) {
  fail_built_without_cuda("DeviceMetGrid");
}
void DeviceMetGrid::advance(const WindLevel&, double, const Stream&) {
  fail_built_without_cuda("DeviceMetGrid");
}
TransportReport transport(DeviceParticleSet&, const DeviceMetGrid&, const TransportClock&,
                          const TransportSettings&, const Stream&) {
  fail_built_without_cuda("parcel transport on the GPU");
}
void DeviceParticleSorter::sort(DeviceParticleSet&, const DeviceMetGrid&, const Stream&) {
  fail_built_without_cuda("parcel sorting on the GPU");
}
DeviceMetGrid make_solid_body_device_grid(const MetGridGeometry&, double, double, const Stream&) {
  fail_built_without_cuda("synthetic met grids on the GPU");
}
DeviceParticleSet make_random_global_device_parcels(const RandomGlobalParcels&, const Stream&) {
  fail_built_without_cuda("random parcels on the GPU");
}
DeviceMetGrid make_turbulent_device_grid(const MetGridGeometry&, const TurbulentWind&,
                                         const Stream&) {
  fail_built_without_cuda("synthetic met grids on the GPU");
}

}  // namespace foehn::particles
