#pragma once
// The definition of CpuAssembler::assemble, for the library's own instantiations (the built-in
// list) and for operators of a user's code (FOEHN_DEFINE_OPERATOR in define_operator.hpp,
// which includes this header). The serial loop is the reference every GPU strategy is tested
// against; the row-block gather runs the same sums on several threads (row_blocks.hpp).

#include <algorithm>
#include <limits>
#include <memory>

#include "foehn/fe/cpu_assembler.hpp"
#include "foehn/fe/element_scatter.hpp"
#include "foehn/fe/operator_checks.hpp"
#include "foehn/runtime/error.hpp"

namespace foehn::fe {

template <class Op>
void CpuAssembler::assemble(const Op& op, std::span<double> values, std::span<double> rhs) const {
  check_operator_fields(op, node_count(), FieldMemory::host);
  check_assembly_sizes<Op>(node_count(), static_cast<std::int64_t>(pattern_->nnz()), values.size(),
                           !rhs.empty(), rhs.size());
  if (row_blocks_.block_count() > 0)
    assemble_row_blocks(op, values, rhs);
  else
    assemble_serial(op, values, rhs);
}

// The reference: zero, then every element added in ascending order.
template <class Op>
void CpuAssembler::assemble_serial(const Op& op, std::span<double> values,
                                   std::span<double> rhs) const {
  constexpr int R = Op::block_rows, C = Op::block_cols;
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

// The row-block gather (row_blocks.hpp): a thread per block of rows, the same sums in the same
// order as assemble_serial. Exceptions cannot leave an OpenMP loop: a failed element is
// recorded and reported after it.
template <class Op>
void CpuAssembler::assemble_row_blocks(const Op& op, std::span<double> values,
                                       std::span<double> rhs) const {
  constexpr int R = Op::block_rows, C = Op::block_cols, W = R * C;
  const std::int32_t* row_offsets = pattern_->row_offsets.data();
  const std::int32_t* column_indices = pattern_->column_indices.data();
  const std::int64_t blocks = row_blocks_.block_count(), rows = node_count();
  const std::int64_t rows_per_block = row_blocks_.rows_per_block;
  double* value_data = values.data();
  double* rhs_data = rhs.empty() ? nullptr : rhs.data();
  std::int64_t failed_element = -1;
  auto record_failure = [&](std::int64_t e) {
#if defined(_OPENMP)
#pragma omp critical(foehn_cpu_assembly_failure)
#endif
    failed_element = failed_element < 0 ? e : std::min(failed_element, e);
  };
  // Elements shared between blocks, computed once ahead of the gather. Left uninitialised:
  // the parallel pass writes every one, so its pages are first touched by the threads that use
  // them.
  const std::int64_t shared_count = static_cast<std::int64_t>(row_blocks_.shared_elements.size());
  std::unique_ptr<ElementResult<Op>[]> shared(new ElementResult<Op>[shared_count]);
#if defined(_OPENMP)
  const int threads = threads_;
#pragma omp parallel num_threads(threads)
#endif
  {
#if defined(_OPENMP)
#pragma omp for schedule(static)
#endif
    for (std::int64_t s = 0; s < shared_count; ++s) {
      ElementContextFor<typename Op::Rule> ctx;
      if (prepare_element(coordinates_.data(), tets_.data(), row_blocks_.shared_elements[s], ctx))
        compute_element(op, ctx, shared[s]);
      else {
        shared[s].set_all(std::numeric_limits<double>::quiet_NaN());  // never read: it throws
        record_failure(row_blocks_.shared_elements[s]);
      }
    }
#if defined(_OPENMP)
#pragma omp for schedule(dynamic, 1)
#endif
    for (std::int64_t b = 0; b < blocks; ++b) {
      const std::int64_t first_row = b * rows_per_block;
      const std::int64_t end_row = std::min(first_row + rows_per_block, rows);
      std::fill(value_data + static_cast<std::int64_t>(row_offsets[first_row]) * W,
                value_data + static_cast<std::int64_t>(row_offsets[end_row]) * W, 0.0);
      if (rhs_data) std::fill(rhs_data + first_row * R, rhs_data + end_row * R, 0.0);
      ElementContextFor<typename Op::Rule> ctx;
      ElementResult<Op> own;
      for (std::int64_t k = row_blocks_.entry_offsets[b]; k < row_blocks_.entry_offsets[b + 1];
           ++k) {
        const std::int64_t e = row_blocks_.elements[k];
        const unsigned mask = row_blocks_.vertex_masks[k];
        const std::int32_t shared_at = row_blocks_.shared_index[k];
        ctx.nodes = ele_nodes<4>(tets_.data(), e);
        if (shared_at < 0) {
          if (!prepare_element(coordinates_.data(), tets_.data(), e, ctx)) {
            record_failure(e);
            continue;
          }
          compute_element(op, ctx, own);
        }
        const ElementResult<Op>& element = shared_at < 0 ? own : shared[shared_at];
        for (int l = 0; l < 4; ++l) {
          if (!(mask & (1u << l))) continue;
          for (int j = 0; j < 4; ++j) {
            const std::int32_t slot = slot_map_.empty() ? block_slot(row_offsets, column_indices,
                                                                     ctx.nodes[l], ctx.nodes[j])
                                                        : slot_map_[e * 16 + l * 4 + j];
            double* block = value_data + static_cast<std::int64_t>(slot) * W;
            for (int r = 0; r < R; ++r)
              for (int c = 0; c < C; ++c) block[r * C + c] += element.entry(l, j, r, c);
          }
          if (rhs_data)
            for (int r = 0; r < R; ++r)
              rhs_data[static_cast<std::int64_t>(ctx.nodes[l]) * R + r] += element.rhs(l * R + r);
        }
      }
    }
  }  // omp parallel
  if (failed_element >= 0)
    fail(ErrorCategory::invalid_input, Op::name, " operator: tet ", failed_element,
         " is degenerate or inverted (validate the mesh first)");
}

}  // namespace foehn::fe

// Explicit instantiation of the CPU assembly of Op (at namespace scope, Op fully qualified or
// visible there).
#define FOEHN_INSTANTIATE_CPU_ASSEMBLY(Op)                                                         \
  template void foehn::fe::CpuAssembler::assemble(const Op&, std::span<double>, std::span<double>) \
      const;
