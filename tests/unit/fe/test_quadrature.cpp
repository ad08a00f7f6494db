// Quadrature rules on the reference tetrahedron: every monomial x^a y^b z^c up to the stated
// degree is integrated exactly (reference value a! b! c! / (a+b+c+3)!), and some monomial of
// degree + 1 is not (so the stated degree is the true one).

#include <gtest/gtest.h>

#include <cmath>

#include "foehn/fe/quadrature.hpp"

namespace foehn::fe {
namespace {

double factorial(int n) {
  double f = 1.0;
  for (int k = 2; k <= n; ++k) f *= k;
  return f;
}

double exact_monomial(int a, int b, int c) {
  return factorial(a) * factorial(b) * factorial(c) / factorial(a + b + c + 3);
}

template <class Rule>
double integrate_monomial(const Rule& rule, int a, int b, int c) {
  double s = 0.0;
  for (int gi = 0; gi < Rule::ngi; ++gi)
    s += rule.weight[gi] * std::pow(rule.point[gi][0], a) * std::pow(rule.point[gi][1], b) *
         std::pow(rule.point[gi][2], c);
  return s;
}

// Largest relative error over all monomials of total degree `degree`.
template <class Rule>
double max_relative_error(const Rule& rule, int degree) {
  double worst = 0.0;
  for (int a = 0; a <= degree; ++a)
    for (int b = 0; b <= degree - a; ++b) {
      const int c = degree - a - b;
      const double exact = exact_monomial(a, b, c);
      worst = std::fmax(worst, std::fabs(integrate_monomial(rule, a, b, c) - exact) / exact);
    }
  return worst;
}

template <class Rule>
class TetQuadrature : public ::testing::Test {};

using Rules = ::testing::Types<TetCentroid1, TetStroud4, TetStroud5, TetVertexEdge11, TetKeast11,
                               TetWalkington14>;
TYPED_TEST_SUITE(TetQuadrature, Rules);

TYPED_TEST(TetQuadrature, WeightsSumToReferenceVolume) {
  constexpr TypeParam rule{};
  double s = 0.0;
  for (int gi = 0; gi < TypeParam::ngi; ++gi) s += rule.weight[gi];
  EXPECT_NEAR(s, 1.0 / 6.0, 1e-15);
}

TYPED_TEST(TetQuadrature, PointsLieInTheReferenceTetrahedron) {
  constexpr TypeParam rule{};
  for (int gi = 0; gi < TypeParam::ngi; ++gi) {
    const double* p = rule.point[gi];
    EXPECT_GE(p[0], -1e-15);
    EXPECT_GE(p[1], -1e-15);
    EXPECT_GE(p[2], -1e-15);
    EXPECT_GE(1.0 - p[0] - p[1] - p[2], -1e-15) << "point " << gi;
  }
}

TYPED_TEST(TetQuadrature, ExactUpToItsDegree) {
  constexpr TypeParam rule{};
  for (int degree = 0; degree <= TypeParam::degree; ++degree)
    EXPECT_LT(max_relative_error(rule, degree), 1e-13) << "degree " << degree;
}

TYPED_TEST(TetQuadrature, NotExactAtDegreePlusOne) {
  constexpr TypeParam rule{};
  EXPECT_GT(max_relative_error(rule, TypeParam::degree + 1), 1e-6);
}

TEST(TetQuadrature, VertexEdgeRuleHasTheDerivedWeights) {
  // Derived in quadrature.hpp: w_v = |T|/60, w_e = |T|/15, w_c = 8|T|/15 with |T| = 1/6.
  constexpr TetVertexEdge11 rule{};
  const double vol = 1.0 / 6.0;
  for (int gi = 0; gi < 4; ++gi) EXPECT_DOUBLE_EQ(rule.weight[gi], vol / 60.0);
  for (int gi = 4; gi < 10; ++gi) EXPECT_DOUBLE_EQ(rule.weight[gi], vol / 15.0);
  EXPECT_DOUBLE_EQ(rule.weight[10], 8.0 * vol / 15.0);
  // Its points: the 4 vertices, the 6 edge midpoints and the centroid.
  int vertices = 0, midpoints = 0;
  for (int gi = 0; gi < 10; ++gi) {
    const double bary[4] = {1.0 - rule.point[gi][0] - rule.point[gi][1] - rule.point[gi][2],
                            rule.point[gi][0], rule.point[gi][1], rule.point[gi][2]};
    int ones = 0, halves = 0;
    for (double l : bary) {
      ones += (l == 1.0);
      halves += (l == 0.5);
    }
    vertices += (ones == 1);
    midpoints += (halves == 2);
  }
  EXPECT_EQ(vertices, 4);
  EXPECT_EQ(midpoints, 6);
}

TEST(TetQuadrature, SignsOfWeights) {
  constexpr TetStroud5 stroud5{};
  constexpr TetKeast11 keast{};
  EXPECT_LT(stroud5.weight[0], 0.0);  // documented negative centroid weights
  EXPECT_LT(keast.weight[0], 0.0);
  constexpr TetVertexEdge11 ve{};
  constexpr TetWalkington14 w14{};
  for (int gi = 0; gi < TetVertexEdge11::ngi; ++gi) EXPECT_GT(ve.weight[gi], 0.0);
  for (int gi = 0; gi < TetWalkington14::ngi; ++gi) EXPECT_GT(w14.weight[gi], 0.0);
}

TEST(TetQuadrature, RuleForDegree) {
  static_assert(TetRuleFor<2>::type::degree >= 2);
  static_assert(TetRuleFor<3>::type::degree >= 3);
  static_assert(TetRuleFor<4>::type::degree >= 4);
  static_assert(TetRuleFor<5>::type::degree >= 5);
  constexpr TetKeast11 rule{};
  static_assert(rule.weight[0] < 0.0, "rules are usable in constant expressions");
  const QuadraturePoint p = quadrature_point(rule, 1);
  EXPECT_DOUBLE_EQ(p.xi[0], 1.0 / 14.0);
  EXPECT_DOUBLE_EQ(p.weight, 343.0 / 45000.0);
}

}  // namespace
}  // namespace foehn::fe
