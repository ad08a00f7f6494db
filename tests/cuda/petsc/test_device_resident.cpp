// Matrices, vectors and exchanges that stay on the GPU (a PETSc built with CUDA): the values
// PETSc holds are, bit for bit, the values Foehn assembled (straight into PETSc's device array
// for scalar and 1 x C operators, through one device permutation for 3 x 3 and 3 x 1 blocks, or
// through MatSetValuesCOO), the deterministic assembly is bitwise the CPU reference's, updates
// copy nothing back to the host (PETSc's MatCUSPARSCopyFr event never runs), and the device
// value edits are bitwise the host's. Skipped without a GPU or without a CUDA PETSc.
#include <gtest/gtest.h>
#include <petscmat.h>

#include <string>

#include "cuda/fe/cuda_fe_test_support.hpp"
#include "foehn/fe/cpu_assembler.hpp"
#include "foehn/fe/cuda_assembler.hpp"
#include "foehn/fe/value_edits.hpp"
#include "foehn/petsc/device_petsc.hpp"
#include "foehn/petsc/matrix_handoff.hpp"
#include "foehn/petsc/vector_handoff.hpp"
#include "support/gpu_test.hpp"
#include "support/momentum_matrix.hpp"
#include "unit/petsc/handoff_test_support.hpp"

#define FOEHN_SKIP_WITHOUT_DEVICE_SOLVES()                                              \
  do {                                                                                  \
    FOEHN_SKIP_WITHOUT_GPU();                                                           \
    if (!::foehn::petsc::device_solves_available())                                     \
      GTEST_SKIP() << "this PETSc is built without CUDA (FOEHN_PETSC=cuda builds one)"; \
  } while (false)

