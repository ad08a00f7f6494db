// solve_gauss<N>: residuals on random systems, pivoting on zero leading entries, singular input.

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>

#include "foehn/fe/dense_solve.hpp"

namespace foehn::fe {
namespace {

template <int N>
Mat<N, N> random_matrix(std::mt19937_64& rng, double diagonal_boost) {
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  Mat<N, N> a{};
  for (int i = 0; i < N; ++i)
    for (int j = 0; j < N; ++j) a(i, j) = u(rng);
  for (int i = 0; i < N; ++i) a(i, i) += diagonal_boost;
  return a;
}

template <int N>
double residual(const Mat<N, N>& a, const Vec<N>& x, const Vec<N>& b) {
  const Vec<N> r = a * x - b;
  double m = 0.0;
  for (int i = 0; i < N; ++i) m = std::fmax(m, std::fabs(r[i]));
  return m;
}

template <int N>
void check_random_systems(std::mt19937_64& rng) {
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  for (int trial = 0; trial < 200; ++trial) {
    // Half the systems diagonally boosted, half plain random (pivoting does the work there).
    const Mat<N, N> a = random_matrix<N>(rng, trial % 2 == 0 ? double(N) : 0.0);
    Vec<N> x_true{};
    for (int i = 0; i < N; ++i) x_true[i] = u(rng);
    const Vec<N> b = a * x_true;
    Vec<N> x{};
    ASSERT_TRUE(solve_gauss(a, b, x)) << "N=" << N << " trial " << trial;
    EXPECT_LE(residual(a, x, b), 1e-12) << "N=" << N << " trial " << trial;
  }
}

TEST(FeDenseSolve, RandomSystemsHaveSmallResiduals) {
  std::mt19937_64 rng(31);
  check_random_systems<1>(rng);
  check_random_systems<2>(rng);
  check_random_systems<3>(rng);
  check_random_systems<4>(rng);
  check_random_systems<5>(rng);
  check_random_systems<6>(rng);
  check_random_systems<8>(rng);
}

TEST(FeDenseSolve, WellConditioned6x6MatchesTheKnownSolution) {
  std::mt19937_64 rng(32);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  for (int trial = 0; trial < 500; ++trial) {
    const Mat<6, 6> a = random_matrix<6>(rng, 6.0);
    Vec<6> x_true{};
    for (int i = 0; i < 6; ++i) x_true[i] = u(rng);
    Vec<6> x{};
    ASSERT_TRUE(solve_gauss<6>(a, a * x_true, x));
    for (int i = 0; i < 6; ++i) EXPECT_NEAR(x[i], x_true[i], 1e-13);
  }
}

TEST(FeDenseSolve, ZeroLeadingEntriesNeedPivoting) {
  // The anti-diagonal matrix: every leading entry is zero, elimination without row exchanges
  // would divide by zero at the first step.
  Mat<6, 6> a{};
  for (int i = 0; i < 6; ++i) a(i, 5 - i) = double(i + 1);
  const Vec<6> b{{1.0, 2.0, 3.0, 4.0, 5.0, 6.0}};
  Vec<6> x{};
  ASSERT_TRUE(solve_gauss(a, b, x));
  for (int i = 0; i < 6; ++i) EXPECT_NEAR(x[5 - i], b[i] / double(i + 1), 1e-15);
  // A zero pivot that appears only after the first elimination step.
  const Mat<3, 3> c{{{1.0, 2.0, 3.0}, {2.0, 4.0, 7.0}, {1.0, 3.0, 4.0}}};
  const Vec<3> x_true{{1.0, -2.0, 0.5}};
  Vec<3> y{};
  ASSERT_TRUE(solve_gauss(c, c * x_true, y));
  for (int i = 0; i < 3; ++i) EXPECT_NEAR(y[i], x_true[i], 1e-14);
  // A permutation matrix.
  Mat<4, 4> p{};
  p(0, 2) = p(1, 0) = p(2, 3) = p(3, 1) = 1.0;
  const Vec<4> pb{{7.0, 8.0, 9.0, 10.0}};
  Vec<4> px{};
  ASSERT_TRUE(solve_gauss(p, pb, px));
  EXPECT_EQ(px[2], 7.0);
  EXPECT_EQ(px[0], 8.0);
  EXPECT_EQ(px[3], 9.0);
  EXPECT_EQ(px[1], 10.0);
}

TEST(FeDenseSolve, SingularMatricesAreReported) {
  std::mt19937_64 rng(33);
  Vec<6> x{};
  const Vec<6> b{{1, 1, 1, 1, 1, 1}};
  EXPECT_FALSE(solve_gauss(Mat<6, 6>::zero(), b, x));
  for (int trial = 0; trial < 100; ++trial) {
    Mat<6, 6> a = random_matrix<6>(rng, 0.0);
    // Row 4 = row 1 - 2 row 2 (rank 5), in random scale.
    const double scale = std::pow(10.0, double(trial % 21) - 10.0);
    for (int j = 0; j < 6; ++j) a(4, j) = a(1, j) - 2.0 * a(2, j);
    EXPECT_FALSE(solve_gauss(scale * a, b, x)) << "trial " << trial;
  }
  Mat<6, 6> z = random_matrix<6>(rng, 0.0);
  for (int i = 0; i < 6; ++i) z(i, 3) = 0.0;  // a zero column
  EXPECT_FALSE(solve_gauss(z, b, x));
  Mat<6, 6> n = random_matrix<6>(rng, 6.0);
  n(2, 4) = std::numeric_limits<double>::quiet_NaN();
  EXPECT_FALSE(solve_gauss(n, b, x));
}

TEST(FeDenseSolve, ScaleDoesNotChangeTheVerdict) {
  std::mt19937_64 rng(34);
  const Mat<6, 6> a = random_matrix<6>(rng, 6.0);
  const Vec<6> b{{1, 2, 3, 4, 5, 6}};
  for (double scale : {1e-150, 1e-8, 1.0, 1e8, 1e150}) {
    Vec<6> x{};
    ASSERT_TRUE(solve_gauss(scale * a, scale * b, x)) << scale;
    EXPECT_LE(residual(a, x, b), 1e-12) << scale;
  }
}

TEST(FeDenseSolve, MultipleRightHandSides) {
  std::mt19937_64 rng(35);
  const Mat<6, 6> a = random_matrix<6>(rng, 0.0);
  Mat<6, 3> x{};
  const Mat<6, 6> id = Mat<6, 6>::identity();
  Mat<6, 6> inv{};
  ASSERT_TRUE(solve_gauss(a, id, inv));
  const Mat<6, 6> prod = a * inv;
  for (int i = 0; i < 6; ++i)
    for (int j = 0; j < 6; ++j) EXPECT_NEAR(prod(i, j), i == j ? 1.0 : 0.0, 1e-12);
  Mat<6, 3> b{};
  for (int i = 0; i < 6; ++i)
    for (int j = 0; j < 3; ++j) b(i, j) = double(i - j);
  ASSERT_TRUE(solve_gauss(a, b, x));
  const Mat<6, 3> r = a * x;
  for (int i = 0; i < 6; ++i)
    for (int j = 0; j < 3; ++j) EXPECT_NEAR(r(i, j), b(i, j), 1e-12);
}

}  // namespace
}  // namespace foehn::fe
