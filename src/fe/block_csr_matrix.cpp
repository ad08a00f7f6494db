#include "foehn/fe/block_csr_matrix.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "foehn/runtime/error.hpp"

namespace foehn::fe {

BlockCsrMatrix::BlockCsrMatrix(std::shared_ptr<const CsrPattern> node_pattern,
                               int rows_per_block, int cols_per_block)
    : pattern(std::move(node_pattern)), block_rows(rows_per_block), block_cols(cols_per_block) {
  if (!pattern) fail(ErrorCategory::invalid_input, "BlockCsrMatrix: no pattern");
  if (block_rows < 1 || block_cols < 1 || block_rows > 3 || block_cols > 3)
    fail(ErrorCategory::invalid_input, "BlockCsrMatrix: block ", block_rows, "x", block_cols,
         " is not supported (1..3 x 1..3)");
  values.assign(pattern->nnz() * static_cast<std::size_t>(block_size()), 0.0);
}

void BlockCsrMatrix::set_zero() { std::fill(values.begin(), values.end(), 0.0); }

void BlockCsrMatrix::multiply(std::span<const double> x, std::span<double> y) const {
  if (static_cast<std::int64_t>(x.size()) != point_cols() ||
      static_cast<std::int64_t>(y.size()) != point_rows())
    fail(ErrorCategory::invalid_input, "BlockCsrMatrix::multiply: x has ", x.size(), " and y ",
         y.size(), " entries for a ", point_rows(), " x ", point_cols(), " matrix");
  const int bs = block_size();
  for (std::int32_t i = 0; i < pattern->rows; ++i)
    for (int r = 0; r < block_rows; ++r) {
      double sum = 0.0;
      for (std::int32_t k = pattern->row_offsets[i]; k < pattern->row_offsets[i + 1]; ++k) {
        const std::int64_t column_base =
            static_cast<std::int64_t>(pattern->column_indices[k]) * block_cols;
        const double* block = &values[static_cast<std::size_t>(k) * bs + r * block_cols];
        for (int c = 0; c < block_cols; ++c) sum += block[c] * x[column_base + c];
      }
      y[static_cast<std::size_t>(i) * block_rows + r] = sum;
    }
}

double BlockCsrMatrix::at(std::int64_t row, std::int64_t column) const {
  if (row < 0 || row >= point_rows() || column < 0 || column >= point_cols())
    fail(ErrorCategory::invalid_input, "BlockCsrMatrix::at(", row, ", ", column, ") outside a ",
         point_rows(), " x ", point_cols(), " matrix");
  const std::int32_t i = static_cast<std::int32_t>(row / block_rows);
  const std::int32_t j = static_cast<std::int32_t>(column / block_cols);
  const int r = static_cast<int>(row % block_rows), c = static_cast<int>(column % block_cols);
  const std::int32_t slot = find_column(pattern->column_indices.data(), pattern->row_offsets[i],
                                        pattern->row_offsets[i + 1], j);
  return slot < 0 ? 0.0
                  : values[static_cast<std::size_t>(slot) * block_size() + r * block_cols + c];
}

PointCsr to_point_csr(const BlockCsrMatrix& m) {
  const CsrPattern& p = *m.pattern;
  if (m.point_cols() > std::numeric_limits<std::int32_t>::max())
    fail(ErrorCategory::invalid_input, "to_point_csr: ", m.point_cols(),
         " columns exceed 32-bit column indices");
  PointCsr out;
  out.rows = m.point_rows();
  out.cols = m.point_cols();
  out.row_offsets.resize(static_cast<std::size_t>(out.rows) + 1, 0);
  out.column_indices.reserve(m.values.size());
  out.values.reserve(m.values.size());
  const int bs = m.block_size();
  for (std::int32_t i = 0; i < p.rows; ++i)
    for (int r = 0; r < m.block_rows; ++r) {
      for (std::int32_t k = p.row_offsets[i]; k < p.row_offsets[i + 1]; ++k)
        for (int c = 0; c < m.block_cols; ++c) {
          out.column_indices.push_back(static_cast<std::int32_t>(
              static_cast<std::int64_t>(p.column_indices[k]) * m.block_cols + c));
          out.values.push_back(m.values[static_cast<std::size_t>(k) * bs + r * m.block_cols + c]);
        }
      const std::size_t row = static_cast<std::size_t>(i) * m.block_rows + r;
      out.row_offsets[row + 1] = static_cast<std::int64_t>(out.column_indices.size());
    }
  return out;
}

double relative_frobenius_difference(const BlockCsrMatrix& a, const BlockCsrMatrix& b) {
  if (a.values.size() != b.values.size())
    fail(ErrorCategory::invalid_input, "comparing matrices of ", a.values.size(), " and ",
         b.values.size(), " values");
  double difference = 0.0, reference = 0.0;
  for (std::size_t k = 0; k < a.values.size(); ++k) {
    const double d = a.values[k] - b.values[k];
    difference += d * d;
    reference += b.values[k] * b.values[k];
  }
  if (reference == 0.0) return std::sqrt(difference);
  return std::sqrt(difference / reference);
}

}  // namespace foehn::fe
