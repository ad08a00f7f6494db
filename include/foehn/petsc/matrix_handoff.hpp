#pragma once
// A PETSc Mat fed by Foehn's assembled operators: the pattern is given once per mesh, values
// are refreshed every assembly without any allocation, from host (CPU backend) or device
// (CUDA backend) values in Foehn's block-CSR order (see fe/block_csr_matrix.hpp).
//
// Two paths, chosen by the number of ranks unless forced:
//  - seq_array (one rank): MATSEQAIJ, or MATSEQBAIJ for square blocks (bs 3), preallocated
//    from the pattern; values are written straight into PETSc's value array. From the device
//    this is one asynchronous copy into that array, page-locked once with cudaHostRegister
//    (large arrays) or through a pinned staging buffer (small ones); blocks are transposed to
//    PETSc's column-major BAIJ order, or points reordered for AIJ, on the device first.
//  - coo (several ranks, or on request): MATMPIAIJ (MATAIJ) through MatSetPreallocationCOO once
//    and MatSetValuesCOO per assembly. Every rank passes the entries of its own elements,
//    ghost rows included; PETSc sums entries of rows owned by other ranks. Values go to PETSc
//    in Foehn's own order, so nothing is permuted.
//
// On the GPU (device_matrix, a PETSc built with CUDA; device_solves_available()): the Mat is
// MATSEQAIJCUSPARSE on one rank and MATMPIAIJCUSPARSE on several, and device values never
// leave the GPU. One rank: the pattern is handed over once and every update writes PETSc's
// device value array in place: the assembler writes straight into it when the orders agree
// (scalar operators and 1 x C blocks: begin_device_write returns PETSc's array), and one
// device permutation moves R x C blocks into PETSc's point rows otherwise. Several ranks:
// MatSetValuesCOO with the device pointer. Streams are ordered with PETSc's (device_petsc.hpp).
//
// Device hand-off is split in begin/end so that the copy of one system overlaps the assembly
// of the next: begin() queues the work on the given stream and returns; end() waits for it and
// completes the PETSc update. Between the two, the Mat must not be used.
//
//   PetscMatrix k(serial_numbering(PETSC_COMM_SELF, n), assembler.pattern(), 1, 1);
//   assembler.assemble(op, values, rhs);          // every timestep
//   k.set_values(values.values);                   // host values
//   k.begin_set_values(device_values, stream);     // or device values ...
//   ...                                            // ... assemble the next system ...
//   k.end_set_values();                            // ... then finish this one
#include <petscmat.h>

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "foehn/fe/block_csr_matrix.hpp"
#include "foehn/fe/csr_pattern.hpp"
#include "foehn/fe/cuda_assembler.hpp"
#include "foehn/petsc/node_numbering.hpp"
#include "foehn/runtime/device_array.hpp"
#include "foehn/runtime/host_registration.hpp"
#include "foehn/runtime/pinned_array.hpp"
#include "foehn/runtime/stream.hpp"

