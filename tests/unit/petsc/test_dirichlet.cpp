// Dirichlet conditions on a handed-off system: the symmetric variant keeps A symmetric, and
// P1 elements reproduce a linear solution exactly (patch test) through the whole path:
// assemble -> hand off -> constrain -> solve.
#include <gtest/gtest.h>
#include <petscksp.h>

#include <cmath>

#include "foehn/fe/cpu_assembler.hpp"
#include "foehn/petsc/dirichlet.hpp"
#include "foehn/petsc/matrix_handoff.hpp"
#include "foehn/petsc/vector_handoff.hpp"
#include "support/error_category.hpp"
#include "unit/fe/assembly_test_mesh.hpp"

namespace foehn::petsc {
namespace {

using fe::testing::nodal;

double linear_field(const Point3& x) {
  return 2.0 + 3e-4 * x[0] - 1e-4 * x[1] + 5e-4 * x[2];
}

// Solves the diffusion problem with Dirichlet data g = linear_field on the whole boundary
// and returns max |u - g| over the nodes.
double patch_test_error(DirichletSymmetry symmetry, bool* stayed_symmetric) {
  const TetMesh mesh = fe::testing::small_mountain_mesh(5);
  const auto n = static_cast<std::int32_t>(mesh.node_count());
  fe::CpuAssembler assembler(mesh);
  auto k = assembler.create_matrix<fe::DiffusionOperator>();
  std::vector<double> rhs(n, 0.0);
  // An anisotropic constant tensor: a linear field is still an exact solution with f = 0.
  const auto kappa = nodal(mesh, 9, [](const Point3&, double* t) {
    const double m[9] = {2.0, 0.3, 0.1, 0.3, 1.0, 0.2, 0.1, 0.2, 0.5};
    std::copy(m, m + 9, t);
  });
  fe::DiffusionOperator op;
  op.tensor = fe::field_ref(kappa);
  assembler.assemble(op, k, rhs);

  const NodeNumbering numbering = serial_numbering(PETSC_COMM_SELF, n);
  PetscMatrix a(numbering, k.pattern, 1, 1);
  a.set_values(k);
  PetscVector b(numbering, 1), values(numbering, 1), x(numbering, 1);
  b.set_values(rhs);
  values.set_values(nodal(mesh, 1, [](const Point3& p, double* g) { g[0] = linear_field(p); }));

  std::vector<std::int32_t> boundary;
  const auto interior = fe::testing::interior_nodes(mesh);
  for (std::int32_t node = 0; node < n; ++node)
    if (!interior[node]) boundary.push_back(node);
  const int component[] = {0};
  const auto rows = owned_dirichlet_rows(numbering, boundary, 1, component);
  DirichletOptions options;
  options.symmetry = symmetry;
  apply_dirichlet(a.mat(), rows, values.vec(), b.vec(), options);

  // Element matrices are symmetric up to round-off (a_ij and a_ji are computed separately).
  PetscReal largest = 0;
  EXPECT_EQ(MatNorm(a.mat(), NORM_MAX, &largest), 0);
  PetscBool symmetric = PETSC_FALSE;
  EXPECT_EQ(MatIsSymmetric(a.mat(), 1e-13 * largest, &symmetric), 0);
  *stayed_symmetric = symmetric == PETSC_TRUE;

  KSP ksp = nullptr;
  EXPECT_EQ(KSPCreate(PETSC_COMM_SELF, &ksp), 0);
  EXPECT_EQ(KSPSetOperators(ksp, a.mat(), a.mat()), 0);
  EXPECT_EQ(KSPSetType(ksp, KSPPREONLY), 0);
  PC pc = nullptr;
  EXPECT_EQ(KSPGetPC(ksp, &pc), 0);
  EXPECT_EQ(PCSetType(pc, PCLU), 0);
  EXPECT_EQ(KSPSolve(ksp, b.vec(), x.vec()), 0);
  KSPDestroy(&ksp);
  std::vector<double> u(n);
  x.get_owned_values(u);
  double worst = 0;
  for (std::int32_t node = 0; node < n; ++node)
    worst = std::max(worst, std::abs(u[node] - linear_field(mesh.nodes[node])));
  return worst;
}

TEST(Dirichlet, SymmetricVariantKeepsSymmetryAndPassesThePatchTest) {
  bool symmetric = false;
  EXPECT_LE(patch_test_error(DirichletSymmetry::symmetric, &symmetric), 1e-10);
  EXPECT_TRUE(symmetric);
}

TEST(Dirichlet, RowsOnlyVariantPassesThePatchTest) {
  bool symmetric = true;
  EXPECT_LE(patch_test_error(DirichletSymmetry::rows_only, &symmetric), 1e-10);
  EXPECT_FALSE(symmetric) << "rows-only elimination leaves the columns in place";
}

TEST(Dirichlet, RowsOfOwnedNodesOnlyAndRangeChecks) {
  NodeNumbering numbering = serial_numbering(PETSC_COMM_SELF, 4);
  numbering.owned_nodes = 2;  // pretend nodes 2, 3 are ghosts
  const std::int32_t nodes[] = {0, 3, 1};
  const int components[] = {0, 2};
  const auto rows = owned_dirichlet_rows(numbering, nodes, 3, components);
  EXPECT_EQ(rows, (std::vector<PetscInt>{0, 2, 3, 5}));
  const std::int32_t outside[] = {4};
  using foehn::testing::category_of;
  EXPECT_EQ(category_of([&] { owned_dirichlet_rows(numbering, outside, 3, components); }),
            ErrorCategory::invalid_input);
  const int bad_component[] = {3};
  EXPECT_EQ(category_of([&] { owned_dirichlet_rows(numbering, nodes, 3, bad_component); }),
            ErrorCategory::invalid_input);
}

}  // namespace
}  // namespace foehn::petsc
