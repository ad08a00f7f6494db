// The user-defined Coriolis operator (examples/user_operator, FOEHN_DEFINE_OPERATOR in a file
// compiled by nvcc outside the library) on the GPU: every strategy against the CPU reference,
// with a uniform and with a nodal rotation, on the shuffled test mesh. deterministic must be
// bitwise equal (its instantiating file is compiled with --fmad=false), the atomic strategies
// within 1e-14. Outputs are poisoned first, so an unwritten entry cannot pass.
#include <gtest/gtest.h>

#include <cmath>

#include "coriolis_operator.hpp"
#include "cuda_fe_test_support.hpp"
#include "foehn/fe/cpu_assembler.hpp"
#include "foehn/fe/cuda_assembler.hpp"
#include "support/gpu_test.hpp"

namespace foehn::fe {
namespace {

using foehn_examples::CoriolisOperator;

class UserOperatorOnTheGpu : public ::testing::TestWithParam<AssemblyStrategy> {};

TEST_P(UserOperatorOnTheGpu, MatchesTheCpuReference) {
  FOEHN_SKIP_WITHOUT_GPU();
  const AssemblyStrategy strategy = GetParam();
  const TetMesh mesh = testing::random_test_mesh(77);
  Stream stream;
  CpuAssembler cpu(mesh);
  CudaAssembler gpu(mesh, stream);
  const std::vector<double> rotation = testing::random_field(mesh.node_count() * 3, 9, -1e-4, 1e-4);
  const DeviceArray<double> device_rotation = testing::to_device(rotation, stream);

  for (bool nodal : {false, true}) {
    CoriolisOperator host_op, device_op;
    if (nodal) {
      host_op.rotation_field = field_ref(rotation);
      device_op.rotation_field = field_ref(device_rotation);
    }
    BlockCsrMatrix expected = cpu.create_matrix<CoriolisOperator>();
    cpu.assemble(host_op, expected);
    DeviceBlockCsrMatrix matrix = gpu.create_matrix<CoriolisOperator>();
    DeviceArray<double> rhs(mesh.node_count() * 3, stream);
    poison_async(matrix.values, stream);
    poison_async(rhs, stream);
    gpu.assemble(device_op, matrix, &rhs, strategy);
    const BlockCsrMatrix got = gpu.download(matrix, cpu.pattern());
    for (double v : rhs.copy_to_host(stream)) ASSERT_EQ(v, 0.0);
    for (double v : got.values) ASSERT_TRUE(std::isfinite(v)) << "unwritten entry";
    if (bitwise_equal_to_cpu(strategy))
      EXPECT_EQ(got.values, expected.values) << "nodal " << nodal << ": not bitwise identical";
    else
      EXPECT_LE(relative_frobenius_difference(got, expected), 1e-14) << "nodal " << nodal;
  }
}

INSTANTIATE_TEST_SUITE_P(EveryStrategy, UserOperatorOnTheGpu,
                         ::testing::ValuesIn(all_assembly_strategies),
                         [](const auto& info) { return std::string(to_string(info.param)); });

}  // namespace
}  // namespace foehn::fe