namespace foehn::petsc {

enum class MatrixFormat { automatic, aij, baij };
enum class HandoffPath { automatic, seq_array, coo };

std::string to_string(MatrixFormat format);
std::string to_string(HandoffPath path);
MatrixFormat parse_matrix_format(const std::string& name);  // "auto", "aij", "baij"
HandoffPath parse_handoff_path(const std::string& name);    // "auto", "seq_array", "coo"

struct MatrixHandoffOptions {
  // automatic: BAIJ for square blocks larger than 1 on one rank; AIJ with the block size set
  // otherwise (PETSc's COO assembly is native for AIJ; for BAIJ it falls back to one
  // MatSetValue per entry, which is correct but slow).
  MatrixFormat format = MatrixFormat::automatic;
  HandoffPath path = HandoffPath::automatic;  // seq_array on one rank, coo on several
  // Device copies land directly in PETSc's value array (page-locked with cudaHostRegister)
  // when it holds at least this many bytes; smaller arrays may share a page with other memory,
  // which CUDA cannot register twice, so they go through a pinned staging buffer.
  std::size_t register_threshold_bytes = std::size_t{1} << 20;
  // Keep the matrix on the GPU (MATAIJCUSPARSE; see above). Only where
  // device_solves_available(); otherwise asking for it is invalid_input (unavailable).
  bool device_matrix = false;
};

class PetscMatrix {
 public:
  // `local_pattern` is the node pattern of the rank's elements on the numbering's local nodes
  // (CpuAssembler::pattern(), CudaAssembler::download_pattern()); block_rows x block_cols is the
  // operator's block shape. Collective on numbering.comm.
  PetscMatrix(const NodeNumbering& numbering, std::shared_ptr<const fe::CsrPattern> local_pattern,
              int block_rows, int block_cols, const MatrixHandoffOptions& options = {});
  // The same, for a further operator on the same numbering, pattern (the same object) and block
  // shape as `same_layout`: where both take the coo path with the same format and placement,
  // the new Mat is a MatDuplicate of its Mat and shares PETSc's COO maps instead of building
  // its own. That sort is most of a multi-rank set-up (MatSetPreallocationCOO) and the maps
  // live on the GPU for a device matrix. Otherwise (one rank, another format or placement) it
  // is built as by the constructor above (so too with a PETSc older than 3.21, whose
  // MatDuplicate does not carry COO maps). Collective on numbering.comm.
  PetscMatrix(const PetscMatrix& same_layout, const NodeNumbering& numbering,
              std::shared_ptr<const fe::CsrPattern> local_pattern, int block_rows, int block_cols,
              const MatrixHandoffOptions& options = {});
  // True when this matrix shares its COO maps with the one it was given as `same_layout`.
  bool shares_layout() const noexcept { return shares_layout_; }
  // Adopts a Mat the caller created (MatCreate, MatSetSizes, MatSetType or MatSetFromOptions,
  // any options prefix): its sizes must be the numbering's (owned nodes x block rows locally,
  // global nodes x block rows globally; invalid_input naming both otherwise) and its type AIJ or
  // BAIJ, on the host or (a CUDA PETSc) AIJCUSPARSE. Values then go through the coo path:
  // Foehn gives the Mat its pattern with MatSetPreallocationCOO, which replaces any
  // preallocation the caller made (a caller's pattern is not needed and not kept). The Mat is
  // referenced, not copied: the caller keeps its own reference and may use the Mat in a KSP.
  PetscMatrix(Mat caller_mat, const NodeNumbering& numbering,
              std::shared_ptr<const fe::CsrPattern> local_pattern, int block_rows, int block_cols);
  ~PetscMatrix();
  PetscMatrix(PetscMatrix&&) noexcept;
  PetscMatrix& operator=(PetscMatrix&&) noexcept;
  PetscMatrix(const PetscMatrix&) = delete;
  PetscMatrix& operator=(const PetscMatrix&) = delete;

  Mat mat() const noexcept { return mat_; }
  HandoffPath path() const noexcept { return path_; }
  MatrixFormat format() const noexcept { return format_; }
  // Values per hand-off: local block nonzeros * block_rows * block_cols.
  std::size_t value_count() const noexcept { return value_count_; }
  // True when device copies go straight into PETSc's page-locked value array.
  bool copies_into_registered_array() const noexcept { return registration_.registered(); }
  // True for a matrix on the GPU (device_matrix).
  bool on_device() const noexcept { return device_matrix_; }
  // True when begin_device_write hands out PETSc's own value array (one rank, orders agree).
  bool writes_in_place() const noexcept {
    return device_matrix_ && path_ == HandoffPath::seq_array && petsc_position_of_value_.empty();
  }

  // Host values in Foehn's order (BlockCsrMatrix::values). Collective.
  void set_values(std::span<const double> values);
  void set_values(const fe::BlockCsrMatrix& matrix) {
    check_block_shape(matrix.block_rows, matrix.block_cols);
    set_values(matrix.values);
  }

  // Device values in Foehn's order, asynchronously on `stream` (values must be ready there
  // and stay alive until end). Collective only in end.
  void begin_set_values(const DeviceArray<double>& values, const Stream& stream);
  void end_set_values();
  void set_values(const DeviceArray<double>& values, const Stream& stream) {
    begin_set_values(values, stream);
    end_set_values();
  }
  // The same for a CudaAssembler's matrix (its block shape is checked).
  void begin_set_values(const fe::DeviceBlockCsrMatrix& matrix, const Stream& stream) {
    check_block_shape(matrix.block_rows, matrix.block_cols);
    begin_set_values(matrix.values, stream);
  }
  void set_values(const fe::DeviceBlockCsrMatrix& matrix, const Stream& stream) {
    begin_set_values(matrix, stream);
    end_set_values();
  }

