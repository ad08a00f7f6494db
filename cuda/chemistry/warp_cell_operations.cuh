#pragma once
// The per-cell operations of rosenbrock.hpp spread over the 32 lanes of a warp, for the
// block-per-cell strategy: the cell's arrays live in shared memory, lanes take species,
// reactions, Jacobian slots and the rows of one level of the LU and of the substitutions.
//
// Sums are gathers in the CPU's accumulation order (per species: reactions in order; per
// Jacobian slot: the scatter order of compute_jacobian), so forcing, Jacobian, LU and solves
// give the CPU's values (the file is built without FMA contraction); only the error norm's sum
// is reduced in another order. Reductions go to lane 0 and are broadcast, so every lane sees
// the same value and takes the same control-flow decisions in integrate_cell.

#include "foehn/chemistry/compiled_mechanism.hpp"
#include "foehn/chemistry/rosenbrock.hpp"

namespace foehn::chemistry::cuda_detail {

inline constexpr unsigned full_warp = 0xffffffffu;

// Index lists the warp version needs on top of CompiledMechanismView (built on the host).
struct WarpGatherLists {
  const int* species_gather_start = nullptr;      // [species + 1]
  const int* species_gather_reaction = nullptr;   // reaction contributing to f_i
  const double* species_gather_amount = nullptr;  // its net change of species i
  const int* slot_gather_start = nullptr;         // [nonzero_count + 1]
  const int* slot_gather_entry = nullptr;         // reactant entry l (derivative w.r.t. it)
  const double* slot_gather_amount = nullptr;     // net change multiplying that derivative
  const int* lu_update_start = nullptr;           // [lu_lower_count + 1] into lu_update_*
  int reactant_entries = 0;                       // reactant_start[reaction_count]
  // Level schedule (lu_update_start must have lu_lower_count + 1 entries): row i's elimination (and
  // its forward-substitution row) needs the rows k of its lower entries finished, so rows of one
  // level are independent; lanes take rows.
  const int* row_lower_start = nullptr;      // [species + 1]: lower entries of row i
  const int* forward_level_start = nullptr;  // [forward_levels + 1]
  const int* forward_level_row = nullptr;
  int forward_levels = 0;
  // Back substitution: row i needs the rows j > i of its upper entries.
  const int* backward_level_start = nullptr;
  const int* backward_level_row = nullptr;
  int backward_levels = 0;
};

// Level-scheduled in-place LU of one matrix by one warp: every row's arithmetic in the CPU order.
template <class Matrix>
__device__ void factor_by_levels(const CompiledMechanismView& m, const WarpGatherLists& lists,
                                 int lane, Matrix matrix) {
  for (int level = 0; level < lists.forward_levels; ++level) {
    for (int x = lists.forward_level_start[level] + lane; x < lists.forward_level_start[level + 1];
         x += 32) {
      const int row = lists.forward_level_row[x];
      eliminate_lu_row(m, matrix, row, lists.row_lower_start[row],
                       lists.lu_update_start[lists.row_lower_start[row]]);
    }
    __syncwarp();
  }
}

__device__ inline double warp_sum_to_all(double partial) {
  for (int offset = 16; offset > 0; offset >>= 1)
    partial += __shfl_down_sync(full_warp, partial, offset);
  return __shfl_sync(full_warp, partial, 0);
}

struct WarpCellOperations {
  const CompiledMechanismView& m;
  const WarpGatherLists& lists;
  double* rates;        // shared, [reaction_count]: reaction rates of the current forcing
  double* derivatives;  // shared, [reactant_entries]: d rate / d reactant
  int lane;

  template <class Function>
  __device__ void for_each_species(Function&& function) const {
    for (int i = lane; i < m.species_count; i += 32) function(i);
    __syncwarp();
  }
  __device__ double total(double partial) const { return warp_sum_to_all(partial); }
  // As SerialCellOperations::store_once: every lane has read the value's inputs before lane 0
  // writes, and every lane sees the write afterwards.
  template <class Span>
  __device__ void store_once(Span into, int index, double value) const {
    __syncwarp();
    if (lane == 0) into[index] = value;
    __syncwarp();
  }
  // The smallest lane candidate (as SerialCellOperations::lowest), broadcast to every lane.
  __device__ int lowest(double candidate, int none) const {
    for (int offset = 16; offset > 0; offset >>= 1)
      candidate = fmin(candidate, __shfl_down_sync(full_warp, candidate, offset));
    candidate = __shfl_sync(full_warp, candidate, 0);
    return candidate < none ? static_cast<int>(candidate) : -1;
  }

