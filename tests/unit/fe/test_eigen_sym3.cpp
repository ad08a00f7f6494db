// Symmetric 3x3 eigen-decomposition, iterative (Jacobi) and analytic, on matrices with a known
// decomposition A = Q diag(λ) Qᵀ built from random rotations Q.

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <random>

#include "fe_test_support.hpp"
#include "foehn/fe/eigen_sym3.hpp"

namespace foehn::fe {
namespace {

using test::Mat33;
using test::Vec3;

enum class Method { jacobi, analytic };

bool decompose(Method m, const Sym3<>& a, EigenSym3<>& e) {
  return m == Method::jacobi ? eigen_sym3_jacobi(a, e) : eigen_sym3_analytic(a, e);
}

Sym3<> compose(const Mat33& q, const std::array<double, 3>& lambda) {
  Mat33 d{};
  for (int k = 0; k < 3; ++k) d(k, k) = lambda[k];
  return Sym3<>::from_mat(q * d * transpose(q));
}

// Checks that e is a valid decomposition of a with the expected eigenvalues (any order in the
// input): sorted values, A v = λ v, orthonormal V with det +1.
void expect_valid(const Sym3<>& a, const EigenSym3<>& e, std::array<double, 3> lambda, double tol) {
  std::sort(lambda.begin(), lambda.end());
  const double scale = std::max(std::fabs(lambda[0]), std::fabs(lambda[2]));
  EXPECT_LE(e.values[0], e.values[1]);
  EXPECT_LE(e.values[1], e.values[2]);
  for (int k = 0; k < 3; ++k) EXPECT_NEAR(e.values[k], lambda[k], tol * scale) << "k=" << k;
  const Mat33 am = a.to_mat();
  for (int k = 0; k < 3; ++k) {
    const Vec3 v = e.vectors.col(k);
    const Vec3 r = am * v - e.values[k] * v;
    EXPECT_LE(std::sqrt(norm2(r)), tol * scale) << "residual of pair " << k;
  }
  const Mat33 vtv = transpose(e.vectors) * e.vectors;
  EXPECT_LT(test::max_abs_diff(vtv, Mat33::identity()), 1e-14);
  EXPECT_NEAR(determinant(e.vectors), 1.0, 1e-14);
  const Sym3<> back = eigen_compose(e);
  EXPECT_LT(test::max_abs_diff(back.to_mat(), am), tol * scale);
}

class FeEigenSym3 : public ::testing::TestWithParam<Method> {};

TEST_P(FeEigenSym3, RandomRotationsDistinctEigenvalues) {
  std::mt19937_64 rng(41);
  std::uniform_real_distribution<double> u(-10.0, 10.0);
  for (int trial = 0; trial < 500; ++trial) {
    const Mat33 q = test::random_rotation(rng);
    std::array<double, 3> lambda{u(rng), u(rng), u(rng)};
    const Sym3<> a = compose(q, lambda);
    EigenSym3<> e{};
    ASSERT_TRUE(decompose(GetParam(), a, e));
    expect_valid(a, e, lambda, 1e-13);
    // Well separated eigenvalues: the eigenvectors are the columns of Q up to sign.
    std::array<int, 3> order{0, 1, 2};
    std::sort(order.begin(), order.end(), [&](int i, int j) { return lambda[i] < lambda[j]; });
    const double gap = std::min(std::fabs(lambda[order[1]] - lambda[order[0]]),
                                std::fabs(lambda[order[2]] - lambda[order[1]]));
    if (gap > 0.1) {
      for (int k = 0; k < 3; ++k)
        EXPECT_NEAR(std::fabs(dot(e.vectors.col(k), q.col(order[k]))), 1.0, 1e-11);
    }
  }
}

TEST_P(FeEigenSym3, RepeatedEigenvalues) {
  std::mt19937_64 rng(42);
  for (int trial = 0; trial < 200; ++trial) {
    const Mat33 q = test::random_rotation(rng);
    for (const std::array<double, 3>& lambda :
         {std::array<double, 3>{2.0, 2.0, 5.0}, std::array<double, 3>{-1.0, 3.0, 3.0},
          std::array<double, 3>{4.0, -7.0, 4.0}, std::array<double, 3>{1e-3, 1e-3, 1.0},
          std::array<double, 3>{3.0, 3.0, 3.0}, std::array<double, 3>{0.0, 0.0, 1.0},
          std::array<double, 3>{0.0, 0.0, 0.0}}) {
      const Sym3<> a = compose(q, lambda);
      EigenSym3<> e{};
      ASSERT_TRUE(decompose(GetParam(), a, e));
      if (lambda[0] == 0.0 && lambda[2] == 0.0) {
        for (int k = 0; k < 3; ++k) EXPECT_EQ(e.values[k], 0.0);
        continue;
      }
      expect_valid(a, e, lambda, 1e-13);
    }
  }
}

TEST_P(FeEigenSym3, CloseEigenvalues) {
  // Gaps from 1 down to 1e-13 |A|: the trigonometric eigenvalues of a close pair are only
  // accurate to eps |A|² / gap, so this checks that the vectors and values do not inherit that.
  std::mt19937_64 rng(46);
  for (int trial = 0; trial < 2000; ++trial) {
    const Mat33 q = test::random_rotation(rng);
    const double g = std::pow(10.0, -double(trial % 14));
    const std::array<double, 3> cases[3] = {
        {1.0, 1.0 + g, 5.0}, {-3.0, 2.0, 2.0 + g}, {-1.0, -1.0 + g, -1.0 + 2.0 * g}};
    const std::array<double, 3>& lambda = cases[trial % 3];
    const Sym3<> a = compose(q, lambda);
    EigenSym3<> e{};
    ASSERT_TRUE(decompose(GetParam(), a, e));
    expect_valid(a, e, lambda, 1e-14);
  }
}

TEST_P(FeEigenSym3, DiagonalMatrices) {
  const Sym3<> a{3.0, -1.0, 2.0, 0.0, 0.0, 0.0};
  EigenSym3<> e{};
  ASSERT_TRUE(decompose(GetParam(), a, e));
  EXPECT_EQ(e.values[0], -1.0);
  EXPECT_EQ(e.values[1], 2.0);
  EXPECT_EQ(e.values[2], 3.0);
  // Eigenvectors are the coordinate axes y, z, x (up to sign).
  EXPECT_EQ(std::fabs(e.vectors(1, 0)), 1.0);
  EXPECT_EQ(std::fabs(e.vectors(2, 1)), 1.0);
  EXPECT_EQ(std::fabs(e.vectors(0, 2)), 1.0);
  expect_valid(a, e, {3.0, -1.0, 2.0}, 1e-15);
  const Sym3<> id{5.0, 5.0, 5.0, 0.0, 0.0, 0.0};
  ASSERT_TRUE(decompose(GetParam(), id, e));
  expect_valid(id, e, {5.0, 5.0, 5.0}, 1e-15);
}

TEST_P(FeEigenSym3, NearlyDiagonalMatrices) {
  // Off-diagonal δ = 1e-9 on a diagonal with gaps of O(1): eigenvalues move by O(δ²) = 1e-18,
  // far below the tolerance, so the diagonal is the reference.
  std::mt19937_64 rng(43);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  for (int trial = 0; trial < 100; ++trial) {
    const double d0 = 1.0 + 0.1 * u(rng), d1 = 3.0 + 0.1 * u(rng), d2 = -2.0 + 0.1 * u(rng);
    const Sym3<> a{d0, d1, d2, 1e-9 * u(rng), 1e-9 * u(rng), 1e-9 * u(rng)};
    EigenSym3<> e{};
    ASSERT_TRUE(decompose(GetParam(), a, e));
    expect_valid(a, e, {d0, d1, d2}, 1e-14);
    EXPECT_NEAR(std::fabs(e.vectors(2, 0)), 1.0, 1e-15);  // λ0 = d2 along z
    EXPECT_NEAR(std::fabs(e.vectors(1, 2)), 1.0, 1e-15);  // λ2 = d1 along y
  }
  // Nearly a multiple of the identity.
  const Sym3<> b{2.0, 2.0 + 1e-12, 2.0 - 1e-12, 1e-13, -1e-13, 2e-13};
  EigenSym3<> e{};
  ASSERT_TRUE(decompose(GetParam(), b, e));
  for (int k = 0; k < 3; ++k) EXPECT_NEAR(e.values[k], 2.0, 1e-11);
  const Mat33 vtv = transpose(e.vectors) * e.vectors;
  EXPECT_LT(test::max_abs_diff(vtv, Mat33::identity()), 1e-14);
}

TEST_P(FeEigenSym3, ExtremeScales) {
  std::mt19937_64 rng(44);
  const Mat33 q = test::random_rotation(rng);
  for (double s : {1e-150, 1e-20, 1e20, 1e150}) {
    const std::array<double, 3> lambda{1.0 * s, 2.0 * s, -0.5 * s};
    const Sym3<> a = compose(q, lambda);
    EigenSym3<> e{};
    ASSERT_TRUE(decompose(GetParam(), a, e)) << s;
    expect_valid(a, e, lambda, 1e-13);
  }
}

TEST_P(FeEigenSym3, NonFiniteInputIsReported) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  EigenSym3<> e{};
  EXPECT_FALSE(decompose(GetParam(), Sym3<>{1.0, 2.0, 3.0, nan, 0.0, 0.0}, e));
  EXPECT_FALSE(decompose(GetParam(), Sym3<>{nan, 2.0, 3.0, 0.5, 0.0, 0.0}, e));
}

INSTANTIATE_TEST_SUITE_P(Methods, FeEigenSym3, ::testing::Values(Method::jacobi, Method::analytic),
                         [](const ::testing::TestParamInfo<Method>& info) {
                           return info.param == Method::jacobi ? std::string("Jacobi")
                                                               : std::string("Analytic");
                         });

TEST(FeEigenSym3Compare, JacobiAndAnalyticAgree) {
  std::mt19937_64 rng(45);
  for (int trial = 0; trial < 200; ++trial) {
    const Mat33 k = test::random_spd(rng, 1e-3, 1e3);
    const Sym3<> a = Sym3<>::from_mat(k);
    EigenSym3<> ej{}, ea{};
    ASSERT_TRUE(eigen_sym3_jacobi(a, ej));
    ASSERT_TRUE(eigen_sym3_analytic(a, ea));
    for (int i = 0; i < 3; ++i) EXPECT_NEAR(ej.values[i], ea.values[i], 1e-12 * ej.values[2]);
  }
}

}  // namespace
}  // namespace foehn::fe
