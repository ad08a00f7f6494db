// petsc::System, the library's path from an operator to a solve, on every placement this machine
// has (one test source): the CPU backend; the CUDA backend with host solves and with device
// solves where a GPU (and a CUDA PETSc) exists. P1 elements reproduce a linear function exactly,
// so a Laplace problem whose Dirichlet values are linear must return them at every node: an
// independent reference for the whole chain (assembly, Dirichlet rows from fe::Constraints,
// hand-off, KSP with its prefix). Misuse is an Error naming the system.
#include <gtest/gtest.h>
#include <petscvec.h>

#include <cmath>
#include <ostream>
#include <string>
#include <vector>

#include "foehn/fe/operators.hpp"
#include "foehn/mesh/mountain.hpp"
#include "foehn/petsc/device_petsc.hpp"
#include "foehn/petsc/distributed_mesh.hpp"
#include "foehn/petsc/node_exchange.hpp"
#include "foehn/petsc/petsc_check.hpp"
#include "foehn/petsc/system.hpp"
#include "foehn/runtime/cuda_call_counts.hpp"
#include "foehn/runtime/device.hpp"
#include "foehn/runtime/error.hpp"
#include "support/error_category.hpp"
#include "support/small_mountain.hpp"
#include "system_placements.hpp"

namespace foehn::petsc {
namespace {

double linear(const Point3& x) {
  return 1.0 + 2e-4 * x[0] - 3e-4 * x[1] + 5e-4 * x[2];
}

class SystemTest : public SystemPlacementTest {};

TEST_P(SystemTest, LaplaceWithLinearDirichletValuesReturnsThemExactly) {
  const PlacementCase& c = GetParam();
  SystemAssembler assembler(mesh_, c.backend, fe::default_assembly_strategy, c.device_solves);
  EXPECT_EQ(assembler.fields().on_device(), c.device_solves);
  EXPECT_EQ(assembler.values().on_device(), c.backend == Backend::cuda);
  const NodeNumbering numbering = distributed_numbering(mesh_);
  // Dirichlet rows without their columns leave K non-symmetric: GMRES.
  SolverSettings settings =
      SolverSettings::for_kind(SolverKind::advection_diffusion, c.device_solves);
  settings.relative_tolerance = 1e-13;
  System laplace(assembler, numbering,
                 SystemSpec{"laplace", "system_test_", 1, 1, false, settings, std::nullopt});
  EXPECT_EQ(laplace.name(), "laplace");
  EXPECT_EQ(laplace.solver().prefix(), "system_test_");

  const TetMesh& local = mesh_.local;
  std::vector<std::uint8_t> boundary(local.node_count(), 0);
  for (const Triangle& face : local.boundary_faces)
    for (const std::int32_t node : face) boundary[static_cast<std::size_t>(node)] = 1;
  laplace.constrain(boundary, fe::ConstraintSymmetry::rows_only, 2.5);
  laplace.assemble(fe::DiffusionOperator{});
  laplace.assemble(fe::DiffusionOperator{});  // a second assembly replaces, not adds

  NodeExchange exchange(mesh_, 1, c.device_solves);
  UniqueVec b = exchange.create_vector(), g = exchange.create_vector(),
            x = exchange.create_vector();
  std::vector<double> exact(local.node_count());
  for (std::size_t n = 0; n < exact.size(); ++n) exact[n] = linear(local.nodes[n]);
  exchange.local_to_global(exact, g.get(), ExchangeMode::insert);
  FOEHN_PETSC_CHECK(VecSet(b.get(), 0.0));
  laplace.constrain_rhs(b.get(), g.get());
  const SolveResult result = laplace.solve(b.get(), x.get());
  EXPECT_TRUE(result.converged) << result.reason;

  std::vector<double> solution(local.node_count());
  exchange.global_to_local(x.get(), solution);
  double worst = 0;
  for (std::size_t n = 0; n < solution.size(); ++n)
    worst = std::max(worst, std::abs(solution[n] - exact[n]));
  EXPECT_LT(worst, 1e-9) << "P1 reproduces a linear function exactly";

  const SystemTimes& times = laplace.times();
  EXPECT_EQ(times.assemblies, 2);
  EXPECT_EQ(times.solves, 1);
  EXPECT_EQ(times.iterations, result.iterations);
  EXPECT_GT(times.iterations, 0);
  laplace.reset_times();
  EXPECT_EQ(laplace.times().assemblies, 0);
}

TEST_P(SystemTest, MisuseIsAnErrorNamingTheSystem) {
  const PlacementCase& c = GetParam();
  SystemAssembler assembler(mesh_, c.backend, fe::default_assembly_strategy, c.device_solves);
  const NodeNumbering numbering = distributed_numbering(mesh_);
  System divergence(assembler, numbering,
                    SystemSpec{"divergence", "", 1, 3, false, std::nullopt, std::nullopt});
  EXPECT_FALSE(divergence.has_solver());
  EXPECT_EQ(testing::category_of([&] { divergence.solver(); }), ErrorCategory::invalid_input);
  std::vector<std::uint8_t> none(mesh_.local.node_count(), 0);
  try {
    divergence.constrain(none, fe::ConstraintSymmetry::rows_only, 1.0);
    FAIL() << "Dirichlet rows on 1 x 3 blocks were accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("'divergence'"), std::string::npos) << e.what();
  }
  EXPECT_EQ(testing::category_of([&] { divergence.constraints(); }), ErrorCategory::invalid_input);
  EXPECT_EQ(testing::category_of([&] { divergence.constrain_rhs(nullptr, nullptr); }),
            ErrorCategory::invalid_input);
  divergence.assemble(fe::DivergenceOperator{});  // an applied operator assembles all the same
  EXPECT_EQ(divergence.times().assemblies, 1);
}

// The core's projection solve: a fixed number of Chebyshev iterations on [1/2, 5/2], the
// spectrum of a Jacobi-scaled P1 mass matrix, reaches the solution of M x = M exact on a graded
// tet mesh, with the reason CONVERGED_ITS, and on the GPU waits for the device at most once.
TEST_P(SystemTest, FixedChebyshevSolvesTheMassMatrixWithoutInnerProducts) {
  const PlacementCase& c = GetParam();
  SystemAssembler assembler(mesh_, c.backend, fe::default_assembly_strategy, c.device_solves);
  const NodeNumbering numbering = distributed_numbering(mesh_);
  SolverSettings settings = SolverSettings::for_kind(SolverKind::elliptic, c.device_solves);
  settings.preconditioner = PCJACOBI;
  settings.jacobi_fix_zero_diagonal = false;
  settings.fixed_chebyshev = SolverSettings::FixedChebyshev{0.5, 2.5, 25};
  System mass(assembler, numbering,
              SystemSpec{"mass", "chebyshev_test_", 1, 1, false, settings, std::nullopt});
  mass.assemble(fe::MassOperator{});

  NodeExchange exchange(mesh_, 1, c.device_solves);
  UniqueVec exact = exchange.create_vector(), b = exchange.create_vector(),
            x = exchange.create_vector();
  std::vector<double> values(mesh_.local.node_count());
  for (std::size_t n = 0; n < values.size(); ++n) values[n] = 1.0 + std::sin(0.37 * n);
  exchange.local_to_global(values, exact.get(), ExchangeMode::insert);
  FOEHN_PETSC_CHECK(MatMult(mass.mat(), exact.get(), b.get()));
  FOEHN_PETSC_CHECK(VecSet(x.get(), 0.0));
  std::string why_not;
  const bool counting = c.device_solves && start_counting_cuda_calls(why_not);
  const CudaCallCounts before = cuda_call_counts();
  const SolveResult result = mass.solve(b.get(), x.get());
  const CudaCallCounts used = cuda_call_counts() - before;
  EXPECT_EQ(result.reason, "CONVERGED_ITS");
  EXPECT_EQ(result.iterations, 25);
  if (counting) {
    EXPECT_LE(used.host_synchronizations, 1);
  }

  FOEHN_PETSC_CHECK(VecAXPY(x.get(), -1.0, exact.get()));
  PetscReal error = 0, norm = 0;
  FOEHN_PETSC_CHECK(VecNorm(x.get(), NORM_2, &error));
  FOEHN_PETSC_CHECK(VecNorm(exact.get(), NORM_2, &norm));
  EXPECT_LT(error / norm, 1e-8) << "a spectrum outside [1/2, 5/2] would not converge";

  // Loosened to 1e-5 (the Picard iterations before the last): 2 (0.382)^13 <= 1e-5.
  FOEHN_PETSC_CHECK(VecSet(x.get(), 0.0));
  EXPECT_EQ(mass.solve(b.get(), x.get(), 1e-5).iterations, 13);
  FOEHN_PETSC_CHECK(VecAXPY(x.get(), -1.0, exact.get()));
  FOEHN_PETSC_CHECK(VecNorm(x.get(), NORM_2, &error));
  EXPECT_LT(error / norm, 1e-4);
  EXPECT_GT(error / norm, 1e-8);
}

// CG + GAMG on a symmetric Laplacian (the pressure's solver) converges on every placement. On
// the GPU each iteration waits for the host only for CG's three reductions: the coarse LU, in
// its natural ordering there, needs no Thrust permutation (which waited twice per iteration);
// single-reduction CG waits less still.
TEST_P(SystemTest, GamgCgWaitsForTheGpuOnlyForItsReductions) {
  const PlacementCase& c = GetParam();
  SystemAssembler assembler(mesh_, c.backend, fe::default_assembly_strategy, c.device_solves);
  const NodeNumbering numbering = distributed_numbering(mesh_);
  const TetMesh& local = mesh_.local;
  std::vector<std::uint8_t> boundary(local.node_count(), 0);
  for (const Triangle& face : local.boundary_faces)
    for (const std::int32_t node : face) boundary[static_cast<std::size_t>(node)] = 1;
  NodeExchange exchange(mesh_, 1, c.device_solves);
  UniqueVec b = exchange.create_vector(), x = exchange.create_vector();
  std::vector<double> ones(local.node_count(), 1.0);
  exchange.local_to_global(ones, b.get(), ExchangeMode::insert);
  std::string why_not;
  const bool counting = c.device_solves && start_counting_cuda_calls(why_not);
  std::int64_t waits[2] = {0, 0};
  for (const bool single : {false, true}) {
    SolverSettings settings = SolverSettings::for_kind(SolverKind::pressure, c.device_solves);
    settings.relative_tolerance = 1e-10;
    settings.cg_single_reduction = single;
    System poisson(assembler, numbering,
                   SystemSpec{"poisson", "gamg_waits_", 1, 1, false, settings, std::nullopt});
    poisson.constrain(boundary, fe::ConstraintSymmetry::symmetric, 1.0);
    poisson.assemble(fe::DiffusionOperator{});
    for (int solve = 0; solve < 2; ++solve) {  // the first also builds the hierarchy
      FOEHN_PETSC_CHECK(VecSet(x.get(), 0.0));
      const CudaCallCounts before = cuda_call_counts();
      const SolveResult result = poisson.solve(b.get(), x.get());
      const CudaCallCounts used = cuda_call_counts() - before;
      EXPECT_TRUE(result.converged) << result.reason;
      EXPECT_GT(result.iterations, 1);
      if (counting && solve == 1) {
        EXPECT_LE(used.host_synchronizations, 3 * result.iterations + 6)
            << result.iterations << " iterations";
        waits[single ? 1 : 0] = used.host_synchronizations;
      }
    }
  }
  if (counting) {
    EXPECT_LT(waits[1], waits[0]);
  }
}

INSTANTIATE_TEST_SUITE_P(Placements, SystemTest, every_system_placement(), placement_name);

}  // namespace
}  // namespace foehn::petsc
