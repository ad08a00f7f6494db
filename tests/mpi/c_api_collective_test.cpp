// mpiexec -n 2, 3: the C ABI's collective calls (foehn_matrix_create, foehn_assemble_into) with
// an argument that is wrong on one rank only: every rank returns the same error status with a
// message naming the rank and the input, instead of the others waiting forever in PETSc (what
// a field one value short or an rhs Vec sized with the halo did). Library misuse on one rank
// only too: a NULL, destroyed or wrong-kind handle, a Vec or a never-created (Fortran %v -2) Mat
// passed as the Mat, a Mat of another size on rank 1 alone (named as rank 1's). A watchdog turns
// a hang into a failure. After the refused calls, the same handles still assemble correctly on
// every rank.
#include <gtest/gtest.h>
#include <petscvec.h>
#include <unistd.h>

#include <cstdint>
#include <string>
#include <vector>

#include "foehn/foehn_petsc.h"
#include "foehn/mesh/mountain.hpp"
#include "foehn/petsc/distributed_mesh.hpp"
#include "support/mpi_test_support.hpp"

namespace foehn::petsc {
namespace {

using foehn::testing::world;
using foehn::testing::world_rank;

int world_size() {
  int size = 0;
  MPI_Comm_size(world(), &size);
  return size;
}

// The caller's arrays of one rank's part (Foehn's own partition, handed back through the C ABI
// as a user's partition would be).
struct CallerPart {
  std::vector<double> xyz;
  std::vector<std::int64_t> ids, tets;
  std::int64_t owned = 0;
};

CallerPart caller_part() {
  TetMesh whole;
  if (world_rank() == 0) {
    MountainMeshOptions options;
    options.cells_x = 6;
    options.cells_y = 4;
    options.cells_z = 3;
    whole = generate_mountain_mesh(options);
  }
  const DistributedMesh mesh = distribute_mesh(world(), world_rank() == 0 ? &whole : nullptr);
  CallerPart part;
  for (const Point3& p : mesh.local.nodes) part.xyz.insert(part.xyz.end(), p.begin(), p.end());
  part.ids = mesh.global_of_local;
  for (const Tet& t : mesh.local.tets)
    for (int k = 0; k < 4; ++k) part.tets.push_back(t[k]);
  part.owned = mesh.owned_nodes;
  return part;
}

class CApiCollective : public ::testing::Test {
 protected:
  void SetUp() override {
    alarm(120);  // a hang fails the test instead of CI's time limit
    part_ = caller_part();
    ASSERT_EQ(foehn_mesh_create_partitioned(world(), static_cast<int64_t>(part_.ids.size()),
                                            part_.owned, part_.xyz.data(), part_.ids.data(),
                                            static_cast<int64_t>(part_.tets.size() / 4),
                                            part_.tets.data(), 8, 0, FOEHN_ORIENTATION_FIX, &mesh_),
              FOEHN_SUCCESS)
        << foehn_last_error();
    ASSERT_EQ(foehn_assembler_create(mesh_, "cpu", nullptr, &assembler_), FOEHN_SUCCESS)
        << foehn_last_error();
    ASSERT_EQ(foehn_operator_create("advection", &op_), FOEHN_SUCCESS);
    velocity_.assign(part_.ids.size() * 3, 0.0);
    for (std::size_t n = 0; n < part_.ids.size(); ++n)
      velocity_[3 * n] = 10.0 + part_.xyz[3 * n + 2];
  }
  void TearDown() override {
    foehn_matrix_destroy(&matrix_);
    foehn_operator_destroy(&op_);
    foehn_assembler_destroy(&assembler_);
    foehn_mesh_destroy(&mesh_);
    alarm(0);
  }

  // Every rank got `status`, and the message names the failing rank and `needle`.
  static void expect_everywhere(foehn_status status, foehn_status expected,
                                const std::string& needle) {
    int mine = static_cast<int>(status), lowest = 0, highest = 0;
    MPI_Allreduce(&mine, &lowest, 1, MPI_INT, MPI_MIN, world());
    MPI_Allreduce(&mine, &highest, 1, MPI_INT, MPI_MAX, world());
    EXPECT_EQ(lowest, static_cast<int>(expected)) << foehn_last_error();
    EXPECT_EQ(highest, static_cast<int>(expected)) << foehn_last_error();
    const std::string message = foehn_last_error();
    EXPECT_NE(message.find("rank 1 of " + std::to_string(world_size())), std::string::npos)
        << message;
    EXPECT_NE(message.find(needle), std::string::npos) << message;
  }

  int64_t owned_rows() const { return part_.owned; }

