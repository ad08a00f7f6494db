#include "foehn/petsc/block_chebyshev.hpp"

#include <petscvec.h>
// PetscObjectStateGet/Increase: the state tells whether the operator's values changed and tells
// PETSc that a block written through its storage Vec changed.
#include <petsc/private/petscimpl.h>

#include <cmath>
#include <cstddef>

#include "block_chebyshev_updates.hpp"
#include "foehn/petsc/device_petsc.hpp"
#include "foehn/petsc/petsc_check.hpp"
#include "foehn/runtime/error.hpp"
#include "foehn/runtime/for_each.hpp"

namespace foehn::petsc {

namespace {

// Raw arrays of several Vecs and dense Mats for one pointwise update: taken without ordering
// each one, then the update's stream waits once for PETSc's queued work, and PETSc's later work
// waits once for the update (the ordering VecArray does per array, done once for all).
class UpdateArrays {
 public:
  // Every array must live where the update runs (a Vec bound to the CPU, or of another device
  // kind, would hand a host kernel a device pointer or the reverse).
  UpdateArrays(const Stream* stream, bool on_device) : stream_(stream), on_device_(on_device) {}
  ~UpdateArrays() {
    try {
      if (on_device_ && ordered_) petsc_waits_for(*stream_);
    } catch (const Error&) {  // a destructor cannot throw; the arrays are still given back
    }
    for (int i = 0; i < read_count_; ++i)
      (void)VecRestoreArrayReadAndMemType(reads_[i].object, &reads_[i].array);
    if (written_) (void)VecRestoreArrayWriteAndMemType(written_, &write_array_);
    for (int i = 0; i < product_count_; ++i) {
#if defined(PETSC_HAVE_CUDA)
      (void)MatDenseRestoreArrayReadAndMemType(products_[i].object, &products_[i].array);
#else
      (void)MatDenseRestoreArrayRead(products_[i].object, &products_[i].array);
#endif
    }
  }
  UpdateArrays(const UpdateArrays&) = delete;
  UpdateArrays& operator=(const UpdateArrays&) = delete;

  const double* read(Vec vec) {
    const PetscScalar* array = nullptr;
    PetscMemType memory = PETSC_MEMTYPE_HOST;
    FOEHN_PETSC_CHECK(VecGetArrayReadAndMemType(vec, &array, &memory));
    reads_[read_count_++] = {vec, array};
    expect_placement(memory);
    return array;
  }
  const double* read(Mat dense) {
    const PetscScalar* array = nullptr;
#if defined(PETSC_HAVE_CUDA)
    PetscMemType memory = PETSC_MEMTYPE_HOST;
    FOEHN_PETSC_CHECK(MatDenseGetArrayReadAndMemType(dense, &array, &memory));
#else
    // A PETSc without CUDA (Debian's 3.18, which lacks the MemType variant) holds it on the host.
    FOEHN_PETSC_CHECK(MatDenseGetArrayRead(dense, &array));
#endif
    products_[product_count_++] = {dense, array};
#if defined(PETSC_HAVE_CUDA)
    expect_placement(memory);
#endif
    return array;
  }
  double* write(Vec vec) {
    PetscMemType memory = PETSC_MEMTYPE_HOST;
    FOEHN_PETSC_CHECK(VecGetArrayWriteAndMemType(vec, &write_array_, &memory));
    written_ = vec;
    expect_placement(memory);
    return write_array_;
  }
  // Where the update runs; on the device, after PETSc's queued work.
  Placement placement() {
    if (!on_device_) return Placement::host();
    stream_waits_for_petsc(*stream_);
    ordered_ = true;
    return Placement::device(*stream_);
  }

