#pragma once
// Quadrature rules on the reference tetrahedron
//     T_ref = conv{(0,0,0), (1,0,0), (0,1,0), (0,0,1)},   |T_ref| = 1/6.
// Points are stored in Cartesian reference coordinates (xi, eta, zeta); the barycentric
// coordinates are (1 - xi - eta - zeta, xi, eta, zeta), which are also the P1 shape functions.
// Weights sum to 1/6, so sum_g w_g f(p_g) approximates the integral over T_ref itself.
//
// Each rule is a literal type with non-static data members initialised in-class. Build one as
// a local (`constexpr TetKeast11 rule{};`) inside host or device code: after the loops over
// `ngi` are unrolled, every point and weight is a compile-time constant. (Static constexpr
// arrays would not do: device code may not reference a host-side constexpr array.)
//
// Degree d means: exact for every polynomial of total degree <= d (checked by the unit tests on
// all monomials x^a y^b z^c, whose exact integral is a! b! c! / (a+b+c+3)!).
//
//   rule                  ngi  degree  weights
//   TetCentroid1            1    1     positive
//   TetStroud4              4    2     positive
//   TetStroud5              5    3     one negative (centroid, -2/15)
//   TetVertexEdge11        11    3     positive  (vertices, edge midpoints, centroid)
//   TetKeast11             11    4     one negative (centroid, -74/5625)
//   TetWalkington14        14    5     positive
//
// TetVertexEdge11 is the point set of Fluidity-Atmosphere's 11 Gauss points (4 vertices,
// 6 edge midpoints, centroid). Its weights are derived, not copied: by symmetry there are three
// unknowns (w_v, w_e, w_c); degree 0 fixes their sum, degree 1 holds by symmetry, and the two
// remaining independent symmetric conditions are (with |T| = 1/6 and ∫ λ1^a λ2^b λ3^c λ4^d =
// a!b!c!d! 3! |T| / (a+b+c+d+3)!):
//     ∫ λ1 λ2    = |T|/20  : w_e/4  + w_c/16 = |T|/20
//     ∫ λ1 λ2 λ3 = |T|/120 : only the centroid sees it, w_c/64 = |T|/120
// giving w_c = 8|T|/15 = 4/45, w_e = |T|/15 = 1/90, w_v = |T|/60 = 1/360 (all positive).
// It is not degree 4: ∫ λ1 λ2 λ3 λ4 = |T|/840 but the rule gives |T|/480.

#include "foehn/runtime/host_device.hpp"

