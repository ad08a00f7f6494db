// The device side of the metric pipeline (metric_functors.hpp, device_metric.cpp) and of the
// point location (transfer_functors.hpp, transfer.cpp): compiled by
// nvcc without FMA contraction where the CUDA backend is built, by the host compiler (stand-ins
// that throw "built without CUDA") elsewhere; see foehn_add_device_kernels.
#include "foehn/adapt/metric_functors.hpp"
#include "foehn/adapt/transfer_functors.hpp"
#include "foehn/runtime/for_each_kernels.hpp"

using namespace foehn::adapt;

FOEHN_INSTANTIATE_FOR_EACH(HessianAt)
FOEHN_INSTANTIATE_FOR_EACH(LpTermsAt)
FOEHN_INSTANTIATE_FOR_EACH(MetricAt)
FOEHN_INSTANTIATE_FOR_EACH(IntersectAt)
FOEHN_INSTANTIATE_FOR_EACH(ComplexityTermAt)
FOEHN_INSTANTIATE_COUNT_WHERE(Sym6NotFinite)
FOEHN_INSTANTIATE_FOR_EACH(WalkFromStart)
