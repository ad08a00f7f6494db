// A user-defined operator (examples/user_operator: the Coriolis term, 3 x 3 blocks, compact
// element form), made assemblable by FOEHN_DEFINE_OPERATOR outside Foehn's include/, against a
// closed form computed here from tet volumes alone:
//   ∫ N_i N_j N_k = V/20 (i = j = k), V/60 (two equal), V/120 (all different),
// so for a P1 rotation field Ω the block (i, j) is 2 scale Σ_k Ω_k× ∫ N_i N_j N_k.
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <map>
#include <random>

#include "assembly_test_mesh.hpp"
#include "coriolis_operator.hpp"
#include "foehn/fe/cpu_assembler.hpp"
#include "foehn/fe/cuda_assembler.hpp"
#include "foehn/runtime/device.hpp"
#include "foehn/runtime/error.hpp"

namespace foehn::fe {
namespace {

using foehn_examples::CoriolisOperator;
using Block = std::array<double, 9>;

double tet_volume(const TetMesh& mesh, const Tet& t) {
  const Point3 &a = mesh.nodes[t[0]], &b = mesh.nodes[t[1]], &c = mesh.nodes[t[2]],
               &d = mesh.nodes[t[3]];
  const double u[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]};
  const double v[3] = {c[0] - a[0], c[1] - a[1], c[2] - a[2]};
  const double w[3] = {d[0] - a[0], d[1] - a[1], d[2] - a[2]};
  return std::abs(u[0] * (v[1] * w[2] - v[2] * w[1]) - u[1] * (v[0] * w[2] - v[2] * w[0]) +
                  u[2] * (v[0] * w[1] - v[1] * w[0])) /
         6.0;
}

// (Ω×)_{ac} = Σ_b ε_{abc} Ω_b.
Block cross_matrix(const double* omega) {
  return {0.0, -omega[2], omega[1], omega[2], 0.0, -omega[0], -omega[1], omega[0], 0.0};
}

// The closed-form global matrix, block by (row node, column node).
std::map<std::pair<int, int>, Block> closed_form(const TetMesh& mesh, const CoriolisOperator& op,
                                                 const std::vector<double>* nodal_rotation) {
  std::map<std::pair<int, int>, Block> blocks;
  for (const Tet& t : mesh.tets) {
    const double volume = tet_volume(mesh, t);
    for (int i = 0; i < 4; ++i)
      for (int j = 0; j < 4; ++j) {
        Block& block = blocks[{t[i], t[j]}];
        for (int k = 0; k < 4; ++k) {
          const bool ij = i == j, jk = j == k, ik = i == k;
          const double triple = (ij && jk)         ? volume / 20.0
                                : (ij || jk || ik) ? volume / 60.0
                                                   : volume / 120.0;
          // A uniform Ω is Σ_k N_k Ω: the same formula with Ω at every node.
          const double* omega = nodal_rotation ? &(*nodal_rotation)[t[k] * 3] : op.rotation;
          const Block cross = cross_matrix(omega);
          for (int e = 0; e < 9; ++e) block[e] += 2.0 * op.scale * triple * cross[e];
        }
      }
  }
  return blocks;
}

void expect_matches_closed_form(const TetMesh& mesh, const CoriolisOperator& op,
                                const std::vector<double>* nodal_rotation) {
  CpuAssembler cpu(mesh);
  BlockCsrMatrix matrix = cpu.create_matrix<CoriolisOperator>();
  std::vector<double> rhs(mesh.node_count() * 3, 1.0);
  cpu.assemble(op, matrix, rhs);
  for (double v : rhs) EXPECT_EQ(v, 0.0) << "the Coriolis term has no load vector";

  const auto expected = closed_form(mesh, op, nodal_rotation);
  double largest = 0.0;
  for (const auto& [key, block] : expected)
    for (double v : block) largest = std::max(largest, std::abs(v));
  const CsrPattern& p = *matrix.pattern;
  std::size_t compared = 0;
  for (std::int32_t row = 0; row < static_cast<std::int32_t>(mesh.node_count()); ++row)
    for (std::int32_t s = p.row_offsets[row]; s < p.row_offsets[row + 1]; ++s) {
      const auto found = expected.find({row, p.column_indices[s]});
      ASSERT_NE(found, expected.end());
      for (int e = 0; e < 9; ++e)
        ASSERT_NEAR(matrix.values[s * 9 + e], found->second[e], 1e-13 * largest)
            << "block (" << row << ", " << p.column_indices[s] << ") entry " << e;
      ++compared;
    }
  EXPECT_EQ(compared, expected.size());
}

TEST(UserOperator, UniformRotationMatchesTheClosedForm) {
  const TetMesh mesh = testing::small_mountain_mesh(5);
  CoriolisOperator op;
  op.scale = 1.5;
  op.rotation[0] = 1e-5;
  op.rotation[1] = -3e-5;
  op.rotation[2] = 7e-5;
  expect_matches_closed_form(mesh, op, nullptr);
}

TEST(UserOperator, NodalRotationFieldMatchesTheClosedForm) {
  const TetMesh mesh = testing::small_mountain_mesh(5);
  std::mt19937_64 random(11);
  std::uniform_real_distribution<double> value(-1e-4, 1e-4);
  std::vector<double> rotation(mesh.node_count() * 3);
  for (double& x : rotation) x = value(random);
  CoriolisOperator op;
  op.rotation_field = field_ref(rotation);
  expect_matches_closed_form(mesh, op, &rotation);
}

TEST(UserOperator, TheTermDoesNoWork) {
  // Skew-symmetric: u · C u = 0 for every u (checked to round-off of the sum's terms).
  const TetMesh mesh = testing::small_mountain_mesh(6);
  CpuAssembler cpu(mesh);
  BlockCsrMatrix matrix = cpu.create_matrix<CoriolisOperator>();
  cpu.assemble(CoriolisOperator{}, matrix);
  std::mt19937_64 random(5);
  std::uniform_real_distribution<double> value(-10.0, 10.0);
  std::vector<double> u(mesh.node_count() * 3);
  for (double& x : u) x = value(random);
  const CsrPattern& p = *matrix.pattern;
  double work = 0.0, magnitude = 0.0;
  for (std::int32_t row = 0; row < static_cast<std::int32_t>(mesh.node_count()); ++row)
    for (std::int32_t s = p.row_offsets[row]; s < p.row_offsets[row + 1]; ++s)
      for (int a = 0; a < 3; ++a)
        for (int c = 0; c < 3; ++c) {
          const double term =
              u[row * 3 + a] * matrix.values[s * 9 + a * 3 + c] * u[p.column_indices[s] * 3 + c];
          work += term;
          magnitude += std::abs(term);
        }
  EXPECT_LE(std::abs(work), 1e-13 * magnitude);
}

TEST(UserOperator, ItsFieldsAreCheckedLikeABuiltInOperatorsFields) {
  const TetMesh mesh = testing::small_mountain_mesh(4);
  CpuAssembler cpu(mesh);
  BlockCsrMatrix matrix = cpu.create_matrix<CoriolisOperator>();
  std::vector<double> too_short(mesh.node_count() * 3 - 1, 0.0);
  CoriolisOperator op;
  op.rotation_field = field_ref(too_short);
  try {
    cpu.assemble(op, matrix);
    FAIL() << "a rotation field of the wrong size was accepted";
  } catch (const Error& error) {
    EXPECT_NE(std::string(error.what()).find("coriolis operator: field rotation"),
              std::string::npos)
        << error.what();
  }
}

TEST(UserOperator, WithoutAGpuTheCudaBackendSaysWhy) {
  if (cuda_device_count() > 0) GTEST_SKIP() << "a GPU exists: tests/cuda runs this operator";
  const TetMesh mesh = testing::small_mountain_mesh(4);
  try {
    Stream stream;
    CudaAssembler gpu(mesh, stream);
    FAIL() << "a CUDA assembler was created without a GPU";
  } catch (const Error& error) {
    EXPECT_EQ(error.category(), ErrorCategory::unavailable) << error.what();
  }
}

}  // namespace
}  // namespace foehn::fe
