// The whole path (assembly -> hand-off -> Dirichlet -> KSP) on a manufactured Poisson problem
// on the mountain domain: P1 elements must converge at second order in L2. A wrong entry, a
// lost ghost contribution, a misplaced Dirichlet row or a transposed block costs that order.
#include <gtest/gtest.h>

#include <cmath>

#include "foehn/mesh/mountain.hpp"
#include "manufactured_poisson.hpp"

namespace foehn::examples {
namespace {

double relative_l2_error(int cells, petsc::MatrixHandoffOptions handoff = {}) {
  MountainMeshOptions options;
  options.cells_x = options.cells_y = cells;
  options.cells_z = 3 * cells / 4;
  // Uniform horizontal spacing: the default grading keeps 250 m cells over the mountain at
  // every count, so its meshes are not refinements of each other and the observed order says
  // nothing about the operator.
  options.mountain_spacing = 0.0;
  TetMesh whole = generate_mountain_mesh(options);
  mark_boundary_nodes(whole);
  const petsc::DistributedMesh mesh = petsc::distribute_mesh(PETSC_COMM_SELF, &whole);
  PoissonProblem problem(
      mesh, ManufacturedSolution::for_box(options.length_x, options.length_y, options.height),
      {.backend = "cpu"}, handoff);
  problem.assemble();
  petsc::SolverSettings settings = petsc::SolverSettings::for_kind(petsc::SolverKind::elliptic);
  settings.relative_tolerance = 1e-12;
  petsc::LinearSolver solver(PETSC_COMM_SELF, "mms_", settings);
  const petsc::SolveResult result = problem.solve(solver);
  EXPECT_TRUE(result.converged);
  return problem.l2_error() / problem.l2_norm_of_exact();
}

TEST(PoissonConvergence, SecondOrderInL2OnTheMountainDomain) {
  const int cells[] = {8, 16, 32};
  double errors[3];
  for (int level = 0; level < 3; ++level) errors[level] = relative_l2_error(cells[level]);
  const double order_coarse = std::log2(errors[0] / errors[1]);
  const double order_fine = std::log2(errors[1] / errors[2]);
  std::printf("relative L2 errors %.4e %.4e %.4e, observed orders %.3f %.3f\n", errors[0],
              errors[1], errors[2], order_coarse, order_fine);
  EXPECT_GT(order_fine, 1.85);
  EXPECT_GT(order_coarse, 1.6);
  EXPECT_LT(errors[2], 1e-2);
}

TEST(PoissonConvergence, CooHandoffGivesTheSameErrorAsTheArrayPath) {
  petsc::MatrixHandoffOptions coo;
  coo.path = petsc::HandoffPath::coo;
  EXPECT_NEAR(relative_l2_error(8, coo), relative_l2_error(8), 1e-12);
}

}  // namespace
}  // namespace foehn::examples
