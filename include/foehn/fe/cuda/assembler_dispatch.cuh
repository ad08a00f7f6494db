#pragma once
// CUDA-only header: CudaAssembler::assemble, which checks the arguments and runs the chosen
// strategy. The strategies themselves are instantiated separately (their own headers), so
// that the library compiles them in parallel files.

#include "foehn/fe/cuda/assembler_state.cuh"
#include "foehn/fe/operator_checks.hpp"

namespace foehn::fe {

template <class Op>
void check_assembly_arguments(const CudaAssembler::Impl& impl, const Op& op,
                              const DeviceAssemblyTarget& target) {
  check_operator_fields(op, impl.node_count, FieldMemory::device);
  if (target.block_rows != Op::block_rows || target.block_cols != Op::block_cols)
    fail(ErrorCategory::invalid_input, Op::name, " operator: the target holds ", target.block_rows,
         " x ", target.block_cols, " blocks, the operator has ", Op::block_rows, " x ",
         Op::block_cols);
  check_assembly_sizes<Op>(impl.node_count, impl.nnz, target.value_count, target.rhs != nullptr,
                           target.rhs_count);
  if (target.value_count > 0 && target.values == nullptr)
    fail(ErrorCategory::invalid_input, Op::name, " operator: the target has no value array");
}

template <class Op>
void CudaAssembler::assemble(const Op& op, const DeviceAssemblyTarget& target,
                             AssemblyStrategy strategy) {
  check_assembly_arguments(*impl_, op, target);
  if (impl_->tet_count == 0) {
    zero_target(*impl_, target);  // no element adds anything: every value is zero
    return;
  }
  switch (strategy) {
    case AssemblyStrategy::staged:
      return assemble_staged(*impl_, op, target);
    case AssemblyStrategy::fused_atomic:
      return assemble_fused(*impl_, op, target, false);
    case AssemblyStrategy::fused_map:
      impl_->build_slot_map();
      return assemble_fused(*impl_, op, target, true);
    case AssemblyStrategy::deterministic:
      impl_->build_contribution_lists();
      return assemble_deterministic(*impl_, op, target);
    case AssemblyStrategy::row_gather:
      return assemble_row_gather(*impl_, op, target);
  }
}

}  // namespace foehn::fe
