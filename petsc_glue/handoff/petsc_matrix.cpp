#include <petscmat.h>

#include <algorithm>
#include <cstring>
#include <string>
#include <utility>

#include "foehn/petsc/device_petsc.hpp"
#include "foehn/petsc/log_events.hpp"
#include "foehn/petsc/matrix_handoff.hpp"
#include "foehn/petsc/mpi_collective.hpp"
#include "foehn/petsc/petsc_check.hpp"
#include "foehn/runtime/error.hpp"
#include "foehn/runtime/scatter.hpp"
#include "handoff_layout.hpp"
#include "petsc_device_support.hpp"

// PetscObjectStateGet/Increase: the object state is how solvers decide to rebuild a
// preconditioner. PETSc 3.18 declares them only in this private header (public later).
#include <petsc/private/petscimpl.h>

namespace foehn::petsc {

namespace {

int communicator_size(MPI_Comm comm) {
  int size = 0;
  if (comm == MPI_COMM_NULL || MPI_Comm_size(comm, &size) != MPI_SUCCESS)
    fail(ErrorCategory::invalid_input, "PetscMatrix: the numbering has no valid communicator");
  return size;
}

}  // namespace

PetscMatrix::PetscMatrix(const NodeNumbering& numbering,
                         std::shared_ptr<const fe::CsrPattern> local_pattern, int block_rows,
                         int block_cols, const MatrixHandoffOptions& options)
    : PetscMatrix(nullptr, numbering, std::move(local_pattern), block_rows, block_cols, options) {}

PetscMatrix::PetscMatrix(const PetscMatrix& same_layout, const NodeNumbering& numbering,
                         std::shared_ptr<const fe::CsrPattern> local_pattern, int block_rows,
                         int block_cols, const MatrixHandoffOptions& options)
    : PetscMatrix(&same_layout, numbering, std::move(local_pattern), block_rows, block_cols,
                  options) {}

PetscMatrix::PetscMatrix(const PetscMatrix* same_layout, const NodeNumbering& numbering,
                         std::shared_ptr<const fe::CsrPattern> local_pattern, int block_rows,
                         int block_cols, const MatrixHandoffOptions& options)
    : block_rows_(block_rows),
      block_cols_(block_cols),
      register_threshold_bytes_(options.register_threshold_bytes),
      device_matrix_(options.device_matrix) {
  const int ranks = communicator_size(numbering.comm);
  // The checks are local (this rank's pattern and options), the construction collective: a
  // defect on one rank is reported on every rank, which would otherwise wait in PETSc.
  detail::run_collectively(numbering.comm,
                           [&] { check_options(numbering, local_pattern.get(), options, ranks); });
  const fe::CsrPattern& pattern = *local_pattern;
  pattern_identity_ = local_pattern.get();
  layout_local_nodes_ = numbering.local_nodes;
  layout_global_nodes_ = numbering.global_nodes;

  // Every rank decides alike: the layouts are equal on all ranks or on none (same calls).
  if (same_layout != nullptr && duplicate_layout(*same_layout, numbering)) return;

  FOEHN_PETSC_CHECK(MatCreate(numbering.comm, &mat_));
  try {
    FOEHN_PETSC_CHECK(MatSetSizes(mat_, static_cast<PetscInt>(numbering.owned_nodes) * block_rows,
                                  static_cast<PetscInt>(numbering.owned_nodes) * block_cols,
                                  static_cast<PetscInt>(numbering.global_nodes * block_rows),
                                  static_cast<PetscInt>(numbering.global_nodes * block_cols)));
    FOEHN_PETSC_CHECK(MatSetBlockSizes(mat_, block_rows, block_cols));
    if (path_ == HandoffPath::seq_array && device_matrix_)
      create_device_seq(pattern);
    else if (path_ == HandoffPath::seq_array)
      create_seq_array(pattern);
    else
      create_coo(numbering, pattern);
  } catch (...) {
    MatDestroy(&mat_);
    throw;
  }
}

void PetscMatrix::check_options(const NodeNumbering& numbering,
                                const fe::CsrPattern* pattern_pointer,
                                const MatrixHandoffOptions& options, int ranks) {
  check_layout(numbering, pattern_pointer);
  path_ = options.path;
  if (path_ == HandoffPath::automatic)
    path_ = ranks == 1 ? HandoffPath::seq_array : HandoffPath::coo;
  if (path_ == HandoffPath::seq_array && ranks != 1)
    fail(ErrorCategory::invalid_input,
         "PetscMatrix: the seq_array hand-off needs one rank, the "
         "communicator has ",
         ranks, " (use coo)");
  if (device_matrix_ && !device_solves_available())
    fail(ErrorCategory::unavailable,
         "PetscMatrix: a matrix on the GPU (device_matrix) needs "
         "PETSc and Foehn built with CUDA: ",
         detail::why_no_device_solves(), " (PETSc ", PETSC_VERSION_MAJOR, ".", PETSC_VERSION_MINOR,
         ")");

  format_ = options.format;
  const bool square_blocks = block_rows_ == block_cols_ && block_rows_ > 1;
  if (format_ == MatrixFormat::automatic)
    format_ = square_blocks && path_ == HandoffPath::seq_array && !device_matrix_
                  ? MatrixFormat::baij
                  : MatrixFormat::aij;
  if (format_ == MatrixFormat::baij && !square_blocks)
    fail(ErrorCategory::invalid_input,
         "PetscMatrix: BAIJ needs square blocks larger than 1, the "
         "operator has ",
         block_rows_, " x ", block_cols_);
  if (format_ == MatrixFormat::baij && device_matrix_)
    fail(ErrorCategory::invalid_input,
         "PetscMatrix: PETSc has no block (BAIJ) matrix on the GPU; "
         "a device matrix is AIJ with block size ",
         block_rows_, " (format aij)");
}

void PetscMatrix::check_layout(const NodeNumbering& numbering,
                               const fe::CsrPattern* pattern_pointer) {
  PetscBool initialized = PETSC_FALSE;
  FOEHN_PETSC_CHECK(PetscInitialized(&initialized));
  if (!initialized)
    fail(ErrorCategory::unavailable,
         "PetscMatrix: PETSc is not initialised (the application calls PetscInitialize)");
  if (!pattern_pointer)
    fail(ErrorCategory::invalid_input, "PetscMatrix: no sparsity pattern given");
  const fe::CsrPattern& pattern = *pattern_pointer;
  if (block_rows_ < 1 || block_cols_ < 1 || block_rows_ > 3 || block_cols_ > 3)
    fail(ErrorCategory::invalid_input, "PetscMatrix: block shape ", block_rows_, " x ", block_cols_,
         " (1..3 each)");
  if (pattern.rows != numbering.local_nodes || pattern.cols != numbering.local_nodes)
    fail(ErrorCategory::invalid_input, "PetscMatrix: pattern of ", pattern.rows, " x ",
         pattern.cols, " nodes on a numbering of ", numbering.local_nodes, " local nodes");
  detail::check_fits_petsc_int(numbering.global_nodes * std::max(block_rows_, block_cols_),
                               "PetscMatrix");
  detail::check_fits_petsc_int(static_cast<std::int64_t>(pattern.nnz()) * block_rows_ * block_cols_,
                               "PetscMatrix values");
  value_count_ = pattern.nnz() * block_rows_ * block_cols_;
}

PetscMatrix::PetscMatrix(Mat caller_mat, const NodeNumbering& numbering,
                         std::shared_ptr<const fe::CsrPattern> local_pattern, int block_rows,
                         int block_cols)
    : block_rows_(block_rows), block_cols_(block_cols) {
  communicator_size(numbering.comm);
  // Local checks agreed over the ranks before each collective step (a defect on one rank is
  // reported on every rank instead of leaving the others waiting in MPI or PETSc).
  PetscInt local_rows = 0, local_cols = 0, global_rows = 0, global_cols = 0;
  std::string type_name;
  detail::run_collectively(numbering.comm, [&] {
    check_layout(numbering, local_pattern.get());
    if (caller_mat == nullptr)
      fail(ErrorCategory::invalid_input, "PetscMatrix: the caller's Mat is NULL");
    FOEHN_PETSC_CHECK(MatGetLocalSize(caller_mat, &local_rows, &local_cols));
    FOEHN_PETSC_CHECK(MatGetSize(caller_mat, &global_rows, &global_cols));
    MatType type = nullptr;
    FOEHN_PETSC_CHECK(MatGetType(caller_mat, &type));
    if (type == nullptr)
      fail(ErrorCategory::invalid_input,
           "PetscMatrix: the caller's Mat has no type yet (MatSetType or MatSetFromOptions first)");
    type_name = type;
  });
  if (global_rows < 0 || global_cols < 0) {
    // PETSC_DETERMINE and a layout not set up yet: the global size is the sum of the local ones.
    PetscInt local[2] = {local_rows, local_cols}, global[2] = {0, 0};
    MPI_Comm comm = MPI_COMM_NULL;
    FOEHN_PETSC_CHECK(PetscObjectGetComm(reinterpret_cast<PetscObject>(caller_mat), &comm));
    if (MPI_Allreduce(local, global, 2, MPIU_INT, MPI_SUM, comm) != MPI_SUCCESS)
      fail(ErrorCategory::petsc, "PetscMatrix: MPI_Allreduce of the caller's Mat sizes failed");
    if (global_rows < 0) global_rows = global[0];
    if (global_cols < 0) global_cols = global[1];
  }
  const bool cusparse = type_name.find("cusparse") != std::string::npos;
  const bool baij = type_name.find("baij") != std::string::npos;
  detail::run_collectively(numbering.comm, [&] {
    const std::int64_t want_local_rows = numbering.owned_nodes * block_rows,
                       want_local_cols = numbering.owned_nodes * block_cols,
                       want_global_rows = numbering.global_nodes * block_rows,
                       want_global_cols = numbering.global_nodes * block_cols;
    if (local_rows != want_local_rows || local_cols != want_local_cols ||
        global_rows != want_global_rows || global_cols != want_global_cols)
      fail(ErrorCategory::invalid_input, "PetscMatrix: the caller's Mat is ", local_rows, " x ",
           local_cols, " on this rank and ", global_rows, " x ", global_cols,
           " in all; the mesh and the operator's ", block_rows, " x ", block_cols, " blocks need ",
           want_local_rows, " x ", want_local_cols, " and ", want_global_rows, " x ",
           want_global_cols);
    const bool aij = !baij && type_name.find("aij") != std::string::npos;
    if (!aij && !baij)
      fail(ErrorCategory::invalid_input, "PetscMatrix: the caller's Mat is of type '", type_name,
           "'; Foehn hands values to AIJ, BAIJ or AIJCUSPARSE matrices");
    if (cusparse && !device_solves_available())
      fail(ErrorCategory::unavailable, "PetscMatrix: the caller's Mat is '", type_name,
           "' but Foehn's device hand-off is unavailable: ", detail::why_no_device_solves());
  });
  FOEHN_PETSC_CHECK(PetscObjectReference(reinterpret_cast<PetscObject>(caller_mat)));
  mat_ = caller_mat;
  device_matrix_ = cusparse;
  format_ = baij ? MatrixFormat::baij : MatrixFormat::aij;
  path_ = HandoffPath::coo;
  try {
    set_coo_pattern(numbering, *local_pattern);
  } catch (...) {
    MatDestroy(&mat_);  // our reference only
    throw;
  }
}

void PetscMatrix::create_seq_array(const fe::CsrPattern& pattern) {
  if (format_ == MatrixFormat::baij) {
    FOEHN_PETSC_CHECK(MatSetType(mat_, MATSEQBAIJ));
    const std::vector<PetscInt> offsets(pattern.row_offsets.begin(), pattern.row_offsets.end());
    const std::vector<PetscInt> columns(pattern.column_indices.begin(),
                                        pattern.column_indices.end());
    FOEHN_PETSC_CHECK(
        MatSeqBAIJSetPreallocationCSR(mat_, block_rows_, offsets.data(), columns.data(), nullptr));
    petsc_position_of_value_ = detail::baij_position_of_value(pattern, block_rows_);
  } else {
    FOEHN_PETSC_CHECK(MatSetType(mat_, MATSEQAIJ));
    const detail::PointPattern point = detail::point_pattern(pattern, block_rows_, block_cols_);
    FOEHN_PETSC_CHECK(MatSeqAIJSetPreallocationCSR(mat_, point.row_offsets.data(),
                                                   point.columns.data(), nullptr));
    petsc_position_of_value_ = detail::aij_position_of_value(pattern, block_rows_, block_cols_);
  }
  // The pattern is complete: a value outside it is a bug, not a reason to reallocate (which
  // would also move the array registered for device copies).
  FOEHN_PETSC_CHECK(MatSetOption(mat_, MAT_NEW_NONZERO_ALLOCATION_ERR, PETSC_TRUE));
  // Dirichlet rows are zeroed in place, never removed from the pattern.
  FOEHN_PETSC_CHECK(MatSetOption(mat_, MAT_KEEP_NONZERO_PATTERN, PETSC_TRUE));
}

void PetscMatrix::create_device_seq(const fe::CsrPattern& pattern) {
#if FOEHN_DEVICE_PETSC
  FOEHN_PETSC_CHECK(MatSetType(mat_, MATSEQAIJCUSPARSE));
  const detail::PointPattern point = detail::point_pattern(pattern, block_rows_, block_cols_);
  FOEHN_PETSC_CHECK(
      MatSeqAIJSetPreallocationCSR(mat_, point.row_offsets.data(), point.columns.data(), nullptr));
  petsc_position_of_value_ = detail::aij_position_of_value(pattern, block_rows_, block_cols_);
  FOEHN_PETSC_CHECK(MatSetOption(mat_, MAT_NEW_NONZERO_ALLOCATION_ERR, PETSC_TRUE));
  FOEHN_PETSC_CHECK(MatSetOption(mat_, MAT_KEEP_NONZERO_PATTERN, PETSC_TRUE));
  // The pattern goes to the device once, here (the values are zero): every later update only
  // writes the device value array.
  PetscScalar* device_values = nullptr;
  FOEHN_PETSC_CHECK(MatSeqAIJCUSPARSEGetArray(mat_, &device_values));
  FOEHN_PETSC_CHECK(MatSeqAIJCUSPARSERestoreArray(mat_, &device_values));
#else
  (void)pattern;
#endif
}

void PetscMatrix::create_coo(const NodeNumbering& numbering, const fe::CsrPattern& pattern) {
  if (format_ == MatrixFormat::baij) {
    FOEHN_PETSC_CHECK(MatSetType(mat_, MATBAIJ));
  } else if (device_matrix_) {
#if FOEHN_DEVICE_PETSC
    FOEHN_PETSC_CHECK(MatSetType(mat_, MATAIJCUSPARSE));
#endif
  } else {
    FOEHN_PETSC_CHECK(MatSetType(mat_, MATAIJ));
  }
  set_coo_pattern(numbering, pattern);
}

bool PetscMatrix::duplicate_layout(const PetscMatrix& other, const NodeNumbering& numbering) {
#if !PETSC_VERSION_GE(3, 21, 0)
  // Older PETSc (Debian's 3.18) keeps COO maps inside the matrix, and MatDuplicate does not
  // carry them over: every matrix builds its own.
  (void)other;
  (void)numbering;
  return false;
#endif
  // Only AIJ: PETSc keeps the COO maps of its AIJ types in containers that MatDuplicate passes
  // on (host and device); its BAIJ COO assembly is a generic fallback without them.
  const bool same = other.mat_ != nullptr && other.path_ == HandoffPath::coo &&
                    path_ == HandoffPath::coo && other.format_ == MatrixFormat::aij &&
                    format_ == MatrixFormat::aij && other.device_matrix_ == device_matrix_ &&
                    other.block_rows_ == block_rows_ && other.block_cols_ == block_cols_ &&
                    other.pattern_identity_ == pattern_identity_ &&
                    other.layout_local_nodes_ == numbering.local_nodes &&
                    other.layout_global_nodes_ == numbering.global_nodes;
  if (!same) return false;
  FOEHN_PETSC_CHECK(MatDuplicate(other.mat_, MAT_DO_NOT_COPY_VALUES, &mat_));
  try {
    FOEHN_PETSC_CHECK(MatSetOption(mat_, MAT_KEEP_NONZERO_PATTERN, PETSC_TRUE));
    if (device_matrix_) upload_duplicate_pattern();
  } catch (...) {
    MatDestroy(&mat_);
    throw;
  }
  shares_layout_ = true;
  return true;
}

void PetscMatrix::upload_duplicate_pattern() {
#if FOEHN_DEVICE_PETSC
  // A duplicate's pattern and zero values are on the host only; MatSetValuesCOO writes the
  // device copy and needs it to exist ("Missing MultStruct" otherwise, PETSc 3.26). Taking and
  // returning each local block's device array builds it, once, here.
  PetscBool distributed = PETSC_FALSE;
  FOEHN_PETSC_CHECK(
      PetscObjectTypeCompare(reinterpret_cast<PetscObject>(mat_), MATMPIAIJCUSPARSE, &distributed));
  Mat blocks[2] = {mat_, nullptr};
  if (distributed) FOEHN_PETSC_CHECK(MatMPIAIJGetSeqAIJ(mat_, &blocks[0], &blocks[1], nullptr));
  for (Mat block : blocks) {
    if (block == nullptr) continue;
    PetscScalar* device_values = nullptr;
    FOEHN_PETSC_CHECK(MatSeqAIJCUSPARSEGetArray(block, &device_values));
    FOEHN_PETSC_CHECK(MatSeqAIJCUSPARSERestoreArray(block, &device_values));
  }
#endif
}

void PetscMatrix::set_coo_pattern(const NodeNumbering& numbering, const fe::CsrPattern& pattern) {
  detail::CooIndices coo = detail::coo_indices(numbering, pattern, block_rows_, block_cols_);
  FOEHN_PETSC_CHECK(MatSetPreallocationCOO(mat_, static_cast<PetscCount>(coo.rows.size()),
                                           coo.rows.data(), coo.columns.data()));
  // Dirichlet rows are zeroed in place: the COO map into PETSc's arrays stays valid.
  FOEHN_PETSC_CHECK(MatSetOption(mat_, MAT_KEEP_NONZERO_PATTERN, PETSC_TRUE));
}

PetscMatrix::~PetscMatrix() {
  if (pending_) {
    // An exception between begin and end: let the copy finish before its target goes away.
    try {
      copy_done_->synchronize();
    } catch (...) {
    }
  }
  if (checked_out_array_ != nullptr && device_matrix_) {
#if FOEHN_DEVICE_PETSC
    MatSeqAIJCUSPARSERestoreArrayWrite(mat_, &checked_out_array_);
#endif
  } else if (checked_out_array_ != nullptr) {
    if (format_ == MatrixFormat::baij)
      MatSeqBAIJRestoreArray(mat_, &checked_out_array_);
    else
      MatSeqAIJRestoreArrayWrite(mat_, &checked_out_array_);
  }
  registration_ = HostRegistration();  // unregister before PETSc frees the array
  if (mat_ != nullptr) MatDestroy(&mat_);
}

PetscMatrix::PetscMatrix(PetscMatrix&& other) noexcept {
  *this = std::move(other);
}

PetscMatrix& PetscMatrix::operator=(PetscMatrix&& other) noexcept {
  if (this == &other) return *this;
  registration_ = HostRegistration();
  if (mat_ != nullptr) MatDestroy(&mat_);
  mat_ = std::exchange(other.mat_, nullptr);
  path_ = other.path_;
  format_ = other.format_;
  block_rows_ = other.block_rows_;
  block_cols_ = other.block_cols_;
  value_count_ = other.value_count_;
  register_threshold_bytes_ = other.register_threshold_bytes_;
  device_matrix_ = other.device_matrix_;
  pattern_identity_ = other.pattern_identity_;
  layout_local_nodes_ = other.layout_local_nodes_;
  layout_global_nodes_ = other.layout_global_nodes_;
  shares_layout_ = other.shares_layout_;
  petsc_position_of_value_ = std::move(other.petsc_position_of_value_);
  device_position_of_value_ = std::move(other.device_position_of_value_);
  device_permuted_ = std::move(other.device_permuted_);
  staging_ = std::move(other.staging_);
  registration_ = std::move(other.registration_);
  copy_done_ = std::move(other.copy_done_);
  checked_out_array_ = std::exchange(other.checked_out_array_, nullptr);
  checkout_state_ = other.checkout_state_;
  pending_ = std::exchange(other.pending_, false);
  pending_uses_staging_ = other.pending_uses_staging_;
  device_write_ = std::exchange(other.device_write_, DeviceWrite::none);
  return *this;
}

void PetscMatrix::check_value_count(std::size_t count, const char* where) const {
  if (count != value_count_)
    fail(ErrorCategory::invalid_input, "PetscMatrix::", where, ": ", count,
         " values for a matrix of ", value_count_, " (", block_rows_, " x ", block_cols_,
         " blocks on its pattern)");
  if (pending_ || device_write_ != DeviceWrite::none)
    fail(ErrorCategory::invalid_input, "PetscMatrix::", where, ": the previous ",
         pending_ ? "begin_set_values" : "begin_device_write", " was not ended");
}

void PetscMatrix::check_block_shape(int block_rows, int block_cols) const {
  if (block_rows != block_rows_ || block_cols != block_cols_)
    fail(ErrorCategory::invalid_input, "PetscMatrix: values of ", block_rows, " x ", block_cols,
         " blocks for a matrix of ", block_rows_, " x ", block_cols_, " blocks");
}

double* PetscMatrix::checkout_array() {
  FOEHN_PETSC_CHECK(PetscObjectStateGet(reinterpret_cast<PetscObject>(mat_), &checkout_state_));
  PetscScalar* array = nullptr;
  if (format_ == MatrixFormat::baij)
    FOEHN_PETSC_CHECK(MatSeqBAIJGetArray(mat_, &array));
  else
    FOEHN_PETSC_CHECK(MatSeqAIJGetArrayWrite(mat_, &array));
  checked_out_array_ = array;
  return array;
}

void PetscMatrix::return_array() {
  if (format_ == MatrixFormat::baij)
    FOEHN_PETSC_CHECK(MatSeqBAIJRestoreArray(mat_, &checked_out_array_));
  else
    FOEHN_PETSC_CHECK(MatSeqAIJRestoreArrayWrite(mat_, &checked_out_array_));
  checked_out_array_ = nullptr;
  // Solvers decide whether to rebuild preconditioners from the object state, which
  // MatSeqAIJRestoreArrayWrite raises; where a restore does not (SeqBAIJ), raise it here
  // (a MatAssemblyBegin/End would too, at the cost of a pass over the pattern).
  PetscObjectState state = 0;
  FOEHN_PETSC_CHECK(PetscObjectStateGet(reinterpret_cast<PetscObject>(mat_), &state));
  if (state == checkout_state_)
    FOEHN_PETSC_CHECK(PetscObjectStateIncrease(reinterpret_cast<PetscObject>(mat_)));
}

void PetscMatrix::set_values(std::span<const double> values) {
  check_value_count(values.size(), "set_values");
  const ScopedLogEvent event(LogEvent::mat_update, reinterpret_cast<PetscObject>(mat_));
  if (path_ == HandoffPath::coo) {
    FOEHN_PETSC_CHECK(MatSetValuesCOO(mat_, values.data(), INSERT_VALUES));
    return;
  }
  double* array = checkout_array();
  if (petsc_position_of_value_.empty()) {
    std::copy(values.begin(), values.end(), array);
  } else {
    for (std::size_t v = 0; v < values.size(); ++v) array[petsc_position_of_value_[v]] = values[v];
  }
  return_array();
}

void PetscMatrix::begin_set_values(const DeviceArray<double>& values, const Stream& stream) {
  check_value_count(values.size(), "begin_set_values");
  if (device_matrix_) {  // the values stay on the device: PETSc has them when this returns
    publish_device_values(values.data(), stream);
    return;
  }
  if (!copy_done_) copy_done_ = std::make_unique<::foehn::Event>();

  const DeviceArray<double>* source = &values;
  if (path_ == HandoffPath::seq_array && !petsc_position_of_value_.empty()) {
    if (device_position_of_value_.empty()) {
      device_position_of_value_ =
          DeviceArray<std::int32_t>(petsc_position_of_value_.size(), stream);
      device_position_of_value_.copy_from_host_async(petsc_position_of_value_, stream);
      device_permuted_ = DeviceArray<double>(value_count_, stream);
    }
    scatter_async(values, device_position_of_value_, device_permuted_, stream);
    source = &device_permuted_;
  }

  double* destination = nullptr;
  pending_uses_staging_ = true;
  if (path_ == HandoffPath::seq_array) {
    double* array = checkout_array();
    const std::size_t bytes = value_count_ * sizeof(double);
    if (!registration_.covers(array, bytes) && bytes >= register_threshold_bytes_) {
      registration_ = HostRegistration();  // PETSc moved the array (not expected): re-register
      registration_ = HostRegistration::try_register(array, bytes);
    }
    if (registration_.covers(array, bytes)) {
      destination = array;
      pending_uses_staging_ = false;
    }
  }
  if (pending_uses_staging_) {
    if (staging_.size() != value_count_) staging_ = PinnedArray<double>(value_count_);
    destination = staging_.data();
  }
  source->copy_to_host_async(std::span<double>(destination, value_count_), stream);
  copy_done_->record(stream);
  pending_ = true;
}

void PetscMatrix::end_set_values() {
  if (!pending_) return;  // nothing queued (or a CUDA-PETSc matrix, updated in begin)
  {
    const ScopedLogEvent event(LogEvent::copy_d2h);  // the part of the copy not hidden by overlap
    copy_done_->synchronize();
  }
  pending_ = false;
  const ScopedLogEvent event(LogEvent::mat_update, reinterpret_cast<PetscObject>(mat_));
  if (path_ == HandoffPath::coo) {
    FOEHN_PETSC_CHECK(MatSetValuesCOO(mat_, staging_.data(), INSERT_VALUES));
    return;
  }
  if (pending_uses_staging_) std::copy(staging_.begin(), staging_.end(), checked_out_array_);
  return_array();
}

double* PetscMatrix::checkout_device_array(const Stream& stream) {
#if FOEHN_DEVICE_PETSC
  stream_waits_for_petsc(stream);  // PETSc may still be reading the old values
  PetscScalar* array = nullptr;
  FOEHN_PETSC_CHECK(MatSeqAIJCUSPARSEGetArrayWrite(mat_, &array));
  checked_out_array_ = array;
  return array;
#else
  (void)stream;
  fail(ErrorCategory::unavailable, "PetscMatrix: ", detail::why_no_device_solves());
#endif
}

void PetscMatrix::return_device_array(const Stream& stream) {
#if FOEHN_DEVICE_PETSC
  petsc_waits_for(stream);
  // Raises the object state: solvers see new values and rebuild their preconditioners.
  FOEHN_PETSC_CHECK(MatSeqAIJCUSPARSERestoreArrayWrite(mat_, &checked_out_array_));
  checked_out_array_ = nullptr;
#else
  (void)stream;
#endif
}

void PetscMatrix::publish_device_values(const double* values, const Stream& stream) {
  const ScopedLogEvent event(LogEvent::mat_update, reinterpret_cast<PetscObject>(mat_));
  if (path_ == HandoffPath::coo) {
    petsc_waits_for(stream);
    FOEHN_PETSC_CHECK(MatSetValuesCOO(mat_, values, INSERT_VALUES));
    // PETSc reads `values` on its stream: the caller's next write to them must wait for it.
    stream_waits_for_petsc(stream);
    return;
  }
  if (!petsc_position_of_value_.empty() && device_position_of_value_.empty()) {
    device_position_of_value_ = DeviceArray<std::int32_t>(petsc_position_of_value_.size(), stream);
    device_position_of_value_.copy_from_host_async(petsc_position_of_value_, stream);
  }
  double* array = checkout_device_array(stream);
  if (petsc_position_of_value_.empty()) {
    if (array != values)
      ::foehn::detail::copy_async(array, values, value_count_ * sizeof(double),
                                  ::foehn::detail::CopyKind::device_to_device,
                                  stream.native_handle());
  } else {
    scatter_async(values, value_count_, device_position_of_value_.data(), array, stream);
  }
  return_device_array(stream);
}

void PetscMatrix::set_device_values(const double* values, const Stream& stream) {
  check_value_count(value_count_, "set_device_values");
  if (!device_matrix_)
    fail(ErrorCategory::invalid_input, "PetscMatrix::set_device_values: the matrix is a host ",
         "matrix (MatrixHandoffOptions::device_matrix is off)");
  publish_device_values(values, stream);
}

double* PetscMatrix::begin_device_write(const Stream& stream) {
  check_value_count(value_count_, "begin_device_write");
  if (!device_matrix_)
    fail(ErrorCategory::invalid_input, "PetscMatrix::begin_device_write: the matrix is a host ",
         "matrix (MatrixHandoffOptions::device_matrix is off)");
  if (writes_in_place()) {
    double* array = checkout_device_array(stream);
    device_write_ = DeviceWrite::in_place;
    return array;
  }
  if (device_permuted_.size() != value_count_)
    device_permuted_ = DeviceArray<double>(value_count_, stream);
  device_write_ = DeviceWrite::buffered;
  return device_permuted_.data();
}

void PetscMatrix::end_device_write(const Stream& stream) {
  const DeviceWrite write = std::exchange(device_write_, DeviceWrite::none);
  switch (write) {
    case DeviceWrite::none:
      fail(ErrorCategory::invalid_input,
           "PetscMatrix::end_device_write without a begin_device_write");
    case DeviceWrite::in_place: {
      const ScopedLogEvent event(LogEvent::mat_update, reinterpret_cast<PetscObject>(mat_));
      return_device_array(stream);
      return;
    }
    case DeviceWrite::buffered:
      publish_device_values(device_permuted_.data(), stream);
      return;
  }
}

void PetscMatrix::abandon_device_write(const Stream& stream) noexcept {
  if (std::exchange(device_write_, DeviceWrite::none) != DeviceWrite::in_place) return;
  try {
    return_device_array(stream);
  } catch (const Error&) {  // the caller is already reporting an error; this one would repeat it
  }
}

}  // namespace foehn::petsc