namespace foehn::fe {

// One point: reference coordinates and weight.
struct QuadraturePoint {
  double xi[3];
  double weight;
};

// ---- degree 1: centroid ---------------------------------------------------------------------
struct TetCentroid1 {
  static constexpr int ngi = 1;
  static constexpr int degree = 1;
  double point[ngi][3] = {{0.25, 0.25, 0.25}};
  double weight[ngi] = {1.0 / 6.0};
};

// ---- degree 2: 4 points (Stroud T3:2-1), barycentric permutations of (a,a,a,b) --------------
//   a = (5 - sqrt 5)/20, b = (5 + 3 sqrt 5)/20, w = |T|/4
struct TetStroud4 {
  static constexpr int ngi = 4;
  static constexpr int degree = 2;
  static constexpr double a = 0.13819660112501051518;
  static constexpr double b = 0.58541019662496845446;
  double point[ngi][3] = {{a, a, a}, {b, a, a}, {a, b, a}, {a, a, b}};
  double weight[ngi] = {1.0 / 24.0, 1.0 / 24.0, 1.0 / 24.0, 1.0 / 24.0};
};

// ---- degree 3: 5 points (Stroud T3:3-1) -------------------------------------------------------
//   centroid with weight -4/5 |T| (negative!), and the 4 barycentric permutations of
//   (1/6, 1/6, 1/6, 1/2) with weight 9/20 |T|. Prefer TetVertexEdge11 where a negative weight
//   matters (e.g. a lumped or positivity-preserving integrand).
struct TetStroud5 {
  static constexpr int ngi = 5;
  static constexpr int degree = 3;
  static constexpr double s = 1.0 / 6.0;
  static constexpr double h = 0.5;
  double point[ngi][3] = {{0.25, 0.25, 0.25}, {s, s, s}, {h, s, s}, {s, h, s}, {s, s, h}};
  double weight[ngi] = {-2.0 / 15.0, 3.0 / 40.0, 3.0 / 40.0, 3.0 / 40.0, 3.0 / 40.0};
};

// ---- degree 3: 11 points, vertices + edge midpoints + centroid (weights derived above) -------
struct TetVertexEdge11 {
  static constexpr int ngi = 11;
  static constexpr int degree = 3;
  static constexpr double wv = 1.0 / 360.0;
  static constexpr double we = 1.0 / 90.0;
  static constexpr double wc = 4.0 / 45.0;
  double point[ngi][3] = {{0.0, 0.0, 0.0},   {1.0, 0.0, 0.0}, {0.0, 1.0, 0.0},
                          {0.0, 0.0, 1.0},                                      // vertices
                          {0.5, 0.0, 0.0},   {0.0, 0.5, 0.0}, {0.0, 0.0, 0.5},  // edges from v0
                          {0.5, 0.5, 0.0},   {0.5, 0.0, 0.5}, {0.0, 0.5, 0.5},  // opposite edges
                          {0.25, 0.25, 0.25}};                                  // centroid
  double weight[ngi] = {wv, wv, wv, wv, we, we, we, we, we, we, wc};
};

// ---- degree 4: Keast's 11-point rule ---------------------------------------------------------
//   centroid, weight -74/5625 (negative);
//   barycentric permutations of (1/14, 1/14, 1/14, 11/14), weight 343/45000;
//   barycentric permutations of (a, a, b, b), a = (1 + sqrt(5/14))/4, b = (1 - sqrt(5/14))/4,
//   weight 56/2250.
struct TetKeast11 {
  static constexpr int ngi = 11;
  static constexpr int degree = 4;
  static constexpr double c = 1.0 / 14.0;
  static constexpr double d = 11.0 / 14.0;
  static constexpr double a = 0.39940357616679920500;
  static constexpr double b = 0.10059642383320079500;
  static constexpr double w0 = -74.0 / 5625.0;
  static constexpr double w1 = 343.0 / 45000.0;
  static constexpr double w2 = 56.0 / 2250.0;
  double point[ngi][3] = {{0.25, 0.25, 0.25},
                          {c, c, c},
                          {d, c, c},
                          {c, d, c},
                          {c, c, d},
                          // (a,a,b,b) permutations; barycentric λ0 = 1 - xi - eta - zeta
                          {a, b, b},
                          {b, a, b},
                          {b, b, a},
                          {b, a, a},
                          {a, b, a},
                          {a, a, b}};
  double weight[ngi] = {w0, w1, w1, w1, w1, w2, w2, w2, w2, w2, w2};
};

// ---- degree 5: 14 points, all weights positive (Walkington; also Keast #6) -------------------
//   barycentric permutations of (p, p, p, 1-3p) for p = p1 (weight w1) and p = p2 (weight w2),
//   and of (q, q, 1/2-q, 1/2-q) (weight w3). The digits were solved to 40 places from the six
//   symmetric moment equations up to degree 5 and are checked by the unit tests.
struct TetWalkington14 {
  static constexpr int ngi = 14;
  static constexpr int degree = 5;
  static constexpr double p1 = 0.092735250310891226402;
  static constexpr double r1 = 1.0 - 3.0 * p1;
  static constexpr double w1 = 0.012248840519393658257;
  static constexpr double p2 = 0.31088591926330060980;
  static constexpr double r2 = 1.0 - 3.0 * p2;
  static constexpr double w2 = 0.018781320953002641800;
  static constexpr double q = 0.45449629587435035051;
  static constexpr double t = 0.5 - q;
  static constexpr double w3 = 0.0070910034628469110730;
  double point[ngi][3] = {{p1, p1, p1}, {r1, p1, p1}, {p1, r1, p1}, {p1, p1, r1}, {p2, p2, p2},
                          {r2, p2, p2}, {p2, r2, p2}, {p2, p2, r2}, {q, t, t},    {t, q, t},
                          {t, t, q},    {t, q, q},    {q, t, q},    {q, q, t}};
  double weight[ngi] = {w1, w1, w1, w1, w2, w2, w2, w2, w3, w3, w3, w3, w3, w3};
};

// The rule of lowest point count that is exact for integrands of total degree `Degree`
// (with positive weights where one of equal size exists): TetRuleFor<2>::type is TetStroud4.
template <int Degree>
struct TetRuleFor;
template <>
struct TetRuleFor<0> {
  using type = TetCentroid1;
};
template <>
struct TetRuleFor<1> {
  using type = TetCentroid1;
};
template <>
struct TetRuleFor<2> {
  using type = TetStroud4;
};
template <>
struct TetRuleFor<3> {
  using type = TetStroud5;
};
template <>
struct TetRuleFor<4> {
  using type = TetKeast11;
};
template <>
struct TetRuleFor<5> {
  using type = TetWalkington14;
};

// Point gi of any rule as a value (handy when looping on the host).
template <class Rule>
FOEHN_HD constexpr QuadraturePoint quadrature_point(const Rule& rule, int gi) {
  return QuadraturePoint{{rule.point[gi][0], rule.point[gi][1], rule.point[gi][2]},
                         rule.weight[gi]};
}

}  // namespace foehn::fe
