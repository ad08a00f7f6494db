// Vec / Mat value types: arithmetic against hand-computed values.

#include <gtest/gtest.h>

#include "foehn/fe/small_matrix.hpp"

namespace foehn::fe {
namespace {

using Vec3 = Vec<3>;
using Mat33 = Mat<3, 3>;

TEST(FeSmallMatrix, VectorArithmetic) {
  const Vec3 a{{1.0, 2.0, 3.0}};
  const Vec3 b{{-4.0, 0.5, 2.0}};
  const Vec3 s = a + b;
  EXPECT_DOUBLE_EQ(s[0], -3.0);
  EXPECT_DOUBLE_EQ(s[2], 5.0);
  const Vec3 d = a - b;
  EXPECT_DOUBLE_EQ(d[1], 1.5);
  EXPECT_DOUBLE_EQ((2.0 * a)[2], 6.0);
  EXPECT_DOUBLE_EQ((a * 0.5)[1], 1.0);
  EXPECT_DOUBLE_EQ(dot(a, b), -4.0 + 1.0 + 6.0);
  const Vec3 c = cross(a, b);  // (2*2-3*0.5, 3*(-4)-1*2, 1*0.5-2*(-4))
  EXPECT_DOUBLE_EQ(c[0], 2.5);
  EXPECT_DOUBLE_EQ(c[1], -14.0);
  EXPECT_DOUBLE_EQ(c[2], 8.5);
  EXPECT_DOUBLE_EQ(norm2(a), 14.0);
  Vec3 acc = Vec3::zero();
  acc += a;
  acc -= b;
  acc *= 2.0;
  EXPECT_DOUBLE_EQ(acc[0], 10.0);
  EXPECT_DOUBLE_EQ(Vec<4>::filled(7.0)(3), 7.0);
  EXPECT_DOUBLE_EQ((-a)[1], -2.0);
}

TEST(FeSmallMatrix, MatrixProductsAndTranspose) {
  const Mat<2, 3> a{{{1.0, 2.0, 3.0}, {4.0, 5.0, 6.0}}};
  const Mat<3, 2> b{{{7.0, 8.0}, {9.0, 10.0}, {11.0, 12.0}}};
  const Mat<2, 2> ab = a * b;
  EXPECT_DOUBLE_EQ(ab(0, 0), 58.0);
  EXPECT_DOUBLE_EQ(ab(0, 1), 64.0);
  EXPECT_DOUBLE_EQ(ab(1, 0), 139.0);
  EXPECT_DOUBLE_EQ(ab(1, 1), 154.0);
  const Vec3 x{{1.0, 0.0, -1.0}};
  const Vec<2> ax = a * x;
  EXPECT_DOUBLE_EQ(ax[0], -2.0);
  EXPECT_DOUBLE_EQ(ax[1], -2.0);
  const Vec<2> y{{1.0, 1.0}};
  const Vec3 aty = transpose_times(a, y);
  EXPECT_DOUBLE_EQ(aty[0], 5.0);
  EXPECT_DOUBLE_EQ(aty[2], 9.0);
  const Mat<3, 2> at = transpose(a);
  EXPECT_DOUBLE_EQ(at(2, 1), 6.0);
  const Mat<2, 3> o = outer(y, x);
  EXPECT_DOUBLE_EQ(o(1, 2), -1.0);
  EXPECT_DOUBLE_EQ(bilinear(y, a, x), -4.0);
  EXPECT_DOUBLE_EQ(a.row(1)[2], 6.0);
  EXPECT_DOUBLE_EQ(a.col(1)[1], 5.0);
  EXPECT_DOUBLE_EQ(frobenius2(a), 91.0);
  const Mat<2, 3> sum = a + a - 0.5 * a;
  EXPECT_DOUBLE_EQ(sum(1, 1), 7.5);
}

TEST(FeSmallMatrix, DeterminantAndInverse3x3) {
  const Mat33 a{{{2.0, -1.0, 0.0}, {-1.0, 2.0, -1.0}, {0.0, -1.0, 2.0}}};
  EXPECT_DOUBLE_EQ(determinant(a), 4.0);
  EXPECT_DOUBLE_EQ(trace(a), 6.0);
  Mat33 inv{};
  double det = 0.0;
  ASSERT_TRUE(inverse(a, inv, &det));
  EXPECT_DOUBLE_EQ(det, 4.0);
  // Hand inverse: (1/4) [[3,2,1],[2,4,2],[1,2,3]]
  const double expected[3][3] = {{0.75, 0.5, 0.25}, {0.5, 1.0, 0.5}, {0.25, 0.5, 0.75}};
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) EXPECT_NEAR(inv(i, j), expected[i][j], 1e-15);
  const Mat33 id = a * inv;
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) EXPECT_NEAR(id(i, j), i == j ? 1.0 : 0.0, 1e-15);
  // A non-symmetric one: adj(A) A = det(A) I.
  const Mat33 b{{{1.0, 2.0, 3.0}, {0.0, 1.0, 4.0}, {5.0, 6.0, 0.0}}};
  EXPECT_DOUBLE_EQ(determinant(b), 1.0);
  const Mat33 adj_b = adjugate(b) * b;
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) EXPECT_NEAR(adj_b(i, j), i == j ? 1.0 : 0.0, 1e-14);
  const Mat33 singular{{{1.0, 2.0, 3.0}, {2.0, 4.0, 6.0}, {1.0, 0.0, 1.0}}};
  Mat33 untouched = Mat33::identity();
  EXPECT_FALSE(inverse(singular, untouched));
  EXPECT_DOUBLE_EQ(untouched(0, 0), 1.0);
}

TEST(FeSmallMatrix, DeterminantAndInverseSmall) {
  const Mat<2, 2> a{{{3.0, 1.0}, {2.0, 4.0}}};
  EXPECT_DOUBLE_EQ(determinant(a), 10.0);
  Mat<2, 2> inv{};
  ASSERT_TRUE(inverse(a, inv));
  EXPECT_DOUBLE_EQ(inv(0, 0), 0.4);
  EXPECT_DOUBLE_EQ(inv(0, 1), -0.1);
  const Mat<1, 1> s{{{4.0}}};
  Mat<1, 1> sinv{};
  ASSERT_TRUE(inverse(s, sinv));
  EXPECT_DOUBLE_EQ(sinv(0, 0), 0.25);
}

TEST(FeSmallMatrix, FloatScalarType) {
  const Mat<2, 2, float> a{{{1.0f, 2.0f}, {3.0f, 4.0f}}};
  EXPECT_FLOAT_EQ(determinant(a), -2.0f);
  EXPECT_FLOAT_EQ(machine_epsilon<float>(), 1.1920929e-7f);
  EXPECT_DOUBLE_EQ(machine_epsilon<double>(), 2.220446049250313e-16);
}

TEST(FeSmallMatrix, ArrayAndUniformProviders) {
  Array<Mat33, 2> a{};
  a[1] = Mat33::identity();
  EXPECT_DOUBLE_EQ(a(1)(2, 2), 1.0);
  const auto u = uniform(3.5);
  EXPECT_DOUBLE_EQ(u(0), 3.5);
  EXPECT_DOUBLE_EQ(u(10), 3.5);
}

}  // namespace
}  // namespace foehn::fe
