// Element integrals against closed forms on random tetrahedra. With g_i = ∇λ_i (from face
// normals, fe_test_support.hpp) and |T| the volume (triple product):
//   ∫ N_i N_j = |T| (1 + δij) / 20        ∫ N_i = |T| / 4
//   ∫ N_i N_j N_k = |T| m / 120 with m = 1, 2, 6 for 3, 2, 1 distinct indices
//   ∫ ∇N_i · K ∇N_j = |T| g_i · K g_j  (constant K)

#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "fe_test_support.hpp"
#include "foehn/fe/block_operators.hpp"
#include "foehn/fe/integrals.hpp"
#include "foehn/fe/quadrature.hpp"
#include "foehn/fe/shape_functions.hpp"
#include "foehn/fe/transform.hpp"

namespace foehn::fe {
namespace {

using test::Mat33;
using test::Mat43;
using test::Vec3;
using Mat44 = Mat<4, 4>;

Mat<4, 3> reference_gradients(const Mat43& x) {
  Mat<4, 3> g{};
  for (int i = 0; i < 4; ++i) g.set_row(i, test::barycentric_gradient(x, i));
  return g;
}

double triple_integral(int i, int j, int k) {  // ∫ λi λj λk / |T|
  if (i == j && j == k) return 6.0 / 120.0;
  if (i == j || j == k || i == k) return 2.0 / 120.0;
  return 1.0 / 120.0;
}

template <class Rule>
class FeIntegrals : public ::testing::Test {};
// Rules exact for (at least) the degree-2 mass integrand.
using MassRules =
    ::testing::Types<TetStroud4, TetStroud5, TetVertexEdge11, TetKeast11, TetWalkington14>;
TYPED_TEST_SUITE(FeIntegrals, MassRules);

TYPED_TEST(FeIntegrals, MassMatrixOnRandomTets) {
  constexpr TypeParam rule{};
  constexpr int ngi = TypeParam::ngi;
  const Mat<ngi, 4> n = p1_shape_at_quad(rule);
  std::mt19937_64 rng(11);
  for (int trial = 0; trial < 50; ++trial) {
    const Mat43 x = test::random_tet(rng, 3.0, -5.0);
    const double vol = test::tet_volume(x);
    AffineGeometry<3, 4, ngi> g{};
    ASSERT_EQ(transform_to_physical(x, rule, g), TransformStatus::ok);
    const Mat44 m = shape_shape(n, g.detwei);
    const Vec<4> lumped = lumped_mass(n, g.detwei);
    for (int i = 0; i < 4; ++i) {
      double row = 0.0;
      for (int j = 0; j < 4; ++j) {
        EXPECT_NEAR(m(i, j), vol * (i == j ? 2.0 : 1.0) / 20.0, 1e-13 * vol);
        row += m(i, j);
      }
      EXPECT_NEAR(lumped[i], vol / 4.0, 1e-13 * vol);
      EXPECT_NEAR(lumped[i], row, 1e-13 * vol);
    }
  }
}

TYPED_TEST(FeIntegrals, AdvectionWithLinearVelocity) {
  // ∫ N_i (u · ∇N_j) with u = Σ_k u_k N_k (degree 2 integrand): Σ_k (∫N_i N_k) u_k · g_j.
  constexpr TypeParam rule{};
  constexpr int ngi = TypeParam::ngi;
  const Mat<ngi, 4> n = p1_shape_at_quad(rule);
  std::mt19937_64 rng(12);
  std::uniform_real_distribution<double> uu(-2.0, 2.0);
  for (int trial = 0; trial < 20; ++trial) {
    const Mat43 x = test::random_tet(rng);
    const double vol = test::tet_volume(x);
    const Mat<4, 3> grad = reference_gradients(x);
    Mat<4, 3> u_nodes{};
    for (int k = 0; k < 4; ++k)
      for (int d = 0; d < 3; ++d) u_nodes(k, d) = uu(rng);
    Array<Vec3, ngi> u_quad{};
    for (int gi = 0; gi < ngi; ++gi) u_quad[gi] = transpose_times(u_nodes, n.row(gi));
    AffineGeometry<3, 4, ngi> ga{};
    QuadGeometry<3, 4, ngi> gq{};
    ASSERT_EQ(transform_to_physical(x, rule, ga), TransformStatus::ok);
    ASSERT_EQ(transform_to_physical(x, rule, gq), TransformStatus::ok);
    const Mat44 aa = shape_vector_dot_dshape(n, u_quad, ga);
    const Mat44 aq = shape_vector_dot_dshape(n, u_quad, gq);
    double scale = 0.0;
    for (int i = 0; i < 4; ++i)
      for (int j = 0; j < 4; ++j) {
        double ref = 0.0;
        for (int k = 0; k < 4; ++k)
          ref += vol * (i == k ? 2.0 : 1.0) / 20.0 * dot(u_nodes.row(k), grad.row(j));
        scale = std::fmax(scale, std::fabs(ref));
        EXPECT_NEAR(aa(i, j), ref, 1e-12 * scale + 1e-14);
      }
    EXPECT_LT(test::max_abs_diff(aa, aq), 1e-13 * scale);
  }
}

template <class Rule>
void check_constant_coefficient_operators(std::mt19937_64& rng) {
  // Integrands of degree <= 1: any rule, including the centroid rule, is exact.
  constexpr Rule rule{};
  constexpr int ngi = Rule::ngi;
  const Mat<ngi, 4> n = p1_shape_at_quad(rule);
  std::uniform_real_distribution<double> uu(-1.0, 1.0);
  for (int trial = 0; trial < 20; ++trial) {
    const Mat43 x = test::random_tet(rng, 1.0, 3.0);
    const double vol = test::tet_volume(x);
    const Mat<4, 3> grad = reference_gradients(x);
    AffineGeometry<3, 4, ngi> ga{};
    QuadGeometry<3, 4, ngi> gq{};
    ASSERT_EQ(transform_to_physical(x, rule, ga), TransformStatus::ok);
    ASSERT_EQ(transform_to_physical(x, rule, gq), TransformStatus::ok);
    const Mat33 k = test::random_spd(rng, 0.01, 10.0);  // anisotropic
    const Mat44 laplace = dshape_dot_dshape(ga);
    const Mat44 laplace_q = dshape_dot_dshape(gq);
    const Mat44 kid = dshape_tensor_dshape(ga, uniform(Mat33::identity()));
    const Mat44 kid_q = dshape_tensor_dshape(gq, uniform(Mat33::identity()));
    const Mat44 ka = dshape_tensor_dshape(ga, uniform(k));
    const Mat44 kq = dshape_tensor_dshape(gq, [&](int) { return k; });
    const double lscale = test::max_abs(laplace);
    const double kscale = test::max_abs(ka);
    for (int i = 0; i < 4; ++i) {
      double row = 0.0, krow = 0.0;
      for (int j = 0; j < 4; ++j) {
        EXPECT_NEAR(laplace(i, j), vol * dot(grad.row(i), grad.row(j)), 1e-12 * lscale);
        EXPECT_NEAR(ka(i, j), vol * bilinear(grad.row(i), k, grad.row(j)), 1e-12 * kscale);
        EXPECT_DOUBLE_EQ(laplace(i, j), laplace(j, i));
        row += laplace(i, j);
        krow += ka(i, j);
      }
      EXPECT_NEAR(row, 0.0, 1e-13 * lscale);
      EXPECT_NEAR(krow, 0.0, 1e-13 * kscale);
    }
    EXPECT_LT(test::max_abs_diff(kid, laplace), 1e-13 * lscale);  // K = I is the Laplacian
    EXPECT_LT(test::max_abs_diff(kid_q, laplace), 1e-13 * lscale);
    EXPECT_LT(test::max_abs_diff(laplace_q, laplace), 1e-13 * lscale);
    EXPECT_LT(test::max_abs_diff(kq, ka), 1e-13 * kscale);

    // shape_dshape: c[d](i,j) = |T|/4 g_j[d]; constant u advection = c contracted with u.
    const ShapeDShape<4, 3> ca = shape_dshape(n, ga);
    const ShapeDShape<4, 3> cq = shape_dshape(n, gq);
    const Vec3 u{{uu(rng), uu(rng), uu(rng)}};
    const Mat44 adv = shape_vector_dot_dshape(n, uniform(u), ga);
    const Mat44 adv_q = shape_vector_dot_dshape(n, uniform(u), gq);
    for (int i = 0; i < 4; ++i) {
      double row = 0.0;
      for (int j = 0; j < 4; ++j) {
        const double gs = std::sqrt(norm2(grad.row(j)));
        for (int d = 0; d < 3; ++d) {
          EXPECT_NEAR(ca[d](i, j), vol / 4.0 * grad(j, d), 1e-13 * vol * gs);
          EXPECT_NEAR(cq[d](i, j), ca[d](i, j), 1e-13 * vol * gs);
        }
        EXPECT_NEAR(adv(i, j), vol / 4.0 * dot(u, grad.row(j)), 1e-12 * vol * gs);
        EXPECT_NEAR(adv_q(i, j), adv(i, j), 1e-12 * vol * gs);
        row += adv(i, j);
      }
      EXPECT_NEAR(row, 0.0, 1e-13 * test::max_abs(adv));  // Σ_j ∫ N_i u·∇N_j = 0
    }
  }
}

TEST(FeIntegrals, ConstantCoefficientOperatorsForEveryRule) {
  std::mt19937_64 rng(13);
  check_constant_coefficient_operators<TetCentroid1>(rng);
  check_constant_coefficient_operators<TetStroud4>(rng);
  check_constant_coefficient_operators<TetStroud5>(rng);
  check_constant_coefficient_operators<TetVertexEdge11>(rng);
  check_constant_coefficient_operators<TetKeast11>(rng);
  check_constant_coefficient_operators<TetWalkington14>(rng);
}

TEST(FeIntegrals, ReferenceTetStiffnessHandValues) {
  // ∇N = (-1,-1,-1), e1, e2, e3 and |T| = 1/6: K00 = 3/6, K0j = -1/6, Kjj = 1/6, else 0.
  const Mat43 x{{{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {0, 0, 1}}};
  AffineGeometry<3, 4, 1> g{};
  ASSERT_EQ(transform_to_physical(x, TetCentroid1{}, g), TransformStatus::ok);
  const Mat44 k = dshape_dot_dshape(g);
  const double e[4][4] = {{0.5, -1.0 / 6, -1.0 / 6, -1.0 / 6},
                          {-1.0 / 6, 1.0 / 6, 0, 0},
                          {-1.0 / 6, 0, 1.0 / 6, 0},
                          {-1.0 / 6, 0, 0, 1.0 / 6}};
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 4; ++j) EXPECT_NEAR(k(i, j), e[i][j], 1e-16);
  // Diffusion only along z: K = diag(0,0,1) couples node 0 and node 3 only.
  Mat33 kz{};
  kz(2, 2) = 1.0;
  const Mat44 dz = dshape_tensor_dshape(g, uniform(kz));
  EXPECT_NEAR(dz(0, 0), 1.0 / 6, 1e-16);
  EXPECT_NEAR(dz(0, 3), -1.0 / 6, 1e-16);
  EXPECT_NEAR(dz(3, 3), 1.0 / 6, 1e-16);
  EXPECT_EQ(dz(1, 1), 0.0);
  EXPECT_EQ(dz(1, 2), 0.0);
}

TEST(FeIntegrals, AnisotropicDiffusionIsRotationInvariant) {
  // Rotating the element by R and the tensor to R K Rᵀ leaves the element matrix unchanged.
  std::mt19937_64 rng(14);
  constexpr TetKeast11 rule{};
  for (int trial = 0; trial < 30; ++trial) {
    const Mat43 x = test::random_tet(rng);
    const Mat33 r = test::random_rotation(rng);
    const Vec3 shift{{1.0, -2.0, 3.0}};
    const Mat43 xr = test::transform_nodes(x, r, shift);
    const Mat33 k = test::random_spd(rng, 1e-3, 1.0);
    const Mat33 kr = r * k * transpose(r);
    AffineGeometry<3, 4, 11> g{}, gr{};
    ASSERT_EQ(transform_to_physical(x, rule, g), TransformStatus::ok);
    ASSERT_EQ(transform_to_physical(xr, rule, gr), TransformStatus::ok);
    const Mat44 a = dshape_tensor_dshape(g, uniform(k));
    const Mat44 b = dshape_tensor_dshape(gr, uniform(kr));
    EXPECT_LT(test::max_abs_diff(a, b), 1e-12 * test::max_abs(a));
  }
}

TEST(FeIntegrals, VariableCoefficientsAtQuadraturePoints) {
  // P1 coefficient c = Σ c_k N_k: ∫ c N_i N_j = Σ_k c_k |T| m(i,j,k)/120 (degree 3: rules with
  // degree >= 3), and a P1 tensor K: ∫ ∇N_i K ∇N_j = g_i · K̄ g_j |T|, K̄ = mean of nodal K.
  std::mt19937_64 rng(15);
  std::uniform_real_distribution<double> uc(0.5, 2.0);
  constexpr TetVertexEdge11 rule{};
  const Mat<11, 4> n = p1_shape_at_quad(rule);
  for (int trial = 0; trial < 20; ++trial) {
    const Mat43 x = test::random_tet(rng);
    const double vol = test::tet_volume(x);
    const Mat<4, 3> grad = reference_gradients(x);
    const Vec<4> c_nodes{{uc(rng), uc(rng), uc(rng), uc(rng)}};
    const Vec<11> c_quad = n * c_nodes;
    Array<Mat33, 4> k_nodes{};
    Mat33 k_mean{};
    for (int i = 0; i < 4; ++i) {
      k_nodes[i] = test::random_spd(rng, 0.1, 3.0);
      k_mean += 0.25 * k_nodes[i];
    }
    Array<Mat33, 11> k_quad{};
    for (int gi = 0; gi < 11; ++gi)
      for (int i = 0; i < 4; ++i) k_quad[gi] += n(gi, i) * k_nodes[i];
    AffineGeometry<3, 4, 11> ga{};
    QuadGeometry<3, 4, 11> gq{};
    ASSERT_EQ(transform_to_physical(x, rule, ga), TransformStatus::ok);
    ASSERT_EQ(transform_to_physical(x, rule, gq), TransformStatus::ok);
    const Mat44 m = shape_shape(n, ga.detwei, c_quad);
    const Vec<4> ml = lumped_mass(n, ga.detwei, c_quad);
    const Vec<4> rhs = shape_rhs(n, ga.detwei, c_quad);  // ∫ N_i c = Σ_k M0(i,k) c_k
    for (int i = 0; i < 4; ++i) {
      double row = 0.0, rhs_ref = 0.0;
      for (int j = 0; j < 4; ++j) {
        double ref = 0.0;
        for (int k = 0; k < 4; ++k) ref += c_nodes[k] * vol * triple_integral(i, j, k);
        EXPECT_NEAR(m(i, j), ref, 1e-13 * vol);
        row += m(i, j);
        rhs_ref += vol * (i == j ? 2.0 : 1.0) / 20.0 * c_nodes[j];
      }
      EXPECT_NEAR(ml[i], row, 1e-13 * vol);
      EXPECT_NEAR(rhs[i], rhs_ref, 1e-13 * vol);
    }
    const Mat44 ka = dshape_tensor_dshape(ga, k_quad);
    const Mat44 kq = dshape_tensor_dshape(gq, k_quad);
    const double kscale = test::max_abs(ka);
    for (int i = 0; i < 4; ++i)
      for (int j = 0; j < 4; ++j)
        EXPECT_NEAR(ka(i, j), vol * bilinear(grad.row(i), k_mean, grad.row(j)), 1e-12 * kscale);
    EXPECT_LT(test::max_abs_diff(ka, kq), 1e-13 * kscale);
    // Weighted Laplacian and coupling with a P1 coefficient: ∫ c = |T| mean(c).
    const double c_mean = 0.25 * (c_nodes[0] + c_nodes[1] + c_nodes[2] + c_nodes[3]);
    const Mat44 lc = dshape_dot_dshape(ga, c_quad);
    const Mat44 lcq = dshape_dot_dshape(gq, c_quad);
    EXPECT_LT(test::max_abs_diff(lc, c_mean * dshape_dot_dshape(ga)), 1e-13 * test::max_abs(lc));
    EXPECT_LT(test::max_abs_diff(lcq, lc), 1e-13 * test::max_abs(lc));
    const ShapeDShape<4, 3> cc = shape_dshape(n, ga, c_quad);
    const ShapeDShape<4, 3> ccq = shape_dshape(n, gq, c_quad);
    for (int d = 0; d < 3; ++d)
      for (int i = 0; i < 4; ++i)
        for (int j = 0; j < 4; ++j) {
          EXPECT_NEAR(cc[d](i, j), rhs[i] * grad(j, d), 1e-12 * vol * test::max_abs(grad));
          EXPECT_NEAR(ccq[d](i, j), cc[d](i, j), 1e-12 * vol * test::max_abs(grad));
        }
  }
}

TEST(FeBlockOperators, IdentityBlocksAndMomentumLayout) {
  std::mt19937_64 rng(16);
  const Mat43 x = test::random_tet(rng);
  constexpr TetStroud4 rule{};
  const Mat<4, 4> n = p1_shape_at_quad(rule);
  AffineGeometry<3, 4, 4> g{};
  ASSERT_EQ(transform_to_physical(x, rule, g), TransformStatus::ok);
  const Mat44 m = shape_shape(n, g.detwei);
  const Mat44 l = dshape_dot_dshape(g);
  const BlockMat<4, 3> e = expand_identity_blocks(m);
  const BlockMat<4, 3> mom = momentum_blocks(m, 2.0, l, 0.1);
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 4; ++j)
      for (int a = 0; a < 3; ++a)
        for (int b = 0; b < 3; ++b) {
          const int r = i * 3 + a, c = j * 3 + b;
          EXPECT_EQ(e(r, c), a == b ? m(i, j) : 0.0);
          EXPECT_DOUBLE_EQ(mom(r, c), a == b ? 2.0 * m(i, j) + 0.1 * l(i, j) : 0.0);
          EXPECT_EQ(block<3>(mom, i, j)(a, b), mom(r, c));
        }
}

TEST(FeBlockOperators, StressTransposeAndMixedCouplingBlocks) {
  std::mt19937_64 rng(17);
  const Mat43 x = test::random_tet(rng);
  const double vol = test::tet_volume(x);
  const Mat<4, 3> grad = reference_gradients(x);
  constexpr TetStroud4 rule{};
  const Mat<4, 4> n = p1_shape_at_quad(rule);
  AffineGeometry<3, 4, 4> ga{};
  QuadGeometry<3, 4, 4> gq{};
  ASSERT_EQ(transform_to_physical(x, rule, ga), TransformStatus::ok);
  ASSERT_EQ(transform_to_physical(x, rule, gq), TransformStatus::ok);
  const double mu = 0.7;
  const BlockMat<4, 3> s = dshape_transpose_dshape_blocks(ga, uniform(mu));
  const BlockMat<4, 3> sq = dshape_transpose_dshape_blocks(gq, uniform(mu));
  const Mat44 l = dshape_dot_dshape(ga);
  const double scale = vol * test::max_abs(grad) * test::max_abs(grad);
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 4; ++j) {
      double tr = 0.0;
      for (int a = 0; a < 3; ++a) {
        for (int b = 0; b < 3; ++b) {
          EXPECT_NEAR(s(i * 3 + a, j * 3 + b), mu * vol * grad(i, b) * grad(j, a), 1e-12 * scale);
          EXPECT_NEAR(sq(i * 3 + a, j * 3 + b), s(i * 3 + a, j * 3 + b), 1e-13 * scale);
        }
        tr += s(i * 3 + a, j * 3 + a);
      }
      EXPECT_NEAR(tr, mu * l(i, j), 1e-12 * scale);
    }
  const ShapeDShape<4, 3> c = shape_dshape(n, ga);
  const Mat<12, 4> gr = gradient_block(c);
  const Mat<4, 12> dv = divergence_block(c);
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 4; ++j)
      for (int a = 0; a < 3; ++a) {
        EXPECT_NEAR(gr(i * 3 + a, j), vol / 4.0 * grad(j, a), 1e-13 * scale);
        EXPECT_NEAR(dv(i, j * 3 + a), vol / 4.0 * grad(j, a), 1e-13 * scale);
      }
}

}  // namespace
}  // namespace foehn::fe
