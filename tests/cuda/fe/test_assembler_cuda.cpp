// fe::Assembler on the GPU: fields and results in every combination of host and device memory,
// on the CUDA backend (deterministic strategy: bitwise the CPU reference) and on the CPU backend
// fed device memory; a stream the caller owns is used and left alive; the legacy default stream
// is refused.
#include <gtest/gtest.h>

#include "cuda_fe_test_support.hpp"
#include "foehn/fe/assembler.hpp"
#include "support/gpu_test.hpp"

namespace foehn::fe {
namespace {

struct Case {
  const char* backend;
  Memory fields, results;
};

class AssemblerMemories : public ::testing::TestWithParam<Case> {};

TEST_P(AssemblerMemories, GiveTheCpuReferenceBitForBit) {
  FOEHN_SKIP_WITHOUT_GPU();
  const Case c = GetParam();
  const TetMesh mesh = testing::random_test_mesh(5);
  Stream caller_stream;  // the caller's stream, borrowed by the CUDA backend
  Assembler assembler(mesh, {.backend = c.backend,
                             .strategy = AssemblyStrategy::deterministic,
                             .stream = caller_stream.native_handle()});
  const std::vector<double> velocity = testing::random_field(mesh.node_count() * 3, 3, -5, 5);
  const std::vector<double> force = testing::random_field(mesh.node_count() * 3, 4);
  const DeviceArray<double> device_velocity = testing::to_device(velocity, caller_stream);
  const DeviceArray<double> device_force = testing::to_device(force, caller_stream);
  caller_stream.synchronize();

  MomentumOperator host_op;
  host_op.viscosity = 0.4;
  host_op.advecting_velocity = field_ref(velocity);
  host_op.body_force = field_ref(force);
  MomentumOperator op = host_op;
  if (c.fields == Memory::device) {
    op.advecting_velocity = field_ref(device_velocity.data(), device_velocity.size());
    op.body_force = field_ref(device_force.data(), device_force.size());
  }
  CpuAssembler reference(mesh);
  BlockCsrMatrix expected = reference.create_matrix<MomentumOperator>();
  std::vector<double> expected_rhs(mesh.node_count() * 3);
  reference.assemble(host_op, expected, expected_rhs);

  const std::size_t count = assembler.value_count<MomentumOperator>();
  std::vector<double> values(count, -1.0), rhs(expected_rhs.size(), -1.0);
  if (c.results == Memory::host) {
    assembler.assemble(op, c.fields, {Memory::host, values, rhs});
  } else {
    DeviceArray<double> device_values(count, caller_stream), device_rhs(rhs.size(), caller_stream);
    poison_async(device_values, caller_stream);
    poison_async(device_rhs, caller_stream);
    caller_stream.synchronize();
    assembler.assemble(
        op, c.fields,
        {Memory::device, {device_values.data(), count}, {device_rhs.data(), rhs.size()}});
    if (assembler.stream()) assembler.stream()->synchronize();
    values = device_values.copy_to_host(caller_stream);
    rhs = device_rhs.copy_to_host(caller_stream);
  }
  EXPECT_EQ(values, expected.values);
  EXPECT_EQ(rhs, expected_rhs);
  if (std::string(c.backend) == "cuda") {
    EXPECT_EQ(assembler.stream()->native_handle(), caller_stream.native_handle());
  }
}

INSTANTIATE_TEST_SUITE_P(BackendsAndMemories, AssemblerMemories,
                         ::testing::Values(Case{"cuda", Memory::host, Memory::host},
                                           Case{"cuda", Memory::host, Memory::device},
                                           Case{"cuda", Memory::device, Memory::host},
                                           Case{"cuda", Memory::device, Memory::device},
                                           Case{"cpu", Memory::device, Memory::host},
                                           Case{"cpu", Memory::host, Memory::device},
                                           Case{"cpu", Memory::device, Memory::device}),
                         [](const auto& info) {
                           return std::string(info.param.backend) + "_fields_" +
                                  std::string(to_string(info.param.fields)) + "_results_" +
                                  std::string(to_string(info.param.results));
                         });

TEST(AssemblerStreams, TheLegacyDefaultStreamIsRefused) {
  FOEHN_SKIP_WITHOUT_GPU();
  EXPECT_THROW(Stream::borrow(nullptr), Error);
}

}  // namespace
}  // namespace foehn::fe
