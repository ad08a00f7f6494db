#pragma once
// A mechanism "compiled" once into flat index lists so that forcing, Jacobian and the sparse LU
// of (1/(gamma h)) I - J run as straight loops over plain arrays (the same code on CPU and in a
// CUDA kernel). All species-indexed arrays (y, f, b) are in the COMPILED species order, chosen
// to minimise LU fill-in; `species_order[i]` is the mechanism species at compiled position i.

#include <cstdint>
#include <vector>

#include "foehn/chemistry/mechanism.hpp"
#include "foehn/chemistry/rate_constants.hpp"
#include "foehn/runtime/host_device.hpp"

namespace foehn::chemistry {

// Plain pointers + counts; everything a kernel needs. Matrix storage is CSR over the LU fill
// pattern (rows sorted by column), so J, (1/(gamma h)) I - J and its LU share one slot numbering.
struct CompiledMechanismView {
  int species_count = 0;
  int reaction_count = 0;
  int external_rate_count = 0;
  double air_density_scale = 1.0;  // air_density_scale_of(the mechanism's unit)
  // Rate constants: type, parameters [reaction * max_rate_parameters] (external types: slot 0
  // is the scaling factor), external slot.
  const int* rate_type = nullptr;
  const double* rate_parameters = nullptr;
  const int* external_index = nullptr;
  // Reactants with multiplicity (2 B -> listed twice): rate = k * prod y[reactant_species].
  const int* reactant_start = nullptr;  // [reaction_count + 1]
  const int* reactant_species = nullptr;
  // Net change per reaction (yield - coefficient, zeros and constant species dropped).
  const int* change_start = nullptr;  // [reaction_count + 1]
  const int* change_species = nullptr;
  const double* change_amount = nullptr;
  // Jacobian: for reaction r, reactant entry l, change c (in that nesting) the slot of J[c][l].
  const int* jacobian_slot = nullptr;
  // CSR fill pattern of the LU factors.
  int nonzero_count = 0;
  const int* row_start = nullptr;  // [species_count + 1]
  const int* column = nullptr;     // [nonzero_count]
  const int* diagonal = nullptr;   // [species_count] slot of (i, i)
  // In-place LU, row by row: for each lower entry (i,k) in order, a_ik /= a_kk, then
  // update_count[e] updates a_ij -= a_ik a_kj taken in order from lu_update_target/source.
  int lu_lower_count = 0;
  const int* lu_lower_slot = nullptr;     // (i, k)
  const int* lu_lower_pivot = nullptr;    // (k, k)
  const int* lu_update_count = nullptr;   // per lower entry
  const int* lu_update_target = nullptr;  // (i, j)
  const int* lu_update_source = nullptr;  // (k, j)
};

// Owns the arrays a view points into. Not copyable-by-accident issues: views are rebuilt by
// view() and stay valid while this object lives and is not modified.
struct CompiledMechanism {
  std::vector<int> species_order;   // compiled position -> mechanism species index
  std::vector<int> compiled_index;  // mechanism species index -> compiled position
  int external_rate_count = 0;
  double air_density_scale = 1.0;
  std::vector<int> rate_type;
  std::vector<double> rate_parameters;
  std::vector<int> external_index;
  std::vector<int> reactant_start, reactant_species;
  std::vector<int> change_start, change_species;
  std::vector<double> change_amount;
  std::vector<int> jacobian_slot;
  std::vector<int> row_start, column, diagonal;
  std::vector<int> lu_lower_slot, lu_lower_pivot, lu_update_count, lu_update_target,
      lu_update_source;
  std::int64_t jacobian_nonzeros = 0;  // structural nonzeros of J plus the diagonal
  std::int64_t fill_in = 0;            // LU nonzeros - jacobian_nonzeros

