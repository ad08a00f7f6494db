// The device side of BlockChebyshev's pointwise steps (block_chebyshev_updates.hpp); compiled
// by nvcc where the CUDA backend is built, as stand-ins elsewhere (foehn_add_device_kernels).
#include "block_chebyshev_updates.hpp"
#include "foehn/runtime/for_each_kernels.hpp"

using namespace foehn::petsc;

FOEHN_INSTANTIATE_FOR_EACH(ChebyshevFirstIterate)
FOEHN_INSTANTIATE_FOR_EACH(ChebyshevNextIterate)
