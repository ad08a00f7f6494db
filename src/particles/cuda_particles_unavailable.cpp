// CPU-only builds: the device met grid and the CUDA advection exist (so code using them
// links) and say why they cannot run.
#include "foehn/particles/advect.hpp"
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

}  // namespace foehn::particles
