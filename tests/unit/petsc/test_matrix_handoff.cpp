// Hand-off of assembled operators to PETSc on one rank: every path and format holds exactly
// Foehn's values (read back through PETSc's own accessors), values are refreshed without
// allocation, and bad use is rejected with clear errors.
#include <gtest/gtest.h>
#include <petscmat.h>

#include <cmath>
#include <random>

#include "foehn/fe/cpu_assembler.hpp"
#include "foehn/petsc/device_petsc.hpp"
#include "foehn/petsc/matrix_handoff.hpp"
#include "foehn/petsc/vector_handoff.hpp"
#include "handoff_test_support.hpp"
#include "support/error_category.hpp"
#include "unit/fe/assembly_test_mesh.hpp"

namespace foehn::petsc {
namespace {

using fe::testing::nodal;
using fe::testing::small_mountain_mesh;
using foehn::testing::category_of;

struct Assembled {
  fe::CpuAssembler assembler;
  fe::BlockCsrMatrix diffusion, momentum, divergence;
  std::vector<double> rhs;
};

Assembled assemble_all(const TetMesh& mesh) {
  Assembled a{fe::CpuAssembler(mesh), {}, {}, {}, {}};
  const auto kappa = nodal(mesh, 9, [](const Point3& x, double* k) {
    for (int i = 0; i < 9; ++i) k[i] = (i % 4 == 0) ? 1.0 + 1e-4 * x[0] * 1e-1 + 2.0 : 0.1;
  });
  const auto source =
      nodal(mesh, 1, [](const Point3& x, double* f) { f[0] = std::sin(1e-3 * x[0]); });
  const auto velocity = nodal(mesh, 3, [](const Point3& x, double* u) {
    u[0] = 10 + 1e-4 * x[2];
    u[1] = 1e-4 * x[0];
    u[2] = -0.5;
  });
  a.diffusion = a.assembler.create_matrix<fe::DiffusionOperator>();
  a.rhs.assign(a.assembler.node_count(), 0.0);
  fe::DiffusionOperator diffusion;
  diffusion.tensor = fe::field_ref(kappa);
  diffusion.source = fe::field_ref(source);
  a.assembler.assemble(diffusion, a.diffusion, a.rhs);
  a.momentum = a.assembler.create_matrix<fe::MomentumOperator>();
  fe::MomentumOperator momentum;
  momentum.advecting_velocity = fe::field_ref(velocity);
  a.assembler.assemble(momentum, a.momentum);
  a.divergence = a.assembler.create_matrix<fe::DivergenceOperator>();
  a.assembler.assemble(fe::DivergenceOperator{}, a.divergence);
  return a;
}

class MatrixHandoffTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    mesh_ = new TetMesh(small_mountain_mesh(5));
    assembled_ = new Assembled(assemble_all(*mesh_));
  }
  static void TearDownTestSuite() {
    delete assembled_;
    delete mesh_;
  }
  static NodeNumbering numbering() {
    return serial_numbering(PETSC_COMM_SELF, static_cast<std::int32_t>(mesh_->node_count()));
  }
  static double scale_of(const fe::BlockCsrMatrix& m) {
    double s = 0;
    for (double v : m.values) s = std::max(s, std::abs(v));
    return s;
  }
  static TetMesh* mesh_;
  static Assembled* assembled_;
};
TetMesh* MatrixHandoffTest::mesh_ = nullptr;
Assembled* MatrixHandoffTest::assembled_ = nullptr;

TEST_F(MatrixHandoffTest, ScalarOperatorBecomesSeqAijWithFoehnsValues) {
  const auto& k = assembled_->diffusion;
  PetscMatrix matrix(numbering(), k.pattern, 1, 1);
  EXPECT_EQ(matrix.path(), HandoffPath::seq_array);
  EXPECT_EQ(matrix.format(), MatrixFormat::aij);
  matrix.set_values(k);
  MatType type = nullptr;
  ASSERT_EQ(MatGetType(matrix.mat(), &type), 0);
  EXPECT_STREQ(type, MATSEQAIJ);
  EXPECT_EQ(testing::max_entry_difference(matrix.mat(), k), 0.0);
}

TEST_F(MatrixHandoffTest, MomentumBecomesSeqBaijWithColumnMajorBlocksHandled) {
  const auto& m = assembled_->momentum;
  PetscMatrix matrix(numbering(), m.pattern, 3, 3);
  EXPECT_EQ(matrix.format(), MatrixFormat::baij);
  matrix.set_values(m);
  MatType type = nullptr;
  ASSERT_EQ(MatGetType(matrix.mat(), &type), 0);
  EXPECT_STREQ(type, MATSEQBAIJ);
  PetscInt block_size = 0;
  ASSERT_EQ(MatGetBlockSize(matrix.mat(), &block_size), 0);
  EXPECT_EQ(block_size, 3);
  // The momentum operator is not symmetric within a block: a transposed block would show.
  EXPECT_EQ(testing::max_entry_difference(matrix.mat(), m), 0.0);
}

