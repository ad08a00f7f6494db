#include "petsc_binary.hpp"

#include <petscmat.h>
#include <petscvec.h>
#include <petscviewer.h>

#include <limits>
#include <type_traits>
#include <vector>

#include "foehn/petsc/petsc_check.hpp"
#include "foehn/runtime/atomic_file.hpp"
#include "foehn/runtime/error.hpp"

namespace foehn::app {

namespace {

static_assert(std::is_same_v<PetscScalar, double>,
              "foehn-assemble writes real double matrices: PETSc must be built with real scalars");

// Destroys a PETSc object when leaving scope, also when an error is being thrown; a failure
// to destroy cannot be reported from a destructor and leaves only a leak.
template <class Object, PetscErrorCode (*destroy)(Object*)>
class PetscHandle {
 public:
  PetscHandle() = default;
  PetscHandle(const PetscHandle&) = delete;
  PetscHandle& operator=(const PetscHandle&) = delete;
  ~PetscHandle() { reset_quietly(); }
  Object* out() { return &object_; }
  Object get() const { return object_; }
  // Destroys now and reports errors (before the file is committed).
  void reset() { FOEHN_PETSC_CHECK(destroy(&object_)); }

 private:
  void reset_quietly() noexcept {
    if (object_) (void)destroy(&object_);
  }
  Object object_ = nullptr;
};

using MatHandle = PetscHandle<Mat, MatDestroy>;
using VecHandle = PetscHandle<Vec, VecDestroy>;
using ViewerHandle = PetscHandle<PetscViewer, PetscViewerDestroy>;

template <class T>
PetscInt to_petsc_int(T value, const char* what) {
  bool negative = false;
  if constexpr (std::is_signed_v<T>) negative = value < 0;
  if (negative || static_cast<unsigned long long>(value) >
                      static_cast<unsigned long long>(std::numeric_limits<PetscInt>::max()))
    fail(ErrorCategory::invalid_input, "the matrix has ", value, " ", what,
         ", more than this PETSc ", "build's ", sizeof(PetscInt) * 8, "-bit PetscInt holds");
  return static_cast<PetscInt>(value);
}

}  // namespace

void write_petsc_binary(const fe::PointCsr& matrix, std::span<const double> rhs,
                        const std::filesystem::path& path) {
  AtomicOutputFile file(path);
  const PetscInt rows = to_petsc_int(matrix.rows, "rows");
  const PetscInt cols = to_petsc_int(matrix.cols, "columns");
  to_petsc_int(matrix.values.size(), "nonzeros");
  if (!rhs.empty() && static_cast<std::int64_t>(rhs.size()) != matrix.rows)
    fail(ErrorCategory::internal, "right-hand side has ", rhs.size(), " entries for ", matrix.rows,
         " rows");

  // MatCreateSeqAIJWithArrays uses the arrays in place (no copy) but wants PetscInt offsets
  // (64-bit in PointCsr, 32-bit in Debian's PETSc) and non-const values.
  std::vector<PetscInt> offsets(matrix.row_offsets.begin(), matrix.row_offsets.end());
  std::vector<PetscInt> columns(matrix.column_indices.begin(), matrix.column_indices.end());
  std::vector<PetscScalar> values(matrix.values.begin(), matrix.values.end());
  std::vector<PetscScalar> rhs_values(rhs.begin(), rhs.end());

  MatHandle mat;
  FOEHN_PETSC_CHECK(MatCreateSeqAIJWithArrays(PETSC_COMM_SELF, rows, cols, offsets.data(),
                                              columns.data(), values.data(), mat.out()));
  VecHandle vec;
  if (!rhs.empty())
    FOEHN_PETSC_CHECK(
        VecCreateSeqWithArray(PETSC_COMM_SELF, 1, rows, rhs_values.data(), vec.out()));

  ViewerHandle viewer;
  const std::string temporary = file.temporary_path().string();
  FOEHN_PETSC_CHECK(PetscViewerCreate(PETSC_COMM_SELF, viewer.out()));
  FOEHN_PETSC_CHECK(PetscViewerSetType(viewer.get(), PETSCVIEWERBINARY));
  FOEHN_PETSC_CHECK(PetscViewerFileSetMode(viewer.get(), FILE_MODE_WRITE));
  // Before the name is set: that is when PETSc would create "<temporary>.info".
  FOEHN_PETSC_CHECK(PetscViewerBinarySetSkipInfo(viewer.get(), PETSC_TRUE));
  FOEHN_PETSC_CHECK(PetscViewerFileSetName(viewer.get(), temporary.c_str()));
  FOEHN_PETSC_CHECK(MatView(mat.get(), viewer.get()));
  if (!rhs.empty()) FOEHN_PETSC_CHECK(VecView(vec.get(), viewer.get()));
  viewer.reset();  // flushes and closes the file; its errors must stop the commit
  file.commit();
}

}  // namespace foehn::app
