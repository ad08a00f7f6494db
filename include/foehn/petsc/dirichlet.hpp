#pragma once
// Dirichlet conditions on an assembled PETSc system A x = b, applied after the values are
// handed off (every assembly, since the hand-off overwrites every value):
//  - symmetric (for symmetric operators: mass, diffusion, the pressure Poisson problem): rows
//    AND columns of the constrained points are zeroed (MatZeroRowsColumns), b is corrected by
//    the known values times the removed columns, so A stays symmetric and CG still applies;
//  - rows_only (non-symmetric operators, e.g. advection-diffusion): only rows are replaced.
// Constrained rows get the diagonal `diagonal` and b = diagonal * value. By default the
// diagonal is the mean magnitude of A's diagonal, so the constrained rows do not degrade the
// conditioning of operators whose entries are far from 1 (km-sized elements).
#include <petscmat.h>

#include <cstdint>
#include <span>
#include <vector>

#include "foehn/petsc/node_numbering.hpp"

namespace foehn::petsc {

enum class DirichletSymmetry { symmetric, rows_only };

// PETSc rows of the points (node, component) of `local_nodes` owned by this rank, for every
// component in `components` (e.g. {0, 1, 2} for all velocity components, {2} for w only)
// of a field with `components_per_node` components. Ghost nodes are skipped: their owner
// lists them. Throws invalid_input for a node or component out of range.
std::vector<PetscInt> owned_dirichlet_rows(const NodeNumbering& numbering,
                                           std::span<const std::int32_t> local_nodes,
                                           int components_per_node,
                                           std::span<const int> components);

struct DirichletOptions {
  DirichletSymmetry symmetry = DirichletSymmetry::symmetric;
  double diagonal = 0.0;  // 0: mean |diagonal| of A
};

// The mean magnitude of A's diagonal (1 for an empty or zero diagonal): the default diagonal
// of constrained rows. Collective; runs on the GPU for a matrix there.
double mean_abs_diagonal(Mat matrix);

// Applies the conditions: `values` holds the prescribed values at the constrained rows (other
// entries are not read); `rhs` is adjusted. Collective on A's communicator.
void apply_dirichlet(Mat matrix, std::span<const PetscInt> rows, Vec values, Vec rhs,
                     const DirichletOptions& options = {});

}  // namespace foehn::petsc
