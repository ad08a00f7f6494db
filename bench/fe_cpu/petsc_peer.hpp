#pragma once
// The peer of the CPU assembly benchmark: PETSc's own assembly of the same matrix. To be fair
// to PETSc the matrix is preallocated exactly from Foehn's pattern before any timing (PETSc's
// fast path: no mallocs, every insertion lands in an existing slot), and only what a PETSc
// user repeats per time step is timed: MatZeroEntries, MatSetValues(ADD_VALUES) per element,
// MatAssemblyBegin/End.

#include <petscmat.h>

#include <cstdint>
#include <vector>

#include "foehn/fe/block_csr_matrix.hpp"
#include "foehn/fe/csr_pattern.hpp"
#include "foehn/fe/small_matrix.hpp"

namespace foehn::bench {

class PetscPeerMatrix {
 public:
  // SEQAIJ (block_size 1) or SEQBAIJ (block_size 3) on the node pattern, preallocated with
  // Mat*SetPreallocationCSR; a new nonzero location would be an error (and fail the case).
  static PetscPeerMatrix from_pattern(const fe::CsrPattern& pattern, int block_size);

  // SEQAIJ whose COO entries are the 16 (test, trial) node pairs of every element in element
  // order, row-major within the element: exactly the layout of the stored element matrices,
  // so MatSetValuesCOO takes them as they are (scalar operators only).
  static PetscPeerMatrix coo_from_tets(const std::vector<std::int32_t>& tets,
                                       std::int32_t node_count);

  PetscPeerMatrix(PetscPeerMatrix&& other) noexcept : mat_(other.mat_) { other.mat_ = nullptr; }
  PetscPeerMatrix& operator=(PetscPeerMatrix&&) = delete;
  PetscPeerMatrix(const PetscPeerMatrix&) = delete;
  ~PetscPeerMatrix();

  Mat get() const noexcept { return mat_; }

  // ||A - reference||_F / ||reference||_F over the union of both patterns (an entry present on
  // one side only counts in full), read back with MatGetRow so it works for AIJ and BAIJ alike
  // (BAIJ stores its blocks column-major; MatGetRow returns point rows).
  double relative_difference(const fe::PointCsr& reference) const;

 private:
  explicit PetscPeerMatrix(Mat mat) : mat_(mat) {}
  Mat mat_ = nullptr;
};

// One element matrix into a PETSc matrix with ADD_VALUES: MatSetValues for scalar operators,
// MatSetValuesBlocked (4 block rows x 4 block columns) for 3x3 blocks. Both read `a` as a
// row-major (4R) x (4C) array (MAT_ROW_ORIENTED, PETSc's default), which is the layout of
// Foehn's element matrices: row i*R + r, column j*C + c.
template <int R, int C>
inline PetscErrorCode petsc_add_element(Mat mat, const fe::Array<std::int32_t, 4>& nodes,
                                        const fe::Mat<4 * R, 4 * C>& a) {
  static_assert(R == C && (R == 1 || R == 3), "scalar or 3x3-block operators only");
  const PetscInt idx[4] = {nodes[0], nodes[1], nodes[2], nodes[3]};
  if constexpr (R == 1) return MatSetValues(mat, 4, idx, 4, idx, &a.a[0][0], ADD_VALUES);
  else return MatSetValuesBlocked(mat, 4, idx, 4, idx, &a.a[0][0], ADD_VALUES);
}

}  // namespace foehn::bench
