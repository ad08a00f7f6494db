#pragma once
// The definition of CpuAssembler::assemble, for the library's own instantiations (the built-in
// list) and for operators of a user's code (FOEHN_DEFINE_OPERATOR in define_operator.hpp,
// which includes this header). The loop is the reference every GPU strategy is tested against.

#include <algorithm>

#include "foehn/fe/cpu_assembler.hpp"
#include "foehn/fe/element_scatter.hpp"
#include "foehn/fe/operator_checks.hpp"
#include "foehn/runtime/error.hpp"

namespace foehn::fe {

template <class Op>
void CpuAssembler::assemble(const Op& op, std::span<double> values, std::span<double> rhs) const {
  constexpr int R = Op::block_rows, C = Op::block_cols;
  check_operator_fields(op, node_count(), FieldMemory::host);
  check_assembly_sizes<Op>(node_count(), static_cast<std::int64_t>(pattern_->nnz()), values.size(),
                           !rhs.empty(), rhs.size());

  std::fill(values.begin(), values.end(), 0.0);
  std::fill(rhs.begin(), rhs.end(), 0.0);
  const std::int32_t* row_offsets = pattern_->row_offsets.data();
  const std::int32_t* column_indices = pattern_->column_indices.data();
  ElementContextFor<typename Op::Rule> ctx;
  ElementResult<Op> element;
  for (std::int64_t e = 0; e < tet_count(); ++e) {
    if (!prepare_element(coordinates_.data(), tets_.data(), e, ctx))
      fail(ErrorCategory::invalid_input, Op::name, " operator: tet ", e,
           " is degenerate or inverted (validate the mesh first)");
    compute_element(op, ctx, element);
    if (slot_map_.empty())
      scatter_element_matrix<R, C>(row_offsets, column_indices, values.data(), ctx.nodes, element,
                                   PlainAdd{});
    else
      scatter_element_matrix_mapped<R, C>(slot_map_.data() + e * 16, values.data(), element,
                                          PlainAdd{});
    if (!rhs.empty()) scatter_element_vector<R>(rhs.data(), ctx.nodes, element, PlainAdd{});
  }
}

}  // namespace foehn::fe

// Explicit instantiation of the CPU assembly of Op (at namespace scope, Op fully qualified or
// visible there).
#define FOEHN_INSTANTIATE_CPU_ASSEMBLY(Op)                                                         \
  template void foehn::fe::CpuAssembler::assemble(const Op&, std::span<double>, std::span<double>) \
      const;