namespace foehn::petsc {
namespace {

using fe::testing::mountain_test_mesh;
using fe::testing::random_field;
using fe::testing::to_device;

// How often PETSc has copied a cuSPARSE matrix back to the host so far (all stages).
double matrix_copies_to_host() {
  PetscLogEvent event = 0;
  EXPECT_EQ(PetscLogEventGetId("MatCUSPARSCopyFr", &event), 0);
  PetscLogStage stages = 0;
  EXPECT_EQ(PetscLogStageGetId("Main Stage", &stages), 0);
  PetscEventPerfInfo info{};
  EXPECT_EQ(PetscLogEventGetPerfInfo(stages, event, &info), 0);
  return info.count;
}

std::string type_of(Mat mat) {
  MatType type = nullptr;
  EXPECT_EQ(MatGetType(mat, &type), 0);
  return type ? type : "";
}

// An operator's expected values (deterministic GPU assembly, itself bitwise the CPU's) and its
// assembly into a PETSc matrix on the GPU through begin/end_device_write.
template <class Op>
void expect_petsc_holds_the_values(const TetMesh& mesh, const Op& op, HandoffPath path,
                                   const char* name) {
  SCOPED_TRACE(std::string(name) + (path == HandoffPath::coo ? " (COO)" : " (in place)"));
  Stream stream;
  fe::CudaAssembler gpu(mesh, stream);
  fe::CpuAssembler cpu(mesh);
  fe::BlockCsrMatrix reference = cpu.create_matrix<Op>();
  cpu.assemble(op.host, reference);
  const NodeNumbering numbering =
      serial_numbering(PETSC_COMM_SELF, static_cast<std::int32_t>(mesh.node_count()));
  MatrixHandoffOptions device;
  device.device_matrix = true;
  device.path = path;
  PetscMatrix matrix(numbering, cpu.pattern(), Op::block_rows, Op::block_cols, device);
  EXPECT_TRUE(matrix.on_device());
  EXPECT_EQ(type_of(matrix.mat()), "seqaijcusparse");
  if (path != HandoffPath::coo) {
    EXPECT_EQ(matrix.writes_in_place(), Op::block_rows == 1);
  }
  const double copies_before = matrix_copies_to_host();
  for (int update = 0; update < 3; ++update) {  // later updates reuse every buffer
    fe::DeviceAssemblyTarget target{
        Op::block_rows,       Op::block_cols, matrix.begin_device_write(stream),
        matrix.value_count(), nullptr,        0};
    gpu.assemble(op.device, target, fe::AssemblyStrategy::deterministic);
    matrix.end_device_write(stream);
  }
  // PETSc used the device values (and kept them there): y = A x on the GPU equals the host's.
  const std::vector<double> x = random_field(reference.point_cols(), 17);
  std::vector<double> expected_y(reference.point_rows());
  reference.multiply(x, expected_y);
  Vec px = nullptr, py = nullptr;
  ASSERT_EQ(MatCreateVecs(matrix.mat(), &px, &py), 0);
  PetscScalar* values = nullptr;
  ASSERT_EQ(VecGetArrayWrite(px, &values), 0);
  std::copy(x.begin(), x.end(), values);
  ASSERT_EQ(VecRestoreArrayWrite(px, &values), 0);
  ASSERT_EQ(MatMult(matrix.mat(), px, py), 0);
  EXPECT_EQ(matrix_copies_to_host(), copies_before)
      << "an update or MatMult copied the matrix back";
  const PetscScalar* y = nullptr;
  ASSERT_EQ(VecGetArrayRead(py, &y), 0);
  double worst = 0, largest = 0;
  for (std::size_t i = 0; i < expected_y.size(); ++i) {
    worst = std::max(worst, std::abs(y[i] - expected_y[i]));
    largest = std::max(largest, std::abs(expected_y[i]));
  }
  ASSERT_EQ(VecRestoreArrayRead(py, &y), 0);
  EXPECT_LE(worst, 1e-13 * largest);
  VecDestroy(&px);
  VecDestroy(&py);
  // Entry by entry (MatGetValues copies the matrix to the host here, in the test only).
  EXPECT_EQ(testing::max_entry_difference(matrix.mat(), reference), 0.0);
}

// An operator with host and device copies of its fields.
template <class Op>
struct TwoSided {
  static constexpr int block_rows = Op::block_rows, block_cols = Op::block_cols;
  Op host, device;
};

TEST(DeviceResident, PetscHoldsExactlyTheAssembledValuesWithoutCopyingThemBack) {
  FOEHN_SKIP_WITHOUT_DEVICE_SOLVES();
  const TetMesh mesh = mountain_test_mesh();
  Stream stream;
  const auto velocity = random_field(3 * mesh.node_count(), 3, -10, 10);
  const auto device_velocity = to_device(velocity, stream);
  stream.synchronize();
  TwoSided<fe::AdvectionDiffusionOperator> transport;
  transport.host.inverse_dt = transport.device.inverse_dt = 0.05;
  transport.host.velocity = fe::field_ref(velocity);
  transport.device.velocity = fe::field_ref(device_velocity.data(), device_velocity.size());
  TwoSided<fe::MomentumOperator> momentum;
  momentum.host.density_over_dt = momentum.device.density_over_dt = 0.05;
  momentum.host.advecting_velocity = fe::field_ref(velocity);
  momentum.device.advecting_velocity = transport.device.velocity;
  const TwoSided<fe::DivergenceOperator> divergence;
  for (const HandoffPath path : {HandoffPath::seq_array, HandoffPath::coo}) {
    expect_petsc_holds_the_values(mesh, transport, path, "advection-diffusion");
    expect_petsc_holds_the_values(mesh, momentum, path, "momentum 3 x 3");
    expect_petsc_holds_the_values(mesh, divergence, path, "divergence 1 x 3");
  }
}

// The divergence's values read as 3 x 1 blocks (the core's gradient G): set_device_values
// permutes them into PETSc's point rows on the device.
TEST(DeviceResident, SameValuesAsAnotherBlockShapeArePermutedOnTheDevice) {
  FOEHN_SKIP_WITHOUT_DEVICE_SOLVES();
  const TetMesh mesh = mountain_test_mesh();
  Stream stream;
  fe::CudaAssembler gpu(mesh, stream);
  fe::CpuAssembler cpu(mesh);
  auto divergence = gpu.create_matrix<fe::DivergenceOperator>();
  gpu.assemble(fe::DivergenceOperator{}, divergence, nullptr, fe::AssemblyStrategy::deterministic);
  fe::BlockCsrMatrix gradient(cpu.pattern(), 3, 1);
  gradient.values = divergence.values.copy_to_host(stream);
  const NodeNumbering numbering =
      serial_numbering(PETSC_COMM_SELF, static_cast<std::int32_t>(mesh.node_count()));
  MatrixHandoffOptions device;
  device.device_matrix = true;
  PetscMatrix matrix(numbering, cpu.pattern(), 3, 1, device);
  EXPECT_FALSE(matrix.writes_in_place());
  matrix.set_device_values(divergence.values.data(), stream);
  EXPECT_EQ(testing::max_entry_difference(matrix.mat(), gradient), 0.0);
}

TEST(DeviceResident, VectorsTakeDeviceValuesInPlace) {
  FOEHN_SKIP_WITHOUT_DEVICE_SOLVES();
  const TetMesh mesh = mountain_test_mesh();
  Stream stream;
  const NodeNumbering numbering =
      serial_numbering(PETSC_COMM_SELF, static_cast<std::int32_t>(mesh.node_count()));
  PetscVector vector(numbering, 3, true);
  EXPECT_TRUE(vector.on_device());
  const auto values = random_field(3 * mesh.node_count(), 21);
  const auto device_values = to_device(values, stream);
  double* target = vector.begin_device_write(stream);
  ::foehn::detail::copy_async(target, device_values.data(), device_values.bytes(),
                              ::foehn::detail::CopyKind::device_to_device, stream.native_handle());
  vector.end_device_write(stream);
  std::vector<double> owned(values.size());
  vector.get_owned_values(owned);
  EXPECT_EQ(owned, values);
  // begin_set_values with device values on a device Vec: the same, without a host copy.
  const auto more = to_device(random_field(values.size(), 22), stream);
  vector.begin_set_values(more, stream);
  vector.end_set_values();
  vector.get_owned_values(owned);
  EXPECT_EQ(owned, more.copy_to_host(stream));
}

TEST(DeviceResident, AnAbandonedWriteLeavesTheObjectsUsable) {
  // What an assembly that throws halfway (a rejected field) does: the next one must succeed.
  FOEHN_SKIP_WITHOUT_DEVICE_SOLVES();
  const TetMesh mesh = mountain_test_mesh();
  Stream stream;
  fe::CpuAssembler cpu(mesh);
  const NodeNumbering numbering =
      serial_numbering(PETSC_COMM_SELF, static_cast<std::int32_t>(mesh.node_count()));
  MatrixHandoffOptions device;
  device.device_matrix = true;
  PetscMatrix matrix(numbering, cpu.pattern(), 1, 1, device);
  PetscVector vector(numbering, 1, true);
  ASSERT_TRUE(matrix.writes_in_place());
  (void)matrix.begin_device_write(stream);
  (void)vector.begin_device_write(stream);
  vector.abandon_device_write(stream);
  matrix.abandon_device_write(stream);
  matrix.abandon_device_write(stream);  // nothing begun: nothing to do
  const auto values = to_device(random_field(matrix.value_count(), 23), stream);
  double* target = matrix.begin_device_write(stream);
  ::foehn::detail::copy_async(target, values.data(), values.bytes(),
                              ::foehn::detail::CopyKind::device_to_device, stream.native_handle());
  matrix.end_device_write(stream);
  const auto rhs = random_field(mesh.node_count(), 24);
  vector.set_values(rhs);
  std::vector<double> owned(rhs.size());
  vector.get_owned_values(owned);
  EXPECT_EQ(owned, rhs);
  PetscReal norm = 0;
  ASSERT_EQ(MatNorm(matrix.mat(), NORM_FROBENIUS, &norm), 0);
  EXPECT_GT(norm, 0.0);
}

TEST(DeviceResident, DeviceValueEditsAreBitwiseTheHostEdits) {
  FOEHN_SKIP_WITHOUT_GPU();
  const TetMesh mesh = mountain_test_mesh();
  Stream stream;
  const fe::BlockCsrMatrix momentum = foehn::testing::assembled_momentum(mesh);
  const std::size_t points = 3 * mesh.node_count();
  const auto owned_nodes = static_cast<std::int32_t>(mesh.node_count() - 5);  // 5 "ghosts"
  std::vector<std::uint8_t> mask(points, 0);
  for (std::size_t p = 0; p < points; p += 7) mask[p] = 1;
  const auto lumped = random_field(3 * static_cast<std::size_t>(owned_nodes), 5, 0, 1e6);
  const auto g = random_field(points, 6);
  for (const auto symmetry :
       {fe::ConstraintSymmetry::rows_only, fe::ConstraintSymmetry::symmetric}) {
    fe::ValueEdits edits(momentum.pattern, 3, owned_nodes);
    edits.constrain(mask, symmetry);
    const fe::DeviceValueEdits device_edits(edits, stream);
    std::vector<double> host = momentum.values, correction(points, 0.0);
    auto device = to_device(momentum.values, stream);
    auto device_lumped = to_device(lumped, stream), device_g = to_device(g, stream);
    DeviceArray<double> device_correction(points, stream);
    if (symmetry == fe::ConstraintSymmetry::symmetric) {
      edits.column_correction(host, g, correction);
      device_edits.column_correction(device.data(), device_g.data(), device_correction.data(),
                                     stream);
      EXPECT_EQ(device_correction.copy_to_host(stream), correction);
    }
    edits.add_diagonal(host, lumped);
    edits.apply_constraints(host, 3.5e5);
    device_edits.add_diagonal(device.data(), device_lumped.data(), stream);
    device_edits.apply_constraints(device.data(), 3.5e5, stream);
    EXPECT_EQ(device.copy_to_host(stream), host);
    std::vector<double> rhs = random_field(3 * static_cast<std::size_t>(owned_nodes), 8);
    auto device_rhs = to_device(rhs, stream);
    edits.constrain_rhs(rhs, std::span<const double>(g.data(), rhs.size()), 2.0);
    device_edits.constrain_rhs(device_rhs.data(), device_g.data(), 2.0, stream);
    EXPECT_EQ(device_rhs.copy_to_host(stream), rhs);
  }
}

}  // namespace
}  // namespace foehn::petsc
