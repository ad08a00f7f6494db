#pragma once
// Element integrals (local matrices and vectors) by quadrature, all in registers.
//
// Inputs, for an element with Loc nodes in Dim dimensions and a rule with Ngi points:
//   n   Mat<Ngi, Loc>   n(gi, i) = N_i at point gi            (p1_shape_at_quad)
//   g   geometry from transform_to_physical: g.detwei[gi] = |det J| w_gi and g.dshape(gi)(i, d)
//       = dN_i/dx_d; AffineGeometry (constant derivatives) or QuadGeometry (per point).
//   point data are "providers" called as q(gi): a Vec<Ngi> of scalars, an Array<V, Ngi>, the
//       result of ele_val_at_quad, uniform(value), or any lambda int -> value.
//
// Results (indices: i = test function, j = trial function):
//   shape_shape              M(i,j)    = ∫ c N_i N_j              mass
//   shape_vector_dot_dshape  A(i,j)    = ∫ N_i (u · ∇N_j)         advection
//   shape_dshape             C[d](i,j) = ∫ c N_i ∂N_j/∂x_d        gradient / divergence
//   dshape_tensor_dshape     K(i,j)    = ∫ ∇N_i · (K ∇N_j)        anisotropic diffusion
//   dshape_dot_dshape        L(i,j)    = ∫ c ∇N_i · ∇N_j          Laplacian
//   shape_rhs                b(i)      = ∫ N_i f                  load vector
//   lumped_mass              m(i)      = ∫ c N_i                  row-sum lumped mass
//
// With an AffineGeometry the derivatives are constant, so each integral first sums the point
// data with the weights (sum_gi detwei_gi K_gi, ...) and contracts with dn once: fewer flops
// and far fewer live registers than the per-point loop, and the same value up to rounding.
//
// Quadrature degree needed for exactness with P1 (N_i degree 1, ∇N_i constant), where the
// coefficient c, u, K, f is itself a P1 field interpolated from the nodes:
//   mass, constant c: 2 | mass, P1 c: 3 | advection, P1 u: 2 | shape_dshape: 1 (P1 c: 2)
//   diffusion/Laplacian, constant K: 0 | P1 K: 1 | shape_rhs, P1 f: 2.

#include "foehn/fe/small_matrix.hpp"

