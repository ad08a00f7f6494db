#pragma once
// Adding one element matrix into the global block-CSR values: for each (test node, trial node)
// pair the block slot is found by binary search in the test node's row, as the published
// assembly does. The addition itself is a policy: plain += on the CPU reference, atomicAdd in
// the CUDA atomic strategies; everything else is shared.

#include <cstdint>

#include "foehn/fe/csr_pattern.hpp"
#include "foehn/fe/operators.hpp"

namespace foehn::fe {

struct PlainAdd {
  FOEHN_HD void operator()(double* target, double value) const { *target += value; }
};

// Block slot of trial node `column` in the row of `row`, or -1 (cannot happen for a pattern
// built from the same mesh).
FOEHN_HD std::int32_t block_slot(const std::int32_t* row_offsets,
                                        const std::int32_t* column_indices, std::int32_t row,
                                        std::int32_t column) {
  return find_column(column_indices, row_offsets[row], row_offsets[row + 1], column);
}

// values[slot * R * C + r * C + c] += element.entry(i, j, r, c) for the 4 x 4 node pairs;
// `element` is a DenseElement or an operator's CompactElement (operators.hpp).
template <int R, int C, class Element, class Add>
FOEHN_HD void scatter_element_matrix(const std::int32_t* row_offsets,
                                     const std::int32_t* column_indices, double* values,
                                     const Array<std::int32_t, 4>& nodes, const Element& element,
                                     const Add& add) {
  FOEHN_UNROLL
  for (int i = 0; i < 4; ++i) {
    FOEHN_UNROLL
    for (int j = 0; j < 4; ++j) {
      const std::int32_t slot = block_slot(row_offsets, column_indices, nodes[i], nodes[j]);
      double* block = values + static_cast<std::int64_t>(slot) * (R * C);
      FOEHN_UNROLL
      for (int r = 0; r < R; ++r) {
        FOEHN_UNROLL
        for (int c = 0; c < C; ++c) add(block + r * C + c, element.entry(i, j, r, c));
      }
    }
  }
}

// The same with the 16 block slots of the element precomputed (slots[i * 4 + j], e.g. from the
// element -> slot map built once per mesh): no search.
template <int R, int C, class Element, class Add>
FOEHN_HD void scatter_element_matrix_mapped(const std::int32_t* slots, double* values,
                                            const Element& element, const Add& add) {
  FOEHN_UNROLL
  for (int i = 0; i < 4; ++i) {
    FOEHN_UNROLL
    for (int j = 0; j < 4; ++j) {
      double* block = values + static_cast<std::int64_t>(slots[i * 4 + j]) * (R * C);
      FOEHN_UNROLL
      for (int r = 0; r < R; ++r) {
        FOEHN_UNROLL
        for (int c = 0; c < C; ++c) add(block + r * C + c, element.entry(i, j, r, c));
      }
    }
  }
}

// rhs[node * R + r] += element.rhs(i*R + r)
template <int R, class Element, class Add>
FOEHN_HD void scatter_element_vector(double* rhs, const Array<std::int32_t, 4>& nodes,
                                     const Element& element, const Add& add) {
  FOEHN_UNROLL
  for (int i = 0; i < 4; ++i) {
    FOEHN_UNROLL
    for (int r = 0; r < R; ++r)
      add(rhs + static_cast<std::int64_t>(nodes[i]) * R + r, element.rhs(i * R + r));
  }
}

}  // namespace foehn::fe
