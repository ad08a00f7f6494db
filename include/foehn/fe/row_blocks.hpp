#pragma once
// The row gather of the CPU backend: the rows are cut into blocks of consecutive rows, and each
// block lists, in ascending element order, the elements with a vertex among its rows and which
// of their vertices those are. A thread owns a block: it zeroes the block's values (one
// contiguous range of the CSR values) and right-hand side, computes each listed element once,
// and adds the element's rows for its own vertices. No two threads write the same value, so the
// loop is race-free by construction; every value receives its contributions in ascending element
// order from 0, the serial reference's order, so the result is bitwise the serial one whatever the
// number of threads. An element with vertices in several blocks (about half of them with blocks
// of 2048 rows of a generated mesh) is computed once, in a parallel pass before the gather, into a
// buffer the blocks read; the others are computed by the one block that needs them. So every
// element is computed exactly once.

#include <cstdint>
#include <vector>

#include "foehn/fe/csr_pattern.hpp"

namespace foehn::fe {

struct RowBlockLayout {
  std::int32_t rows_per_block = 0;
  std::vector<std::int64_t> entry_offsets;  // block b's entries: [entry_offsets[b], [b + 1])
  std::vector<std::int32_t> elements;       // ascending within a block
  std::vector<std::uint8_t> vertex_masks;   // bit l: vertex l of the element is in the block
  // Elements with vertices in more than one block, ascending, and for each entry its place in
  // that list (-1: the element lies in one block and is computed there).
  std::vector<std::int32_t> shared_elements;
  std::vector<std::int32_t> shared_index;

  std::int64_t block_count() const noexcept {
    return static_cast<std::int64_t>(entry_offsets.size()) - 1;
  }
  // Fraction of the elements computed ahead of the gather (shared between blocks).
  double shared_fraction(std::int64_t tet_count) const noexcept {
    return tet_count > 0
               ? static_cast<double>(shared_elements.size()) / static_cast<double>(tet_count)
               : 0.0;
  }
};

// Builds the layout for `tets` (tet * 4 + k, validated indices) over `node_count` rows.
RowBlockLayout build_row_block_layout(const std::vector<std::int32_t>& tets,
                                      std::int64_t node_count, std::int32_t rows_per_block);

}  // namespace foehn::fe