 private:
  void expect_placement(PetscMemType memory) const {
    if (PetscMemTypeDevice(memory) != on_device_)
      fail(ErrorCategory::invalid_input, "BlockChebyshev: an array PETSc handed out lives in ",
           PetscMemTypeDevice(memory) ? "device" : "host", " memory, the update runs on the ",
           on_device_ ? "GPU" : "host", " (a Vec of another type, or bound to the CPU?)");
  }
  template <class T, class A>
  struct Taken {
    T object = nullptr;
    A array = nullptr;
  };
  const Stream* stream_;
  bool on_device_;
  bool ordered_ = false;
  Taken<Vec, const PetscScalar*> reads_[4];
  int read_count_ = 0;
  Taken<Mat, const PetscScalar*> products_[1];
  int product_count_ = 0;
  Vec written_ = nullptr;
  PetscScalar* write_array_ = nullptr;
};

}  // namespace

BlockChebyshev::BlockChebyshev(Mat matrix, int columns, double lower, double upper,
                               const Stream* stream)
    : matrix_(matrix), columns_(columns), lower_(lower), upper_(upper), stream_(stream) {
  if (matrix == nullptr) fail(ErrorCategory::invalid_input, "BlockChebyshev: the Mat is null");
  if (columns < 1 || columns > 64)
    fail(ErrorCategory::invalid_input, "BlockChebyshev: ", columns,
         " columns (need 1 to 64 right-hand sides)");
  if (!(lower > 0 && upper > lower && std::isfinite(upper)))
    fail(ErrorCategory::invalid_input,
         "BlockChebyshev: eigenvalue bounds need 0 < lower < upper (finite), got [", lower, ", ",
         upper, "]");
  PetscInt local_columns = 0;
  FOEHN_PETSC_CHECK(MatGetLocalSize(matrix, &rows_, &local_columns));
  // Every rank decides the same (the storage below is created collectively).
  int square = rows_ == local_columns ? 1 : 0;
  MPI_Allreduce(MPI_IN_PLACE, &square, 1, MPI_INT, MPI_MIN,
                PetscObjectComm(reinterpret_cast<PetscObject>(matrix)));
  if (!square)
    fail(ErrorCategory::invalid_input,
         "BlockChebyshev: the operator is not square on every rank (this rank: ", rows_, " x ",
         local_columns, " local)");
  FOEHN_PETSC_CHECK(MatCreateVecs(matrix, &inverse_diagonal_, nullptr));
  try {
    on_device_ = is_device_vec(inverse_diagonal_);
    if (on_device_ && stream == nullptr)
      fail(ErrorCategory::invalid_input, "BlockChebyshev: a device operator needs a stream");
    make_block(rhs_block_);  // the right-hand sides (their dense view is not used)
    for (Block& block : iterates_) make_block(block);
  } catch (...) {
    release();  // no destructor runs for a constructor that throws
    throw;
  }
}

BlockChebyshev::~BlockChebyshev() {
  release();
}

void BlockChebyshev::release() noexcept {
  for (Block* block : {&rhs_block_, &iterates_[0], &iterates_[1], &iterates_[2]}) {
    (void)MatDestroy(&block->product);
    (void)MatDestroy(&block->columns);  // before the storage it views
    (void)VecDestroy(&block->storage);
  }
  (void)VecDestroy(&inverse_diagonal_);
}

void BlockChebyshev::make_block(Block& block) const {
  MPI_Comm comm = PetscObjectComm(reinterpret_cast<PetscObject>(matrix_));
  VecType type = nullptr;
  FOEHN_PETSC_CHECK(VecGetType(inverse_diagonal_, &type));
  FOEHN_PETSC_CHECK(VecCreate(comm, &block.storage));
  FOEHN_PETSC_CHECK(VecSetSizes(block.storage, rows_ * columns_, PETSC_DETERMINE));
  FOEHN_PETSC_CHECK(VecSetType(block.storage, type));
  // Zeroed where it lives (the device for a CUDA Vec), so the array handed out below is there.
  FOEHN_PETSC_CHECK(VecSet(block.storage, 0.0));
  PetscScalar* array = nullptr;
  PetscMemType memory = PETSC_MEMTYPE_HOST;
  FOEHN_PETSC_CHECK(VecGetArrayAndMemType(block.storage, &array, &memory));
  // The dense Mat views the Vec's storage (column c at c * rows); the Vec keeps owning it. The
  // columns' layout is PETSc's to split (every rank stores all of them anyway).
  PetscErrorCode created = 0;
  if (PetscMemTypeDevice(memory)) {
#if defined(PETSC_HAVE_CUDA)
    created = MatCreateDenseCUDA(comm, rows_, PETSC_DECIDE, PETSC_DETERMINE, columns_, array,
                                 &block.columns);
#else
    created = PETSC_ERR_SUP;
#endif
  } else {
    created =
        MatCreateDense(comm, rows_, PETSC_DECIDE, PETSC_DETERMINE, columns_, array, &block.columns);
  }
  FOEHN_PETSC_CHECK(VecRestoreArrayAndMemType(block.storage, &array));
  FOEHN_PETSC_CHECK(created);
}

void BlockChebyshev::multiply(Block& block) {
  // The storage may have been written through its Vec on the host (a caller's VecGetArray): taking
  // its array where it lives brings that copy up to date (nothing to do when it already is), and
  // the dense view, which reads that memory directly, is told that it changed.
  const PetscScalar* current = nullptr;
  PetscMemType memory = PETSC_MEMTYPE_HOST;
  FOEHN_PETSC_CHECK(VecGetArrayReadAndMemType(block.storage, &current, &memory));
  FOEHN_PETSC_CHECK(VecRestoreArrayReadAndMemType(block.storage, &current));
  FOEHN_PETSC_CHECK(PetscObjectStateIncrease(reinterpret_cast<PetscObject>(block.columns)));
  if (block.product == nullptr)
    FOEHN_PETSC_CHECK(
        MatMatMult(matrix_, block.columns, MAT_INITIAL_MATRIX, PETSC_DETERMINE, &block.product));
  else
    FOEHN_PETSC_CHECK(
        MatMatMult(matrix_, block.columns, MAT_REUSE_MATRIX, PETSC_DETERMINE, &block.product));
}

void BlockChebyshev::refresh_diagonal() {
  PetscObjectState state = 0;
  FOEHN_PETSC_CHECK(PetscObjectStateGet(reinterpret_cast<PetscObject>(matrix_), &state));
  if (state == diagonal_state_) return;
  FOEHN_PETSC_CHECK(MatGetDiagonal(matrix_, inverse_diagonal_));
  // Jacobi needs a positive diagonal here (the bounds assume a positive definite operator):
  // one reduction, only when the operator's values changed.
  PetscReal smallest = 0;
  FOEHN_PETSC_CHECK(VecMin(inverse_diagonal_, nullptr, &smallest));
  if (!(smallest > 0))
    fail(ErrorCategory::invalid_input, "BlockChebyshev: the operator's diagonal has an entry ",
         smallest, " <= 0 (Jacobi-preconditioned Chebyshev needs a positive diagonal)");
  FOEHN_PETSC_CHECK(VecReciprocal(inverse_diagonal_));
  diagonal_state_ = state;
}

void BlockChebyshev::solve(int iterations, bool nonzero_guess) {
  if (iterations < 1)
    fail(ErrorCategory::invalid_input, "BlockChebyshev: ", iterations,
         " iterations (need at least one)");
  refresh_diagonal();
  const auto entries = static_cast<std::size_t>(rows_) * static_cast<std::size_t>(columns_);
  const auto rows = static_cast<std::size_t>(rows_);
  // PETSc's KSPCHEBYSHEV (first kind) with eigenvalue bounds [lower, upper] of D^-1 A.
  const double scale = 2.0 / (upper_ + lower_);
  const double alpha = 1.0 - scale * lower_;
  const double mu = 1.0 / alpha;
  const double omega_product = 2.0 / alpha;

  if (!nonzero_guess) {
    FOEHN_PETSC_CHECK(VecSet(iterates_[0].storage, 0.0));
  } else {
    multiply(iterates_[0]);
  }
  {
    UpdateArrays arrays(stream_, on_device_);
    ChebyshevFirstIterate first{arrays.read(rhs_block_.storage),
                                arrays.read(iterates_[0].storage),
                                nonzero_guess ? arrays.read(iterates_[0].product) : nullptr,
                                arrays.read(inverse_diagonal_),
                                arrays.write(iterates_[1].storage),
                                rows,
                                scale};
    for_each(arrays.placement(), entries, first);
  }
  int previous = 0, current = 1, next = 2;
  double c_previous = 1.0, c_current = mu;
  for (int i = 1; i < iterations; ++i) {
    multiply(iterates_[current]);
    const double c_next = 2.0 * mu * c_current - c_previous;
    const double omega = omega_product * c_current / c_next;
    {
      UpdateArrays arrays(stream_, on_device_);
      ChebyshevNextIterate step{arrays.read(rhs_block_.storage),
                                arrays.read(iterates_[previous].storage),
                                arrays.read(iterates_[current].storage),
                                arrays.read(iterates_[current].product),
                                arrays.read(inverse_diagonal_),
                                arrays.write(iterates_[next].storage),
                                rows,
                                omega,
                                scale};
      for_each(arrays.placement(), entries, step);
    }
    c_previous = c_current;
    c_current = c_next;
    const int oldest = previous;
    previous = current;
    current = next;
    next = oldest;
  }
  if (current != 0) FOEHN_PETSC_CHECK(VecCopy(iterates_[current].storage, iterates_[0].storage));
}

}  // namespace foehn::petsc
