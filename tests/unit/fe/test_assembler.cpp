// fe::Assembler, the backend-neutral entry point, on the CPU: the same values as the CPU
// reference bit for bit (host fields and results), a built-in and a user-defined operator alike;
// sizes checked; the backend choice (auto falls back to the CPU and says so, cuda without a GPU
// is unavailable); device memory without CUDA is unavailable, never a crash.
#include <gtest/gtest.h>

#include <sstream>

#include "assembly_test_mesh.hpp"
#include "coriolis_operator.hpp"
#include "foehn/fe/assembler.hpp"
#include "foehn/runtime/device.hpp"
#include "foehn/runtime/error.hpp"

namespace foehn::fe {
namespace {

std::vector<double> linear_field(const TetMesh& mesh, int components) {
  return testing::nodal(mesh, components, [&](const Point3& x, double* v) {
    for (int c = 0; c < components; ++c) v[c] = 1.0 + 1e-4 * (c + 1) * x[0] + 2e-4 * x[2];
  });
}

TEST(Assembler, CpuBackendGivesTheReferenceValuesBitForBit) {
  const TetMesh mesh = testing::small_mountain_mesh(5);
  Assembler assembler(mesh, {.backend = "cpu"});
  EXPECT_EQ(assembler.backend(), Backend::cpu);
  EXPECT_EQ(assembler.native_memory(), Memory::host);
  EXPECT_EQ(assembler.stream(), nullptr);
  const std::vector<double> tensor = linear_field(mesh, 9), source = linear_field(mesh, 1);
  DiffusionOperator diffusion;
  diffusion.tensor = field_ref(tensor);
  diffusion.source = field_ref(source);

  CpuAssembler reference(mesh);
  BlockCsrMatrix expected = reference.create_matrix<DiffusionOperator>();
  std::vector<double> expected_rhs(mesh.node_count());
  reference.assemble(diffusion, expected, expected_rhs);

  std::vector<double> values(assembler.value_count<DiffusionOperator>()), rhs(mesh.node_count());
  assembler.assemble(diffusion, Memory::host, {Memory::host, values, rhs});
  EXPECT_EQ(values, expected.values);
  EXPECT_EQ(rhs, expected_rhs);
  EXPECT_EQ(*assembler.pattern(), *reference.pattern());

  // A user-defined operator (FOEHN_DEFINE_OPERATOR in examples/user_operator) the same way.
  BlockCsrMatrix coriolis = assembler.create_matrix<foehn_examples::CoriolisOperator>();
  assembler.assemble(foehn_examples::CoriolisOperator{}, Memory::host, coriolis);
  BlockCsrMatrix coriolis_expected = reference.create_matrix<foehn_examples::CoriolisOperator>();
  reference.assemble(foehn_examples::CoriolisOperator{}, coriolis_expected);
  EXPECT_EQ(coriolis.values, coriolis_expected.values);
}

TEST(Assembler, WrongSizesAndForeignMatricesAreRejected) {
  const TetMesh mesh = testing::small_mountain_mesh(4);
  Assembler assembler(mesh, {.backend = "cpu"});
  std::vector<double> values(assembler.value_count<MomentumOperator>() - 1);
  try {
    assembler.assemble(MomentumOperator{}, Memory::host, {Memory::host, values, {}});
    FAIL() << "a short value array was accepted";
  } catch (const Error& error) {
    EXPECT_NE(std::string(error.what()).find("momentum operator: the matrix holds"),
              std::string::npos)
        << error.what();
  }
  std::vector<double> fine(assembler.value_count<MassOperator>()), short_rhs(3);
  EXPECT_THROW(assembler.assemble(MassOperator{}, Memory::host, {Memory::host, fine, short_rhs}),
               Error);
  BlockCsrMatrix other = CpuAssembler(mesh).create_matrix<MassOperator>();
  EXPECT_THROW(assembler.assemble(MassOperator{}, Memory::host, other), Error);
  std::vector<double> nan_source(mesh.node_count(), 0.0);
  nan_source[7] = std::nan("");
  MassOperator with_nan;
  with_nan.source = field_ref(nan_source);
  EXPECT_THROW(assembler.assemble(with_nan, Memory::host, {Memory::host, fine, {}}), Error);
}

TEST(Assembler, AutoUsesTheCpuWithoutAGpuAndSaysSo) {
  if (cuda_device_count() > 0) GTEST_SKIP() << "a GPU exists here";
  const TetMesh mesh = testing::small_mountain_mesh(3);
  std::ostringstream notice;
  Assembler assembler(mesh, {.backend = "auto", .notice = &notice});
  EXPECT_EQ(assembler.backend(), Backend::cpu);
  EXPECT_FALSE(notice.str().empty());
  try {
    Assembler cuda(mesh, {.backend = "cuda"});
    FAIL() << "the CUDA backend was created without a GPU";
  } catch (const Error& error) {
    EXPECT_EQ(error.category(), ErrorCategory::unavailable) << error.what();
  }
  EXPECT_THROW(Assembler(mesh, {.backend = "gpu"}), Error);
}

TEST(Assembler, DeviceMemoryWithoutAGpuIsUnavailable) {
  if (cuda_device_count() > 0) GTEST_SKIP() << "a GPU exists here";
  const TetMesh mesh = testing::small_mountain_mesh(3);
  Assembler assembler(mesh, {.backend = "cpu"});
  std::vector<double> values(assembler.value_count<MassOperator>());
  try {
    assembler.assemble(MassOperator{}, Memory::host, {Memory::device, values, {}});
    FAIL() << "device output was accepted without CUDA";
  } catch (const Error& error) {
    EXPECT_EQ(error.category(), ErrorCategory::unavailable) << error.what();
  }
}

}  // namespace
}  // namespace foehn::fe
