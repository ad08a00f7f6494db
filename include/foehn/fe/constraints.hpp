#pragma once
// The edits of one linear system's assembled values before they reach a solver: lumped terms
// added to the diagonal and Dirichlet rows (fe::ValueEdits says what each edit does), applied
// where the values live. One class whatever the placement: the edit tables are computed on the
// host once per constrained set and copied to the GPU when the values are assembled there.
//
//   fe::Constraints velocity(pattern, 3, owned_nodes, assembler_values_placement);
//   velocity.constrain(flags, fe::ConstraintSymmetry::rows_only, mean_mass / dt);
//   velocity.add_diagonal(values, damping);   // values and damping in the values' memory
//   velocity.apply(values);
//   velocity.constrain_rhs(rhs_placement, rhs, g);  // b = diagonal * g at the constrained rows
#include <cstdint>
#include <memory>
#include <span>

#include "foehn/fe/value_edits.hpp"
#include "foehn/runtime/placement.hpp"

namespace foehn::fe {

class Constraints {
 public:
  // Square block_size x block_size blocks on a square node pattern whose first `owned_nodes`
  // rows are this rank's; `values` is where the system's assembled values will be.
  Constraints(std::shared_ptr<const CsrPattern> pattern, int block_size, std::int32_t owned_nodes,
              const Placement& values);
  ~Constraints();
  Constraints(const Constraints&) = delete;
  Constraints& operator=(const Constraints&) = delete;

  // The constrained points (host flags, one per local point: node * block_size + r) and the
  // value the constrained rows get on the diagonal. Replaces an earlier set.
  void constrain(std::span<const std::uint8_t> constrained, ConstraintSymmetry symmetry,
                 double diagonal);
  // A new diagonal for the same constrained points.
  void set_diagonal(double diagonal) noexcept { diagonal_ = diagonal; }
  double diagonal() const noexcept { return diagonal_; }
  const ValueEdits& edits() const noexcept { return host_; }
  const Placement& values_placement() const noexcept { return values_; }

  // value_count() assembled values and owned_points() lumped terms, both in the values' memory.
  void add_diagonal(double* values, const double* lumped) const;
  // Zeroes the constrained rows (and columns when symmetric), sets their owned diagonals.
  void apply(double* values) const;
  // rhs[p] = diagonal * g[p] at the owned constrained points; rhs and g hold owned_points()
  // values at `where` (host memory, or device memory when the values are on the device).
  void constrain_rhs(const Placement& where, double* rhs, const double* g) const;

 private:
  const DeviceValueEdits& device_edits(const char* who) const;

  Placement values_;
  ValueEdits host_;
  std::unique_ptr<DeviceValueEdits> device_;  // a copy of host_'s tables when values_ is on device
  double diagonal_ = 1;
};

}  // namespace foehn::fe
