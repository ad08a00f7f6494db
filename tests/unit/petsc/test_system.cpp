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

INSTANTIATE_TEST_SUITE_P(Placements, SystemTest, every_system_placement(), placement_name);

}  // namespace
}  // namespace foehn::petsc