  // Matrices on the GPU: device memory for value_count() values in Foehn's order, to be written
  // completely on `stream` (by an assembly, fe::CudaAssembler::assemble with a
  // DeviceAssemblyTarget, and any edits of the values), then published to PETSc by
  // end_device_write on the same stream. PETSc's own value array when writes_in_place(), else
  // a buffer of this object allocated on the first `stream` (which must outlive the matrix).
  // invalid_input for a host matrix.
  double* begin_device_write(const Stream& stream);
  void end_device_write(const Stream& stream);
  // Ends a begun write without publishing (for a caller unwinding from an error): the matrix
  // takes new writes again; its values are undefined until the next complete write. Local,
  // not collective; does nothing without a begun write.
  void abandon_device_write(const Stream& stream) noexcept;
  // Matrices on the GPU: value_count() device values in Foehn's order, ready on `stream`, become
  // the matrix's values (the caller may overwrite them on `stream` when this returns).
  void set_device_values(const double* values, const Stream& stream);

 private:
  void create_seq_array(const fe::CsrPattern& pattern);
  PetscMatrix(const PetscMatrix* same_layout, const NodeNumbering& numbering,
              std::shared_ptr<const fe::CsrPattern> local_pattern, int block_rows, int block_cols,
              const MatrixHandoffOptions& options);
  void create_coo(const NodeNumbering& numbering, const fe::CsrPattern& pattern);
  // MatDuplicate of `other`'s Mat when its layout is this one's (see the constructor).
  bool duplicate_layout(const PetscMatrix& other, const NodeNumbering& numbering);
  void upload_duplicate_pattern();
  void set_coo_pattern(const NodeNumbering& numbering, const fe::CsrPattern& pattern);
  // Checks shared by both constructors; sets value_count_.
  void check_layout(const NodeNumbering& numbering, const fe::CsrPattern* pattern);
  // check_layout, then the path and format the options resolve to (sets path_ and format_).
  void check_options(const NodeNumbering& numbering, const fe::CsrPattern* pattern,
                     const MatrixHandoffOptions& options, int ranks);
  double* checkout_array();
  void return_array();
  void create_device_seq(const fe::CsrPattern& pattern);
  // Device values in Foehn's order -> PETSc, ordered after `stream` (device matrices).
  void publish_device_values(const double* values, const Stream& stream);
  double* checkout_device_array(const Stream& stream);
  void return_device_array(const Stream& stream);
  void check_value_count(std::size_t count, const char* where) const;
  void check_block_shape(int block_rows, int block_cols) const;

  Mat mat_ = nullptr;
  HandoffPath path_ = HandoffPath::seq_array;
  MatrixFormat format_ = MatrixFormat::aij;
  int block_rows_ = 1, block_cols_ = 1;
  std::size_t value_count_ = 0;
  std::size_t register_threshold_bytes_ = 0;
  bool device_matrix_ = false;
  // What a matrix sharing this one's COO maps must have the same of.
  const fe::CsrPattern* pattern_identity_ = nullptr;
  std::int64_t layout_local_nodes_ = 0, layout_global_nodes_ = 0;
  bool shares_layout_ = false;
  // seq_array: PETSc position of every Foehn value; empty when the orders agree (scalar AIJ,
  // or 1 x C blocks).
  std::vector<std::int32_t> petsc_position_of_value_;
  // Device hand-off state, created on first use: the positions on the device, and a buffer for
  // values in Foehn's order (permuted into PETSc's order for host matrices, or written by
  // begin_device_write when PETSc's array cannot take them in place).
  DeviceArray<std::int32_t> device_position_of_value_;
  DeviceArray<double> device_permuted_;
  enum class DeviceWrite { none, in_place, buffered } device_write_ = DeviceWrite::none;
  PinnedArray<double> staging_;
  HostRegistration registration_;
  std::unique_ptr<::foehn::Event> copy_done_;
  double* checked_out_array_ = nullptr;  // PETSc's array between begin and end (seq_array)
  PetscObjectState checkout_state_ = 0;
  bool pending_ = false;
  bool pending_uses_staging_ = false;
};

}  // namespace foehn::petsc

namespace foehn::petsc {
// Reads -<prefix>foehn_mat_format auto|aij|baij and -<prefix>foehn_handoff auto|seq_array|coo
// (listed by -help) over `defaults`. Throws invalid_input for an unknown value.
MatrixHandoffOptions matrix_handoff_options_from_database(MPI_Comm comm, const std::string& prefix,
                                                          MatrixHandoffOptions defaults = {});
}  // namespace foehn::petsc