namespace foehn::fe {

// c[d](i, j) = ∫ c N_i ∂N_j/∂x_d: one Loc x Loc matrix per direction.
template <int Loc, int Dim, typename T = double>
using ShapeDShape = Array<Mat<Loc, Loc, T>, Dim>;

namespace detail {
template <class G>
using ShapeTable = Mat<G::ngi, G::loc, typename G::value_type>;
template <class G>
using LocalMatrix = Mat<G::loc, G::loc, typename G::value_type>;
}  // namespace detail

// ---- mass --------------------------------------------------------------------------------
// M(i,j) = sum_gi detwei_gi c(gi) n(gi,i) n(gi,j). Symmetric: the upper triangle is computed
// and mirrored.
template <int Ngi, int Loc, typename T, class Coef>
FOEHN_HD constexpr Mat<Loc, Loc, T> shape_shape(const Mat<Ngi, Loc, T>& n,
                                                const Vec<Ngi, T>& detwei, const Coef& coef) {
  Mat<Loc, Loc, T> m{};
  FOEHN_UNROLL
  for (int gi = 0; gi < Ngi; ++gi) {
    const T w = detwei.v[gi] * T(coef(gi));
    FOEHN_UNROLL
    for (int i = 0; i < Loc; ++i) {
      const T wi = w * n.a[gi][i];
      FOEHN_UNROLL
      for (int j = i; j < Loc; ++j) m.a[i][j] += wi * n.a[gi][j];
    }
  }
  FOEHN_UNROLL
  for (int i = 1; i < Loc; ++i) {
    FOEHN_UNROLL
    for (int j = 0; j < i; ++j) m.a[i][j] = m.a[j][i];
  }
  return m;
}
template <int Ngi, int Loc, typename T>
FOEHN_HD constexpr Mat<Loc, Loc, T> shape_shape(const Mat<Ngi, Loc, T>& n,
                                                const Vec<Ngi, T>& detwei) {
  return shape_shape(n, detwei, uniform(T(1)));
}

// m(i) = sum_gi detwei_gi c(gi) n(gi,i) = ∫ c N_i. Because sum_j N_j = 1, this equals the row
// sums of shape_shape (row-sum lumping) with the same rule.
template <int Ngi, int Loc, typename T, class Coef>
FOEHN_HD constexpr Vec<Loc, T> lumped_mass(const Mat<Ngi, Loc, T>& n, const Vec<Ngi, T>& detwei,
                                           const Coef& coef) {
  Vec<Loc, T> m{};
  FOEHN_UNROLL
  for (int gi = 0; gi < Ngi; ++gi) {
    const T w = detwei.v[gi] * T(coef(gi));
    FOEHN_UNROLL
    for (int i = 0; i < Loc; ++i) m.v[i] += w * n.a[gi][i];
  }
  return m;
}
template <int Ngi, int Loc, typename T>
FOEHN_HD constexpr Vec<Loc, T> lumped_mass(const Mat<Ngi, Loc, T>& n, const Vec<Ngi, T>& detwei) {
  return lumped_mass(n, detwei, uniform(T(1)));
}

// ---- load vector -------------------------------------------------------------------------
// b(i) = sum_gi detwei_gi n(gi,i) f(gi).
template <int Ngi, int Loc, typename T, class Source>
FOEHN_HD constexpr Vec<Loc, T> shape_rhs(const Mat<Ngi, Loc, T>& n, const Vec<Ngi, T>& detwei,
                                         const Source& f) {
  return lumped_mass(n, detwei, f);
}

// ---- advection ---------------------------------------------------------------------------
// A(i,j) = sum_gi detwei_gi n(gi,i) u(gi) · dn_gi(j,:), u(gi) a Vec<Dim>.
// Since sum_j ∇N_j = 0, every row of A sums to zero (constant fields are not advected).
template <class G, class Velocity>
FOEHN_HD constexpr detail::LocalMatrix<G> shape_vector_dot_dshape(const detail::ShapeTable<G>& n,
                                                                  const Velocity& u, const G& g) {
  using T = typename G::value_type;
  constexpr int Loc = G::loc, Dim = G::dim, Ngi = G::ngi;
  detail::LocalMatrix<G> a{};
  if constexpr (G::constant_dshape) {
    // W(i,d) = sum_gi detwei n(gi,i) u_d(gi), then A(i,j) = W(i,:) · dn(j,:).
    Mat<Loc, Dim, T> w{};
    FOEHN_UNROLL
    for (int gi = 0; gi < Ngi; ++gi) {
      const Vec<Dim, T> ug = u(gi);
      FOEHN_UNROLL
      for (int i = 0; i < Loc; ++i) {
        const T wi = g.detwei.v[gi] * n.a[gi][i];
        FOEHN_UNROLL
        for (int d = 0; d < Dim; ++d) w.a[i][d] += wi * ug.v[d];
      }
    }
    a = w * transpose(g.dn);
  } else {
    FOEHN_UNROLL
    for (int gi = 0; gi < Ngi; ++gi) {
      const Vec<Dim, T> ug = u(gi);
      const Mat<Loc, Dim, T>& dn = g.dshape(gi);
      const Vec<Loc, T> u_dot_grad = dn * ug;  // u · ∇N_j
      FOEHN_UNROLL
      for (int i = 0; i < Loc; ++i) {
        const T wi = g.detwei.v[gi] * n.a[gi][i];
        FOEHN_UNROLL
        for (int j = 0; j < Loc; ++j) a.a[i][j] += wi * u_dot_grad.v[j];
      }
    }
  }
  return a;
}

// ---- gradient / divergence coupling ------------------------------------------------------
// c[d](i,j) = sum_gi detwei_gi c(gi) n(gi,i) dn_gi(j,d). The discrete gradient of a P1
// pressure tested with P1 velocity is c[d](i,j); the divergence block is its transpose.
template <class G, class Coef>
FOEHN_HD constexpr ShapeDShape<G::loc, G::dim, typename G::value_type> shape_dshape(
    const detail::ShapeTable<G>& n, const G& g, const Coef& coef) {
  using T = typename G::value_type;
  constexpr int Loc = G::loc, Dim = G::dim, Ngi = G::ngi;
  ShapeDShape<Loc, Dim, T> c{};
  if constexpr (G::constant_dshape) {
    // c[d](i,j) = (∫ c N_i) dn(j,d)
    const Vec<Loc, T> m = lumped_mass(n, g.detwei, coef);
    FOEHN_UNROLL
    for (int d = 0; d < Dim; ++d) {
      FOEHN_UNROLL
      for (int i = 0; i < Loc; ++i) {
        FOEHN_UNROLL
        for (int j = 0; j < Loc; ++j) c.v[d].a[i][j] = m.v[i] * g.dn.a[j][d];
      }
    }
  } else {
    FOEHN_UNROLL
    for (int gi = 0; gi < Ngi; ++gi) {
      const T w = g.detwei.v[gi] * T(coef(gi));
      const Mat<Loc, Dim, T>& dn = g.dshape(gi);
      FOEHN_UNROLL
      for (int d = 0; d < Dim; ++d) {
        FOEHN_UNROLL
        for (int i = 0; i < Loc; ++i) {
          const T wi = w * n.a[gi][i];
          FOEHN_UNROLL
          for (int j = 0; j < Loc; ++j) c.v[d].a[i][j] += wi * dn.a[j][d];
        }
      }
    }
  }
  return c;
}
template <class G>
FOEHN_HD constexpr ShapeDShape<G::loc, G::dim, typename G::value_type> shape_dshape(
    const detail::ShapeTable<G>& n, const G& g) {
  return shape_dshape(n, g, uniform(typename G::value_type(1)));
}

// ---- anisotropic diffusion ---------------------------------------------------------------
// K(i,j) = sum_gi detwei_gi dn_gi(i,:) · (K(gi) dn_gi(j,:)), K(gi) a Mat<Dim,Dim> (need not be
// symmetric; the result is symmetric when every K(gi) is).
template <class G, class Tensor>
FOEHN_HD constexpr detail::LocalMatrix<G> dshape_tensor_dshape(const G& g, const Tensor& k) {
  using T = typename G::value_type;
  constexpr int Loc = G::loc, Dim = G::dim, Ngi = G::ngi;
  detail::LocalMatrix<G> r{};
  if constexpr (G::constant_dshape) {
    // Kbar = sum_gi detwei K(gi); K(i,j) = dn(i,:) Kbar dn(j,:)ᵀ, i.e. dn Kbar dnᵀ.
    Mat<Dim, Dim, T> kbar{};
    FOEHN_UNROLL
    for (int gi = 0; gi < Ngi; ++gi) {
      const Mat<Dim, Dim, T> kg = k(gi);
      FOEHN_UNROLL
      for (int p = 0; p < Dim; ++p) {
        FOEHN_UNROLL
        for (int q = 0; q < Dim; ++q) kbar.a[p][q] += g.detwei.v[gi] * kg.a[p][q];
      }
    }
    const Mat<Loc, Dim, T> kdn = g.dn * transpose(kbar);  // row j: Kbar dn(j,:)
    r = g.dn * transpose(kdn);
  } else {
    FOEHN_UNROLL
    for (int gi = 0; gi < Ngi; ++gi) {
      const Mat<Dim, Dim, T> kg = k(gi);
      const Mat<Loc, Dim, T>& dn = g.dshape(gi);
      FOEHN_UNROLL
      for (int j = 0; j < Loc; ++j) {
        const Vec<Dim, T> kdn_j = kg * dn.row(j);
        FOEHN_UNROLL
        for (int i = 0; i < Loc; ++i) {
          T s = T(0);
          FOEHN_UNROLL
          for (int d = 0; d < Dim; ++d) s += dn.a[i][d] * kdn_j.v[d];
          r.a[i][j] += g.detwei.v[gi] * s;
        }
      }
    }
  }
  return r;
}

// ---- Laplacian ---------------------------------------------------------------------------
// L(i,j) = sum_gi detwei_gi c(gi) dn_gi(i,:) · dn_gi(j,:). Symmetric; rows sum to zero.
template <class G, class Coef>
FOEHN_HD constexpr detail::LocalMatrix<G> dshape_dot_dshape(const G& g, const Coef& coef) {
  using T = typename G::value_type;
  constexpr int Loc = G::loc, Dim = G::dim, Ngi = G::ngi;
  detail::LocalMatrix<G> r{};
  if constexpr (G::constant_dshape) {
    T w = T(0);
    FOEHN_UNROLL
    for (int gi = 0; gi < Ngi; ++gi) w += g.detwei.v[gi] * T(coef(gi));
    FOEHN_UNROLL
    for (int i = 0; i < Loc; ++i) {
      FOEHN_UNROLL
      for (int j = i; j < Loc; ++j) {
        T s = T(0);
        FOEHN_UNROLL
        for (int d = 0; d < Dim; ++d) s += g.dn.a[i][d] * g.dn.a[j][d];
        r.a[i][j] = w * s;
      }
    }
  } else {
    FOEHN_UNROLL
    for (int gi = 0; gi < Ngi; ++gi) {
      const T w = g.detwei.v[gi] * T(coef(gi));
      const Mat<Loc, Dim, T>& dn = g.dshape(gi);
      FOEHN_UNROLL
      for (int i = 0; i < Loc; ++i) {
        FOEHN_UNROLL
        for (int j = i; j < Loc; ++j) {
          T s = T(0);
          FOEHN_UNROLL
          for (int d = 0; d < Dim; ++d) s += dn.a[i][d] * dn.a[j][d];
          r.a[i][j] += w * s;
        }
      }
    }
  }
  FOEHN_UNROLL
  for (int i = 1; i < Loc; ++i) {
    FOEHN_UNROLL
    for (int j = 0; j < i; ++j) r.a[i][j] = r.a[j][i];
  }
  return r;
}
template <class G>
FOEHN_HD constexpr detail::LocalMatrix<G> dshape_dot_dshape(const G& g) {
  return dshape_dot_dshape(g, uniform(typename G::value_type(1)));
}

}  // namespace foehn::fe
