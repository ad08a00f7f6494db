// The CPU reference assembly of every operator against properties that hold for the exact
// operators, independently of how the code computes them.

#include <gtest/gtest.h>

#include <cmath>
#include <numeric>

#include "assembly_test_mesh.hpp"
#include "foehn/fe/cpu_assembler.hpp"
#include "foehn/mesh/geometry.hpp"
#include "foehn/mesh/statistics.hpp"

namespace foehn::fe {
namespace {

// Point3 arithmetic lives in foehn; the fe namespace's own operators would hide it.
using foehn::operator-;

class CpuAssembly : public ::testing::Test {
 protected:
  CpuAssembly() : mesh_(testing::small_mountain_mesh()), assembler_(mesh_) {}

  std::vector<double> apply(const BlockCsrMatrix& m, const std::vector<double>& x) const {
    std::vector<double> y(static_cast<std::size_t>(m.point_rows()));
    m.multiply(x, y);
    return y;
  }
  double max_abs(const std::vector<double>& v, const std::vector<bool>* only = nullptr,
                 int components = 1) const {
    double worst = 0.0;
    for (std::size_t k = 0; k < v.size(); ++k)
      if (!only || (*only)[k / components]) worst = std::max(worst, std::abs(v[k]));
    return worst;
  }
  double volume() const { return compute_statistics(mesh_).total_volume; }
  // Symmetric up to round-off relative to the largest entry.
  void expect_symmetric(const BlockCsrMatrix& m) const {
    const PointCsr csr = to_point_csr(m);
    double largest = 0.0, asymmetry = 0.0;
    for (std::int64_t i = 0; i < csr.rows; ++i)
      for (std::int64_t k = csr.row_offsets[i]; k < csr.row_offsets[i + 1]; ++k) {
        largest = std::max(largest, std::abs(csr.values[k]));
        asymmetry = std::max(asymmetry, std::abs(csr.values[k] - m.at(csr.column_indices[k], i)));
      }
    EXPECT_LE(asymmetry, 1e-13 * largest);
  }

