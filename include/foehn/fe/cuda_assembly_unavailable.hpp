#pragma once
// CPU-only builds of Foehn: the definition of CudaAssembler::assemble, which says why it cannot
// run, for the library's built-in operators and for a user's (FOEHN_DEFINE_OPERATOR).

#include "foehn/fe/cuda_assembler.hpp"
#include "foehn/runtime/error.hpp"

namespace foehn::fe {

template <class Op>
void CudaAssembler::assemble(const Op&, const DeviceAssemblyTarget&, AssemblyStrategy) {
  fail(ErrorCategory::unavailable, "Foehn was built without CUDA: assembling the ", Op::name,
       " operator on the GPU needs the CUDA backend (configure with -DFOEHN_CUDA=ON)");
}

}  // namespace foehn::fe