  [[nodiscard]] CompiledMechanismView view() const;
  [[nodiscard]] int species_count() const { return static_cast<int>(species_order.size()); }
  [[nodiscard]] int reaction_count() const { return static_cast<int>(rate_type.size()); }
};

// natural: file order. minimum_degree: greedy minimum degree on the symmetrised pattern.
// markowitz: diagonal Markowitz pivoting on the nonsymmetric pattern (KPP's choice; the default,
// it sees that reaction cascades are triangular and gives far less fill-in on real mechanisms).
enum class SpeciesOrdering { natural, minimum_degree, markowitz };

// Builds the sparsity of d f / d y, orders species, runs the symbolic LU and flattens everything.
[[nodiscard]] CompiledMechanism compile(const Mechanism& mechanism,
                                        SpeciesOrdering ordering = SpeciesOrdering::markowitz);

// ---- kernels: one cell; arrays in compiled species order -----------------------------------
// Array arguments are plain pointers or CellSpan<> views (cell_layout.hpp): the same code runs
// on a cell-contiguous workspace and on interleaved device storage.

// Returns the first reaction whose rate constant is not finite (an overflowing parameter or
// intermediate, rate_constants.hpp), or -1: a kernel can stop such a cell with a status instead
// of integrating it, and the host names the reaction (check_rate_constants).
template <class ExternalRates, class Rates>
FOEHN_HD int compute_rate_constants(const CompiledMechanismView& m, double temperature,
                                    double pressure, ExternalRates external_rates, Rates k) {
  int first_non_finite = -1;
  for (int r = 0; r < m.reaction_count; ++r) {
    const double value = rate_constant(m.rate_type[r], m.rate_parameters + r * max_rate_parameters,
                                       m.external_index[r], temperature, pressure, external_rates,
                                       m.air_density_scale);
    k[r] = value;
    if (first_non_finite < 0 && !rate_is_finite(value)) first_non_finite = r;
  }
  return first_non_finite;
}

// f = dy/dt.
template <class Rates, class State, class Forcing>
FOEHN_HD void compute_forcing(const CompiledMechanismView& m, Rates k, State y, Forcing f) {
  for (int i = 0; i < m.species_count; ++i) f[i] = 0.0;
  for (int r = 0; r < m.reaction_count; ++r) {
    double rate = k[r];
    for (int l = m.reactant_start[r]; l < m.reactant_start[r + 1]; ++l) {
      rate *= y[m.reactant_species[l]];
    }
    for (int c = m.change_start[r]; c < m.change_start[r + 1]; ++c) {
      f[m.change_species[c]] += m.change_amount[c] * rate;
    }
  }
}

// sign * J = sign * d f / d y into the CSR slots (fill slots are zeroed too). sign = -1 gives -J
// in one pass (bitwise the negation of J: rounding is symmetric), as the iteration matrix needs.
template <class Rates, class State, class Matrix>
FOEHN_HD void compute_jacobian(const CompiledMechanismView& m, Rates k, State y, Matrix jacobian,
                               double sign = 1.0) {
  for (int s = 0; s < m.nonzero_count; ++s) jacobian[s] = 0.0;
  int slot = 0;
  for (int r = 0; r < m.reaction_count; ++r) {
    const int first = m.reactant_start[r];
    const int last = m.reactant_start[r + 1];
    for (int l = first; l < last; ++l) {
      // d rate / d y[reactant l] = k * prod over the other entries (repeated entries sum to n
      // y^(n-1)).
      double derivative = sign * k[r];
      for (int o = first; o < last; ++o) {
        if (o != l) derivative *= y[m.reactant_species[o]];
      }
      for (int c = m.change_start[r]; c < m.change_start[r + 1]; ++c) {
        jacobian[m.jacobian_slot[slot++]] += m.change_amount[c] * derivative;
      }
    }
  }
}

// In-place LU (unit lower L, no pivoting: the matrix (1/(gamma h)) I - J is diagonally dominant
// enough for small gamma h, as in KPP/MICM/CAMP). The caller forms the matrix in `values`.
// As in CAM's generated code, each finished row's diagonal is stored as its RECIPROCAL: the
// eliminations below it and the back substitution then multiply instead of divide (one division
// per row instead of one per lower entry). A zero pivot shows as an infinite reciprocal.
//
// The updates of one lower entry (i,k) write distinct entries (i,j) of row i and read row k, so
// they are independent: four at a time, all loads before the stores, which the compiler cannot
// do by itself (it must assume a store may alias the next load). On the GPU that quadruples the
// loads in flight per thread; the arithmetic of every entry is unchanged.
template <class Matrix>
FOEHN_HD void apply_lu_updates(const CompiledMechanismView& m, Matrix values, double multiplier,
                               int first, int last) {
  int u = first;
  for (; u + 4 <= last; u += 4) {
    const int t0 = m.lu_update_target[u], t1 = m.lu_update_target[u + 1];
    const int t2 = m.lu_update_target[u + 2], t3 = m.lu_update_target[u + 3];
    const double a0 = values[t0], a1 = values[t1], a2 = values[t2], a3 = values[t3];
    const double b0 = values[m.lu_update_source[u]], b1 = values[m.lu_update_source[u + 1]];
    const double b2 = values[m.lu_update_source[u + 2]], b3 = values[m.lu_update_source[u + 3]];
    values[t0] = a0 - multiplier * b0;
    values[t1] = a1 - multiplier * b1;
    values[t2] = a2 - multiplier * b2;
    values[t3] = a3 - multiplier * b3;
  }
  for (; u < last; ++u) values[m.lu_update_target[u]] -= multiplier * values[m.lu_update_source[u]];
}

// Row i of the factorisation: its lower entries are lu_lower_* [first_lower, first_lower +
// diagonal[i] - row_start[i]) with their updates from `first_update`; returns the next update.
template <class Matrix>
FOEHN_HD int eliminate_lu_row(const CompiledMechanismView& m, Matrix values, int row,
                              int first_lower, int first_update) {
  int update = first_update;
  const int lower_end = first_lower + (m.diagonal[row] - m.row_start[row]);
  for (int e = first_lower; e < lower_end; ++e) {
    const double multiplier = values[m.lu_lower_slot[e]] * values[m.lu_lower_pivot[e]];
    values[m.lu_lower_slot[e]] = multiplier;
    apply_lu_updates(m, values, multiplier, update, update + m.lu_update_count[e]);
    update += m.lu_update_count[e];
  }
  values[m.diagonal[row]] = 1.0 / values[m.diagonal[row]];
  return update;
}

template <class Matrix>
FOEHN_HD void factor_in_place(const CompiledMechanismView& m, Matrix values) {
  int lower = 0;
  int update = 0;
  for (int i = 0; i < m.species_count; ++i) {
    update = eliminate_lu_row(m, values, i, lower, update);
    lower += m.diagonal[i] - m.row_start[i];
  }
}

// Solves (LU) x = b in place (b becomes x); the LU from factor_in_place (reciprocal diagonal).
template <class Matrix, class Vector>
FOEHN_HD void solve(const CompiledMechanismView& m, Matrix lu, Vector b) {
  for (int i = 0; i < m.species_count; ++i) {
    double sum = b[i];
    for (int s = m.row_start[i]; s < m.diagonal[i]; ++s) sum -= lu[s] * b[m.column[s]];
    b[i] = sum;
  }
  for (int i = m.species_count - 1; i >= 0; --i) {
    double sum = b[i];
    for (int s = m.diagonal[i] + 1; s < m.row_start[i + 1]; ++s) sum -= lu[s] * b[m.column[s]];
    b[i] = sum * lu[m.diagonal[i]];
  }
}

// values = (1/(gamma h)) I - J, on the LU pattern (a helper for callers and tests).
template <class Jacobian, class Matrix>
FOEHN_HD void form_iteration_matrix(const CompiledMechanismView& m, Jacobian jacobian,
                                    double inverse_gamma_h, Matrix values) {
  for (int s = 0; s < m.nonzero_count; ++s) values[s] = -jacobian[s];
  for (int i = 0; i < m.species_count; ++i) values[m.diagonal[i]] += inverse_gamma_h;
}

}  // namespace foehn::chemistry
