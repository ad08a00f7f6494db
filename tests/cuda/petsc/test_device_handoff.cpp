// The device hand-off gives PETSc exactly the values the host hand-off gives, on every path:
// straight into PETSc's page-locked array or through pinned staging, with blocks reordered
// on the device (BAIJ column-major, AIJ point rows), for the COO path, and while the next
// system is being assembled (begin/end overlap).
#include <gtest/gtest.h>
#include <petscmat.h>

#include "cuda/fe/cuda_fe_test_support.hpp"
#include "foehn/fe/cpu_assembler.hpp"
#include "foehn/fe/cuda_assembler.hpp"
#include "foehn/petsc/matrix_handoff.hpp"
#include "foehn/petsc/vector_handoff.hpp"
#include "support/gpu_test.hpp"
#include "unit/petsc/handoff_test_support.hpp"

namespace foehn::petsc {
namespace {

using fe::testing::mountain_test_mesh;
using fe::testing::random_field;
using fe::testing::to_device;

struct Case {
  MatrixFormat format;
  HandoffPath path;
  std::size_t register_threshold;
};

TEST(DeviceHandoff, EveryPathGivesPetscTheDeviceValues) {
  FOEHN_SKIP_WITHOUT_GPU();
  const TetMesh mesh = mountain_test_mesh();
  Stream stream;
  fe::CudaAssembler gpu(mesh, stream);
  fe::CpuAssembler cpu(mesh);
  const auto velocity = random_field(3 * mesh.node_count(), 3);
  const auto device_velocity = to_device(velocity, stream);
  fe::MomentumOperator op;
  op.advecting_velocity = fe::field_ref(device_velocity.data(), device_velocity.size());
  auto device_values = gpu.create_matrix<fe::MomentumOperator>();
  gpu.assemble(op, device_values, nullptr, fe::AssemblyStrategy::deterministic);
  const fe::BlockCsrMatrix expected = gpu.download(device_values, cpu.pattern());
  const NodeNumbering numbering =
      serial_numbering(PETSC_COMM_SELF, static_cast<std::int32_t>(mesh.node_count()));

  const Case cases[] = {{MatrixFormat::baij, HandoffPath::seq_array, 0},
                        {MatrixFormat::baij, HandoffPath::seq_array, ~std::size_t{0}},
                        {MatrixFormat::aij, HandoffPath::seq_array, 0},
                        {MatrixFormat::aij, HandoffPath::seq_array, ~std::size_t{0}},
                        {MatrixFormat::aij, HandoffPath::coo, 0}};
  for (const Case& c : cases) {
    SCOPED_TRACE(to_string(c.format) + " " + to_string(c.path) +
                 (c.register_threshold == 0 ? " registered" : " staged"));
    MatrixHandoffOptions options;
    options.format = c.format;
    options.path = c.path;
    options.register_threshold_bytes = c.register_threshold;
    PetscMatrix matrix(numbering, cpu.pattern(), 3, 3, options);
    for (int repeat = 0; repeat < 2; ++repeat) {  // the second reuses registration and buffers
      matrix.set_values(device_values, stream);
      EXPECT_EQ(testing::max_entry_difference(matrix.mat(), expected), 0.0);
    }
    if (c.path == HandoffPath::seq_array) {
      EXPECT_EQ(matrix.copies_into_registered_array(), c.register_threshold == 0);
    }
  }
}

TEST(DeviceHandoff, CopyOverlapsTheNextAssembly) {
  FOEHN_SKIP_WITHOUT_GPU();
  const TetMesh mesh = mountain_test_mesh();
  Stream stream;
  fe::CudaAssembler gpu(mesh, stream);
  fe::CpuAssembler cpu(mesh);
  const NodeNumbering numbering =
      serial_numbering(PETSC_COMM_SELF, static_cast<std::int32_t>(mesh.node_count()));
  auto first = gpu.create_matrix<fe::DiffusionOperator>();
  auto second = gpu.create_matrix<fe::DiffusionOperator>();
  DeviceArray<double> rhs(mesh.node_count(), stream);
  const auto source = to_device(random_field(mesh.node_count(), 5), stream);
  fe::DiffusionOperator op;
  op.source = fe::field_ref(source.data(), source.size());
  MatrixHandoffOptions registered;
  registered.register_threshold_bytes = 0;
  PetscMatrix a(numbering, cpu.pattern(), 1, 1, registered), b(numbering, cpu.pattern(), 1, 1);
  PetscVector f(numbering, 1);

  gpu.assemble(op, first, &rhs, fe::AssemblyStrategy::fused_atomic);
  a.begin_set_values(first, stream);
  f.begin_set_values(rhs, stream);
  op.scale = 2.0;  // the next system is assembled while the first is copied out
  gpu.assemble(op, second, nullptr, fe::AssemblyStrategy::fused_atomic);
  b.begin_set_values(second, stream);
  a.end_set_values();
  f.end_set_values();
  b.end_set_values();

  const auto expected_first = gpu.download(first, cpu.pattern());
  const auto expected_second = gpu.download(second, cpu.pattern());
  EXPECT_EQ(testing::max_entry_difference(a.mat(), expected_first), 0.0);
  EXPECT_EQ(testing::max_entry_difference(b.mat(), expected_second), 0.0);
  std::vector<double> owned(mesh.node_count());
  f.get_owned_values(owned);
  EXPECT_EQ(owned, rhs.copy_to_host(stream));
}

TEST(DeviceHandoff, WrongSizesAreRejectedBeforeAnyCopy) {
  FOEHN_SKIP_WITHOUT_GPU();
  const TetMesh mesh = mountain_test_mesh();
  Stream stream;
  fe::CpuAssembler cpu(mesh);
  const NodeNumbering numbering =
      serial_numbering(PETSC_COMM_SELF, static_cast<std::int32_t>(mesh.node_count()));
  PetscMatrix matrix(numbering, cpu.pattern(), 1, 1);
  DeviceArray<double> wrong(cpu.pattern()->nnz() + 1, stream);
  EXPECT_THROW(matrix.begin_set_values(wrong, stream), Error);
  PetscVector vector(numbering, 3);
  EXPECT_THROW(vector.begin_set_values(wrong, stream), Error);
}

}  // namespace
}  // namespace foehn::petsc
