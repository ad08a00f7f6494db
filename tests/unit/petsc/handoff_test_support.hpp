#pragma once
// Shared by the hand-off tests: comparing a PETSc Mat with Foehn's block-CSR matrix entry by
// entry (MatGetValues reads PETSc's own storage, independent of the hand-off's index maps).
#include <gtest/gtest.h>
#include <petscmat.h>

#include <vector>

#include "foehn/fe/block_csr_matrix.hpp"

// Exported by libpetsc, declared only in a private header in PETSc 3.18.
PETSC_EXTERN PetscErrorCode PetscObjectStateGet(PetscObject, PetscObjectState*);

namespace foehn::petsc::testing {

// Largest |PETSc(i, j) - foehn(i, j)| over every point of every block of the pattern, and
// checks that PETSc has no entries outside it (row lengths agree).
inline double max_entry_difference(Mat mat, const fe::BlockCsrMatrix& expected) {
  const fe::CsrPattern& pattern = *expected.pattern;
  double worst = 0;
  for (std::int32_t node = 0; node < pattern.rows; ++node) {
    for (int r = 0; r < expected.block_rows; ++r) {
      const PetscInt row = node * expected.block_rows + r;
      PetscInt length = 0;
      EXPECT_EQ(MatGetRow(mat, row, &length, nullptr, nullptr), 0);
      EXPECT_EQ(length,
                (pattern.row_offsets[node + 1] - pattern.row_offsets[node]) * expected.block_cols)
          << "row " << row;
      EXPECT_EQ(MatRestoreRow(mat, row, &length, nullptr, nullptr), 0);
      for (std::int32_t slot = pattern.row_offsets[node]; slot < pattern.row_offsets[node + 1];
           ++slot) {
        for (int c = 0; c < expected.block_cols; ++c) {
          const PetscInt column = pattern.column_indices[slot] * expected.block_cols + c;
          PetscScalar value = 0;
          EXPECT_EQ(MatGetValues(mat, 1, &row, 1, &column, &value), 0);
          const double want =
              expected.values[slot * expected.block_size() + r * expected.block_cols + c];
          worst = std::max(worst, std::abs(value - want));
        }
      }
    }
  }
  return worst;
}

}  // namespace foehn::petsc::testing