TEST_F(MatrixHandoffTest, MomentumAsAijAndDivergenceAsRectangularAij) {
  MatrixHandoffOptions aij;
  aij.format = MatrixFormat::aij;
  PetscMatrix momentum(numbering(), assembled_->momentum.pattern, 3, 3, aij);
  momentum.set_values(assembled_->momentum);
  EXPECT_EQ(testing::max_entry_difference(momentum.mat(), assembled_->momentum), 0.0);

  PetscMatrix divergence(numbering(), assembled_->divergence.pattern, 1, 3);
  divergence.set_values(assembled_->divergence);
  PetscInt rows = 0, columns = 0;
  ASSERT_EQ(MatGetSize(divergence.mat(), &rows, &columns), 0);
  EXPECT_EQ(rows, static_cast<PetscInt>(mesh_->node_count()));
  EXPECT_EQ(columns, static_cast<PetscInt>(3 * mesh_->node_count()));
  EXPECT_EQ(testing::max_entry_difference(divergence.mat(), assembled_->divergence), 0.0);
}

TEST_F(MatrixHandoffTest, CooPathOnOneRankEqualsArrayPath) {
  for (const auto* m : {&assembled_->diffusion, &assembled_->momentum, &assembled_->divergence}) {
    MatrixHandoffOptions coo;
    coo.path = HandoffPath::coo;
    PetscMatrix by_coo(numbering(), m->pattern, m->block_rows, m->block_cols, coo);
    by_coo.set_values(*m);
    EXPECT_EQ(testing::max_entry_difference(by_coo.mat(), *m), 0.0);
  }
}

TEST_F(MatrixHandoffTest, ProductWithPetscMatchesFoehnsProduct) {
  const auto& m = assembled_->momentum;
  PetscMatrix matrix(numbering(), m.pattern, 3, 3);
  matrix.set_values(m);
  std::mt19937_64 random(7);
  std::uniform_real_distribution<double> uniform(-1, 1);
  std::vector<double> x(m.point_cols()), y(m.point_rows());
  for (double& v : x) v = uniform(random);
  m.multiply(x, y);
  Vec px = nullptr, py = nullptr;
  ASSERT_EQ(MatCreateVecs(matrix.mat(), &px, &py), 0);
  PetscScalar* a = nullptr;
  ASSERT_EQ(VecGetArray(px, &a), 0);
  std::copy(x.begin(), x.end(), a);
  ASSERT_EQ(VecRestoreArray(px, &a), 0);
  ASSERT_EQ(MatMult(matrix.mat(), px, py), 0);
  const PetscScalar* b = nullptr;
  ASSERT_EQ(VecGetArrayRead(py, &b), 0);
  double worst = 0, norm = 0;
  for (std::size_t i = 0; i < y.size(); ++i) {
    worst = std::max(worst, std::abs(b[i] - y[i]));
    norm = std::max(norm, std::abs(y[i]));
  }
  ASSERT_EQ(VecRestoreArrayRead(py, &b), 0);
  VecDestroy(&px);
  VecDestroy(&py);
  EXPECT_LE(worst, 1e-13 * norm);
}

TEST_F(MatrixHandoffTest, RefreshingValuesAllocatesNothingAndRaisesTheState) {
  fe::BlockCsrMatrix m = assembled_->momentum;
  for (const MatrixFormat format : {MatrixFormat::aij, MatrixFormat::baij}) {
    MatrixHandoffOptions options;
    options.format = format;
    PetscMatrix matrix(numbering(), m.pattern, 3, 3, options);
    matrix.set_values(m);
    PetscObjectState before = 0, after = 0;
    ASSERT_EQ(PetscObjectStateGet(reinterpret_cast<PetscObject>(matrix.mat()), &before), 0);
    for (double& v : m.values) v *= 2;
    matrix.set_values(m);
    ASSERT_EQ(PetscObjectStateGet(reinterpret_cast<PetscObject>(matrix.mat()), &after), 0);
    EXPECT_GT(after, before) << "solvers would not see the new values";
    MatInfo info;
    ASSERT_EQ(MatGetInfo(matrix.mat(), MAT_LOCAL, &info), 0);
    EXPECT_EQ(info.mallocs, 0.0);
    EXPECT_EQ(testing::max_entry_difference(matrix.mat(), m), 0.0);
    for (double& v : m.values) v /= 2;
  }
}

