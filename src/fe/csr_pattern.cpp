#include "foehn/fe/csr_pattern.hpp"

#include <algorithm>
#include <limits>

#include "foehn/runtime/error.hpp"

namespace foehn::fe {

CsrPattern build_node_pattern(const TetMesh& mesh) {
  const std::size_t node_count = mesh.nodes.size();
  if (node_count > static_cast<std::size_t>(std::numeric_limits<std::int32_t>::max()))
    fail(ErrorCategory::invalid_input, "sparsity: ", node_count, " nodes exceed 32-bit indices");
  if (mesh.tets.size() > static_cast<std::size_t>(std::numeric_limits<std::int32_t>::max()))
    fail(ErrorCategory::invalid_input, "sparsity: ", mesh.tets.size(), " tets exceed 32-bit indices");

  // Node -> tets incidence (CSR), then each node's neighbours from its tets: memory stays
  // O(nnz) instead of sorting 16 pairs per tet.
  std::vector<std::int64_t> tet_offsets(node_count + 1, 0);
  for (std::size_t t = 0; t < mesh.tets.size(); ++t)
    for (std::int32_t n : mesh.tets[t]) {
      if (n < 0 || static_cast<std::size_t>(n) >= node_count)
        fail(ErrorCategory::invalid_input, "sparsity: tet ", t, " names node ", n, " of ",
             node_count);
      ++tet_offsets[n + 1];
    }
  for (std::size_t n = 0; n < node_count; ++n) tet_offsets[n + 1] += tet_offsets[n];
  std::vector<std::int32_t> tets_of_node(static_cast<std::size_t>(tet_offsets.back()));
  {
    std::vector<std::int64_t> cursor(tet_offsets.begin(), tet_offsets.end() - 1);
    for (std::size_t t = 0; t < mesh.tets.size(); ++t)
      for (std::int32_t n : mesh.tets[t]) tets_of_node[cursor[n]++] = static_cast<std::int32_t>(t);
  }

  CsrPattern pattern;
  pattern.rows = pattern.cols = static_cast<std::int32_t>(node_count);
  pattern.row_offsets.assign(node_count + 1, 0);
  std::vector<std::int32_t> neighbours;
  std::int64_t total = 0;
  for (std::size_t n = 0; n < node_count; ++n) {
    neighbours.clear();
    neighbours.push_back(static_cast<std::int32_t>(n));  // diagonal, also for unused nodes
    for (std::int64_t k = tet_offsets[n]; k < tet_offsets[n + 1]; ++k)
      for (std::int32_t m : mesh.tets[tets_of_node[k]]) neighbours.push_back(m);
    std::sort(neighbours.begin(), neighbours.end());
    neighbours.erase(std::unique(neighbours.begin(), neighbours.end()), neighbours.end());
    total += static_cast<std::int64_t>(neighbours.size());
    if (total > std::numeric_limits<std::int32_t>::max())
      fail(ErrorCategory::invalid_input, "sparsity: more than 2^31 nonzeros (32-bit offsets)");
    pattern.column_indices.insert(pattern.column_indices.end(), neighbours.begin(),
                                  neighbours.end());
    pattern.row_offsets[n + 1] = static_cast<std::int32_t>(total);
  }
  return pattern;
}

CsrPattern expand_columns(const CsrPattern& pattern, int components) {
  if (components < 1) fail(ErrorCategory::invalid_input, "sparsity: components must be >= 1");
  const std::int64_t nnz = static_cast<std::int64_t>(pattern.nnz()) * components;
  const std::int64_t cols = static_cast<std::int64_t>(pattern.cols) * components;
  if (nnz > std::numeric_limits<std::int32_t>::max() ||
      cols > std::numeric_limits<std::int32_t>::max())
    fail(ErrorCategory::invalid_input, "sparsity: expanded pattern exceeds 32-bit indices");
  CsrPattern expanded;
  expanded.rows = pattern.rows;
  expanded.cols = static_cast<std::int32_t>(cols);
  expanded.row_offsets.resize(pattern.row_offsets.size());
  expanded.column_indices.reserve(static_cast<std::size_t>(nnz));
  for (std::size_t r = 0; r < pattern.row_offsets.size(); ++r)
    expanded.row_offsets[r] = pattern.row_offsets[r] * components;
  for (std::int32_t c : pattern.column_indices)
    for (int k = 0; k < components; ++k) expanded.column_indices.push_back(c * components + k);
  return expanded;
}

}  // namespace foehn::fe
