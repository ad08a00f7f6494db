#pragma once
// A user-defined operator, written outside Foehn's include/ the way a dynamical core would add
// a term of its own: the Coriolis (rotation) term of the momentum equation,
//   C_{(i,a),(j,c)} = scale ∫ N_i N_j 2 (Ω×)_{ac},   (Ω×)_{ac} = Σ_b ε_{abc} Ω_b,
// so that (C u)_i = scale ∫ N_i 2 Ω × u_h, in 3 x 3 blocks. Ω is the planet's rotation vector,
// uniform or (for a rotated or regional frame) a P1 nodal field.
//
// It uses a compact element form: the 144 entries of the 12 x 12 element matrix come from
// three weighted mass matrices W_b[i][j] = ∫ N_i N_j Ω_b (48 doubles), so no kernel has to keep
// 144 values in registers. FOEHN_DEFINE_OPERATOR(foehn_examples::CoriolisOperator) in
// define_coriolis.cpp makes it assemblable on both backends.

#include "foehn/fe/operator_interface.hpp"

namespace foehn_examples {

namespace fe = foehn::fe;

struct CoriolisOperator {
  static constexpr int block_rows = 3, block_cols = 3;
  static constexpr const char* name = "coriolis";
  using Rule = fe::TetVertexEdge11;  // N_i N_j Ω with a P1 Ω: degree 3, integrated exactly
  double scale = 1.0;
  double rotation[3] = {0.0, 0.0, 7.292e-5};  // Ω (rad/s) where no field is given
  fe::FieldRef rotation_field{};              // Ω per node (vector P1), optional

  template <class Visitor>
  void for_each_field(Visitor&& visit) const {
    visit(rotation_field, 3, "rotation", false);
  }

  struct CompactElement {
    fe::Mat<4, 4> weighted[3];  // W_b[i][j] = ∫ N_i N_j Ω_b
    double two_scale;
    // Entry (a, c) of block (i, j): 2 scale ε_{abc} W_b[i][j], with b the third index (zero on
    // the diagonal). One product and a sign: every backend rounds alike.
    FOEHN_HD static double combine(const double w_ij[3], double two_scale, int a, int c) {
      if (a == c) return 0.0;
      const int b = 3 - a - c;
      const bool even = (a == 0 && b == 1) || (a == 1 && b == 2) || (a == 2 && b == 0);
      const double value = two_scale * w_ij[b];
      return even ? value : -value;
    }
    FOEHN_HD double entry(int i, int j, int a, int c) const {
      const double w_ij[3] = {weighted[0].a[i][j], weighted[1].a[i][j], weighted[2].a[i][j]};
      return combine(w_ij, two_scale, a, c);
    }
    FOEHN_HD double rhs(int) const { return 0.0; }  // no load vector
    FOEHN_HD void set_all(double value) {
      for (int b = 0; b < 3; ++b) weighted[b] = fe::Mat<4, 4>::filled(value);
      two_scale = value;
    }
    static constexpr int stored_doubles = 49;  // W (48), 2 scale (1)
    FOEHN_HD void store(double* out) const {
      for (int b = 0; b < 3; ++b)
        for (int k = 0; k < 16; ++k) out[b * 16 + k] = weighted[b].a[k / 4][k % 4];
      out[48] = two_scale;
    }
    FOEHN_HD static double stored_entry(const double* stored, int i, int j, int a, int c) {
      const double w_ij[3] = {stored[i * 4 + j], stored[16 + i * 4 + j], stored[32 + i * 4 + j]};
      return combine(w_ij, stored[48], a, c);
    }
  };

  template <class Ctx>
  FOEHN_HD void element_compact(const Ctx& e, CompactElement& out) const {
    for (int b = 0; b < 3; ++b) out.weighted[b] = fe::Mat<4, 4>::zero();
    fe::Mat<4, 3> nodal_rotation = fe::Mat<4, 3>::zero();
    if (rotation_field.data)
      nodal_rotation = fe::ele_val_vector<4, 3>(rotation_field.data, e.nodes);
    for (int gi = 0; gi < Ctx::ngi; ++gi) {
      double omega[3];
      for (int b = 0; b < 3; ++b) {
        omega[b] = rotation[b];
        if (rotation_field.data) {
          omega[b] = 0.0;
          for (int k = 0; k < 4; ++k) omega[b] += e.n.a[gi][k] * nodal_rotation.a[k][b];
        }
      }
      for (int i = 0; i < 4; ++i)
        for (int j = 0; j < 4; ++j) {
          const double mass = e.geometry.detwei.v[gi] * e.n.a[gi][i] * e.n.a[gi][j];
          for (int b = 0; b < 3; ++b) out.weighted[b].a[i][j] += mass * omega[b];
        }
    }
    out.two_scale = 2.0 * scale;
  }

  // The dense form (host code, tests): the same arithmetic as the compact one.
  template <class Ctx>
  FOEHN_HD void element(const Ctx& e, fe::Mat<12, 12>& a, fe::Vec<12>& b) const {
    CompactElement compact;
    element_compact(e, compact);
    for (int i = 0; i < 4; ++i)
      for (int j = 0; j < 4; ++j)
        for (int r = 0; r < 3; ++r)
          for (int c = 0; c < 3; ++c) a.a[i * 3 + r][j * 3 + c] = compact.entry(i, j, r, c);
    b = fe::Vec<12>::zero();
  }
};

}  // namespace foehn_examples
