#pragma once
// Gathers: copy an element's nodal values out of global P1 field arrays into registers, and
// interpolate them to quadrature points.
//
// `nodes` is anything indexable as nodes[i] for i < Loc (a pointer into the connectivity,
// `conn + Loc * e`, a C array, an Array<Index, Loc>); indices are 0-based.
// Global layouts (Fluidity's, node-major):
//   scalar  field[node]
//   vector  field[node * Dim + d]                 (interleaved)
//           field[d * stride + node]              (ele_val_vector_soa: one array per component)
//   tensor  field[node * 9 + 3 * r + c]           (row-major 3x3 per node)
// The functions only read; they do not check indices (the mesh layer validates connectivity
// once, and a bounds check per gather would cost more than the gather).

#include "foehn/fe/small_matrix.hpp"

namespace foehn::fe {

// The Loc node indices of element e from a flat connectivity array (conn[e * Loc + i]).
template <int Loc, typename Index, typename ElementIndex>
FOEHN_HD constexpr Array<Index, Loc> ele_nodes(const Index* __restrict__ conn, ElementIndex e) {
  Array<Index, Loc> nodes{};
  const Index* row = conn + static_cast<long long>(e) * Loc;
  FOEHN_UNROLL
  for (int i = 0; i < Loc; ++i) nodes.v[i] = row[i];
  return nodes;
}

// Scalar: v(i) = field[nodes[i]].
template <int Loc, typename T, class Nodes>
FOEHN_HD constexpr Vec<Loc, T> ele_val(const T* __restrict__ field, const Nodes& nodes) {
  Vec<Loc, T> v{};
  FOEHN_UNROLL
  for (int i = 0; i < Loc; ++i) v.v[i] = field[nodes[i]];
  return v;
}

// Interleaved vector: x(i, d) = field[nodes[i] * Dim + d]. With the coordinate field this is the
// input of transform_to_physical.
template <int Loc, int Dim, typename T, class Nodes>
FOEHN_HD constexpr Mat<Loc, Dim, T> ele_val_vector(const T* __restrict__ field,
                                                   const Nodes& nodes) {
  Mat<Loc, Dim, T> x{};
  FOEHN_UNROLL
  for (int i = 0; i < Loc; ++i) {
    const T* p = field + static_cast<long long>(nodes[i]) * Dim;
    FOEHN_UNROLL
    for (int d = 0; d < Dim; ++d) x.a[i][d] = p[d];
  }
  return x;
}

// Component-major vector: x(i, d) = field[d * stride + nodes[i]].
template <int Loc, int Dim, typename T, class Nodes, typename Stride>
FOEHN_HD constexpr Mat<Loc, Dim, T> ele_val_vector_soa(const T* __restrict__ field, Stride stride,
                                                       const Nodes& nodes) {
  Mat<Loc, Dim, T> x{};
  FOEHN_UNROLL
  for (int d = 0; d < Dim; ++d) {
    FOEHN_UNROLL
    for (int i = 0; i < Loc; ++i) x.a[i][d] = field[static_cast<long long>(d) * stride + nodes[i]];
  }
  return x;
}

// Tensor: t[i](r, c) = field[nodes[i] * 9 + 3 * r + c].
template <int Loc, typename T, class Nodes>
FOEHN_HD constexpr Array<Mat<3, 3, T>, Loc> ele_val_tensor(const T* __restrict__ field,
                                                           const Nodes& nodes) {
  Array<Mat<3, 3, T>, Loc> t{};
  FOEHN_UNROLL
  for (int i = 0; i < Loc; ++i) {
    const T* p = field + static_cast<long long>(nodes[i]) * 9;
    FOEHN_UNROLL
    for (int r = 0; r < 3; ++r) {
      FOEHN_UNROLL
      for (int c = 0; c < 3; ++c) t.v[i].a[r][c] = p[3 * r + c];
    }
  }
  return t;
}

// ---- interpolation to quadrature points: f(gi) = sum_i n(gi, i) f_i -------------------------
// Scalar: a Vec<Ngi>, usable directly as a provider q(gi).
template <int Ngi, int Loc, typename T>
FOEHN_HD constexpr Vec<Ngi, T> ele_val_at_quad(const Mat<Ngi, Loc, T>& n, const Vec<Loc, T>& v) {
  return n * v;
}
// Vector (rows = nodes, as ele_val_vector returns): Array<Vec<Dim>, Ngi>.
template <int Ngi, int Loc, int Dim, typename T>
FOEHN_HD constexpr Array<Vec<Dim, T>, Ngi> ele_val_at_quad(const Mat<Ngi, Loc, T>& n,
                                                           const Mat<Loc, Dim, T>& x) {
  Array<Vec<Dim, T>, Ngi> q{};
  FOEHN_UNROLL
  for (int gi = 0; gi < Ngi; ++gi) q.v[gi] = transpose_times(x, n.row(gi));
  return q;
}
// Tensor: Array<Mat<3,3>, Ngi>.
template <int Ngi, int Loc, int R, int C, typename T>
FOEHN_HD constexpr Array<Mat<R, C, T>, Ngi> ele_val_at_quad(const Mat<Ngi, Loc, T>& n,
                                                            const Array<Mat<R, C, T>, Loc>& t) {
  Array<Mat<R, C, T>, Ngi> q{};
  FOEHN_UNROLL
  for (int gi = 0; gi < Ngi; ++gi) {
    FOEHN_UNROLL
    for (int i = 0; i < Loc; ++i) {
      FOEHN_UNROLL
      for (int r = 0; r < R; ++r) {
        FOEHN_UNROLL
        for (int c = 0; c < C; ++c) q.v[gi].a[r][c] += n.a[gi][i] * t.v[i].a[r][c];
      }
    }
  }
  return q;
}

// Interpolation at one point, for providers that evaluate lazily (a lambda gi -> value keeps
// only one point's value live instead of all Ngi of them).
template <int Ngi, int Loc, typename T>
FOEHN_HD constexpr T interpolate(const Mat<Ngi, Loc, T>& n, int gi, const Vec<Loc, T>& v) {
  T s = T(0);
  FOEHN_UNROLL
  for (int i = 0; i < Loc; ++i) s += n.a[gi][i] * v.v[i];
  return s;
}
template <int Ngi, int Loc, int Dim, typename T>
FOEHN_HD constexpr Vec<Dim, T> interpolate(const Mat<Ngi, Loc, T>& n, int gi,
                                           const Mat<Loc, Dim, T>& x) {
  return transpose_times(x, n.row(gi));
}
template <int Ngi, int Loc, int R, int C, typename T>
FOEHN_HD constexpr Mat<R, C, T> interpolate(const Mat<Ngi, Loc, T>& n, int gi,
                                            const Array<Mat<R, C, T>, Loc>& t) {
  Mat<R, C, T> m{};
  FOEHN_UNROLL
  for (int i = 0; i < Loc; ++i) m += n.a[gi][i] * t.v[i];
  return m;
}

}  // namespace foehn::fe
