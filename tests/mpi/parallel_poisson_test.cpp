// mpiexec -n 1, 2, 4 against the serial run: the distributed assembly handed to PETSc through
// MatSetValuesCOO gives the same matrices (diffusion, 3x3 momentum, 1x3 divergence) and right-
// hand side as one process assembling the whole mesh, and the manufactured Poisson problem
// gives the same solution. The serial reference runs on rank 0 inside the same test.
#include <gtest/gtest.h>
#include <petscmat.h>

#include <cmath>

#include "foehn/fe/cpu_assembler.hpp"
#include "foehn/mesh/mountain.hpp"
#include "foehn/petsc/matrix_handoff.hpp"
#include "foehn/petsc/node_exchange.hpp"
#include "manufactured_poisson.hpp"

namespace foehn::petsc {
namespace {

using examples::ManufacturedSolution;
using examples::PoissonProblem;

MountainMeshOptions mesh_options() {
  MountainMeshOptions options;
  options.cells_x = 10;
  options.cells_y = 8;
  options.cells_z = 6;
  return options;
}

int rank_of(MPI_Comm comm) {
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  return rank;
}

TetMesh input_on_rank0(MPI_Comm comm) {
  TetMesh whole;
  if (rank_of(comm) == 0) {
    whole = generate_mountain_mesh(mesh_options());
    examples::mark_boundary_nodes(whole);
  }
  return whole;
}

// Global (PETSc) number of every input node, on rank 0.
std::vector<std::int64_t> global_of_input(const DistributedMesh& mesh) {
  std::vector<double> owned(static_cast<std::size_t>(mesh.owned_nodes));
  for (std::int32_t n = 0; n < mesh.owned_nodes; ++n)
    owned[static_cast<std::size_t>(n)] = static_cast<double>(mesh.global_of_local[n]);
  const std::vector<double> gathered = gather_to_input_numbering(mesh, owned, 1);
  return std::vector<std::int64_t>(gathered.begin(), gathered.end());
}

template <class Op>
void expect_same_matrix_as_serial(const DistributedMesh& mesh, const TetMesh& whole, const Op& op,
                                  const char* name) {
  // Distributed: every rank its own elements, ghost rows summed by PETSc.
  fe::CpuAssembler local(mesh.local);
  fe::BlockCsrMatrix local_values = local.create_matrix<Op>();
  local.assemble(op, local_values);
  PetscMatrix distributed(distributed_numbering(mesh), local.pattern(), Op::block_rows,
                          Op::block_cols);
  distributed.set_values(local_values);

  // Serial: rank 0 assembles the whole mesh and hands every entry in, in the same global
  // numbering; the other ranks hand in nothing.
  const std::vector<std::int64_t> global = global_of_input(mesh);
  NodeNumbering reference = distributed_numbering(mesh);
  std::shared_ptr<const fe::CsrPattern> pattern =
      std::make_shared<fe::CsrPattern>(fe::CsrPattern{0, 0, {0}, {}});
  fe::BlockCsrMatrix serial_values(pattern, Op::block_rows, Op::block_cols);
  if (mesh.rank == 0) {
    fe::CpuAssembler serial(whole);
    serial_values = serial.create_matrix<Op>();
    serial.assemble(op, serial_values);
    pattern = serial.pattern();
  }
  reference.local_nodes = pattern->rows;
  reference.global_of_local = global;
  MatrixHandoffOptions coo;
  coo.path = HandoffPath::coo;
  if (mesh.size == 1) reference.global_of_local = {};
  PetscMatrix serial_matrix(reference, pattern, Op::block_rows, Op::block_cols, coo);
  serial_matrix.set_values(serial_values.values);

  PetscReal norm = 0, difference = 0;
  ASSERT_EQ(MatNorm(serial_matrix.mat(), NORM_FROBENIUS, &norm), 0);
  ASSERT_EQ(MatAXPY(serial_matrix.mat(), -1.0, distributed.mat(), DIFFERENT_NONZERO_PATTERN), 0);
  ASSERT_EQ(MatNorm(serial_matrix.mat(), NORM_FROBENIUS, &difference), 0);
  EXPECT_GT(norm, 0.0) << name;
  EXPECT_LE(difference, 1e-13 * norm) << name << " on " << mesh.size << " ranks";
}

TEST(ParallelAssembly, MatricesEqualTheSerialAssembly) {
  const TetMesh whole = input_on_rank0(PETSC_COMM_WORLD);
  const DistributedMesh mesh =
      distribute_mesh(PETSC_COMM_WORLD, rank_of(PETSC_COMM_WORLD) == 0 ? &whole : nullptr);
  // Operators without nodal fields (their coefficients are constants), so the same operator
  // object serves the local and the whole mesh.
  {
    fe::DiffusionOperator op;
    op.scale = 2.5;
    expect_same_matrix_as_serial(mesh, whole, op, "diffusion");
  }
  expect_same_matrix_as_serial(mesh, whole, fe::DivergenceOperator{}, "divergence");
  {
    fe::MomentumOperator op;
    op.density_over_dt = 3.0;
    op.viscosity = 0.7;
    expect_same_matrix_as_serial(mesh, whole, op, "momentum");
  }
}

TEST(ParallelPoisson, SolutionEqualsTheSerialSolution) {
  MPI_Comm world = PETSC_COMM_WORLD;
  TetMesh whole = input_on_rank0(world);
  const DistributedMesh mesh = distribute_mesh(world, rank_of(world) == 0 ? &whole : nullptr);
  const MountainMeshOptions o = mesh_options();
  const auto exact = ManufacturedSolution::for_box(o.length_x, o.length_y, o.height);

  SolverSettings settings = SolverSettings::for_kind(SolverKind::elliptic);
  settings.relative_tolerance = 1e-14;
  settings.max_iterations = 2000;
  PoissonProblem parallel(mesh, exact, {.backend = "cpu"});
  parallel.assemble();
  parallel.assemble();  // values refreshed in place: Dirichlet rows zeroed again, not removed
  LinearSolver solver(world, "parallel_", settings);
  EXPECT_TRUE(parallel.solve(solver).converged);
  const std::vector<double> u = gather_to_input_numbering(mesh, parallel.solution(), 1);
  const double error = parallel.l2_error();

  if (mesh.rank == 0) {
    const DistributedMesh serial_mesh = distribute_mesh(PETSC_COMM_SELF, &whole);
    PoissonProblem serial(serial_mesh, exact, {.backend = "cpu"});
    serial.assemble();
    LinearSolver serial_solver(PETSC_COMM_SELF, "serial_", settings);
    EXPECT_TRUE(serial.solve(serial_solver).converged);
    const std::vector<double> reference = serial.local_solution();
    ASSERT_EQ(u.size(), reference.size());
    double worst = 0, scale = 0;
    for (std::size_t n = 0; n < u.size(); ++n) {
      worst = std::max(worst, std::abs(u[n] - reference[n]));
      scale = std::max(scale, std::abs(reference[n]));
    }
    EXPECT_LE(worst, 1e-10 * scale) << "on " << mesh.size << " ranks";
    EXPECT_NEAR(error, serial.l2_error(), 1e-10 * serial.l2_norm_of_exact());
  }
}

// Ranks holding rows of GAMG's first coarse operator after a solve of the Poisson problem with
// `settings` (a user's -<prefix>pc_gamg_process_eq_limit applies when `user_limit` is given).
int ranks_holding_the_first_coarse_level(const char* prefix, int settings_limit,
                                         const char* user_limit) {
  MPI_Comm world = PETSC_COMM_WORLD;
  TetMesh whole = input_on_rank0(world);
  const DistributedMesh mesh = distribute_mesh(world, rank_of(world) == 0 ? &whole : nullptr);
  const MountainMeshOptions o = mesh_options();
  const std::string option = std::string("-") + prefix + "pc_gamg_process_eq_limit";
  if (user_limit) {
    EXPECT_EQ(PetscOptionsSetValue(nullptr, option.c_str(), user_limit), 0);
  }
  // A small mesh: coarsen further than PETSc's default so that the first coarse level is not
  // the coarsest (which always goes to one rank).
  const std::string coarse_limit = std::string("-") + prefix + "pc_gamg_coarse_eq_limit";
  EXPECT_EQ(PetscOptionsSetValue(nullptr, coarse_limit.c_str(), "8"), 0);
  SolverSettings settings = SolverSettings::for_kind(SolverKind::elliptic);
  settings.preconditioner = PCGAMG;  // Debian's PETSc would pick BoomerAMG
  settings.gamg_process_eq_limit = settings_limit;
  PoissonProblem problem(mesh, ManufacturedSolution::for_box(o.length_x, o.length_y, o.height),
                         {.backend = "cpu"});
  problem.assemble();
  LinearSolver solver(world, prefix, settings);
  EXPECT_TRUE(problem.solve(solver).converged);
  PetscOptionsClearValue(nullptr, option.c_str());
  PetscOptionsClearValue(nullptr, coarse_limit.c_str());
  PC pc = nullptr;
  PetscInt levels = 0;
  EXPECT_EQ(KSPGetPC(solver.ksp(), &pc), 0);
  EXPECT_EQ(PCMGGetLevels(pc, &levels), 0);
  EXPECT_GE(levels, 3) << "the first coarse level must not be the coarsest";
  if (levels < 3) return 0;
  KSP coarse_smoother = nullptr;
  Mat coarse = nullptr;
  EXPECT_EQ(PCMGGetSmoother(pc, levels - 2, &coarse_smoother), 0);
  EXPECT_EQ(KSPGetOperators(coarse_smoother, &coarse, nullptr), 0);
  PetscInt rows = 0, columns = 0;
  EXPECT_EQ(MatGetLocalSize(coarse, &rows, &columns), 0);
  int holding = rows > 0 ? 1 : 0, total = 0;
  MPI_Allreduce(&holding, &total, 1, MPI_INT, MPI_SUM, world);
  return total;
}

TEST(ParallelPoisson, GamgCoarseLevelsGoToOneRankPastTheEquationLimit) {
  int ranks = 1;
  MPI_Comm_size(PETSC_COMM_WORLD, &ranks);
  EXPECT_EQ(ranks_holding_the_first_coarse_level("eq_limit_", 1000000, nullptr), 1);
  // One equation a rank is never reached: the coarse level stays on every rank, and the
  // user's option wins over the code's setting.
  EXPECT_EQ(ranks_holding_the_first_coarse_level("eq_user_", 1000000, "1"), ranks);
}

}  // namespace
}  // namespace foehn::petsc
