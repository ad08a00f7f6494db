#pragma once
// Edits of assembled block-CSR values (Foehn's order, fe/block_csr_matrix.hpp) made before the
// values are handed to a solver, the same on the host and on the GPU. They stand in for PETSc's
// MatDiagonalSet and MatZeroRows/MatZeroRowsColumns, which PETSc runs on the host: applied to a
// matrix on the GPU, those would copy its values back to the host every timestep.
//
//   - add_diagonal: lumped terms (Rayleigh damping, linear reactions) added to the diagonal of
//     every owned point row;
//   - constrain: Dirichlet rows. The rows of the constrained points are zeroed and get
//     `diagonal` on their owner; `symmetric` zeroes their columns too, so symmetric operators
//     stay symmetric (CG still applies), and column_correction() gives the right-hand-side
//     term -A_(i,j) g_j that the removed columns carried;
//   - constrain_rhs: b = diagonal * g at the owned constrained points.
//
// What each edit touches is computed once per pattern and constrained set (ValueEdits, host);
// DeviceValueEdits is its copy on the GPU. On several ranks every rank edits its own
// contributions (owned and ghost rows, local numbering with owned nodes first, as
// petsc::DistributedMesh): PETSc's sum over ranks is then the edited global matrix, because
// ghost rows are zeroed too and only the owner puts a diagonal or adds a lumped term.
//
//   fe::ValueEdits edits(pattern, 3, owned_nodes);
//   edits.constrain(constrained_points, fe::ConstraintSymmetry::rows_only);
//   edits.add_diagonal(values, damping);          // host values ...
//   edits.apply_constraints(values, diagonal);
//   fe::DeviceValueEdits device_edits(edits, stream);  // ... or device values
//   device_edits.apply_constraints(device_values, diagonal, stream);

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "foehn/fe/csr_pattern.hpp"
#include "foehn/runtime/device_array.hpp"
#include "foehn/runtime/stream.hpp"

namespace foehn::fe {

enum class ConstraintSymmetry { rows_only, symmetric };

class ValueEdits {
 public:
  // Square R x R blocks (R = 1 or 3) on a square node pattern whose first `owned_nodes` rows are
  // this rank's. Throws invalid_input for other shapes or a pattern without its diagonal.
  ValueEdits(std::shared_ptr<const CsrPattern> pattern, int block_size, std::int32_t owned_nodes);

  // Sets the constrained points: constrained[node * R + r] != 0 for the point (node, r), for
  // every local node (owned and ghost). Replaces an earlier set.
  void constrain(std::span<const std::uint8_t> constrained, ConstraintSymmetry symmetry);

  int block_size() const noexcept { return block_size_; }
  std::size_t value_count() const noexcept { return value_count_; }
  std::size_t owned_points() const noexcept { return diagonal_positions_.size(); }
  std::size_t local_points() const noexcept { return local_points_; }
  ConstraintSymmetry symmetry() const noexcept { return symmetry_; }
  // The owned constrained points (local point indices, < owned_points()).
  const std::vector<std::int64_t>& owned_constrained_points() const noexcept {
    return owned_constrained_points_;
  }

  // Host values. values: value_count(); lumped: owned_points() values.
  void add_diagonal(std::span<double> values, std::span<const double> lumped) const;
  // Zeroes the constrained rows (and columns) and sets the owned constrained diagonals.
  void apply_constraints(std::span<double> values, double diagonal) const;
  // correction[i] = -sum over constrained columns j of A_(i,j) g_j for the unconstrained local
  // point rows i (0 elsewhere), from values not yet constrained; add it to the right-hand
  // side's local contributions. Symmetric only. g, correction: local_points() values.
  void column_correction(std::span<const double> values, std::span<const double> g,
                         std::span<double> correction) const;
  // rhs[p] = diagonal * g[p] at the owned constrained points p; rhs, g: owned_points() values
  // (a PETSc Vec's local entries).
  void constrain_rhs(std::span<double> rhs, std::span<const double> g, double diagonal) const;

 private:
  friend class DeviceValueEdits;
  void check_values(std::size_t count, const char* who) const;

  std::shared_ptr<const CsrPattern> pattern_;
  int block_size_ = 1;
  std::size_t value_count_ = 0;
  std::size_t local_points_ = 0;
  ConstraintSymmetry symmetry_ = ConstraintSymmetry::rows_only;
  std::vector<std::int64_t> diagonal_positions_;  // of every owned point row
  // What constrain() computed: positions set to zero (rows, then columns when symmetric), the
  // owned constrained diagonals, and per unconstrained row with constrained columns the
  // (position, column point) pairs of column_correction, in CSR form over those rows.
  std::vector<std::int64_t> zeroed_positions_;
  std::vector<std::int64_t> constrained_diagonal_positions_;
  std::vector<std::int64_t> owned_constrained_points_;
  std::vector<std::int64_t> correction_rows_;
  std::vector<std::int64_t> correction_offsets_;
  std::vector<std::int64_t> correction_positions_;
  std::vector<std::int64_t> correction_columns_;
};

// The same edits on device values (asynchronous on the given stream; the arrays are device
// memory of the sizes ValueEdits documents). Results are bitwise those of the host.
class DeviceValueEdits {
 public:
  DeviceValueEdits() = default;
  DeviceValueEdits(const ValueEdits& edits, const Stream& stream);

  void add_diagonal(double* values, const double* lumped, const Stream& stream) const;
  void apply_constraints(double* values, double diagonal, const Stream& stream) const;
  void column_correction(const double* values, const double* g, double* correction,
                         const Stream& stream) const;
  void constrain_rhs(double* rhs, const double* g, double diagonal, const Stream& stream) const;

 private:
  std::size_t local_points_ = 0;
  bool symmetric_ = false;
  DeviceArray<std::int64_t> diagonal_positions_;
  DeviceArray<std::int64_t> zeroed_positions_;
  DeviceArray<std::int64_t> constrained_diagonal_positions_;
  DeviceArray<std::int64_t> owned_constrained_points_;
  DeviceArray<std::int64_t> correction_rows_;
  DeviceArray<std::int64_t> correction_offsets_;
  DeviceArray<std::int64_t> correction_positions_;
  DeviceArray<std::int64_t> correction_columns_;
};

}  // namespace foehn::fe
