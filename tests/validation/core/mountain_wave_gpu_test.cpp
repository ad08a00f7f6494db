// CPU vs GPU from t = 0 on a fixed mesh, the published port's validation: the same core run
// with the CPU reference assembly and with the CUDA assembly. Solves on the host (as with a
// PETSc without CUDA): with atomic strategies the sums differ in order only, so w and theta'
// agree to round-off grown over the steps (<= 1e-10); the deterministic strategy reproduces the
// CPU sums bit for bit, so the runs are identical. Solves on the GPU (a PETSc built with CUDA):
// other preconditioners and other arithmetic, so both runs solve to tight tolerances and agree
// to 1e-10; and after the first step (which builds the preconditioners) no step copies a
// matrix back to the host.
#include <gtest/gtest.h>
#include <petscsys.h>

#include <functional>

#include "foehn/petsc/device_petsc.hpp"
#include "foehn/petsc/log_events.hpp"
#include "mountain_wave_test_support.hpp"
#include "support/gpu_test.hpp"

namespace foehn::mountainwave {
namespace {

using testing::distributed_small_mesh;
using testing::max_abs_difference;
using testing::small_domain;

ModelState run(const petsc::DistributedMesh& mesh, const MountainMeshOptions& domain,
               Backend backend, fe::AssemblyStrategy strategy, int steps,
               SolvePlacement solves = SolvePlacement::host,
               double picard_early_rtol = Numerics{}.picard_early_rtol,
               const std::function<void(Numerics&)>& adjust = {}) {
  Numerics numerics;
  if (adjust) adjust(numerics);
  numerics.picard_early_rtol = picard_early_rtol;
  numerics.dt = 30;
  numerics.backend = backend;
  numerics.strategy = strategy;
  numerics.solves = solves;
  MountainWaveModel model(mesh, domain, Physics{}, numerics);
  EXPECT_EQ(model.device_solves(), solves == SolvePlacement::device);
  model.set_state(model.initial_state());
  for (int step = 0; step < steps; ++step) model.step();
  return model.state();
}

// Every system solved to a relative residual of 1e-13, for comparing runs whose solvers differ
// (with run(..., kEveryIterationTight): in every Picard iteration, not only the last).
class TightTolerances {
 public:
  TightTolerances() {
    for (const LinearSystemRow& system : linear_systems) {
      const std::string prefix = std::string("-").append(system.prefix);
      PetscOptionsSetValue(nullptr, (prefix + "ksp_rtol").c_str(), "1e-13");
      PetscOptionsSetValue(nullptr, (prefix + "ksp_max_it").c_str(), "5000");
    }
  }
  ~TightTolerances() {
    for (const LinearSystemRow& system : linear_systems) {
      const std::string prefix = std::string("-").append(system.prefix);
      PetscOptionsClearValue(nullptr, (prefix + "ksp_rtol").c_str());
      PetscOptionsClearValue(nullptr, (prefix + "ksp_max_it").c_str());
    }
  }
};

constexpr double kEveryIterationTight = 0;  // Numerics::picard_early_rtol: none

bool device_solves_possible() {
  return petsc::device_solves_available() && cuda_device_count() > 0;
}

// PETSc's count of `event` in the log stage `stage` (0 when the stage was never entered).
double event_count(const char* stage, const char* event) {
  PetscLogStage stage_id = -1;
  PetscLogEvent event_id = -1;
  if (PetscLogStageGetId(stage, &stage_id) != 0 || stage_id < 0) return 0;
  EXPECT_EQ(PetscLogEventGetId(event, &event_id), 0);
  PetscEventPerfInfo info{};
  EXPECT_EQ(PetscLogEventGetPerfInfo(stage_id, event_id, &info), 0);
  return info.count;
}

std::vector<double> vertical_velocity(const ModelState& state) {
  std::vector<double> w(state.velocity.size() / 3);
  for (std::size_t n = 0; n < w.size(); ++n) w[n] = state.velocity[3 * n + 2];
  return w;
}

TEST(MountainWaveGpu, AtomicAssemblyMatchesTheCpuRunToRoundOff) {
  FOEHN_SKIP_WITHOUT_GPU();
  const MountainMeshOptions domain = small_domain(10);
  const auto mesh = distributed_small_mesh(domain, PETSC_COMM_SELF);
  const ModelState cpu = run(mesh, domain, Backend::cpu, fe::AssemblyStrategy::fused_atomic, 10);
  for (const auto strategy : {fe::AssemblyStrategy::fused_atomic, fe::AssemblyStrategy::fused_map,
                              fe::AssemblyStrategy::staged}) {
    const ModelState gpu = run(mesh, domain, Backend::cuda, strategy, 10);
    const double dw = max_abs_difference(vertical_velocity(gpu), vertical_velocity(cpu));
    const double dtheta = max_abs_difference(gpu.theta, cpu.theta);
    std::printf("%s: max |w_gpu - w_cpu| = %.3e m/s, max |theta'_gpu - theta'_cpu| = %.3e K\n",
                std::string(fe::to_string(strategy)).c_str(), dw, dtheta);
    EXPECT_LE(dw, 1e-10);
    EXPECT_LE(dtheta, 1e-10);
  }
}

TEST(MountainWaveGpu, DeterministicAssemblyReproducesTheCpuRunExactly) {
  FOEHN_SKIP_WITHOUT_GPU();
  const MountainMeshOptions domain = small_domain(10);
  const auto mesh = distributed_small_mesh(domain, PETSC_COMM_SELF);
  const ModelState cpu = run(mesh, domain, Backend::cpu, fe::AssemblyStrategy::deterministic, 10);
  const ModelState gpu = run(mesh, domain, Backend::cuda, fe::AssemblyStrategy::deterministic, 10);
  EXPECT_EQ(gpu.step, 10);
  EXPECT_EQ(max_abs_difference(vertical_velocity(gpu), vertical_velocity(cpu)), 0.0);
  EXPECT_EQ(max_abs_difference(gpu.theta, cpu.theta), 0.0);
  EXPECT_EQ(gpu.velocity, cpu.velocity);
  EXPECT_EQ(gpu.pressure, cpu.pressure);
}

TEST(MountainWaveGpu, DeviceSolvesMatchTheCpuRunWithTightTolerances) {
  FOEHN_SKIP_WITHOUT_GPU();
  if (!device_solves_possible()) GTEST_SKIP() << "this PETSc is built without CUDA";
  const MountainMeshOptions domain = small_domain(10);
  const auto mesh = distributed_small_mesh(domain, PETSC_COMM_SELF);
  const TightTolerances tight;
  const ModelState cpu = run(mesh, domain, Backend::cpu, fe::AssemblyStrategy::fused_atomic, 10,
                             SolvePlacement::host, kEveryIterationTight);
  for (const auto strategy :
       {fe::AssemblyStrategy::fused_atomic, fe::AssemblyStrategy::deterministic}) {
    const ModelState gpu = run(mesh, domain, Backend::cuda, strategy, 10, SolvePlacement::device,
                               kEveryIterationTight);
    const double dw = max_abs_difference(vertical_velocity(gpu), vertical_velocity(cpu));
    const double dtheta = max_abs_difference(gpu.theta, cpu.theta);
    std::printf(
        "solves on the GPU, %s: max |w_gpu - w_cpu| = %.3e m/s, max |theta'_gpu - "
        "theta'_cpu| = %.3e K\n",
        std::string(fe::to_string(strategy)).c_str(), dw, dtheta);
    EXPECT_LE(dw, 1e-10);
    EXPECT_LE(dtheta, 1e-10);
    EXPECT_EQ(gpu.step, 10);
  }
}

// The largest differences in w and theta' between a GPU and a CPU run over the ranks, printed
// and held to 1e-10 (m/s and K).
void expect_agreement_over_ranks(const ModelState& gpu, const ModelState& cpu, int ranks,
                                 const char* what) {
  double local[2] = {max_abs_difference(vertical_velocity(gpu), vertical_velocity(cpu)),
                     max_abs_difference(gpu.theta, cpu.theta)};
  double worst[2] = {0, 0};
  ASSERT_EQ(MPI_Allreduce(local, worst, 2, MPI_DOUBLE, MPI_MAX, PETSC_COMM_WORLD), MPI_SUCCESS);
  std::printf("%d rank(s), %s: max |w_gpu - w_cpu| = %.3e m/s, max |theta' difference| = %.3e K\n",
              ranks, what, worst[0], worst[1]);
  EXPECT_LE(worst[0], 1e-10);
  EXPECT_LE(worst[1], 1e-10);
}

// Every rank of the run on a GPU of its own where the host has one per rank (mpiexec -n 2 on a
// two-GPU host), ranks sharing one otherwise: the halo exchanges and reductions of the solves
// then cross between GPUs, and the result still agrees with the CPU run on the same ranks.
TEST(MountainWaveGpu, DeviceSolvesOverAllRanksMatchTheCpuRunWithTightTolerances) {
  FOEHN_SKIP_WITHOUT_GPU();
  if (!device_solves_possible()) GTEST_SKIP() << "this PETSc is built without CUDA";
  const MountainMeshOptions domain = small_domain(10);
  const auto mesh = distributed_small_mesh(domain, PETSC_COMM_WORLD);
  const TightTolerances tight;
  const ModelState cpu = run(mesh, domain, Backend::cpu, fe::AssemblyStrategy::fused_atomic, 10,
                             SolvePlacement::host, kEveryIterationTight);
  const ModelState gpu = run(mesh, domain, Backend::cuda, fe::AssemblyStrategy::deterministic, 10,
                             SolvePlacement::device, kEveryIterationTight);
  expect_agreement_over_ranks(gpu, cpu, mesh.size, "solves on the GPUs");
  EXPECT_EQ(gpu.step, 10);
}

// The extrapolated Picard start, the previous step's pressure increment as the first guess and
// the lumped projection (issue 54) on the GPU, over all ranks: pointwise updates written once for
// both (Extrapolate, the lumped product), so with tight tolerances the runs agree as the
// defaults' do.
TEST(MountainWaveGpu, ExtrapolatedStartAndLumpedProjectionMatchTheCpuRun) {
  FOEHN_SKIP_WITHOUT_GPU();
  if (!device_solves_possible()) GTEST_SKIP() << "this PETSc is built without CUDA";
  const MountainMeshOptions domain = small_domain(10);
  const auto mesh = distributed_small_mesh(domain, PETSC_COMM_WORLD);
  const TightTolerances tight;
  const auto options = [](Numerics& numerics) {
    numerics.picard_extrapolate = true;
    numerics.pressure_guess_previous = true;
    numerics.projection_mass = ProjectionMass::lumped;
  };
  const ModelState cpu = run(mesh, domain, Backend::cpu, fe::AssemblyStrategy::fused_atomic, 10,
                             SolvePlacement::host, kEveryIterationTight, options);
  const ModelState gpu = run(mesh, domain, Backend::cuda, fe::AssemblyStrategy::deterministic, 10,
                             SolvePlacement::device, kEveryIterationTight, options);
  expect_agreement_over_ranks(gpu, cpu, mesh.size,
                              "extrapolated start, previous increment, lumped projection");
}

TEST(MountainWaveGpu, StepsAfterTheFirstCopyNoMatrixBackToTheHost) {
  FOEHN_SKIP_WITHOUT_GPU();
  if (!device_solves_possible()) GTEST_SKIP() << "this PETSc is built without CUDA";
  ASSERT_EQ(PetscLogDefaultBegin(), 0);  // events are counted from here on
  const MountainMeshOptions domain = small_domain(8);
  const auto mesh = distributed_small_mesh(domain, PETSC_COMM_SELF);
  const ModelState state = run(mesh, domain, Backend::cuda, fe::AssemblyStrategy::fused_atomic, 4,
                               SolvePlacement::device);
  EXPECT_EQ(state.step, 4);
  // The first step built the preconditioners; the other three are the steady state.
  EXPECT_EQ(event_count("MountainWaveStep", "MatCUSPARSCopyFr"), 0.0);
  EXPECT_EQ(event_count("MountainWaveStep", "FoehnCopyD2H"), 0.0);
  EXPECT_EQ(event_count("MountainWaveStep", "FoehnCopyH2D"), 0.0);
  EXPECT_GT(event_count("MountainWaveStep", "FoehnAssembleGPU"), 0.0);
  EXPECT_GT(event_count("MountainWaveStep", "KSPSolve"), 0.0);
}

}  // namespace
}  // namespace foehn::mountainwave
