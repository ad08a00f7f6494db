#include "petsc_peer.hpp"

#include <cmath>
#include <limits>

#include "foehn/petsc/petsc_check.hpp"
#include "foehn/runtime/error.hpp"

namespace foehn::bench {

namespace {

std::vector<PetscInt> to_petsc_int(const std::vector<std::int32_t>& values) {
  return std::vector<PetscInt>(values.begin(), values.end());
}

Mat create_seq(PetscInt rows, MatType type) {
  Mat mat = nullptr;
  FOEHN_PETSC_CHECK(MatCreate(PETSC_COMM_SELF, &mat));
  FOEHN_PETSC_CHECK(MatSetSizes(mat, rows, rows, rows, rows));
  FOEHN_PETSC_CHECK(MatSetType(mat, type));
  return mat;
}

}  // namespace

PetscPeerMatrix PetscPeerMatrix::from_pattern(const fe::CsrPattern& pattern, int block_size) {
  if (block_size != 1 && block_size != 3)
    fail(ErrorCategory::invalid_input, "PETSc peer: block size ", block_size, " not supported");
  const std::vector<PetscInt> offsets = to_petsc_int(pattern.row_offsets);
  const std::vector<PetscInt> columns = to_petsc_int(pattern.column_indices);
  // Explicit zeros rather than a null values pointer: the same call on every PETSc version.
  const std::vector<PetscScalar> zeros(pattern.nnz() * static_cast<std::size_t>(block_size * block_size), 0.0);
  PetscPeerMatrix peer(create_seq(static_cast<PetscInt>(pattern.rows) * block_size,
                                  block_size == 1 ? MATSEQAIJ : MATSEQBAIJ));
  if (block_size == 1)
    FOEHN_PETSC_CHECK(MatSeqAIJSetPreallocationCSR(peer.mat_, offsets.data(), columns.data(),
                                                   zeros.data()));
  else
    FOEHN_PETSC_CHECK(MatSeqBAIJSetPreallocationCSR(peer.mat_, block_size, offsets.data(),
                                                    columns.data(), zeros.data()));
  FOEHN_PETSC_CHECK(MatSetOption(peer.mat_, MAT_NEW_NONZERO_LOCATION_ERR, PETSC_TRUE));
  FOEHN_PETSC_CHECK(MatSetOption(peer.mat_, MAT_NEW_NONZERO_ALLOCATION_ERR, PETSC_TRUE));
  return peer;
}

PetscPeerMatrix PetscPeerMatrix::coo_from_tets(const std::vector<std::int32_t>& tets,
                                               std::int32_t node_count) {
  const std::size_t tet_count = tets.size() / 4;
  std::vector<PetscInt> coo_i(tet_count * 16), coo_j(tet_count * 16);
  for (std::size_t e = 0; e < tet_count; ++e)
    for (int i = 0; i < 4; ++i)
      for (int j = 0; j < 4; ++j) {
        coo_i[e * 16 + i * 4 + j] = tets[e * 4 + i];
        coo_j[e * 16 + i * 4 + j] = tets[e * 4 + j];
      }
  PetscPeerMatrix peer(create_seq(node_count, MATSEQAIJ));
  FOEHN_PETSC_CHECK(MatSetPreallocationCOO(peer.mat_, static_cast<PetscCount>(coo_i.size()),
                                           coo_i.data(), coo_j.data()));
  return peer;
}

PetscPeerMatrix::~PetscPeerMatrix() {
  if (mat_) MatDestroy(&mat_);
}

double PetscPeerMatrix::relative_difference(const fe::PointCsr& reference) const {
  PetscInt rows = 0, cols = 0;
  FOEHN_PETSC_CHECK(MatGetSize(mat_, &rows, &cols));
  if (rows != reference.rows || cols != reference.cols)
    return std::numeric_limits<double>::infinity();
  double difference = 0.0, norm = 0.0;
  for (PetscInt row = 0; row < rows; ++row) {
    PetscInt count = 0;
    const PetscInt* columns = nullptr;
    const PetscScalar* values = nullptr;
    FOEHN_PETSC_CHECK(MatGetRow(mat_, row, &count, &columns, &values));
    // Merge of two sorted rows.
    std::int64_t k = reference.row_offsets[static_cast<std::size_t>(row)];
    const std::int64_t end = reference.row_offsets[static_cast<std::size_t>(row) + 1];
    PetscInt p = 0;
    while (k < end || p < count) {
      const auto kk = static_cast<std::size_t>(k);
      const bool take_ref = k < end && (p >= count || reference.column_indices[kk] <= columns[p]);
      const bool take_petsc = p < count && (k >= end || columns[p] <= reference.column_indices[kk]);
      const double r = take_ref ? reference.values[kk] : 0.0;
      const double v = take_petsc ? values[p] : 0.0;
      difference += (v - r) * (v - r);
      norm += r * r;
      if (take_ref) ++k;
      if (take_petsc) ++p;
    }
    FOEHN_PETSC_CHECK(MatRestoreRow(mat_, row, &count, &columns, &values));
  }
  if (norm == 0.0) return difference == 0.0 ? 0.0 : std::numeric_limits<double>::infinity();
  return std::sqrt(difference / norm);
}

}  // namespace foehn::bench
