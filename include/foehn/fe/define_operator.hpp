#pragma once
// Making an operator of your own code assemblable by Foehn's backends (see docs/library_api.md
// and examples/user_operator). Write the operator as operator_interface.hpp describes, then in
// exactly one source file of your program:
//
//   #include <foehn/fe/define_operator.hpp>
//   #include "my_operator.hpp"
//   FOEHN_DEFINE_OPERATOR(my::CoriolisOperator)       // CpuAssembler and CudaAssembler
//
// With a Foehn built with CUDA (FOEHN_HAVE_CUDA in foehn/config.hpp) that file must be compiled
// by nvcc (a .cu file, or LANGUAGE CUDA in CMake) and the program linked with the CUDA runtime;
// for bitwise CPU/GPU agreement of the deterministic strategy, compile it with --fmad=false
// and the CPU side with -ffp-contract=off, as Foehn itself is. A C++-only program (no nvcc)
// uses FOEHN_DEFINE_CPU_OPERATOR(Op) instead: CpuAssembler only.
//
// The macros are explicit instantiations: use them at namespace scope, once per operator per
// program.

#include "foehn/config.hpp"
#include "foehn/fe/cpu_assembly.hpp"

#define FOEHN_DEFINE_CPU_OPERATOR(Op) FOEHN_INSTANTIATE_CPU_ASSEMBLY(Op)

#if FOEHN_HAVE_CUDA && defined(__CUDACC__)
#include "foehn/fe/cuda/assembler_dispatch.cuh"
#include "foehn/fe/cuda/deterministic_strategy.cuh"
#include "foehn/fe/cuda/fused_strategy.cuh"
#include "foehn/fe/cuda/row_gather_strategy.cuh"
#include "foehn/fe/cuda/staged_strategy.cuh"
#define FOEHN_DEFINE_OPERATOR(Op)          \
  FOEHN_INSTANTIATE_CPU_ASSEMBLY(Op)       \
  FOEHN_INSTANTIATE_CUDA_DISPATCH(Op)      \
  FOEHN_INSTANTIATE_CUDA_STAGED(Op)        \
  FOEHN_INSTANTIATE_CUDA_FUSED(Op)         \
  FOEHN_INSTANTIATE_CUDA_DETERMINISTIC(Op) \
  FOEHN_INSTANTIATE_CUDA_ROW_GATHER(Op)
#elif FOEHN_HAVE_CUDA
#define FOEHN_DEFINE_OPERATOR(Op)                                                             \
  static_assert(sizeof(Op) == 0,                                                              \
                "this Foehn has a CUDA backend: compile the file with FOEHN_DEFINE_OPERATOR " \
                "with nvcc, or use FOEHN_DEFINE_CPU_OPERATOR for the CPU backend only");
#else
#include "foehn/fe/cuda_assembly_unavailable.hpp"
#define FOEHN_DEFINE_OPERATOR(Op)    \
  FOEHN_INSTANTIATE_CPU_ASSEMBLY(Op) \
  FOEHN_INSTANTIATE_CUDA_DISPATCH(Op)
#endif
