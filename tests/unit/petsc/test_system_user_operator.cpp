// An operator of a program's own (examples/user_operator: the Coriolis term, 3 x 3 blocks) made
// assemblable through petsc::System by FOEHN_DEFINE_SYSTEM_OPERATOR, on every placement this
// machine has. References independent of the hand-off: the System's Mat applied to a vector
// equals the CPU reference's block-CSR product, and the operator is skew-symmetric
// (2 Ω × u: C + Cᵀ = 0), checked with PETSc's own transpose.
#include <gtest/gtest.h>
#include <petscmat.h>

#include <algorithm>
#include <cmath>
#include <ostream>
#include <vector>

#include "coriolis_operator.hpp"
#include "foehn/fe/cpu_assembler.hpp"
#include "foehn/petsc/device_petsc.hpp"
#include "foehn/petsc/distributed_mesh.hpp"
#include "foehn/petsc/petsc_check.hpp"
#include "foehn/petsc/system.hpp"
#include "foehn/runtime/device.hpp"
#include "support/small_mountain.hpp"
#include "system_placements.hpp"

namespace foehn::petsc {
namespace {

class UserOperatorSystem : public SystemPlacementTest {};

TEST_P(UserOperatorSystem, TheMatIsTheCpuReferenceAndSkewSymmetric) {
  const PlacementCase& c = GetParam();
  SystemAssembler assembler(mesh_, c.backend, fe::AssemblyStrategy::deterministic, c.device_solves);
  const NodeNumbering numbering = distributed_numbering(mesh_);
  System coriolis(
      assembler, numbering,
      SystemSpec{"coriolis", "coriolis_test_", 3, 3, false, std::nullopt, std::nullopt});
  foehn_examples::CoriolisOperator op;
  op.scale = 1e4;  // values of order one on this small mesh
  op.rotation[0] = 1e-5;
  op.rotation[1] = -2e-5;
  coriolis.assemble(op);

  fe::CpuAssembler reference_assembler(mesh_.local);
  fe::BlockCsrMatrix reference =
      reference_assembler.create_matrix<foehn_examples::CoriolisOperator>();
  reference_assembler.assemble(op, reference);

  const std::size_t points = 3 * mesh_.local.node_count();
  std::vector<double> x(points), expected(points);
  for (std::size_t i = 0; i < points; ++i) x[i] = std::sin(0.37 * static_cast<double>(i) + 0.1);
  reference.multiply(x, expected);

  // x in PETSc's order (one rank: the numbering's global node of each local node).
  Vec xv = nullptr, yv = nullptr;
  FOEHN_PETSC_CHECK(MatCreateVecs(coriolis.mat(), &xv, &yv));
  for (std::int32_t l = 0; l < numbering.local_nodes; ++l)
    for (int d = 0; d < 3; ++d) {
      const PetscInt row = static_cast<PetscInt>(numbering.global_of(l) * 3 + d);
      FOEHN_PETSC_CHECK(
          VecSetValue(xv, row, x[static_cast<std::size_t>(l) * 3 + d], INSERT_VALUES));
    }
  FOEHN_PETSC_CHECK(VecAssemblyBegin(xv));
  FOEHN_PETSC_CHECK(VecAssemblyEnd(xv));
  FOEHN_PETSC_CHECK(MatMult(coriolis.mat(), xv, yv));
  double largest = 0, worst = 0;
  for (std::int32_t l = 0; l < numbering.local_nodes; ++l)
    for (int d = 0; d < 3; ++d) {
      const PetscInt row = static_cast<PetscInt>(numbering.global_of(l) * 3 + d);
      PetscScalar y = 0;
      FOEHN_PETSC_CHECK(VecGetValues(yv, 1, &row, &y));
      const double want = expected[static_cast<std::size_t>(l) * 3 + d];
      largest = std::max(largest, std::abs(want));
      worst = std::max(worst, std::abs(static_cast<double>(y) - want));
    }
  EXPECT_GT(largest, 0.0);
  EXPECT_LE(worst, 1e-13 * largest) << "largest |C x| " << largest;

  // ‖C + Cᵀ‖ / ‖C‖ at round-off (W_b[i][j] and W_b[j][i] are summed in different orders).
  Mat sum = nullptr;
  FOEHN_PETSC_CHECK(MatTranspose(coriolis.mat(), MAT_INITIAL_MATRIX, &sum));
  FOEHN_PETSC_CHECK(MatAXPY(sum, 1.0, coriolis.mat(), DIFFERENT_NONZERO_PATTERN));
  PetscReal norm_sum = 0, norm = 0;
  FOEHN_PETSC_CHECK(MatNorm(sum, NORM_FROBENIUS, &norm_sum));
  FOEHN_PETSC_CHECK(MatNorm(coriolis.mat(), NORM_FROBENIUS, &norm));
  EXPECT_GT(norm, 0.0);
  EXPECT_LE(norm_sum, 1e-14 * norm) << "C + C^T is not zero";
  FOEHN_PETSC_CHECK(MatDestroy(&sum));
  FOEHN_PETSC_CHECK(VecDestroy(&xv));
  FOEHN_PETSC_CHECK(VecDestroy(&yv));
}

INSTANTIATE_TEST_SUITE_P(Placements, UserOperatorSystem, every_system_placement(), placement_name);

}  // namespace
}  // namespace foehn::petsc
