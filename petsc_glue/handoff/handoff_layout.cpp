#include "handoff_layout.hpp"

#include <limits>

#include "foehn/runtime/error.hpp"

namespace foehn::petsc::detail {

void check_fits_petsc_int(std::int64_t global_points, const char* what) {
  if (global_points > std::numeric_limits<PetscInt>::max())
    fail(ErrorCategory::invalid_input, what, ": ", global_points,
         " rows/columns/entries do not fit PETSc's ", sizeof(PetscInt) * 8,
         "-bit PetscInt (configure PETSc with --with-64-bit-indices)");
}

PointPattern point_pattern(const fe::CsrPattern& pattern, int block_rows, int block_cols) {
  check_fits_petsc_int(static_cast<std::int64_t>(pattern.nnz()) * block_rows * block_cols,
                       "point pattern");
  PointPattern point;
  point.row_offsets.reserve(static_cast<std::size_t>(pattern.rows) * block_rows + 1);
  point.columns.reserve(pattern.nnz() * block_rows * block_cols);
  point.row_offsets.push_back(0);
  for (std::int32_t row = 0; row < pattern.rows; ++row) {
    for (int r = 0; r < block_rows; ++r) {
      for (std::int32_t slot = pattern.row_offsets[row]; slot < pattern.row_offsets[row + 1];
           ++slot)
        for (int c = 0; c < block_cols; ++c)
          point.columns.push_back(
              static_cast<PetscInt>(pattern.column_indices[slot]) * block_cols + c);
      point.row_offsets.push_back(static_cast<PetscInt>(point.columns.size()));
    }
  }
  return point;
}

std::vector<std::int32_t> aij_position_of_value(const fe::CsrPattern& pattern, int block_rows,
                                                int block_cols) {
  if (block_rows == 1) return {};
  const int block = block_rows * block_cols;
  std::vector<std::int32_t> position(pattern.nnz() * block);
  for (std::int32_t row = 0; row < pattern.rows; ++row) {
    const std::int32_t begin = pattern.row_offsets[row];
    const std::int32_t length = pattern.row_offsets[row + 1] - begin;
    // Point row row*R + r starts after the block row's earlier point rows.
    for (std::int32_t slot = begin; slot < begin + length; ++slot)
      for (int r = 0; r < block_rows; ++r)
        for (int c = 0; c < block_cols; ++c)
          position[static_cast<std::size_t>(slot) * block + r * block_cols + c] =
              begin * block + r * length * block_cols + (slot - begin) * block_cols + c;
  }
  return position;
}

std::vector<std::int32_t> baij_position_of_value(const fe::CsrPattern& pattern, int block_size) {
  const int block = block_size * block_size;
  std::vector<std::int32_t> position(pattern.nnz() * block);
  for (std::size_t slot = 0; slot < pattern.nnz(); ++slot)
    for (int r = 0; r < block_size; ++r)
      for (int c = 0; c < block_size; ++c)
        position[slot * block + r * block_size + c] =
            static_cast<std::int32_t>(slot * block + c * block_size + r);
  return position;
}

CooIndices coo_indices(const NodeNumbering& numbering, const fe::CsrPattern& pattern,
                       int block_rows, int block_cols) {
  const std::size_t count = pattern.nnz() * block_rows * block_cols;
  CooIndices coo;
  coo.rows.resize(count);
  coo.columns.resize(count);
  std::size_t v = 0;
  for (std::int32_t row = 0; row < pattern.rows; ++row) {
    const std::int64_t global_row = numbering.global_of(row);
    for (std::int32_t slot = pattern.row_offsets[row]; slot < pattern.row_offsets[row + 1];
         ++slot) {
      const std::int64_t global_column = numbering.global_of(pattern.column_indices[slot]);
      for (int r = 0; r < block_rows; ++r)
        for (int c = 0; c < block_cols; ++c, ++v) {
          coo.rows[v] = static_cast<PetscInt>(global_row * block_rows + r);
          coo.columns[v] = static_cast<PetscInt>(global_column * block_cols + c);
        }
    }
  }
  return coo;
}

}  // namespace foehn::petsc::detail
