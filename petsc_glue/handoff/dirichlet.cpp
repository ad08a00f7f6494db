#include "foehn/petsc/dirichlet.hpp"

#include <petscvec.h>

#include <cmath>

#include "foehn/petsc/petsc_check.hpp"
#include "foehn/runtime/error.hpp"

namespace foehn::petsc {

std::vector<PetscInt> owned_dirichlet_rows(const NodeNumbering& numbering,
                                           std::span<const std::int32_t> local_nodes,
                                           int components_per_node,
                                           std::span<const int> components) {
  for (const int component : components)
    if (component < 0 || component >= components_per_node)
      fail(ErrorCategory::invalid_input, "owned_dirichlet_rows: component ", component,
           " of a field with ", components_per_node, " components");
  std::vector<PetscInt> rows;
  rows.reserve(local_nodes.size() * components.size());
  for (const std::int32_t node : local_nodes) {
    if (node < 0 || node >= numbering.local_nodes)
      fail(ErrorCategory::invalid_input, "owned_dirichlet_rows: node ", node, " outside the ",
           numbering.local_nodes, " local nodes");
    if (node >= numbering.owned_nodes) continue;
    for (const int component : components)
      rows.push_back(
          static_cast<PetscInt>(numbering.global_of(node) * components_per_node + component));
  }
  return rows;
}

double mean_abs_diagonal(Mat matrix) {
  Vec diagonal_values = nullptr;
  FOEHN_PETSC_CHECK(MatCreateVecs(matrix, nullptr, &diagonal_values));
  PetscReal sum = 0;
  PetscInt size = 0;
  const PetscErrorCode code = [&] {
    PetscErrorCode status = MatGetDiagonal(matrix, diagonal_values);
    if (status == 0) status = VecNorm(diagonal_values, NORM_1, &sum);
    if (status == 0) status = VecGetSize(diagonal_values, &size);
    return status;
  }();
  VecDestroy(&diagonal_values);
  FOEHN_PETSC_CHECK(code);
  return size > 0 && sum > 0 ? sum / size : 1.0;
}

void apply_dirichlet(Mat matrix, std::span<const PetscInt> rows, Vec values, Vec rhs,
                     const DirichletOptions& options) {
  if (!std::isfinite(options.diagonal) || options.diagonal < 0)
    fail(ErrorCategory::invalid_input, "apply_dirichlet: diagonal ", options.diagonal,
         " (a positive number, or 0 for the mean diagonal of the matrix)");
  const double diagonal = options.diagonal == 0 ? mean_abs_diagonal(matrix) : options.diagonal;
  const PetscInt count = static_cast<PetscInt>(rows.size());
  if (options.symmetry == DirichletSymmetry::symmetric)
    FOEHN_PETSC_CHECK(MatZeroRowsColumns(matrix, count, rows.data(), diagonal, values, rhs));
  else
    FOEHN_PETSC_CHECK(MatZeroRows(matrix, count, rows.data(), diagonal, values, rhs));
}

}  // namespace foehn::petsc
