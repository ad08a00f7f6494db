#pragma once
// Sparsity patterns of P1 operators on a tetrahedral mesh, built once per mesh. Values are
// refreshed every assembly; the pattern (and everything derived from it, such as a scatter
// map) is not.
//
//  - scalar fields: CSR, one row and column per node, columns sorted, diagonal present;
//  - vector fields: the same pattern read as 3x3 blocks (BCSR, block size 3);
//  - divergence: scalar rows x vector columns, i.e. each node column j expanded into the
//    three columns 3j, 3j+1, 3j+2 (the layout of an interleaved vector field).

#include <cstddef>
#include <cstdint>
#include <vector>

#include "foehn/mesh/tet_mesh.hpp"
#include "foehn/runtime/host_device.hpp"

namespace foehn::fe {

struct CsrPattern {
  std::int32_t rows = 0;
  std::int32_t cols = 0;
  std::vector<std::int32_t> row_offsets;     // rows + 1 entries
  std::vector<std::int32_t> column_indices;  // sorted within each row

  std::size_t nnz() const noexcept { return column_indices.size(); }
  bool operator==(const CsrPattern&) const = default;
};

// Node-to-node pattern: (i, j) is present when nodes i and j share a tet (and i == j).
// Throws foehn::Error (invalid_input) for node indices out of range or a pattern too large
// for 32-bit offsets.
CsrPattern build_node_pattern(const TetMesh& mesh);

// Each column c of `pattern` becomes `components` columns c*components + k, k = 0..components-1.
CsrPattern expand_columns(const CsrPattern& pattern, int components);

// Position of `column` in the sorted `columns[begin, end)`, or -1. The same search runs in the
// CPU reference and in the GPU kernels, as in the published assembly.
FOEHN_HD std::int32_t find_column(const std::int32_t* columns, std::int32_t begin,
                                  std::int32_t end, std::int32_t column) {
  std::int32_t low = begin, high = end;
  while (low < high) {
    const std::int32_t middle = low + (high - low) / 2;
    if (columns[middle] < column)
      low = middle + 1;
    else
      high = middle;
  }
  return (low < end && columns[low] == column) ? low : -1;
}

}  // namespace foehn::fe
