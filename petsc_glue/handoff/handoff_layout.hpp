#pragma once
// Index arithmetic between Foehn's block-CSR value order and PETSc's storage orders, computed
// once per pattern. Foehn stores value v = slot * R * C + r * C + c for the block in `slot`
// (node row i, node column j) at point row i * R + r and point column j * C + c.
#include <petscsys.h>

#include <cstdint>
#include <vector>

#include "foehn/fe/csr_pattern.hpp"
#include "foehn/petsc/node_numbering.hpp"

namespace foehn::petsc::detail {

// Point CSR of the R x C expansion (what MatSeqAIJSetPreallocationCSR takes).
struct PointPattern {
  std::vector<PetscInt> row_offsets;
  std::vector<PetscInt> columns;
};
PointPattern point_pattern(const fe::CsrPattern& pattern, int block_rows, int block_cols);

// Position in PETSc's SeqAIJ value array of every Foehn value; empty when they agree
// (block_rows == 1: a point row is exactly one block row).
std::vector<std::int32_t> aij_position_of_value(const fe::CsrPattern& pattern, int block_rows,
                                                int block_cols);
// Position in PETSc's SeqBAIJ value array (blocks in slot order, column-major inside).
std::vector<std::int32_t> baij_position_of_value(const fe::CsrPattern& pattern, int block_size);

// Global point row and column of every Foehn value, for MatSetPreallocationCOO.
struct CooIndices {
  std::vector<PetscInt> rows;
  std::vector<PetscInt> columns;
};
CooIndices coo_indices(const NodeNumbering& numbering, const fe::CsrPattern& pattern,
                       int block_rows, int block_cols);

// Throws invalid_input when `global_points` does not fit PetscInt (32-bit Debian PETSc).
void check_fits_petsc_int(std::int64_t global_points, const char* what);

}  // namespace foehn::petsc::detail
