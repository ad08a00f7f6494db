// Foehn's own edits of assembled values (fe/value_edits.hpp) against PETSc's: lumped terms
// added with ValueEdits::add_diagonal equal MatDiagonalSet(ADD_VALUES), and Dirichlet rows made
// by apply_constraints + constrain_rhs equal MatZeroRows (rows_only) and MatZeroRowsColumns
// (symmetric) on the unedited matrix, matrix entry for entry and right-hand side value for value.
#include <gtest/gtest.h>
#include <petscmat.h>

#include <random>

#include "foehn/fe/cpu_assembler.hpp"
#include "foehn/fe/value_edits.hpp"
#include "foehn/petsc/dirichlet.hpp"
#include "foehn/petsc/matrix_handoff.hpp"
#include "foehn/petsc/vector_handoff.hpp"
#include "support/error_category.hpp"
#include "unit/fe/assembly_test_mesh.hpp"

namespace foehn::petsc {
namespace {

#define EXPECT_INVALID_INPUT(action) \
  EXPECT_EQ(foehn::testing::category_of([&] { (void)(action); }), ErrorCategory::invalid_input)

std::vector<double> random_values(std::size_t count, double low, double high, unsigned seed) {
  std::mt19937_64 generator(seed);
  std::uniform_real_distribution<double> distribution(low, high);
  std::vector<double> values(count);
  for (double& v : values) v = distribution(generator);
  return values;
}

// max |a - b| over the entries of two matrices on the same pattern.
double max_difference(Mat a, Mat b) {
  Mat difference = nullptr;
  EXPECT_EQ(MatDuplicate(a, MAT_COPY_VALUES, &difference), 0);
  EXPECT_EQ(MatAXPY(difference, -1.0, b, SAME_NONZERO_PATTERN), 0);
  PetscReal norm = 0;
  EXPECT_EQ(MatNorm(difference, NORM_MAX, &norm), 0);
  MatDestroy(&difference);
  return norm;
}

std::vector<double> owned(const PetscVector& vector) {
  std::vector<double> values(vector.local_value_count());
  vector.get_owned_values(values);
  return values;
}

// Every `stride`-th point of the boundary nodes' components in `components` is constrained.
std::vector<std::uint8_t> boundary_points(const TetMesh& mesh, int block,
                                          std::vector<int> components) {
  const auto interior = fe::testing::interior_nodes(mesh);
  std::vector<std::uint8_t> mask(mesh.node_count() * block, 0);
  for (std::size_t n = 0; n < mesh.node_count(); ++n)
    if (!interior[n])
      for (const int c : components) mask[n * block + c] = 1;
  return mask;
}

std::vector<PetscInt> rows_of(const std::vector<std::uint8_t>& mask) {
  std::vector<PetscInt> rows;
  for (std::size_t p = 0; p < mask.size(); ++p)
    if (mask[p]) rows.push_back(static_cast<PetscInt>(p));
  return rows;
}

struct System {
  fe::BlockCsrMatrix matrix;
  std::vector<double> rhs;
};

// A non-symmetric transport matrix (random velocity) or the 3 x 3 momentum matrix.
template <class Op>
System assemble(const TetMesh& mesh, Op op) {
  fe::CpuAssembler assembler(mesh);
  System system{assembler.create_matrix<Op>(), {}};
  system.rhs = random_values(mesh.node_count() * Op::block_rows, -1, 1, 11);
  assembler.assemble(op, system.matrix);
  return system;
}

TEST(ValueEdits, RowsOnlyEqualPetscsMatDiagonalSetAndMatZeroRows) {
  const TetMesh mesh = fe::testing::small_mountain_mesh(5);
  const auto nodes = static_cast<std::int32_t>(mesh.node_count());
  const auto velocity = random_values(3 * mesh.node_count(), -10, 10, 3);
  fe::AdvectionDiffusionOperator transport;
  transport.inverse_dt = 0.05;
  transport.velocity = fe::field_ref(velocity);
  fe::MomentumOperator momentum;
  momentum.density_over_dt = 0.05;
  momentum.viscosity = 10;
  momentum.advecting_velocity = fe::field_ref(velocity);
  const System systems[] = {assemble(mesh, transport), assemble(mesh, momentum)};
  for (const System& system : systems) {
    const int block = system.matrix.block_rows;
    SCOPED_TRACE(block == 1 ? "scalar transport" : "3 x 3 momentum (w only at some nodes)");
    const std::vector<int> components = block == 1 ? std::vector<int>{0} : std::vector<int>{0, 2};
    const auto mask = boundary_points(mesh, block, components);
    const auto lumped = random_values(mesh.node_count() * block, 0, 3e6, 5);
    const auto g = random_values(mesh.node_count() * block, -2, 2, 7);
    const double diagonal = 4.5e7;
    const NodeNumbering numbering = serial_numbering(PETSC_COMM_SELF, nodes);
    MatrixHandoffOptions aij;
    aij.format = MatrixFormat::aij;

    // Foehn: edit the values, then hand them off.
    fe::ValueEdits edits(system.matrix.pattern, block, nodes);
    edits.constrain(mask, fe::ConstraintSymmetry::rows_only);
    fe::BlockCsrMatrix edited = system.matrix;
    edits.add_diagonal(edited.values, lumped);
    edits.apply_constraints(edited.values, diagonal);
    std::vector<double> rhs = system.rhs;
    edits.constrain_rhs(rhs, g, diagonal);
    PetscMatrix foehn(numbering, system.matrix.pattern, block, block, aij);
    foehn.set_values(edited);

    // PETSc: hand off, then MatDiagonalSet and MatZeroRows.
    PetscMatrix reference(numbering, system.matrix.pattern, block, block, aij);
    reference.set_values(system.matrix);
    PetscVector lumped_vec(numbering, block), g_vec(numbering, block), b(numbering, block);
    lumped_vec.set_values(lumped);
    g_vec.set_values(g);
    b.set_values(system.rhs);
    ASSERT_EQ(MatDiagonalSet(reference.mat(), lumped_vec.vec(), ADD_VALUES), 0);
    const auto rows = rows_of(mask);
    ASSERT_EQ(MatZeroRows(reference.mat(), static_cast<PetscInt>(rows.size()), rows.data(),
                          diagonal, g_vec.vec(), b.vec()),
              0);
    EXPECT_EQ(max_difference(foehn.mat(), reference.mat()), 0.0);
    EXPECT_EQ(rhs, owned(b));
  }
}

TEST(ValueEdits, SymmetricEqualsMatZeroRowsColumnsAndKeepsTheMatrixSymmetric) {
  const TetMesh mesh = fe::testing::small_mountain_mesh(5);
  const auto nodes = static_cast<std::int32_t>(mesh.node_count());
  const System system = assemble(mesh, fe::DiffusionOperator{});
  const auto mask = boundary_points(mesh, 1, {0});
  const auto g = random_values(mesh.node_count(), -2, 2, 9);
  const double diagonal = 123.0;
  const NodeNumbering numbering = serial_numbering(PETSC_COMM_SELF, nodes);

  fe::ValueEdits edits(system.matrix.pattern, 1, nodes);
  edits.constrain(mask, fe::ConstraintSymmetry::symmetric);
  std::vector<double> correction(mesh.node_count());
  edits.column_correction(system.matrix.values, g, correction);
  fe::BlockCsrMatrix edited = system.matrix;
  edits.apply_constraints(edited.values, diagonal);
  std::vector<double> rhs = system.rhs;
  for (std::size_t i = 0; i < rhs.size(); ++i) rhs[i] += correction[i];
  edits.constrain_rhs(rhs, g, diagonal);
  PetscMatrix foehn(numbering, system.matrix.pattern, 1, 1);
  foehn.set_values(edited);

  PetscMatrix reference(numbering, system.matrix.pattern, 1, 1);
  reference.set_values(system.matrix);
  PetscVector g_vec(numbering, 1), b(numbering, 1);
  g_vec.set_values(g);
  b.set_values(system.rhs);
  const auto rows = rows_of(mask);
  ASSERT_EQ(MatZeroRowsColumns(reference.mat(), static_cast<PetscInt>(rows.size()), rows.data(),
                               diagonal, g_vec.vec(), b.vec()),
            0);
  EXPECT_EQ(max_difference(foehn.mat(), reference.mat()), 0.0);
  // PETSc sums the removed columns' products in its own order: agreement to round-off.
  const auto expected = owned(b);
  double worst = 0, largest = 0;
  for (std::size_t i = 0; i < rhs.size(); ++i) {
    worst = std::max(worst, std::abs(rhs[i] - expected[i]));
    largest = std::max(largest, std::abs(expected[i]));
  }
  EXPECT_LE(worst, 1e-14 * largest);
  PetscReal norm = 0;
  ASSERT_EQ(MatNorm(foehn.mat(), NORM_MAX, &norm), 0);
  PetscBool symmetric = PETSC_FALSE;
  ASSERT_EQ(MatIsSymmetric(foehn.mat(), 1e-13 * norm, &symmetric), 0);
  EXPECT_TRUE(symmetric);
}

TEST(ValueEdits, GhostRowsAreZeroedAndOnlyOwnedRowsGetDiagonals) {
  // The last two nodes stand for ghosts: their constrained rows are zeroed without a diagonal,
  // and nothing is added to their diagonal (their owner does both).
  const TetMesh mesh = fe::testing::small_mountain_mesh(3);
  const auto nodes = static_cast<std::int32_t>(mesh.node_count());
  const System system = assemble(mesh, fe::MassOperator{});
  fe::ValueEdits edits(system.matrix.pattern, 1, nodes - 2);
  std::vector<std::uint8_t> mask(mesh.node_count(), 0);
  mask[0] = mask[static_cast<std::size_t>(nodes - 1)] = 1;
  edits.constrain(mask, fe::ConstraintSymmetry::rows_only);
  EXPECT_EQ(edits.owned_points(), static_cast<std::size_t>(nodes - 2));
  EXPECT_EQ(edits.owned_constrained_points(), std::vector<std::int64_t>{0});
  fe::BlockCsrMatrix edited = system.matrix;
  edits.add_diagonal(edited.values, std::vector<double>(nodes - 2, 1.0));
  edits.apply_constraints(edited.values, 7.0);
  const auto& pattern = *system.matrix.pattern;
  for (std::int32_t row = 0; row < nodes; ++row)
    for (std::int32_t slot = pattern.row_offsets[row]; slot < pattern.row_offsets[row + 1];
         ++slot) {
      const bool diagonal = pattern.column_indices[slot] == row;
      const double before = system.matrix.values[slot], after = edited.values[slot];
      if (row == 0)
        EXPECT_EQ(after, diagonal ? 7.0 : 0.0);
      else if (row == nodes - 1)
        EXPECT_EQ(after, 0.0);
      else if (row == nodes - 2)
        EXPECT_EQ(after, before);  // a ghost: no lumped term
      else
        EXPECT_EQ(after, diagonal ? before + 1.0 : before);
    }
}

TEST(ValueEdits, BadShapesAndSizesAreRejected) {
  const TetMesh mesh = fe::testing::small_mountain_mesh(3);
  const System system = assemble(mesh, fe::MassOperator{});
  const auto nodes = static_cast<std::int32_t>(mesh.node_count());
  EXPECT_INVALID_INPUT(fe::ValueEdits(system.matrix.pattern, 2, nodes));
  EXPECT_INVALID_INPUT(fe::ValueEdits(system.matrix.pattern, 1, nodes + 1));
  EXPECT_INVALID_INPUT(fe::ValueEdits(nullptr, 1, nodes));
  auto no_diagonal = std::make_shared<fe::CsrPattern>(fe::CsrPattern{2, 2, {0, 1, 2}, {1, 0}});
  EXPECT_INVALID_INPUT(fe::ValueEdits(no_diagonal, 1, 2));
  fe::ValueEdits edits(system.matrix.pattern, 1, nodes);
  EXPECT_INVALID_INPUT(
      edits.constrain(std::vector<std::uint8_t>(3, 0), fe::ConstraintSymmetry::rows_only));
  std::vector<double> short_values(system.matrix.values.size() - 1);
  EXPECT_INVALID_INPUT(edits.apply_constraints(short_values, 1.0));
  std::vector<double> values = system.matrix.values, correction(mesh.node_count());
  EXPECT_INVALID_INPUT(edits.column_correction(values, correction, correction));  // rows_only
}

}  // namespace
}  // namespace foehn::petsc