  TetMesh mesh_;
  CpuAssembler assembler_;
};

TEST_F(CpuAssembly, MassMatrixSumsToTheMeshVolume) {
  BlockCsrMatrix m = assembler_.create_matrix<MassOperator>();
  assembler_.assemble(MassOperator{}, m);
  const double total = std::accumulate(m.values.begin(), m.values.end(), 0.0);
  EXPECT_NEAR(total / volume(), 1.0, 1e-13);
  expect_symmetric(m);
}

TEST_F(CpuAssembly, MassWithALinearCoefficientIntegratesItExactly) {
  // sum_ij ∫ c N_i N_j = ∫ c; for c = z, that is the volume times the mean height.
  const auto c = testing::nodal(mesh_, 1, [](const Point3& p, double* v) { v[0] = p[2]; });
  MassOperator op;
  op.coefficient = field_ref(c);
  BlockCsrMatrix m = assembler_.create_matrix<MassOperator>();
  assembler_.assemble(op, m);
  double integral_of_z = 0.0;  // ∫ z over each tet = volume x centroid height
  for (const Tet& t : mesh_.tets)
    integral_of_z += signed_volume(mesh_, t) *
                     (mesh_.nodes[t[0]][2] + mesh_.nodes[t[1]][2] + mesh_.nodes[t[2]][2] +
                      mesh_.nodes[t[3]][2]) /
                     4.0;
  EXPECT_NEAR(std::accumulate(m.values.begin(), m.values.end(), 0.0) / integral_of_z, 1.0, 1e-13);
}

TEST_F(CpuAssembly, LoadVectorIsTheMassMatrixTimesTheNodalSource) {
  const auto f = testing::nodal(mesh_, 1, [](const Point3& p, double* v) {
    v[0] = 1.0 + 1e-3 * p[0] - 2e-3 * p[1] + 5e-4 * p[2];
  });
  MassOperator op;
  op.source = field_ref(f);
  BlockCsrMatrix m = assembler_.create_matrix<MassOperator>();
  std::vector<double> rhs(mesh_.node_count());
  assembler_.assemble(op, m, rhs);
  const std::vector<double> mf = apply(m, f);
  for (std::size_t i = 0; i < rhs.size(); ++i) EXPECT_NEAR(rhs[i], mf[i], 1e-12 * std::abs(mf[i]));
}

TEST_F(CpuAssembly, StiffnessPassesThePatchTest) {
  // Constants and linear functions are annihilated on interior rows; rows sum to zero.
  BlockCsrMatrix k = assembler_.create_matrix<DiffusionOperator>();
  assembler_.assemble(DiffusionOperator{}, k);
  const auto interior = testing::interior_nodes(mesh_);
  const auto one = testing::nodal(mesh_, 1, [](const Point3&, double* v) { v[0] = 1.0; });
  const auto linear = testing::nodal(mesh_, 1, [](const Point3& p, double* v) {
    v[0] = 3.0 + 2e-3 * p[0] - 1e-3 * p[1] + 4e-3 * p[2];
  });
  const double scale = *std::max_element(k.values.begin(), k.values.end()) * 10.0;
  EXPECT_LE(max_abs(apply(k, one)), 1e-12 * scale);
  EXPECT_LE(max_abs(apply(k, linear), &interior), 1e-12 * scale);
  expect_symmetric(k);
}

TEST_F(CpuAssembly, IdentityTensorGivesTheLaplacianAndAnisotropyIsPatchExact) {
  const auto identity = testing::nodal(mesh_, 9, [](const Point3&, double* v) {
    for (int k = 0; k < 9; ++k) v[k] = (k % 4 == 0) ? 1.0 : 0.0;
  });
  DiffusionOperator with_tensor;
  with_tensor.tensor = field_ref(identity);
  BlockCsrMatrix a = assembler_.create_matrix<DiffusionOperator>();
  BlockCsrMatrix b = assembler_.create_matrix<DiffusionOperator>();
  assembler_.assemble(with_tensor, a);
  assembler_.assemble(DiffusionOperator{}, b);
  EXPECT_LE(relative_frobenius_difference(a, b), 1e-14);

  // A spatially varying anisotropic SPD tensor: linear functions still give zero interior rows
  // only when K is constant, so use a constant anisotropic K here.
  const auto anisotropic = testing::nodal(mesh_, 9, [](const Point3&, double* v) {
    const double k[9] = {4.0, 1.0, 0.5, 1.0, 3.0, 0.2, 0.5, 0.2, 0.1};
    std::copy(k, k + 9, v);
  });
  with_tensor.tensor = field_ref(anisotropic);
  assembler_.assemble(with_tensor, a);
  const auto linear = testing::nodal(
      mesh_, 1, [](const Point3& p, double* v) { v[0] = 2e-3 * p[0] + 1e-3 * p[1] - 3e-3 * p[2]; });
  const auto interior = testing::interior_nodes(mesh_);
  const double scale = *std::max_element(a.values.begin(), a.values.end()) * 10.0;
  EXPECT_LE(max_abs(apply(a, linear), &interior), 1e-12 * scale);
  expect_symmetric(a);
}

TEST_F(CpuAssembly, AdvectionRowsSumToZeroAndMatchAConstantGradient) {
  // A (x) = ∫ N_i u · ∇x = (u · g) ∫ N_i for a linear x = g · p and constant u.
  const double u0[3] = {10.0, -2.0, 0.5}, g[3] = {1e-3, 2e-3, -1e-3};
  const auto u =
      testing::nodal(mesh_, 3, [&](const Point3&, double* v) { std::copy(u0, u0 + 3, v); });
  AdvectionOperator op;
  op.velocity = field_ref(u);
  BlockCsrMatrix a = assembler_.create_matrix<AdvectionOperator>();
  assembler_.assemble(op, a);
  const auto one = testing::nodal(mesh_, 1, [](const Point3&, double* v) { v[0] = 1.0; });
  const auto linear = testing::nodal(mesh_, 1, [&](const Point3& p, double* v) {
    v[0] = g[0] * p[0] + g[1] * p[1] + g[2] * p[2];
  });
  BlockCsrMatrix m = assembler_.create_matrix<MassOperator>();
  assembler_.assemble(MassOperator{}, m);
  const std::vector<double> lumped = apply(m, one);  // ∫ N_i
  const double u_dot_g = u0[0] * g[0] + u0[1] * g[1] + u0[2] * g[2];
  const std::vector<double> ax = apply(a, linear);
  EXPECT_LE(max_abs(apply(a, one)), 1e-12 * max_abs(ax));
  for (std::size_t i = 0; i < ax.size(); ++i)
    EXPECT_NEAR(ax[i], u_dot_g * lumped[i], 1e-12 * std::abs(u_dot_g) * lumped[i] + 1e-9);
}

TEST_F(CpuAssembly, DivergenceOfALinearFieldIntegratesToTheBoundaryFlux) {
  // u = A p + c: sum_i (D u)_i = ∫ ∇·u = trace(A) V, and independently the outward flux
  // through the boundary triangles (exact with the centroid value for a linear u).
  const double a[3][3] = {{2e-3, 1e-3, 0.0}, {-1e-3, 5e-4, 3e-3}, {4e-4, 0.0, -1e-3}};
  auto velocity = [&](const Point3& p, double* v) {
    for (int r = 0; r < 3; ++r) v[r] = 1.0 + a[r][0] * p[0] + a[r][1] * p[1] + a[r][2] * p[2];
  };
  const auto u = testing::nodal(mesh_, 3, velocity);
  BlockCsrMatrix d = assembler_.create_matrix<DivergenceOperator>();
  assembler_.assemble(DivergenceOperator{}, d);
  const std::vector<double> du = apply(d, u);
  const double total = std::accumulate(du.begin(), du.end(), 0.0);

  double flux = 0.0;
  for (const Triangle& f : mesh_.boundary_faces) {
    const Point3 &p0 = mesh_.nodes[f[0]], &p1 = mesh_.nodes[f[1]], &p2 = mesh_.nodes[f[2]];
    const Point3 area_normal = foehn::cross(p1 - p0, p2 - p0);  // |.| = 2 area, outward
    Point3 centroid;
    for (int k = 0; k < 3; ++k) centroid[k] = (p0[k] + p1[k] + p2[k]) / 3.0;
    double uc[3];
    velocity(centroid, uc);
    flux += 0.5 * (uc[0] * area_normal[0] + uc[1] * area_normal[1] + uc[2] * area_normal[2]);
  }
  const double trace = a[0][0] + a[1][1] + a[2][2];
  EXPECT_NEAR(total / (trace * volume()), 1.0, 1e-12);
  EXPECT_NEAR(total / flux, 1.0, 1e-12);
}

TEST_F(CpuAssembly, StabilisationIsSymmetricAnnihilatesConstantsAndScalesWithLength) {
  BlockCsrMatrix p = assembler_.create_matrix<StabilisationOperator>();
  assembler_.assemble(StabilisationOperator{}, p);
  const auto one = testing::nodal(mesh_, 1, [](const Point3&, double* v) { v[0] = 1.0; });
  const double scale = *std::max_element(p.values.begin(), p.values.end());
  EXPECT_GT(scale, 0.0);
  EXPECT_LE(max_abs(apply(p, one)), 1e-12 * scale * 10);
  expect_symmetric(p);
  // ∫ ∇N·(h^2)∇N ~ h^3: doubling the mesh size multiplies the operator by 8.
  TetMesh doubled = mesh_;
  for (Point3& x : doubled.nodes)
    for (double& c : x) c *= 2.0;
  CpuAssembler big(doubled);
  BlockCsrMatrix q = big.create_matrix<StabilisationOperator>();
  big.assemble(StabilisationOperator{}, q);
  for (std::size_t k = 0; k < p.values.size(); ++k)
    EXPECT_NEAR(q.values[k], 8.0 * p.values[k], 1e-10 * scale);
}

TEST_F(CpuAssembly, MomentumViscousPartAnnihilatesRigidMotions) {
  // ∫ ∇v : (∇u + ∇uᵀ) = 0 for every v when u is a rigid motion (translation + rotation):
  // every row, boundary rows included, of the stress-divergence operator.
  MomentumOperator viscous;
  viscous.density_over_dt = 0.0;
  viscous.viscosity = 1.0;
  BlockCsrMatrix k = assembler_.create_matrix<MomentumOperator>();
  assembler_.assemble(viscous, k);
  const double omega[3] = {1e-3, -2e-3, 5e-4};
  const auto rigid = testing::nodal(mesh_, 3, [&](const Point3& p, double* v) {
    v[0] = 1.0 + omega[1] * p[2] - omega[2] * p[1];
    v[1] = -2.0 + omega[2] * p[0] - omega[0] * p[2];
    v[2] = 0.5 + omega[0] * p[1] - omega[1] * p[0];
  });
  const auto shear = testing::nodal(mesh_, 3, [](const Point3& p, double* v) {
    v[0] = 1e-3 * p[2];
    v[1] = 0.0;
    v[2] = 0.0;
  });
  const double response = max_abs(apply(k, shear));
  EXPECT_GT(response, 0.0);
  EXPECT_LE(max_abs(apply(k, rigid)), 1e-10 * response);
  expect_symmetric(k);
}

TEST_F(CpuAssembly, MomentumMassPartIsTheScalarMassOnEveryComponent) {
  MomentumOperator op;
  op.density_over_dt = 2.5;
  op.viscosity = 0.0;
  BlockCsrMatrix k = assembler_.create_matrix<MomentumOperator>();
  assembler_.assemble(op, k);
  BlockCsrMatrix m = assembler_.create_matrix<MassOperator>();
  assembler_.assemble(MassOperator{}, m);
  for (std::size_t slot = 0; slot < m.values.size(); ++slot)
    for (int r = 0; r < 3; ++r)
      for (int c = 0; c < 3; ++c)
        EXPECT_NEAR(k.values[slot * 9 + r * 3 + c], r == c ? 2.5 * m.values[slot] : 0.0,
                    1e-14 * std::abs(m.values[slot]));
}

TEST_F(CpuAssembly, AdvectionDiffusionCombinesItsParts) {
  const auto u = testing::nodal(mesh_, 3, [](const Point3& p, double* v) {
    v[0] = 10.0 + 1e-4 * p[2];
    v[1] = 1.0;
    v[2] = -0.5;
  });
  AdvectionDiffusionOperator combined;
  combined.inverse_dt = 0.1;
  combined.theta = 0.5;
  combined.velocity = field_ref(u);
  BlockCsrMatrix c = assembler_.create_matrix<AdvectionDiffusionOperator>();
  assembler_.assemble(combined, c);
  BlockCsrMatrix m = assembler_.create_matrix<MassOperator>();
  BlockCsrMatrix a = assembler_.create_matrix<AdvectionOperator>();
  BlockCsrMatrix k = assembler_.create_matrix<DiffusionOperator>();
  assembler_.assemble(MassOperator{}, m);
  AdvectionOperator advection;
  advection.velocity = field_ref(u);
  assembler_.assemble(advection, a);
  assembler_.assemble(DiffusionOperator{}, k);
  double worst = 0.0, largest = 0.0;
  for (std::size_t s = 0; s < c.values.size(); ++s) {
    const double expected = 0.1 * m.values[s] + 0.5 * (a.values[s] + k.values[s]);
    worst = std::max(worst, std::abs(c.values[s] - expected));
    largest = std::max(largest, std::abs(expected));
  }
  EXPECT_LE(worst, 1e-13 * largest);
}

TEST_F(CpuAssembly, SkewSymmetricAdvectionNeitherFeedsNorDrainsInteriorVariance) {
  // u = (10 + 1e-3 x, 1, 0): div u = 1e-3 everywhere. For v zero on the boundary, the plain
  // advective form gives v^T A v = -(1/2) div u v^T M v; the skew-symmetric form gives 0.
  constexpr double divergence = 1e-3;
  const auto u = testing::nodal(mesh_, 3, [](const Point3& p, double* v) {
    v[0] = 10.0 + divergence * p[0];
    v[1] = 1.0;
    v[2] = 0.0;
  });
  const std::vector<double> no_diffusion(9 * mesh_.node_count(), 0.0);
  std::vector<bool> on_boundary(mesh_.node_count(), false);
  for (const Triangle& face : mesh_.boundary_faces)
    for (const std::int32_t node : face) on_boundary[node] = true;
  std::vector<double> v(mesh_.node_count(), 0.0);
  for (std::size_t n = 0; n < v.size(); ++n)
    if (!on_boundary[n]) v[n] = std::sin(0.7 * static_cast<double>(n)) + 0.3;
  const auto quadratic_form = [&](bool skew) {
    AdvectionDiffusionOperator op;
    op.inverse_dt = 0.0;
    op.theta = 1.0;
    op.skew_symmetric = skew;
    op.velocity = field_ref(u);
    op.tensor = field_ref(no_diffusion);
    BlockCsrMatrix a = assembler_.create_matrix<AdvectionDiffusionOperator>();
    assembler_.assemble(op, a);
    const std::vector<double> av = apply(a, v);
    double sum = 0.0;
    for (std::size_t n = 0; n < v.size(); ++n) sum += v[n] * av[n];
    return sum;
  };
  BlockCsrMatrix m = assembler_.create_matrix<MassOperator>();
  assembler_.assemble(MassOperator{}, m);
  const std::vector<double> mv = apply(m, v);
  double mass_norm = 0.0;
  for (std::size_t n = 0; n < v.size(); ++n) mass_norm += v[n] * mv[n];
  const double plain = quadratic_form(false), skew = quadratic_form(true);
  EXPECT_NEAR(plain, -0.5 * divergence * mass_norm, 1e-9 * divergence * mass_norm);
  EXPECT_LE(std::abs(skew), 1e-9 * divergence * mass_norm);
}

TEST_F(CpuAssembly, AssemblyIsRepeatableAndOverwritesOldValues) {
  BlockCsrMatrix k = assembler_.create_matrix<DiffusionOperator>();
  assembler_.assemble(DiffusionOperator{}, k);
  const std::vector<double> first = k.values;
  for (double& v : k.values) v = std::nan("");
  assembler_.assemble(DiffusionOperator{}, k);
  EXPECT_EQ(k.values, first);
}

}  // namespace
}  // namespace foehn::fe
