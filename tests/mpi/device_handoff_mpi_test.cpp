// mpiexec -n 1, 2, 4 with matrices and vectors on the GPU (a PETSc built with CUDA; skipped
// otherwise): every rank hands the values of its own elements over from device memory
// (MATMPIAIJCUSPARSE through MatSetValuesCOO on the device, VECMPICUDA through the device
// exchange), and PETSc holds exactly what the host hand-off of the same values gives; the device
// exchange moves owned and ghost values as the host one does; a matrix sharing another's COO
// maps holds what its own would.
#include <gtest/gtest.h>
#include <petscmat.h>

#include <optional>
#include <random>

#include "foehn/fe/cpu_assembler.hpp"
#include "foehn/mesh/mountain.hpp"
#include "foehn/petsc/device_binding.hpp"
#include "foehn/petsc/device_petsc.hpp"
#include "foehn/petsc/matrix_handoff.hpp"
#include "foehn/petsc/node_exchange.hpp"
#include "foehn/petsc/vector_handoff.hpp"
#include "foehn/runtime/device.hpp"
#include "foehn/runtime/device_array.hpp"
#include "support/mpi_test_support.hpp"

namespace foehn::petsc {
namespace {

using foehn::testing::world;
using foehn::testing::world_rank;

bool skip_without_device_solves() {
  return !device_solves_available() || cuda_device_count() == 0;
}

DistributedMesh small_distributed_mesh() {
  TetMesh whole;
  if (world_rank() == 0) {
    MountainMeshOptions options;
    options.cells_x = 8;
    options.cells_y = 6;
    options.cells_z = 5;
    whole = generate_mountain_mesh(options);
  }
  return distribute_mesh(world(), world_rank() == 0 ? &whole : nullptr);
}

std::vector<double> random_values(std::size_t count, unsigned seed) {
  std::mt19937_64 generator(seed + 101u * static_cast<unsigned>(world_rank()));
  std::uniform_real_distribution<double> distribution(-1.0, 1.0);
  std::vector<double> values(count);
  for (double& v : values) v = distribution(generator);
  return values;
}

DeviceArray<double> to_device(const std::vector<double>& host, const Stream& stream) {
  DeviceArray<double> device(host.size(), stream);
  device.copy_from_host_async(host, stream);
  stream.synchronize();
  return device;
}

TEST(DeviceHandoffMpi, MatricesAndVectorsEqualTheHostHandoff) {
  if (skip_without_device_solves()) GTEST_SKIP() << "no GPU or a PETSc without CUDA";
  const DistributedMesh mesh = small_distributed_mesh();
  const NodeNumbering numbering = distributed_numbering(mesh);
  fe::CpuAssembler cpu(mesh.local);
  Stream stream;
  for (const int block : {1, 3}) {
    SCOPED_TRACE(block == 1 ? "scalar" : "3 x 3 blocks");
    // Any values will do: the hand-off must carry each exactly where the pattern says.
    const auto values = random_values(cpu.pattern()->nnz() * block * block, 3);
    const auto device_values = to_device(values, stream);
    MatrixHandoffOptions host_options, device_options;
    host_options.format = MatrixFormat::aij;
    host_options.path = HandoffPath::coo;
    device_options.device_matrix = true;
    PetscMatrix host(numbering, cpu.pattern(), block, block, host_options);
    PetscMatrix device(numbering, cpu.pattern(), block, block, device_options);
    host.set_values(values);
    double* target = device.begin_device_write(stream);
    ::foehn::detail::copy_async(target, device_values.data(), device_values.bytes(),
                                ::foehn::detail::CopyKind::device_to_device,
                                stream.native_handle());
    device.end_device_write(stream);
    PetscReal norm = 0, difference = 0;
    ASSERT_EQ(MatNorm(host.mat(), NORM_FROBENIUS, &norm), 0);
    ASSERT_EQ(MatAXPY(host.mat(), -1.0, device.mat(), DIFFERENT_NONZERO_PATTERN), 0);
    ASSERT_EQ(MatNorm(host.mat(), NORM_FROBENIUS, &difference), 0);
    EXPECT_GT(norm, 0.0);
    // Ghost rows are summed in another order on the device: round-off only.
    EXPECT_LE(difference, 1e-14 * norm) << mesh.size << " ranks";

    const auto rhs = random_values(numbering.local_nodes * static_cast<std::size_t>(block), 5);
    PetscVector host_rhs(numbering, block), device_rhs(numbering, block, true);
    host_rhs.set_values(rhs);
    device_rhs.begin_set_values(to_device(rhs, stream), stream);
    device_rhs.end_set_values();
    ASSERT_EQ(VecAXPY(host_rhs.vec(), -1.0, device_rhs.vec()), 0);
    PetscReal rhs_difference = 0;
    ASSERT_EQ(VecNorm(host_rhs.vec(), NORM_INFINITY, &rhs_difference), 0);
    EXPECT_LE(rhs_difference, 1e-14) << mesh.size << " ranks";

    // Host values into a device Vec (uploaded, then the same exchange).
    PetscVector from_host(numbering, block, true), reference(numbering, block);
    from_host.set_values(rhs);
    reference.set_values(rhs);
    ASSERT_EQ(VecAXPY(reference.vec(), -1.0, from_host.vec()), 0);
    ASSERT_EQ(VecNorm(reference.vec(), NORM_INFINITY, &rhs_difference), 0);
    EXPECT_LE(rhs_difference, 1e-14) << mesh.size << " ranks, host values";
  }
}

TEST(DeviceHandoffMpi, DeviceExchangeMovesTheHostExchangesValues) {
  if (skip_without_device_solves()) GTEST_SKIP() << "no GPU or a PETSc without CUDA";
  const DistributedMesh mesh = small_distributed_mesh();
  Stream stream;
  const NodeExchange host(mesh, 3), device(mesh, 3, true);
  const std::size_t local = host.local_value_count();
  const auto values = random_values(local, 9);
  // add: the sum over ranks, ghosts to owners.
  UniqueVec host_sum = host.create_vector(), device_sum = device.create_vector();
  host.local_to_global(values, host_sum.get(), ExchangeMode::add);
  const auto device_values = to_device(values, stream);
  device.local_to_global(device_values.data(), local, device_sum.get(), ExchangeMode::add, stream);
  // back to owned + ghost values
  std::vector<double> host_local(local);
  host.global_to_local(host_sum.get(), host_local);
  DeviceArray<double> device_local(local, stream);
  device.global_to_local(device_sum.get(), device_local.data(), local, stream);
  const std::vector<double> from_device = device_local.copy_to_host(stream);
  double worst = 0;
  for (std::size_t i = 0; i < local; ++i)
    worst = std::max(worst, std::abs(from_device[i] - host_local[i]));
  EXPECT_LE(worst, 1e-14) << mesh.size << " ranks";
}

// A matrix built on another's layout (MatDuplicate, PETSc's COO maps shared) holds exactly what a
// matrix built on its own holds, and writing it leaves the first one's values alone; host AIJ
// always, MATMPIAIJCUSPARSE where the GPU hand-off exists. Where the layouts differ (block
// shape, format) the matrix is built on its own.
TEST(DeviceHandoffMpi, AMatrixOnAnothersLayoutHoldsWhatItsOwnWouldHold) {
  const DistributedMesh mesh = small_distributed_mesh();
  const NodeNumbering numbering = distributed_numbering(mesh);
  fe::CpuAssembler cpu(mesh.local);
  std::vector<bool> placements = {false};
  if (!skip_without_device_solves()) placements.push_back(true);
  std::optional<Stream> stream;  // only where there is a GPU
  // PETSc 3.21 and later pass COO maps on through MatDuplicate; older ones build their own.
  const bool sharing = PETSC_VERSION_GE(3, 21, 0);
  for (const bool on_device : placements) {
    SCOPED_TRACE(on_device ? "device matrices" : "host matrices");
    MatrixHandoffOptions options;
    options.format = MatrixFormat::aij;
    options.path = HandoffPath::coo;
    options.device_matrix = on_device;
    const auto first_values = random_values(cpu.pattern()->nnz(), 21);
    const auto second_values = random_values(cpu.pattern()->nnz(), 22);
    const auto set = [&](PetscMatrix& matrix, const std::vector<double>& values) {
      if (!on_device) return matrix.set_values(values);
      if (!stream) stream.emplace();
      matrix.set_device_values(to_device(values, *stream).data(), *stream);
      stream->synchronize();
    };
    PetscMatrix first(numbering, cpu.pattern(), 1, 1, options);
    set(first, first_values);
    PetscMatrix shared(first, numbering, cpu.pattern(), 1, 1, options);
    EXPECT_EQ(shared.shares_layout(), sharing);
    set(shared, second_values);
    PetscMatrix own(numbering, cpu.pattern(), 1, 1, options),
        first_again(numbering, cpu.pattern(), 1, 1, options);
    EXPECT_FALSE(own.shares_layout());
    set(own, second_values);
    set(first_again, first_values);
    for (const auto& [matrix, reference] : {std::pair{&shared, &own}, {&first, &first_again}}) {
      PetscBool equal = PETSC_FALSE;
      ASSERT_EQ(MatEqual(matrix->mat(), reference->mat(), &equal), 0);
      EXPECT_TRUE(equal) << mesh.size << " ranks";  // the same sums in the same order: bitwise
    }
    // Another block shape or another format: built on its own.
    PetscMatrix blocks(first, numbering, cpu.pattern(), 3, 3, options);
    EXPECT_FALSE(blocks.shares_layout());
    EXPECT_EQ(PetscMatrix(blocks, numbering, cpu.pattern(), 3, 3, options).shares_layout(),
              sharing);
    if (!on_device) {
      MatrixHandoffOptions baij = options;
      baij.format = MatrixFormat::baij;
      EXPECT_FALSE(PetscMatrix(blocks, numbering, cpu.pattern(), 3, 3, baij).shares_layout());
    }
  }
}

// The run log's warning appears exactly when a host has more ranks than GPUs (on rank 0).
TEST(DeviceHandoffMpi, TheSharingWarningSaysWhenRanksShareAGpu) {
  if (cuda_device_count() == 0) GTEST_SKIP() << "no GPU";
  const std::string warning = device_sharing_warning(world());
  MPI_Comm host = MPI_COMM_NULL;
  ASSERT_EQ(MPI_Comm_split_type(world(), MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &host),
            MPI_SUCCESS);
  int ranks_on_host = 0;
  MPI_Comm_size(host, &ranks_on_host);
  MPI_Comm_free(&host);
  const bool shared = ranks_on_host > cuda_device_count();
  if (world_rank() != 0) {
    EXPECT_TRUE(warning.empty());
  } else if (shared) {
    EXPECT_NE(warning.find("share each GPU"), std::string::npos) << warning;
  } else {
    EXPECT_TRUE(warning.empty()) << warning;
  }
}

}  // namespace
}  // namespace foehn::petsc