TEST_F(MatrixHandoffTest, RightHandSideVector) {
  PetscVector rhs(numbering(), 1);
  rhs.set_values(assembled_->rhs);
  std::vector<double> back(mesh_->node_count());
  rhs.get_owned_values(back);
  EXPECT_EQ(back, assembled_->rhs);
  PetscInt block = 0;
  ASSERT_EQ(VecGetBlockSize(rhs.vec(), &block), 0);
  EXPECT_EQ(block, 1);
  EXPECT_EQ(category_of([&] { rhs.set_values(std::vector<double>(3)); }),
            ErrorCategory::invalid_input);
  EXPECT_EQ(category_of([&] { PetscVector(numbering(), 2); }), ErrorCategory::invalid_input);
}

TEST_F(MatrixHandoffTest, BadUseIsRejectedWithClearErrors) {
  const auto& k = assembled_->diffusion;
  PetscMatrix matrix(numbering(), k.pattern, 1, 1);
  try {
    matrix.set_values(std::vector<double>(k.values.size() - 1));
    ADD_FAILURE() << "a short value array was accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.category(), ErrorCategory::invalid_input);
    EXPECT_NE(std::string(e.what()).find(std::to_string(k.values.size())), std::string::npos)
        << e.what();
  }
  EXPECT_EQ(category_of([&] { PetscMatrix(numbering(), nullptr, 1, 1); }),
            ErrorCategory::invalid_input);
  EXPECT_EQ(
      category_of([&] { PetscMatrix(serial_numbering(PETSC_COMM_SELF, 3), k.pattern, 1, 1); }),
      ErrorCategory::invalid_input);
  MatrixHandoffOptions baij;
  baij.format = MatrixFormat::baij;
  EXPECT_EQ(category_of([&] { PetscMatrix(numbering(), k.pattern, 1, 3, baij); }),
            ErrorCategory::invalid_input);
  EXPECT_EQ(category_of([&] { PetscMatrix(numbering(), k.pattern, 4, 4); }),
            ErrorCategory::invalid_input);
  MatrixHandoffOptions device;
  device.device_matrix = true;
  if (!device_solves_available()) {  // a PETSc without CUDA (or Foehn without its backend)
    EXPECT_EQ(category_of([&] { PetscMatrix(numbering(), k.pattern, 1, 1, device); }),
              ErrorCategory::unavailable);
    EXPECT_EQ(category_of([&] { PetscVector(numbering(), 1, true); }), ErrorCategory::unavailable);
  }
  device.format = MatrixFormat::baij;  // no block matrices on the GPU, whatever the build
  if (device_solves_available()) {
    EXPECT_EQ(
        category_of([&] { PetscMatrix(numbering(), assembled_->momentum.pattern, 3, 3, device); }),
        ErrorCategory::invalid_input);
  }
  EXPECT_EQ(category_of([&] { serial_numbering(PETSC_COMM_SELF, -1); }),
            ErrorCategory::invalid_input);
}

TEST_F(MatrixHandoffTest, OptionsDatabaseChoosesFormatAndPath) {
  ASSERT_EQ(PetscOptionsSetValue(nullptr, "-momentum_foehn_mat_format", "aij"), 0);
  ASSERT_EQ(PetscOptionsSetValue(nullptr, "-momentum_foehn_handoff", "coo"), 0);
  const MatrixHandoffOptions options =
      matrix_handoff_options_from_database(PETSC_COMM_SELF, "momentum_");
  EXPECT_EQ(options.format, MatrixFormat::aij);
  EXPECT_EQ(options.path, HandoffPath::coo);
  const MatrixHandoffOptions other =
      matrix_handoff_options_from_database(PETSC_COMM_SELF, "theta_");
  EXPECT_EQ(other.format, MatrixFormat::automatic);
  EXPECT_EQ(other.path, HandoffPath::automatic);
  ASSERT_EQ(PetscOptionsSetValue(nullptr, "-momentum_foehn_mat_format", "csr"), 0);
  EXPECT_EQ(category_of([] { matrix_handoff_options_from_database(PETSC_COMM_SELF, "momentum_"); }),
            ErrorCategory::invalid_input);
  ASSERT_EQ(PetscOptionsClearValue(nullptr, "-momentum_foehn_mat_format"), 0);
  ASSERT_EQ(PetscOptionsClearValue(nullptr, "-momentum_foehn_handoff"), 0);
}

}  // namespace
}  // namespace foehn::petsc
