#pragma once
// An assembled operator: values of fixed-size R x C blocks on the node-to-node pattern.
//   R = C = 1: scalar CSR (mass, advection, diffusion, stabilisation)
//   R = C = 3: 3x3 BCSR for vector fields (momentum-like operators)
//   R = 1, C = 3: divergence (scalar rows, interleaved vector columns); R = 3, C = 1: gradient
// Block values are stored row-major: values[slot * R * C + r * C + c], where slot is the
// position of the block column in the pattern. Point row of (node i, component r) is
// i * R + r and point column of (node j, component c) is j * C + c.

#include <memory>
#include <span>
#include <vector>

#include "foehn/fe/csr_pattern.hpp"

namespace foehn::fe {

struct BlockCsrMatrix {
  std::shared_ptr<const CsrPattern> pattern;
  int block_rows = 1;
  int block_cols = 1;
  std::vector<double> values;

  BlockCsrMatrix() = default;
  BlockCsrMatrix(std::shared_ptr<const CsrPattern> node_pattern, int rows_per_block,
                 int cols_per_block);

  int block_size() const noexcept { return block_rows * block_cols; }
  std::int64_t point_rows() const noexcept {
    return static_cast<std::int64_t>(pattern->rows) * block_rows;
  }
  std::int64_t point_cols() const noexcept {
    return static_cast<std::int64_t>(pattern->cols) * block_cols;
  }
  void set_zero();

  // y = A x on point vectors (x: point_cols(), y: point_rows()).
  void multiply(std::span<const double> x, std::span<double> y) const;

  // Value at point (row, column), 0 where the pattern has no entry.
  double at(std::int64_t row, std::int64_t column) const;
};

// The same matrix as point CSR (e.g. for MatrixMarket or PETSc AIJ): rows x cols expanded,
// columns sorted.
struct PointCsr {
  std::int64_t rows = 0, cols = 0;
  std::vector<std::int64_t> row_offsets;
  std::vector<std::int32_t> column_indices;
  std::vector<double> values;
};
PointCsr to_point_csr(const BlockCsrMatrix& matrix);

// Frobenius norm of (a - b) relative to that of b; both on the same pattern and blocks.
double relative_frobenius_difference(const BlockCsrMatrix& a, const BlockCsrMatrix& b);

}  // namespace foehn::fe
