// CPU vs GPU from t = 0 on a fixed mesh, the published port's validation: the same core run
// with the CPU reference assembly and with the CUDA assembly. With atomic strategies the sums
// differ in order only, so w and theta' agree to round-off grown over the steps (<= 1e-10);
// the deterministic strategy reproduces the CPU sums bit for bit, so the runs are identical.
#include <gtest/gtest.h>
#include <petscsys.h>

#include "mountain_wave_test_support.hpp"
#include "support/gpu_test.hpp"

namespace foehn::mountainwave {
namespace {

using testing::distributed_small_mesh;
using testing::max_abs_difference;
using testing::small_domain;

ModelState run(const petsc::DistributedMesh& mesh, const MountainMeshOptions& domain,
               Backend backend, fe::AssemblyStrategy strategy, int steps) {
  Numerics numerics;
  numerics.dt = 30;
  numerics.backend = backend;
  numerics.strategy = strategy;
  MountainWaveModel model(mesh, domain, Physics{}, numerics);
  ModelState state = model.initial_state();
  for (int step = 0; step < steps; ++step) model.step(state);
  return state;
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
                              fe::AssemblyStrategy::seed}) {
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
  EXPECT_EQ(max_abs_difference(vertical_velocity(gpu), vertical_velocity(cpu)), 0.0);
  EXPECT_EQ(max_abs_difference(gpu.theta, cpu.theta), 0.0);
  EXPECT_EQ(gpu.velocity, cpu.velocity);
  EXPECT_EQ(gpu.pressure, cpu.pressure);
}

}  // namespace
}  // namespace foehn::mountainwave
