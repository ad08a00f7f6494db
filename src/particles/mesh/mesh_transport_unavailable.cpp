// CPU-only builds: the device mesh field and the CUDA mesh advection exist (so code using them
// links) and say why they cannot run.
#include "foehn/particles/mesh_transport.hpp"
#include "foehn/runtime/error.hpp"

namespace foehn::particles {

DeviceMeshVelocityField::DeviceMeshVelocityField(const MeshVelocityField&, const Stream&) {
  fail_built_without_cuda("DeviceMeshVelocityField");
}
void DeviceMeshVelocityField::advance(const std::vector<double>&, double, const Stream&) {
  fail_built_without_cuda("DeviceMeshVelocityField");
}
MeshFieldView DeviceMeshVelocityField::view() const noexcept { return MeshFieldView{}; }
MeshTransportReport advect(DeviceMeshParcels&, const DeviceMeshVelocityField&, double, double, int,
                           const Stream&, Integrator) {
  fail_built_without_cuda("mesh parcel advection on the GPU");
}

}  // namespace foehn::particles