  CallerPart part_;
  foehn_mesh mesh_ = nullptr;
  foehn_assembler assembler_ = nullptr;
  foehn_operator op_ = nullptr;
  foehn_matrix matrix_ = nullptr;
  std::vector<double> velocity_;
};

TEST_F(CApiCollective, AFieldOneValueShortOnOneRankFailsOnEveryRank) {
  ASSERT_EQ(foehn_matrix_create(mesh_, assembler_, op_, nullptr, &matrix_), FOEHN_SUCCESS)
      << foehn_last_error();
  const int64_t short_by = world_rank() == 1 ? 1 : 0;
  ASSERT_EQ(foehn_operator_set_field(op_, "velocity", velocity_.data(),
                                     static_cast<int64_t>(velocity_.size()) - short_by),
            FOEHN_SUCCESS);
  expect_everywhere(foehn_assemble_into(matrix_, op_, FOEHN_MEMORY_HOST, nullptr),
                    FOEHN_ERROR_INVALID_INPUT, "velocity");
  // The same handles, every field whole: the hand-off works on every rank.
  ASSERT_EQ(foehn_operator_set_field(op_, "velocity", velocity_.data(),
                                     static_cast<int64_t>(velocity_.size())),
            FOEHN_SUCCESS);
  EXPECT_EQ(foehn_assemble_into(matrix_, op_, FOEHN_MEMORY_HOST, nullptr), FOEHN_SUCCESS)
      << foehn_last_error();
  Mat mat = nullptr;
  ASSERT_EQ(foehn_matrix_get_mat(matrix_, &mat), FOEHN_SUCCESS);
  PetscReal norm = 0;
  ASSERT_EQ(MatNorm(mat, NORM_FROBENIUS, &norm), 0);
  EXPECT_GT(norm, 0.0);
}

TEST_F(CApiCollective, AnRhsVecWithTheHaloOnOneRankFailsOnEveryRank) {
  ASSERT_EQ(foehn_operator_set_field(op_, "velocity", velocity_.data(),
                                     static_cast<int64_t>(velocity_.size())),
            FOEHN_SUCCESS);
  ASSERT_EQ(foehn_matrix_create(mesh_, assembler_, op_, nullptr, &matrix_), FOEHN_SUCCESS)
      << foehn_last_error();
  const PetscInt local = world_rank() == 1 ? static_cast<PetscInt>(part_.ids.size())
                                           : static_cast<PetscInt>(owned_rows());
  Vec rhs = nullptr;
  ASSERT_EQ(VecCreateMPI(world(), local, PETSC_DETERMINE, &rhs), 0);
  expect_everywhere(foehn_assemble_into(matrix_, op_, FOEHN_MEMORY_HOST, rhs),
                    FOEHN_ERROR_INVALID_INPUT, "rhs Vec");
  VecDestroy(&rhs);
}

TEST_F(CApiCollective, ACallersMatOfTheWrongSizeOnOneRankFailsOnEveryRank) {
  // Rank 1 gives one row too many, rank 0 one too few: the global size still matches.
  PetscInt local = static_cast<PetscInt>(owned_rows());
  if (world_rank() == 0) local -= 1;
  if (world_rank() == 1) local += 1;
  Mat mat = nullptr;
  ASSERT_EQ(MatCreate(world(), &mat), 0);
  ASSERT_EQ(MatSetSizes(mat, local, local, PETSC_DETERMINE, PETSC_DETERMINE), 0);
  ASSERT_EQ(MatSetType(mat, MATAIJ), 0);
  const foehn_status status = foehn_matrix_create(mesh_, assembler_, op_, mat, &matrix_);
  int mine = static_cast<int>(status), highest = 0, lowest = 0;
  MPI_Allreduce(&mine, &lowest, 1, MPI_INT, MPI_MIN, world());
  MPI_Allreduce(&mine, &highest, 1, MPI_INT, MPI_MAX, world());
  EXPECT_EQ(lowest, static_cast<int>(FOEHN_ERROR_INVALID_INPUT)) << foehn_last_error();
  EXPECT_EQ(highest, static_cast<int>(FOEHN_ERROR_INVALID_INPUT)) << foehn_last_error();
  EXPECT_NE(std::string(foehn_last_error()).find("caller's Mat"), std::string::npos)
      << foehn_last_error();
  EXPECT_EQ(matrix_, nullptr);
  MatDestroy(&mat);
}

TEST_F(CApiCollective, AnAssemblerOfAnotherMeshOnOneRankFailsOnEveryRank) {
  // Rank 1 passes no assembler at all.
  const foehn_status status =
      foehn_matrix_create(mesh_, world_rank() == 1 ? nullptr : assembler_, op_, nullptr, &matrix_);
  expect_everywhere(status, FOEHN_ERROR_INVALID_INPUT, "assembler");
  EXPECT_EQ(matrix_, nullptr);
}

// A caller's AIJ Mat on every rank, `extra_rows` more rows than this rank owns.
Mat caller_mat(PetscInt owned, PetscInt extra_rows) {
  Mat mat = nullptr;
  EXPECT_EQ(MatCreate(world(), &mat), 0);
  EXPECT_EQ(
      MatSetSizes(mat, owned + extra_rows, owned + extra_rows, PETSC_DETERMINE, PETSC_DETERMINE),
      0);
  EXPECT_EQ(MatSetType(mat, MATAIJ), 0);
  return mat;
}

TEST_F(CApiCollective, ADestroyedMatrixOnOneRankFailsOnEveryRank) {
  ASSERT_EQ(foehn_operator_set_field(op_, "velocity", velocity_.data(),
                                     static_cast<int64_t>(velocity_.size())),
            FOEHN_SUCCESS);
  ASSERT_EQ(foehn_matrix_create(mesh_, assembler_, op_, nullptr, &matrix_), FOEHN_SUCCESS)
      << foehn_last_error();
  foehn_matrix passed = matrix_;
  if (world_rank() == 1) {
    ASSERT_EQ(foehn_matrix_destroy(&matrix_), FOEHN_SUCCESS);
  }
  // Rank 1 used to return at once while the others waited in PETSc forever.
  expect_everywhere(foehn_assemble_into(passed, op_, FOEHN_MEMORY_HOST, nullptr),
                    FOEHN_ERROR_INVALID_INPUT,
                    "matrix is not a live foehn_matrix handle: destroyed");
}

TEST_F(CApiCollective, ANullMatrixOnOneRankFailsOnEveryRank) {
  ASSERT_EQ(foehn_operator_set_field(op_, "velocity", velocity_.data(),
                                     static_cast<int64_t>(velocity_.size())),
            FOEHN_SUCCESS);
  ASSERT_EQ(foehn_matrix_create(mesh_, assembler_, op_, nullptr, &matrix_), FOEHN_SUCCESS)
      << foehn_last_error();
  // Nothing names the communicator on rank 1: the one of the live partitioned mesh is taken.
  expect_everywhere(
      foehn_assemble_into(world_rank() == 1 ? nullptr : matrix_, op_, FOEHN_MEMORY_HOST, nullptr),
      FOEHN_ERROR_INVALID_INPUT, "matrix is NULL");
}

TEST_F(CApiCollective, AnAssemblerPassedAsTheMeshOnOneRankFailsOnEveryRank) {
  const foehn_mesh mesh = world_rank() == 1 ? reinterpret_cast<foehn_mesh>(assembler_) : mesh_;
  expect_everywhere(foehn_matrix_create(mesh, assembler_, op_, nullptr, &matrix_),
                    FOEHN_ERROR_INVALID_INPUT,
                    "mesh is a foehn_assembler handle where a foehn_mesh is expected");
  EXPECT_EQ(matrix_, nullptr);
}

TEST_F(CApiCollective, AVecPassedAsTheMatOnOneRankFailsOnEveryRank) {
  Mat mat = caller_mat(static_cast<PetscInt>(owned_rows()), 0);
  Vec vec = nullptr;
  ASSERT_EQ(VecCreateMPI(world(), static_cast<PetscInt>(owned_rows()), PETSC_DETERMINE, &vec), 0);
  const Mat passed = world_rank() == 1 ? reinterpret_cast<Mat>(vec) : mat;
  expect_everywhere(foehn_matrix_create(mesh_, assembler_, op_, passed, &matrix_),
                    FOEHN_ERROR_INVALID_INPUT, "mat is a PETSc Vec where a Mat is expected");
  EXPECT_EQ(matrix_, nullptr);
  VecDestroy(&vec);
  MatDestroy(&mat);
}

TEST_F(CApiCollective, AFortranMatNeverCreatedOnOneRankFailsOnEveryRank) {
  Mat mat = caller_mat(static_cast<PetscInt>(owned_rows()), 0);
  // A Fortran `Mat :: A` before MatCreate has A%v = -2 (PETSC_FORTRAN_TYPE_INITIALIZE).
  const Mat never_created = reinterpret_cast<Mat>(std::intptr_t{-2});
  const Mat passed = world_rank() == 1 ? never_created : mat;
  expect_everywhere(foehn_matrix_create_f(mesh_, assembler_, op_, &passed, &matrix_),
                    FOEHN_ERROR_INVALID_INPUT, "its %v is -2");
  EXPECT_EQ(matrix_, nullptr);
  MatDestroy(&mat);
}

TEST_F(CApiCollective, AMatOfTheWrongSizeOnRankOneAloneIsNamedAsRankOnes) {
  // Only rank 1 is wrong (one row too many); the global size is then wrong on every rank, but
  // the error is rank 1's local size, not rank 0's view of the total.
  Mat mat = caller_mat(static_cast<PetscInt>(owned_rows()), world_rank() == 1 ? 1 : 0);
  long long rank_one_rows = owned_rows() + 1;  // what rank 1's message says, known everywhere
  MPI_Bcast(&rank_one_rows, 1, MPI_LONG_LONG, 1, world());
  expect_everywhere(foehn_matrix_create(mesh_, assembler_, op_, mat, &matrix_),
                    FOEHN_ERROR_INVALID_INPUT,
                    "the caller's Mat is " + std::to_string(rank_one_rows) + " x " +
                        std::to_string(rank_one_rows) + " on this rank");
  EXPECT_EQ(matrix_, nullptr);
  MatDestroy(&mat);
}

}  // namespace
}  // namespace foehn::petsc
