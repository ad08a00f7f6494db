#pragma once
// BlockChebyshev: several right-hand sides of one operator solved together by a fixed
// Chebyshev iteration preconditioned by Jacobi. Each iteration is one sparse product of the
// operator with all the columns (MatMatMult with a dense block: one halo exchange for every
// column, where column-by-column solves exchange once per column) and one pointwise update; no
// inner product, so no reduction and no host wait. For operators whose Jacobi-scaled spectrum is
// known to lie in [lower, upper], as a P1 mass matrix's in [1/2, 5/2] (the mountain-wave
// core's projection: three velocity components in one solve).
//
//   petsc::BlockChebyshev block(mass, 3, 0.5, 2.5, stream);
//   {
//     petsc::VecArray rhs(block.rhs(), petsc::VecAccess::write, stream);  // column c at c * rows
//     ...fill...
//   }
//   block.solve(25, /*nonzero_guess=*/false);   // block.solution() holds the columns
//
// The iteration is the one PETSc's KSPCHEBYSHEV runs with the same bounds (first kind, error
// reduced by at most 2 rate^k, rate = (sqrt(upper/lower) - 1) / (sqrt(upper/lower) + 1)), so a
// column's result matches a KSPCHEBYSHEV solve of that column to round-off. Works on host
// (MATAIJ, MATDENSE) and device operators (MATAIJCUSPARSE, MATDENSECUDA) alike; the pointwise
// updates run where the operator's values live, on `stream` for a device operator.
#include <petscmat.h>

#include "foehn/runtime/stream.hpp"

namespace foehn::petsc {

class BlockChebyshev {
 public:
  // `matrix` must outlive the solver; its values may change between solves (the Jacobi
  // diagonal is read again when they do). `stream`: where the pointwise updates run for a
  // device operator (ignored for a host one). Collective on the matrix's communicator.
  BlockChebyshev(Mat matrix, int columns, double lower, double upper, const Stream* stream);
  ~BlockChebyshev();
  BlockChebyshev(const BlockChebyshev&) = delete;
  BlockChebyshev& operator=(const BlockChebyshev&) = delete;

  // The right-hand sides and the solutions (and initial guess) as Vecs of local size
  // rows * columns, column c's local entry i at c * rows + i; read and written with VecArray.
  Vec rhs() const noexcept { return rhs_block_.storage; }
  Vec solution() const noexcept { return iterates_[0].storage; }
  int columns() const noexcept { return columns_; }
  PetscInt local_rows() const noexcept { return rows_; }
  bool on_device() const noexcept { return on_device_; }

  // `iterations` Chebyshev iterations (>= 1) from the solution's content (nonzero_guess) or
  // from zero. Collective.
  void solve(int iterations, bool nonzero_guess);

 private:
  // One block of columns: its storage Vec, the dense Mat over that storage, and the operator's
  // product with it (created by the first product, reused after).
  struct Block {
    Vec storage = nullptr;
    Mat columns = nullptr;
    Mat product = nullptr;
  };
  void make_block(Block& block) const;
  void multiply(Block& block);
  void refresh_diagonal();
  void release() noexcept;

  Mat matrix_;
  int columns_;
  double lower_, upper_;
  const Stream* stream_;
  PetscInt rows_ = 0;
  bool on_device_ = false;
  Block rhs_block_;
  Vec inverse_diagonal_ = nullptr;
  Block iterates_[3];
  PetscObjectState diagonal_state_ = -1;
};

}  // namespace foehn::petsc
