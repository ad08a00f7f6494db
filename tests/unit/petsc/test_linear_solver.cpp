// LinearSolver on one rank: every kind solves its kind of system to its tolerance against a
// known solution, the defaults are those of docs/solvers.md, options prefixes reach only their
// own solver, the preconditioner rebuild interval really skips factorisations, and a solve
// that does not converge throws an error naming the prefix.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "foehn/petsc/linear_solver.hpp"
#include "foehn/runtime/error.hpp"
#include "solver_test_support.hpp"
#include "support/temp_dir.hpp"

namespace foehn::petsc {
namespace {

using test::convection_diffusion;
using test::laplacian_7pt;
using test::OwnedMat;
using test::relative_error;
using test::ScopedOption;
using test::system_for;

struct KindDefaults {
  SolverKind kind;
  const char* ksp_type;
  const char* pc_type;
  bool nonzero_guess;
};

TEST(LinearSolverDefaults, EachKindHasTheDocumentedTypesAndTolerances) {
  const std::vector<KindDefaults> table = {
      {SolverKind::elliptic, KSPCG, PCGAMG, false},
      {SolverKind::pressure, KSPCG, PCGAMG, true},
      {SolverKind::advection_diffusion, KSPGMRES, PCBJACOBI, false},
      {SolverKind::momentum, KSPGMRES, PCBJACOBI, false},
      {SolverKind::direct, KSPPREONLY, PCLU, false},
  };
  for (const KindDefaults& expected : table) {
    SCOPED_TRACE(std::string(to_string(expected.kind)));
    LinearSolver solver(PETSC_COMM_SELF, "defaults_", expected.kind);
    EXPECT_EQ(test::type_of(solver.ksp()), expected.ksp_type);
    EXPECT_EQ(test::pc_type_of(solver.ksp()), expected.pc_type);
    PetscReal rtol = 0, atol = 0, dtol = 0;
    PetscInt max_it = 0;
    KSPGetTolerances(solver.ksp(), &rtol, &atol, &dtol, &max_it);
    EXPECT_DOUBLE_EQ(rtol, 1e-8);
    EXPECT_DOUBLE_EQ(atol, 1e-50);
    EXPECT_EQ(max_it, 1000);
    PetscBool nonzero = PETSC_FALSE;
    KSPGetInitialGuessNonzero(solver.ksp(), &nonzero);
    EXPECT_EQ(nonzero == PETSC_TRUE, expected.nonzero_guess);
    EXPECT_EQ(solver.pc_rebuild_interval(), 1);
    EXPECT_FALSE(solver.allows_not_converged());
    EXPECT_EQ(solver.kind(), expected.kind);
  }
}

TEST(LinearSolverDefaults, BlockJacobiBlocksArePreonlyIlu) {
  OwnedMat a = convection_diffusion(6);
  auto system = system_for(a);
  LinearSolver solver(PETSC_COMM_SELF, "blocks_", SolverKind::advection_diffusion);
  solver.set_operator(a);
  solver.solve(system.rhs, system.x);
  PC pc = nullptr;
  KSPGetPC(solver.ksp(), &pc);
  PetscInt blocks = 0;
  KSP* sub = nullptr;
  ASSERT_EQ(PCBJacobiGetSubKSP(pc, &blocks, nullptr, &sub), 0);
  ASSERT_EQ(blocks, 1);  // one block per rank
  EXPECT_EQ(test::type_of(sub[0]), KSPPREONLY);
  EXPECT_EQ(test::pc_type_of(sub[0]), PCILU);
  EXPECT_NE(solver.description().find("gmres + bjacobi (blocks: preonly + ilu)"), std::string::npos)
      << solver.description();
}

TEST(LinearSolverKinds, EllipticSolvesTheLaplacianToItsTolerance) {
  OwnedMat a = laplacian_7pt(20);
  auto system = system_for(a);
  LinearSolver solver(PETSC_COMM_SELF, "elliptic_", SolverKind::elliptic);
  solver.set_operator(a);
  const SolveResult result = solver.solve(system.rhs, system.x);
  EXPECT_TRUE(result.converged);
  EXPECT_EQ(result.reason, "CONVERGED_RTOL");
  EXPECT_GT(result.iterations, 0);
  EXPECT_LT(result.iterations, 100);  // AMG: a handful, not hundreds
  EXPECT_TRUE(result.preconditioner_rebuilt);
  EXPECT_GE(result.setup_seconds, 0.0);
  EXPECT_GT(result.solve_seconds, 0.0);
  // rtol 1e-8 on a matrix of condition ~ 200: the error is far below 1e-5.
  EXPECT_LT(relative_error(system.x, system.exact), 1e-5);
}

TEST(LinearSolverKinds, PressureWithHypreBoomerAmgFromTheCommandLine) {
#if defined(PETSC_HAVE_HYPRE)
  ScopedOption pc_type("-hypre_test_pc_type", "hypre");
  OwnedMat a = laplacian_7pt(16);
  auto system = system_for(a);
  LinearSolver solver(PETSC_COMM_SELF, "hypre_test_", SolverKind::pressure);
  EXPECT_EQ(test::pc_type_of(solver.ksp()), PCHYPRE);
  EXPECT_EQ(test::type_of(solver.ksp()), KSPCG);
  solver.set_operator(a);
  const SolveResult result = solver.solve(system.rhs, system.x);
  EXPECT_TRUE(result.converged);
  EXPECT_LT(relative_error(system.x, system.exact), 1e-5);
#else
  GTEST_SKIP() << "PETSc built without hypre";
#endif
}

TEST(LinearSolverKinds, AdvectionDiffusionSolvesTheNonSymmetricOperator) {
  OwnedMat a = convection_diffusion(16);
  auto system = system_for(a);
  LinearSolver solver(PETSC_COMM_SELF, "theta_", SolverKind::advection_diffusion);
  solver.set_operator(a);
  const SolveResult result = solver.solve(system.rhs, system.x);
  EXPECT_TRUE(result.converged) << result.reason;
  EXPECT_LT(relative_error(system.x, system.exact), 1e-6);
}

TEST(LinearSolverKinds, MomentumSolvesTheBlockSystemAsBaijAndAsAij) {
  OwnedMat baij = test::block_system(10);
  OwnedMat aij = test::as_aij(baij);
  PetscInt block_size = 0;
  MatGetBlockSize(aij, &block_size);
  EXPECT_EQ(block_size, 3);
  for (Mat a : {baij.mat, aij.mat}) {
    MatType type = nullptr;
    MatGetType(a, &type);
    SCOPED_TRACE(type);
    auto system = system_for(a);
    LinearSolver solver(PETSC_COMM_SELF, "momentum_", SolverKind::momentum);
    solver.set_operator(a);
    const SolveResult result = solver.solve(system.rhs, system.x);
    EXPECT_TRUE(result.converged) << result.reason;
    EXPECT_LT(result.iterations, 100);
    EXPECT_LT(relative_error(system.x, system.exact), 1e-6);
  }
}

TEST(LinearSolverKinds, DirectSolvesToRoundOff) {
  OwnedMat baij = test::block_system(5);
  OwnedMat laplacian = laplacian_7pt(8);
  for (Mat a : {baij.mat, laplacian.mat}) {
    auto system = system_for(a);
    LinearSolver solver(PETSC_COMM_SELF, "direct_", SolverKind::direct);
    solver.set_operator(a);
    const SolveResult result = solver.solve(system.rhs, system.x);
    EXPECT_TRUE(result.converged) << result.reason;
    EXPECT_LT(relative_error(system.x, system.exact), 1e-12);
  }
}

// The acceptance test: -pressure_ksp_type changes only the pressure solve.
TEST(LinearSolverPrefixes, PressureOptionsReachOnlyThePressureSolver) {
  ScopedOption pressure_type("-pressure_ksp_type", "bcgs");
  ScopedOption theta_rtol("-theta_ksp_rtol", "1e-3");
  LinearSolver pressure(PETSC_COMM_SELF, "pressure_", SolverKind::pressure);
  LinearSolver theta(PETSC_COMM_SELF, "theta_", SolverKind::advection_diffusion);
  LinearSolver momentum(PETSC_COMM_SELF, "momentum_", SolverKind::momentum);
  EXPECT_EQ(test::type_of(pressure.ksp()), KSPBCGS);
  EXPECT_EQ(test::pc_type_of(pressure.ksp()), PCGAMG);  // untouched
  EXPECT_EQ(test::type_of(theta.ksp()), KSPGMRES);
  EXPECT_EQ(test::type_of(momentum.ksp()), KSPGMRES);

  PetscReal rtol = 0;
  KSPGetTolerances(theta.ksp(), &rtol, nullptr, nullptr, nullptr);
  EXPECT_DOUBLE_EQ(rtol, 1e-3);
  KSPGetTolerances(pressure.ksp(), &rtol, nullptr, nullptr, nullptr);
  EXPECT_DOUBLE_EQ(rtol, 1e-8);
  KSPGetTolerances(momentum.ksp(), &rtol, nullptr, nullptr, nullptr);
  EXPECT_DOUBLE_EQ(rtol, 1e-8);

  // The changed solver still solves, with its new type.
  OwnedMat a = laplacian_7pt(10);
  auto system = system_for(a);
  pressure.set_operator(a);
  EXPECT_TRUE(pressure.solve(system.rhs, system.x).converged);
  EXPECT_NE(pressure.description().find("pressure_: bcgs + gamg"), std::string::npos)
      << pressure.description();
}

// GAMG's edge-dropping threshold on the finest level as KSPView prints it, after a solve set
// GAMG up (-1 when the view has none).
double gamg_threshold_after_a_solve(LinearSolver& solver) {
  OwnedMat a = laplacian_7pt(8);
  auto system = system_for(a);
  solver.set_operator(a);
  EXPECT_TRUE(solver.solve(system.rhs, system.x).converged);
  char* text = nullptr;
  std::size_t length = 0;
  FILE* stream = open_memstream(&text, &length);  // PETSc's string viewer prints no details
  PetscViewer viewer = nullptr;
  EXPECT_EQ(PetscViewerASCIIOpenWithFILE(PETSC_COMM_SELF, stream, &viewer), 0);
  EXPECT_EQ(KSPView(solver.ksp(), viewer), 0);
  PetscViewerDestroy(&viewer);
  std::fclose(stream);
  const std::string view(text, length);
  std::free(text);
  const std::string key = "dropping small values in graph on each level =";
  const std::size_t at = view.find(key);
  return at == std::string::npos ? -1.0 : std::stod(view.substr(at + key.size()));
}

TEST(LinearSolverGamg, TheThresholdReachesAGamgChosenOnTheCommandLine) {
  ScopedOption pc_type("-thr_cli_pc_type", "gamg");
  SolverSettings settings = SolverSettings::for_kind(SolverKind::pressure);
  settings.preconditioner = PCJACOBI;  // the code's choice, overridden by the command line
  settings.gamg_threshold = 0.01;
  LinearSolver solver(PETSC_COMM_SELF, "thr_cli_", settings);
  EXPECT_DOUBLE_EQ(gamg_threshold_after_a_solve(solver), 0.01);
}

TEST(LinearSolverGamg, AnExplicitThresholdOptionWins) {
  ScopedOption threshold("-thr_opt_pc_gamg_threshold", "0.05");
  SolverSettings settings = SolverSettings::for_kind(SolverKind::pressure);
  settings.gamg_threshold = 0.01;
  LinearSolver solver(PETSC_COMM_SELF, "thr_opt_", settings);
  EXPECT_DOUBLE_EQ(gamg_threshold_after_a_solve(solver), 0.05);
}

// The product type of GAMG's first coarse operator after a solve on `prefix`: PtAP while PETSc
// keeps the product's intermediate data, unspecified once it was freed.
MatProductType coarse_operator_product(const char* prefix) {
  OwnedMat a = laplacian_7pt(20);
  auto system = system_for(a);
  SolverSettings settings = SolverSettings::for_kind(SolverKind::pressure);
  settings.preconditioner = PCGAMG;  // Debian's PETSc would pick BoomerAMG
  LinearSolver solver(PETSC_COMM_SELF, prefix, settings);
  solver.set_operator(a);
  EXPECT_TRUE(solver.solve(system.rhs, system.x).converged);
  PC pc = nullptr;
  PetscInt levels = 0;
  EXPECT_EQ(KSPGetPC(solver.ksp(), &pc), 0);
  EXPECT_EQ(PCMGGetLevels(pc, &levels), 0);
  EXPECT_GE(levels, 2) << "GAMG made no coarse level";
  KSP coarser = nullptr;
  Mat coarse = nullptr;
  EXPECT_EQ(PCMGGetSmoother(pc, levels - 2, &coarser), 0);
  EXPECT_EQ(KSPGetOperators(coarser, &coarse, nullptr), 0);
  MatProductType type = MATPRODUCT_UNSPECIFIED;
  EXPECT_EQ(MatProductGetType(coarse, &type), 0);
  return type;
}

TEST(LinearSolverGamg, GalerkinProductsFreeTheirBuffersOnlyWhileGamgIsBuilt) {
  EXPECT_EQ(coarse_operator_product("clear_"), MATPRODUCT_UNSPECIFIED);
  // Scoped to the set-up: nothing is left in the options database for other products.
  PetscBool left = PETSC_TRUE;
  ASSERT_EQ(PetscOptionsHasName(nullptr, nullptr, "-mat_product_clear", &left), 0);
  EXPECT_FALSE(left);
}

TEST(LinearSolverGamg, AUsersMatProductClearDecides) {
  const ScopedOption keep("-mat_product_clear", "0");
  EXPECT_EQ(coarse_operator_product("keep_"), MATPRODUCT_PtAP);
}

// What LinearSolver sets for one GAMG set-up: buffers freed unless GAMG reuses its
// interpolation; for an operator on the GPU, the Galerkin products on the host and the coarse
// LU in its natural ordering (for this solver's prefix); never an option the user gave, nothing
// for another preconditioner.
TEST(LinearSolverGamg, SetupPresetsFollowThePlacementAndTheUsersOptions) {
  using detail::gamg_setup_presets;
  using detail::OptionPreset;
  using Presets = std::vector<OptionPreset>;
  const auto none = [](const char*) { return false; };
  const OptionPreset clear{"-mat_product_clear"}, ptap{"-matptap_backend_cpu"},
      matmult{"-matmatmult_backend_cpu"},
      natural{"-p_mg_coarse_sub_pc_factor_mat_ordering_type", "natural"};
  EXPECT_EQ(gamg_setup_presets({false, true, false, "p_"}, none), Presets{});
  EXPECT_EQ(gamg_setup_presets({true, false, false, "p_"}, none), Presets{clear});
  EXPECT_EQ(gamg_setup_presets({true, false, true, "p_"}, none), Presets{});
  EXPECT_EQ(gamg_setup_presets({true, true, false, "p_"}, none),
            (Presets{clear, ptap, matmult, natural}));
  EXPECT_EQ(gamg_setup_presets({true, true, true, "p_"}, none), (Presets{ptap, matmult, natural}));
  const auto gave = [](const char* name) {
    return std::string(name) == "-matptap_backend_cpu" ||
           std::string(name) == "-p_mg_coarse_sub_pc_factor_mat_ordering_type";
  };
  EXPECT_EQ(gamg_setup_presets({true, true, false, "p_"}, gave), (Presets{clear, matmult}));
  // On several ranks the coarse solve is one Richardson iteration without a norm: preonly
  // reduces the PC's failure flag over the ranks in every V-cycle.
  const OptionPreset richardson{"-p_mg_coarse_ksp_type", "richardson"},
      once{"-p_mg_coarse_ksp_max_it", "1"}, no_norm{"-p_mg_coarse_ksp_norm_type", "none"};
  EXPECT_EQ(gamg_setup_presets({true, false, false, "p_", true}, none),
            (Presets{clear, richardson, once, no_norm}));
  EXPECT_EQ(gamg_setup_presets({false, false, false, "p_", true}, none), Presets{});
  const auto gave_type = [](const char* name) {
    return std::string(name) == "-p_mg_coarse_ksp_type";
  };
  EXPECT_EQ(gamg_setup_presets({true, false, false, "p_", true}, gave_type), Presets{clear});
}

TEST(LinearSolverGamg, ANanThresholdIsRejected) {
  SolverSettings settings = SolverSettings::for_kind(SolverKind::pressure);
  settings.gamg_threshold = std::nan("");
  EXPECT_THROW(LinearSolver(PETSC_COMM_SELF, "thr_nan_", settings), Error);
}

TEST(LinearSolverPrefixes, OptionsWithoutThePrefixDoNotApply) {
  ScopedOption unprefixed("-ksp_type", "richardson");
  LinearSolver pressure(PETSC_COMM_SELF, "pressure_", SolverKind::pressure);
  EXPECT_EQ(test::type_of(pressure.ksp()), KSPCG);
}

TEST(LinearSolverPrefixes, PrefixIsNormalised) {
  EXPECT_EQ(LinearSolver(PETSC_COMM_SELF, "-pressure", SolverKind::pressure).prefix(), "pressure_");
  EXPECT_EQ(LinearSolver(PETSC_COMM_SELF, "theta_", SolverKind::elliptic).prefix(), "theta_");
  EXPECT_EQ(LinearSolver(PETSC_COMM_SELF, "", SolverKind::elliptic).prefix(), "");
}

TEST(LinearSolverInitialGuess, PressureStartsFromTheGivenVector) {
  OwnedMat a = laplacian_7pt(10);
  auto system = system_for(a);
  LinearSolver pressure(PETSC_COMM_SELF, "pressure_", SolverKind::pressure);
  pressure.set_operator(a);
  VecCopy(system.exact, system.x);  // the "previous step" is already the answer
  const SolveResult result = pressure.solve(system.rhs, system.x);
  EXPECT_TRUE(result.converged);
  EXPECT_EQ(result.iterations, 0);
}

TEST(LinearSolverInitialGuess, ZeroGuessKindsIgnoreTheVectorContent) {
  OwnedMat a = laplacian_7pt(10);
  auto system = system_for(a);
  LinearSolver elliptic(PETSC_COMM_SELF, "elliptic_", SolverKind::elliptic);
  elliptic.set_operator(a);
  VecCopy(system.exact, system.x);
  EXPECT_GT(elliptic.solve(system.rhs, system.x).iterations, 0);
}

TEST(LinearSolverInitialGuess, CommandLineOverridesTheKindDefault) {
  ScopedOption off("-pressure_ksp_initial_guess_nonzero", "false");
  ScopedOption on("-elliptic_ksp_initial_guess_nonzero", "");
  LinearSolver pressure(PETSC_COMM_SELF, "pressure_", SolverKind::pressure);
  LinearSolver elliptic(PETSC_COMM_SELF, "elliptic_", SolverKind::elliptic);
  PetscBool nonzero = PETSC_TRUE;
  KSPGetInitialGuessNonzero(pressure.ksp(), &nonzero);
  EXPECT_FALSE(nonzero);
  KSPGetInitialGuessNonzero(elliptic.ksp(), &nonzero);
  EXPECT_TRUE(nonzero);
}

TEST(LinearSolverInitialGuess, DirectSolveChosenOnTheCommandLineDropsTheGuess) {
  ScopedOption type("-pressure_ksp_type", "preonly");
  ScopedOption pc("-pressure_pc_type", "lu");
  OwnedMat a = laplacian_7pt(6);
  auto system = system_for(a);
  LinearSolver pressure(PETSC_COMM_SELF, "pressure_", SolverKind::pressure);
  pressure.set_operator(a);
  VecSet(system.x, 3.0);
  EXPECT_TRUE(pressure.solve(system.rhs, system.x).converged);
  EXPECT_LT(relative_error(system.x, system.exact), 1e-12);
}

TEST(LinearSolverErrors, NonConvergenceThrowsNamingThePrefixReasonAndIterations) {
  OwnedMat a = laplacian_7pt(12);
  auto system = system_for(a);
  SolverSettings settings = SolverSettings::for_kind(SolverKind::elliptic);
  settings.max_iterations = 2;
  settings.relative_tolerance = 1e-14;
  LinearSolver solver(PETSC_COMM_SELF, "stubborn_", settings);
  solver.set_operator(a);
  try {
    solver.solve(system.rhs, system.x);
    FAIL() << "expected foehn::Error";
  } catch (const Error& error) {
    EXPECT_EQ(error.category(), ErrorCategory::petsc);
    const std::string message = error.what();
    EXPECT_NE(message.find("'stubborn_'"), std::string::npos) << message;
    EXPECT_NE(message.find("DIVERGED_ITS"), std::string::npos) << message;
    EXPECT_NE(message.find("after 2 iterations"), std::string::npos) << message;
    EXPECT_NE(message.find("residual norm"), std::string::npos) << message;
    EXPECT_NE(message.find("-stubborn_foehn_allow_not_converged"), std::string::npos) << message;
  }
  EXPECT_EQ(solver.statistics().solves, 1);
}

TEST(LinearSolverErrors, NonConvergenceIsReturnedWhenAllowedByOption) {
  ScopedOption allow("-stubborn_foehn_allow_not_converged", "");
  ScopedOption max_it("-stubborn_ksp_max_it", "2");
  ScopedOption rtol("-stubborn_ksp_rtol", "1e-14");
  OwnedMat a = laplacian_7pt(12);
  auto system = system_for(a);
  LinearSolver solver(PETSC_COMM_SELF, "stubborn_", SolverKind::elliptic);
  EXPECT_TRUE(solver.allows_not_converged());
  solver.set_operator(a);
  const SolveResult result = solver.solve(system.rhs, system.x);
  EXPECT_FALSE(result.converged);
  EXPECT_EQ(result.reason, "DIVERGED_ITS");
  EXPECT_EQ(result.reason_code, KSP_DIVERGED_ITS);
  EXPECT_EQ(result.iterations, 2);
  EXPECT_GT(result.residual_norm, 0.0);
}

TEST(LinearSolverErrors, PreconditionerFailureIsNamed) {
  // [[0, 1], [1, 0]] with the zeros stored: LU without pivoting meets a zero pivot at once.
  Mat swap = nullptr;
  ASSERT_EQ(MatCreateSeqAIJ(PETSC_COMM_SELF, 2, 2, 2, nullptr, &swap), 0);
  MatSetValue(swap, 0, 0, 0.0, INSERT_VALUES);
  MatSetValue(swap, 1, 1, 0.0, INSERT_VALUES);
  MatSetValue(swap, 0, 1, 1.0, INSERT_VALUES);
  MatSetValue(swap, 1, 0, 1.0, INSERT_VALUES);
  MatAssemblyBegin(swap, MAT_FINAL_ASSEMBLY);
  MatAssemblyEnd(swap, MAT_FINAL_ASSEMBLY);
  OwnedMat a(swap);
  auto system = system_for(a);
  ScopedOption natural("-zero_pivot_pc_factor_mat_ordering_type", "natural");
  LinearSolver solver(PETSC_COMM_SELF, "zero_pivot_", SolverKind::direct);
  solver.set_operator(a);
  try {
    solver.solve(system.rhs, system.x);
    FAIL() << "expected foehn::Error";
  } catch (const Error& error) {
    const std::string message = error.what();
    EXPECT_NE(message.find("DIVERGED_PC_FAILED"), std::string::npos) << message;
    EXPECT_NE(message.find("preconditioner failed: FACTOR_NUMERIC_ZEROPIVOT"), std::string::npos)
        << message;
  }
}

TEST(LinearSolverErrors, MisuseIsInvalidInput) {
  LinearSolver solver(PETSC_COMM_SELF, "misuse_", SolverKind::elliptic);
  OwnedMat a = laplacian_7pt(4);
  auto system = system_for(a);
  try {
    solver.solve(system.rhs, system.x);
    FAIL() << "solve before set_operator must throw";
  } catch (const Error& error) {
    EXPECT_EQ(error.category(), ErrorCategory::invalid_input);
    EXPECT_NE(std::string(error.what()).find("'misuse_'"), std::string::npos);
  }
  EXPECT_THROW(solver.set_operator(nullptr), Error);

  ScopedOption negative("-misuse_foehn_pc_rebuild_interval", "-2");
  try {
    LinearSolver bad(PETSC_COMM_SELF, "misuse_", SolverKind::elliptic);
    FAIL() << "a negative rebuild interval must throw";
  } catch (const Error& error) {
    EXPECT_EQ(error.category(), ErrorCategory::invalid_input);
    EXPECT_NE(std::string(error.what()).find("-misuse_foehn_pc_rebuild_interval"),
              std::string::npos);
  }
}

TEST(LinearSolverSettings, FixedChebyshevNeedsABoundedSpectrumAndIterations) {
  for (const SolverSettings::FixedChebyshev bad :
       {SolverSettings::FixedChebyshev{0.0, 2.5, 25}, SolverSettings::FixedChebyshev{2.5, 0.5, 25},
        SolverSettings::FixedChebyshev{0.5, INFINITY, 25},
        SolverSettings::FixedChebyshev{0.5, 2.5, 0}}) {
    SolverSettings settings = SolverSettings::for_kind(SolverKind::elliptic);
    settings.fixed_chebyshev = bad;
    try {
      LinearSolver solver(PETSC_COMM_SELF, "cheby_", settings);
      ADD_FAILURE() << "[" << bad.lower << ", " << bad.upper << "], " << bad.iterations;
    } catch (const Error& error) {
      EXPECT_EQ(error.category(), ErrorCategory::invalid_input);
      EXPECT_NE(std::string(error.what()).find("'cheby_'"), std::string::npos) << error.what();
    }
  }
  SolverSettings settings = SolverSettings::for_kind(SolverKind::elliptic);
  settings.fixed_chebyshev = SolverSettings::FixedChebyshev{0.5, 2.5, 12};
  LinearSolver solver(PETSC_COMM_SELF, "cheby_", settings);
  EXPECT_EQ(test::type_of(solver.ksp()), "chebyshev");
  KSPNormType norm = KSP_NORM_DEFAULT;
  FOEHN_PETSC_CHECK(KSPGetNormType(solver.ksp(), &norm));
  EXPECT_EQ(norm, KSP_NORM_NONE);
  PetscInt max_it = 0;
  FOEHN_PETSC_CHECK(KSPGetTolerances(solver.ksp(), nullptr, nullptr, nullptr, &max_it));
  EXPECT_EQ(max_it, 12);
  // The command line still decides.
  ScopedOption cg("-cheby2_ksp_type", "cg");
  LinearSolver overridden(PETSC_COMM_SELF, "cheby2_", settings);
  EXPECT_EQ(test::type_of(overridden.ksp()), "cg");
}

// KSPView's text of a solver (where PETSc keeps a setting without a getter).
std::string viewed(const LinearSolver& solver) {
  const foehn::testing::TempDir folder;
  const std::string file = (folder.path() / "ksp_view.txt").string();
  PetscViewer viewer = nullptr;
  EXPECT_EQ(PetscViewerASCIIOpen(PETSC_COMM_SELF, file.c_str(), &viewer), 0);
  EXPECT_EQ(KSPView(solver.ksp(), viewer), 0);
  EXPECT_EQ(PetscViewerDestroy(&viewer), 0);
  std::ifstream in(file);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

TEST(LinearSolverSettings, CgSingleReductionIsTheCodesChoiceUnlessTheCommandLineSaysOtherwise) {
  OwnedMat a = laplacian_7pt(8);
  auto system = system_for(a);
  SolverSettings settings = SolverSettings::for_kind(SolverKind::pressure);
  settings.cg_single_reduction = true;
  {
    LinearSolver solver(PETSC_COMM_SELF, "single_", settings);
    EXPECT_NE(viewed(solver).find("single-reduction"), std::string::npos) << viewed(solver);
    // The norm PETSc fuses into the one reduction (the preconditioned one adds a VecNorm).
    KSPNormType norm = KSP_NORM_DEFAULT;
    FOEHN_PETSC_CHECK(KSPGetNormType(solver.ksp(), &norm));
    EXPECT_EQ(norm, KSP_NORM_NATURAL);
    solver.set_operator(a);
    EXPECT_TRUE(solver.solve(system.rhs, system.x).converged);
    EXPECT_LT(relative_error(system.x, system.exact), 1e-5);
  }
  {
    ScopedOption preconditioned("-single_ksp_norm_type", "preconditioned");
    LinearSolver solver(PETSC_COMM_SELF, "single_", settings);
    KSPNormType norm = KSP_NORM_DEFAULT;
    FOEHN_PETSC_CHECK(KSPGetNormType(solver.ksp(), &norm));
    EXPECT_EQ(norm, KSP_NORM_PRECONDITIONED);
  }
  ScopedOption off("-single_ksp_cg_single_reduction", "false");
  LinearSolver solver(PETSC_COMM_SELF, "single_", settings);
  EXPECT_EQ(viewed(solver).find("single-reduction"), std::string::npos) << viewed(solver);
}

TEST(LinearSolverSettings, JacobisZeroDiagonalCheckIsOnUnlessTurnedOff) {
  SolverSettings settings = SolverSettings::for_kind(SolverKind::elliptic);
  settings.preconditioner = PCJACOBI;
  for (const bool check : {true, false}) {
    settings.jacobi_fix_zero_diagonal = check;
    LinearSolver solver(PETSC_COMM_SELF, "jacobi_", settings);
    PC pc = nullptr;
    FOEHN_PETSC_CHECK(KSPGetPC(solver.ksp(), &pc));
    PetscBool fix = PETSC_FALSE;
    FOEHN_PETSC_CHECK(PCJacobiGetFixDiagonal(pc, &fix));
    EXPECT_EQ(fix == PETSC_TRUE, check);
  }
  ScopedOption restore("-jacobi_pc_jacobi_fixdiagonal", "1");
  LinearSolver solver(PETSC_COMM_SELF, "jacobi_", settings);
  PC pc = nullptr;
  FOEHN_PETSC_CHECK(KSPGetPC(solver.ksp(), &pc));
  PetscBool fix = PETSC_FALSE;
  FOEHN_PETSC_CHECK(PCJacobiGetFixDiagonal(pc, &fix));
  EXPECT_TRUE(fix) << "-<prefix>pc_jacobi_fixdiagonal wins";
}

TEST(LinearSolverLifetime, MoveTransfersTheKsp) {
  OwnedMat a = laplacian_7pt(6);
  auto system = system_for(a);
  LinearSolver first(PETSC_COMM_SELF, "moved_", SolverKind::elliptic);
  const KSP ksp = first.ksp();
  LinearSolver second(std::move(first));
  EXPECT_EQ(second.ksp(), ksp);
  EXPECT_EQ(first.ksp(), nullptr);  // NOLINT(bugprone-use-after-move): documented state
  EXPECT_EQ(first.description(), "LinearSolver (moved from)");
  EXPECT_THROW(first.solve(system.rhs, system.x), Error);

  LinearSolver third(PETSC_COMM_SELF, "other_", SolverKind::direct);
  third = std::move(second);
  EXPECT_EQ(third.ksp(), ksp);
  EXPECT_EQ(third.prefix(), "moved_");
  third.set_operator(a);
  EXPECT_TRUE(third.solve(system.rhs, system.x).converged);
  EXPECT_EQ(third.statistics().solves, 1);
  EXPECT_EQ(third.statistics().preconditioner_builds, 1);
}

}  // namespace
}  // namespace foehn::petsc
