// Gathers from global P1 field arrays and interpolation to quadrature points.

#include <gtest/gtest.h>

#include <vector>

#include "fe_test_support.hpp"
#include "foehn/fe/gather.hpp"
#include "foehn/fe/quadrature.hpp"
#include "foehn/fe/shape_functions.hpp"

namespace foehn::fe {
namespace {

// Field values that encode node and component, so a wrong index shows up as a wrong value.
double scalar_value(int node) {
  return 1000.0 + node;
}
double vector_value(int node, int d) {
  return node * 10.0 + d;
}
double tensor_value(int node, int r, int c) {
  return node * 100.0 + r * 10.0 + c;
}

struct Fields {
  static constexpr int nodes = 9;
  std::vector<int> conn{0, 1, 2, 3, 8, 2, 5, 7, 4, 6, 1, 3};  // three elements
  std::vector<double> scalar, vector_interleaved, vector_soa, tensor;
  Fields() {
    for (int k = 0; k < nodes; ++k) {
      scalar.push_back(scalar_value(k));
      for (int d = 0; d < 3; ++d) vector_interleaved.push_back(vector_value(k, d));
      for (int r = 0; r < 3; ++r)
        for (int c = 0; c < 3; ++c) tensor.push_back(tensor_value(k, r, c));
    }
    vector_soa.resize(3 * nodes);
    for (int d = 0; d < 3; ++d)
      for (int k = 0; k < nodes; ++k) vector_soa[d * nodes + k] = vector_value(k, d);
  }
};

TEST(FeGather, PicksTheElementsNodalValues) {
  const Fields f;
  for (int e = 0; e < 3; ++e) {
    const Array<int, 4> nodes = ele_nodes<4>(f.conn.data(), e);
    for (int i = 0; i < 4; ++i) EXPECT_EQ(nodes[i], f.conn[e * 4 + i]);
    const Vec<4> s = ele_val<4>(f.scalar.data(), nodes);
    const Mat<4, 3> v = ele_val_vector<4, 3>(f.vector_interleaved.data(), nodes);
    const Mat<4, 3> w = ele_val_vector_soa<4, 3>(f.vector_soa.data(), Fields::nodes, nodes);
    const Array<Mat<3, 3>, 4> t = ele_val_tensor<4>(f.tensor.data(), nodes);
    for (int i = 0; i < 4; ++i) {
      const int k = nodes[i];
      EXPECT_EQ(s[i], scalar_value(k));
      for (int d = 0; d < 3; ++d) {
        EXPECT_EQ(v(i, d), vector_value(k, d));
        EXPECT_EQ(w(i, d), vector_value(k, d));
      }
      for (int r = 0; r < 3; ++r)
        for (int c = 0; c < 3; ++c) EXPECT_EQ(t[i](r, c), tensor_value(k, r, c));
    }
    // A raw pointer into the connectivity works as `nodes` too.
    const Vec<4> s2 = ele_val<4>(f.scalar.data(), f.conn.data() + 4 * e);
    EXPECT_EQ(s2[3], s[3]);
  }
}

TEST(FeGather, InterpolationReproducesLinearFieldsAtQuadraturePoints) {
  // Fields linear in space are interpolated exactly by P1: compare with the field evaluated at
  // the physical position of every quadrature point.
  std::mt19937_64 rng(21);
  const Mat<4, 3> x = test::random_tet(rng);
  auto f = [](const Vec<3>& p) { return 2.0 + 3.0 * p[0] - p[1] + 0.5 * p[2]; };
  auto fv = [&](const Vec<3>& p, int d) { return (d + 1) * f(p) - d; };
  Vec<4> s{};
  Mat<4, 3> v{};
  Array<Mat<3, 3>, 4> t{};
  for (int i = 0; i < 4; ++i) {
    const Vec<3> p = test::node(x, i);
    s[i] = f(p);
    for (int d = 0; d < 3; ++d) v(i, d) = fv(p, d);
    for (int r = 0; r < 3; ++r)
      for (int c = 0; c < 3; ++c) t[i](r, c) = (r * 3 + c) * f(p);
  }
  constexpr TetKeast11 rule{};
  const Mat<11, 4> n = p1_shape_at_quad(rule);
  const Array<Vec<3>, 11> pos = quad_positions(n, x);
  const Vec<11> sq = ele_val_at_quad(n, s);
  const Array<Vec<3>, 11> vq = ele_val_at_quad(n, v);
  const Array<Mat<3, 3>, 11> tq = ele_val_at_quad(n, t);
  for (int gi = 0; gi < 11; ++gi) {
    // the physical point, independently: x0 + J xi with J columns x_k - x0
    Vec<3> p = test::node(x, 0);
    for (int k = 0; k < 3; ++k) p += rule.point[gi][k] * (test::node(x, k + 1) - test::node(x, 0));
    EXPECT_LT(test::max_abs_diff(pos[gi], p), 1e-14);
    EXPECT_NEAR(sq[gi], f(p), 1e-13);
    EXPECT_NEAR(interpolate(n, gi, s), sq[gi], 1e-15);
    for (int d = 0; d < 3; ++d) EXPECT_NEAR(vq[gi][d], fv(p, d), 1e-13);
    EXPECT_LT(test::max_abs_diff(interpolate(n, gi, v), vq[gi]), 1e-15);
    for (int r = 0; r < 3; ++r)
      for (int c = 0; c < 3; ++c) EXPECT_NEAR(tq[gi](r, c), (r * 3 + c) * f(p), 1e-12);
    EXPECT_LT(test::max_abs_diff(interpolate(n, gi, t), tq[gi]), 1e-14);
  }
}

TEST(FeGather, SixtyFourBitIndices) {
  const std::vector<long long> conn{3, 0, 2, 1};
  const std::vector<double> field{5.0, 6.0, 7.0, 8.0};
  const Array<long long, 4> nodes = ele_nodes<4>(conn.data(), 0LL);
  const Vec<4> s = ele_val<4>(field.data(), nodes);
  EXPECT_EQ(s[0], 8.0);
  EXPECT_EQ(s[3], 6.0);
}

}  // namespace
}  // namespace foehn::fe
