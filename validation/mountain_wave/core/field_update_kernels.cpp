// The device side of the core's pointwise updates (field_updates.hpp): compiled by nvcc without
// FMA contraction where the CUDA backend is built, by the host compiler (stand-ins that throw)
// elsewhere; see foehn_add_device_kernels.
#include "field_updates.hpp"
#include "foehn/runtime/for_each_kernels.hpp"

using namespace foehn::mountainwave;

FOEHN_INSTANTIATE_FOR_EACH(StridedCopy)
FOEHN_INSTANTIATE_FOR_EACH(Fill)
FOEHN_INSTANTIATE_FOR_EACH(ToColumns)
FOEHN_INSTANTIATE_FOR_EACH(FromColumns)
FOEHN_INSTANTIATE_FOR_EACH(AddArrays)
FOEHN_INSTANTIATE_FOR_EACH(Extrapolate)
FOEHN_INSTANTIATE_FOR_EACH(BodyForce)
FOEHN_INSTANTIATE_FOR_EACH(BoundaryVelocity)
FOEHN_INSTANTIATE_FOR_EACH(RestoreBoundary)
FOEHN_INSTANTIATE_MAX_OF(TetCfl)
FOEHN_INSTANTIATE_COUNT_WHERE(NonFinite)
