#include "foehn/fe/row_blocks.hpp"

#include <algorithm>

#include "foehn/runtime/error.hpp"

namespace foehn::fe {

RowBlockLayout build_row_block_layout(const std::vector<std::int32_t>& tets,
                                      std::int64_t node_count, std::int32_t rows_per_block) {
  if (rows_per_block < 1)
    fail(ErrorCategory::invalid_input, "row blocks: ", rows_per_block, " rows per block");
  RowBlockLayout layout;
  layout.rows_per_block = rows_per_block;
  const std::int64_t tet_count = static_cast<std::int64_t>(tets.size() / 4);
  const std::int64_t blocks = (node_count + rows_per_block - 1) / rows_per_block;
  // Counting sort of (block, element) pairs by block: ascending elements within a block come
  // for free from the ascending element loop. An element with two vertices in one block is
  // listed once (its mask carries both).
  std::vector<std::int64_t> counts(static_cast<std::size_t>(blocks) + 1, 0);
  auto for_each_block_of = [&](std::int64_t e, auto&& visit) {
    std::int64_t seen[4];
    int distinct = 0;
    for (int k = 0; k < 4; ++k) {
      const std::int64_t b = tets[static_cast<std::size_t>(e * 4 + k)] / rows_per_block;
      if (std::find(seen, seen + distinct, b) != seen + distinct) continue;
      seen[distinct++] = b;
      std::uint8_t mask = 0;
      for (int l = 0; l < 4; ++l)
        if (tets[static_cast<std::size_t>(e * 4 + l)] / rows_per_block == b)
          mask = static_cast<std::uint8_t>(mask | (1u << l));
      visit(b, mask);
    }
  };
  for (std::int64_t e = 0; e < tet_count; ++e)
    for_each_block_of(
        e, [&](std::int64_t b, std::uint8_t) { ++counts[static_cast<std::size_t>(b) + 1]; });
  for (std::int64_t b = 0; b < blocks; ++b)
    counts[static_cast<std::size_t>(b) + 1] += counts[static_cast<std::size_t>(b)];
  layout.entry_offsets = counts;
  layout.elements.resize(static_cast<std::size_t>(counts.back()));
  layout.vertex_masks.resize(static_cast<std::size_t>(counts.back()));
  layout.shared_index.resize(static_cast<std::size_t>(counts.back()));
  std::vector<std::int64_t> next(counts.begin(), counts.end() - 1);
  for (std::int64_t e = 0; e < tet_count; ++e) {
    int touched = 0;
    for_each_block_of(e, [&](std::int64_t, std::uint8_t) { ++touched; });
    const std::int32_t index =
        touched > 1 ? static_cast<std::int32_t>(layout.shared_elements.size()) : -1;
    if (touched > 1) layout.shared_elements.push_back(static_cast<std::int32_t>(e));
    for_each_block_of(e, [&](std::int64_t b, std::uint8_t mask) {
      const std::int64_t at = next[static_cast<std::size_t>(b)]++;
      layout.elements[static_cast<std::size_t>(at)] = static_cast<std::int32_t>(e);
      layout.vertex_masks[static_cast<std::size_t>(at)] = mask;
      layout.shared_index[static_cast<std::size_t>(at)] = index;
    });
  }
  if (blocks == 0) layout.entry_offsets.assign(1, 0);
  return layout;
}

}  // namespace foehn::fe
