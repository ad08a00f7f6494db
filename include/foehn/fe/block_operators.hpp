#pragma once
// Vector-valued (Dim components per node) element operators as Loc x Loc blocks of Dim x Dim,
// built from the scalar integrals of integrals.hpp.
//
// Element block layout (used by every function here):
//     row    r = i * Dim + a     (test node i, component a)
//     column c = j * Dim + b     (trial node j, component b)
// i.e. node-major, component-minor: the same interleaving as Fluidity's vector fields
// (value of node k, component d at k*3 + d) and as the rows of a 3x3 BCSR matrix, where the
// block (i, j) is the Dim x Dim matrix block<Dim>(e, i, j). The order of the entries *inside* a
// block in global storage (PETSc BAIJ wants column-major) is the scatter's business.
//
// A momentum-like operator (velocity u, test v, density rho, viscosity mu, time step dt):
//     ∫ (rho/dt) v·u + ∫ mu ∇v : ∇u                (Laplacian form of the viscous term)
//   = (rho/dt) M ⊗ I  +  mu L ⊗ I                   momentum_blocks(M, rho/dt, L, mu)
// and the stress-divergence form ∫ mu ∇v : (∇u + ∇uᵀ) adds the (non identity-coupled)
//     ∫ mu ∂N_i/∂x_b ∂N_j/∂x_a   in block (i, j), entry (a, b)   dshape_transpose_dshape_blocks.
// Mixed velocity-pressure coupling, from c = shape_dshape(n, g):
//     gradient   G[(i,a), j] = ∫ N_i ∂N_j/∂x_a = c[a](i, j)   (∫ v·∇p)     gradient_block(c)
//     divergence D[i, (j,b)] = ∫ N_i ∂N_j/∂x_b = c[b](i, j)   (∫ q ∇·u)    divergence_block(c)
// (D is not Gᵀ: they differ by the boundary term of an integration by parts.)

#include "foehn/fe/integrals.hpp"
#include "foehn/fe/small_matrix.hpp"

namespace foehn::fe {

template <int Loc, int Dim, typename T = double>
using BlockMat = Mat<Loc * Dim, Loc * Dim, T>;

// The Dim x Dim block (i, j) of a block matrix.
template <int Dim, int M, typename T>
FOEHN_HD constexpr Mat<Dim, Dim, T> block(const Mat<M, M, T>& e, int i, int j) {
  static_assert(M % Dim == 0, "block size must divide the matrix size");
  Mat<Dim, Dim, T> b{};
  FOEHN_UNROLL
  for (int a = 0; a < Dim; ++a) {
    FOEHN_UNROLL
    for (int c = 0; c < Dim; ++c) b.a[a][c] = e.a[i * Dim + a][j * Dim + c];
  }
  return b;
}

// out += scale * (s ⊗ I_Dim): entry (i*Dim + a, j*Dim + b) gets scale * s(i,j) * δ_ab.
template <int Dim = 3, int Loc, typename T>
FOEHN_HD constexpr void add_identity_blocks(Mat<Loc * Dim, Loc * Dim, T>& out,
                                            const Mat<Loc, Loc, T>& s, T scale) {
  FOEHN_UNROLL
  for (int i = 0; i < Loc; ++i) {
    FOEHN_UNROLL
    for (int j = 0; j < Loc; ++j) {
      FOEHN_UNROLL
      for (int a = 0; a < Dim; ++a) out.a[i * Dim + a][j * Dim + a] += scale * s.a[i][j];
    }
  }
}

// s ⊗ I_Dim: every scalar entry becomes an identity-coupled Dim x Dim block.
template <int Dim = 3, int Loc, typename T>
FOEHN_HD constexpr Mat<Loc * Dim, Loc * Dim, T> expand_identity_blocks(const Mat<Loc, Loc, T>& s) {
  Mat<Loc * Dim, Loc * Dim, T> out{};
  add_identity_blocks<Dim>(out, s, T(1));
  return out;
}

// mass_scale * M ⊗ I + visc_scale * L ⊗ I (see the header comment).
template <int Dim = 3, int Loc, typename T>
FOEHN_HD constexpr Mat<Loc * Dim, Loc * Dim, T> momentum_blocks(const Mat<Loc, Loc, T>& mass,
                                                                T mass_scale,
                                                                const Mat<Loc, Loc, T>& laplacian,
                                                                T visc_scale) {
  Mat<Loc * Dim, Loc * Dim, T> out{};
  add_identity_blocks<Dim>(out, mass, mass_scale);
  add_identity_blocks<Dim>(out, laplacian, visc_scale);
  return out;
}

// B[(i,a), (j,b)] = sum_gi detwei_gi c(gi) dn_gi(i,b) dn_gi(j,a): the ∇uᵀ part of the
// stress-divergence viscous term. Its trace over a = b equals dshape_dot_dshape.
template <class G, class Coef>
FOEHN_HD constexpr Mat<G::loc * G::dim, G::loc * G::dim, typename G::value_type>
dshape_transpose_dshape_blocks(const G& g, const Coef& coef) {
  using T = typename G::value_type;
  constexpr int Loc = G::loc, Dim = G::dim, Ngi = G::ngi;
  Mat<Loc * Dim, Loc * Dim, T> out{};
  if constexpr (G::constant_dshape) {
    T w = T(0);
    FOEHN_UNROLL
    for (int gi = 0; gi < Ngi; ++gi) w += g.detwei.v[gi] * T(coef(gi));
    FOEHN_UNROLL
    for (int i = 0; i < Loc; ++i) {
      FOEHN_UNROLL
      for (int j = 0; j < Loc; ++j) {
        FOEHN_UNROLL
        for (int a = 0; a < Dim; ++a) {
          FOEHN_UNROLL
          for (int b = 0; b < Dim; ++b)
            out.a[i * Dim + a][j * Dim + b] = w * g.dn.a[i][b] * g.dn.a[j][a];
        }
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
        for (int j = 0; j < Loc; ++j) {
          FOEHN_UNROLL
          for (int a = 0; a < Dim; ++a) {
            FOEHN_UNROLL
            for (int b = 0; b < Dim; ++b)
              out.a[i * Dim + a][j * Dim + b] += w * dn.a[i][b] * dn.a[j][a];
          }
        }
      }
    }
  }
  return out;
}

// G[(i,a), j] = c[a](i, j)
template <int Loc, int Dim, typename T>
FOEHN_HD constexpr Mat<Loc * Dim, Loc, T> gradient_block(const ShapeDShape<Loc, Dim, T>& c) {
  Mat<Loc * Dim, Loc, T> out{};
  FOEHN_UNROLL
  for (int i = 0; i < Loc; ++i) {
    FOEHN_UNROLL
    for (int a = 0; a < Dim; ++a) {
      FOEHN_UNROLL
      for (int j = 0; j < Loc; ++j) out.a[i * Dim + a][j] = c.v[a].a[i][j];
    }
  }
  return out;
}

// D[i, (j,b)] = c[b](i, j)
template <int Loc, int Dim, typename T>
FOEHN_HD constexpr Mat<Loc, Loc * Dim, T> divergence_block(const ShapeDShape<Loc, Dim, T>& c) {
  Mat<Loc, Loc * Dim, T> out{};
  FOEHN_UNROLL
  for (int i = 0; i < Loc; ++i) {
    FOEHN_UNROLL
    for (int j = 0; j < Loc; ++j) {
      FOEHN_UNROLL
      for (int b = 0; b < Dim; ++b) out.a[i][j * Dim + b] = c.v[b].a[i][j];
    }
  }
  return out;
}

}  // namespace foehn::fe