  template <class Rates, class State, class Forcing>
  __device__ void forcing(Rates k, State y, Forcing f) const {
    for (int r = lane; r < m.reaction_count; r += 32) {
      double rate = k[r];
      for (int l = m.reactant_start[r]; l < m.reactant_start[r + 1]; ++l)
        rate *= y[m.reactant_species[l]];
      rates[r] = rate;
    }
    __syncwarp();
    for (int i = lane; i < m.species_count; i += 32) {
      double sum = 0.0;
      for (int g = lists.species_gather_start[i]; g < lists.species_gather_start[i + 1]; ++g) {
        sum += lists.species_gather_amount[g] * rates[lists.species_gather_reaction[g]];
      }
      f[i] = sum;
    }
    __syncwarp();
  }

  // As SerialCellOperations::absolute_forcing, gathered in the CPU's order.
  template <class Rates, class State, class Sums>
  __device__ void absolute_forcing(Rates k, State y, Sums a) const {
    for (int r = lane; r < m.reaction_count; r += 32) {
      double rate = k[r];
      for (int l = m.reactant_start[r]; l < m.reactant_start[r + 1]; ++l)
        rate *= y[m.reactant_species[l]];
      rates[r] = fabs(rate);
    }
    __syncwarp();
    for (int i = lane; i < m.species_count; i += 32) {
      double sum = 0.0;
      for (int g = lists.species_gather_start[i]; g < lists.species_gather_start[i + 1]; ++g) {
        sum += fabs(lists.species_gather_amount[g]) * rates[lists.species_gather_reaction[g]];
      }
      a[i] = sum;
    }
    __syncwarp();
  }

  template <class Rates, class State, class Matrix>
  __device__ bool build_and_factor(Rates k, State y, double inverse_gamma_h, Matrix matrix) const {
    for (int r = lane; r < m.reaction_count; r += 32) {
      const int first = m.reactant_start[r];
      const int last = m.reactant_start[r + 1];
      for (int l = first; l < last; ++l) {
        double derivative = -k[r];  // -J directly, as compute_jacobian(..., -1.0)
        for (int o = first; o < last; ++o) {
          if (o != l) derivative *= y[m.reactant_species[o]];
        }
        derivatives[l] = derivative;
      }
    }
    __syncwarp();
    for (int s = lane; s < m.nonzero_count; s += 32) {
      double sum = 0.0;
      for (int g = lists.slot_gather_start[s]; g < lists.slot_gather_start[s + 1]; ++g) {
        sum += lists.slot_gather_amount[g] * derivatives[lists.slot_gather_entry[g]];
      }
      matrix[s] = sum;
    }
    __syncwarp();
    for (int i = lane; i < m.species_count; i += 32) matrix[m.diagonal[i]] += inverse_gamma_h;
    __syncwarp();
    factor_by_levels(m, lists, lane, matrix);
    bool bad = false;
    for (int i = lane; i < m.species_count; i += 32) {
      const double inverse_pivot = matrix[m.diagonal[i]];  // reciprocal, as in factor_in_place
      bad = bad || inverse_pivot == 0.0 || !detail::is_finite(inverse_pivot);
    }
    return !__any_sync(full_warp, bad);
  }

  // Level-scheduled substitutions; each row's sum in the CPU's order.
  template <class Matrix, class Vector>
  __device__ void solve(Matrix lu, Vector b) const {
    for (int level = 0; level < lists.forward_levels; ++level) {
      for (int x = lists.forward_level_start[level] + lane;
           x < lists.forward_level_start[level + 1]; x += 32) {
        const int i = lists.forward_level_row[x];
        double sum = b[i];
        for (int s = m.row_start[i]; s < m.diagonal[i]; ++s) sum -= lu[s] * b[m.column[s]];
        b[i] = sum;
      }
      __syncwarp();
    }
    for (int level = 0; level < lists.backward_levels; ++level) {
      for (int x = lists.backward_level_start[level] + lane;
           x < lists.backward_level_start[level + 1]; x += 32) {
        const int i = lists.backward_level_row[x];
        double sum = b[i];
        for (int s = m.diagonal[i] + 1; s < m.row_start[i + 1]; ++s) sum -= lu[s] * b[m.column[s]];
        b[i] = sum * lu[m.diagonal[i]];
      }
      __syncwarp();
    }
  }
};

}  // namespace foehn::chemistry::cuda_detail
