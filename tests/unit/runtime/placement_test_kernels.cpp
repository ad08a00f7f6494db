// The device side of test_placement.cpp's functors (foehn_add_device_kernels).
#include "foehn/runtime/for_each_kernels.hpp"
#include "placement_test_functors.hpp"

FOEHN_INSTANTIATE_FOR_EACH(foehn::testing::ScaleAndAdd)
FOEHN_INSTANTIATE_MAX_OF(foehn::testing::ScaledMagnitude)
FOEHN_INSTANTIATE_COUNT_WHERE(foehn::testing::NotFinite)
