#pragma once
// The definition of CpuAssembler::assemble, for the library's own instantiations (the built-in
// list) and for operators of a user's code (FOEHN_DEFINE_OPERATOR in define_operator.hpp,
// which includes this header). The serial loop is the reference every GPU strategy is tested
// against; the row-block gather runs the same sums on several threads (row_blocks.hpp).

#include <algorithm>
#include <limits>
#include <memory>
#include <vector>

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

namespace detail {

// What the threads of the row-block gather read and write: views of the assembler's mesh and
// layout and of the caller's output, built once per assembly (nothing is copied). The members
// are forced inline: otherwise GCC calls them from the OpenMP region and, in them, no longer
// inlines the element math it inlines into the loops written in place.
template <class Op>
struct RowBlockGather {
  static constexpr int R = Op::block_rows, C = Op::block_cols, W = R * C;
  const Op& op;
  const double* coordinates;
  const std::int32_t* tets;
  const RowBlockLayout& row_blocks;
  const std::vector<std::int32_t>& slot_map;  // empty: binary search in the row
  const std::int32_t* row_offsets;
  const std::int32_t* column_indices;
  std::int64_t rows;
  double* value_data;
  double* rhs_data;           // nullptr without a right-hand side
  ElementResult<Op>* shared;  // row_blocks.shared_elements.size() entries

  // A degenerate element is recorded, not thrown: exceptions cannot leave the OpenMP loop.
  template <class RecordFailure>
  [[gnu::always_inline]] void compute_shared_element(std::int64_t s,
                                                     const RecordFailure& record_failure) const {
    ElementContextFor<typename Op::Rule> ctx;
    if (prepare_element(coordinates, tets, row_blocks.shared_elements[s], ctx))
      compute_element(op, ctx, shared[s]);
    else {
      shared[s].set_all(std::numeric_limits<double>::quiet_NaN());  // never read: it throws
      record_failure(row_blocks.shared_elements[s]);
    }
  }

  // Block b zeroes and then sums its own rows only, so no other thread writes them.
  template <class RecordFailure>
  [[gnu::always_inline]] void gather_block(std::int64_t b,
                                           const RecordFailure& record_failure) const {
    const std::int64_t rows_per_block = row_blocks.rows_per_block;
    const std::int64_t first_row = b * rows_per_block;
    const std::int64_t end_row = std::min(first_row + rows_per_block, rows);
    zero_rows(first_row, end_row);
    ElementContextFor<typename Op::Rule> ctx;
    ElementResult<Op> own;
    for (std::int64_t k = row_blocks.entry_offsets[b]; k < row_blocks.entry_offsets[b + 1]; ++k) {
      const std::int64_t e = row_blocks.elements[k];
      const unsigned mask = row_blocks.vertex_masks[k];
      const std::int32_t shared_at = row_blocks.shared_index[k];
      ctx.nodes = ele_nodes<4>(tets, e);
      if (shared_at < 0) {
        if (!prepare_element(coordinates, tets, e, ctx)) {
          record_failure(e);
          continue;
        }
        compute_element(op, ctx, own);
      }
      const ElementResult<Op>& element = shared_at < 0 ? own : shared[shared_at];
      add_owned_rows(element, ctx.nodes, e, mask);
    }
  }

  // The rows [first_row, end_row) are one contiguous range of the CSR values.
  [[gnu::always_inline]] void zero_rows(std::int64_t first_row, std::int64_t end_row) const {
    std::fill(value_data + static_cast<std::int64_t>(row_offsets[first_row]) * W,
              value_data + static_cast<std::int64_t>(row_offsets[end_row]) * W, 0.0);
    if (rhs_data) std::fill(rhs_data + first_row * R, rhs_data + end_row * R, 0.0);
  }

  // Adds element e's rows of the vertices set in `mask` (those among the block's rows).
  [[gnu::always_inline]] void add_owned_rows(const ElementResult<Op>& element,
                                             const Array<std::int32_t, 4>& nodes, std::int64_t e,
                                             unsigned mask) const {
    for (int l = 0; l < 4; ++l) {
      if (!(mask & (1u << l))) continue;
      for (int j = 0; j < 4; ++j) {
        const std::int32_t slot = slot_map.empty()
                                      ? block_slot(row_offsets, column_indices, nodes[l], nodes[j])
                                      : slot_map[e * 16 + l * 4 + j];
        double* block = value_data + static_cast<std::int64_t>(slot) * W;
        for (int r = 0; r < R; ++r)
          for (int c = 0; c < C; ++c) block[r * C + c] += element.entry(l, j, r, c);
      }
      if (rhs_data)
        for (int r = 0; r < R; ++r)
          rhs_data[static_cast<std::int64_t>(nodes[l]) * R + r] += element.rhs(l * R + r);
    }
  }
};

}  // namespace detail

// The row-block gather (row_blocks.hpp): a thread per block of rows, the same sums in the same
// order as assemble_serial. Exceptions cannot leave an OpenMP loop: a failed element is
// recorded and reported after it.
template <class Op>
void CpuAssembler::assemble_row_blocks(const Op& op, std::span<double> values,
                                       std::span<double> rhs) const {
  const std::int64_t blocks = row_blocks_.block_count();
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
  const detail::RowBlockGather<Op> gather{.op = op,
                                          .coordinates = coordinates_.data(),
                                          .tets = tets_.data(),
                                          .row_blocks = row_blocks_,
                                          .slot_map = slot_map_,
                                          .row_offsets = pattern_->row_offsets.data(),
                                          .column_indices = pattern_->column_indices.data(),
                                          .rows = node_count(),
                                          .value_data = values.data(),
                                          .rhs_data = rhs.empty() ? nullptr : rhs.data(),
                                          .shared = shared.get()};
#if defined(_OPENMP)
  const int threads = threads_;
#pragma omp parallel num_threads(threads)
#endif
  {
#if defined(_OPENMP)
#pragma omp for schedule(static)
#endif
    for (std::int64_t s = 0; s < shared_count; ++s)
      gather.compute_shared_element(s, record_failure);
#if defined(_OPENMP)
#pragma omp for schedule(dynamic, 1)
#endif
    for (std::int64_t b = 0; b < blocks; ++b) gather.gather_block(b, record_failure);
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
