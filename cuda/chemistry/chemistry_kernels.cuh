#pragma once
// Kernels of the GPU chemistry solver: layout conversion, thread-per-cell integration (any
// layout), warp-per-cell integration (shared memory) and the stand-alone batched factorisation.

#include <cstdint>

#include "foehn/chemistry/cell_storage.hpp"
#include "warp_cell_operations.cuh"

namespace foehn::chemistry::cuda_detail {

// raw[cell][source_width] (cell-contiguous host order) -> field in Layout, entry i taken from
// raw column permutation[i] (nullptr: identity). One thread per cell.
template <class Layout>
__global__ void scatter_to_layout(const double* raw, int source_width, const int* permutation,
                                  int width, std::int64_t cells, double* field) {
  const std::int64_t cell = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x;
  if (cell >= cells) return;
  const auto span = Layout::span(field, cell, width, cells);
  const double* source = raw + cell * source_width;
  for (int i = 0; i < width; ++i) span[i] = source[permutation != nullptr ? permutation[i] : i];
}

template <class Layout>
__global__ void gather_from_layout(const double* field, int width, const int* permutation,
                                   std::int64_t cells, int destination_width, double* raw) {
  const std::int64_t cell = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x;
  if (cell >= cells) return;
  const auto span = Layout::span(const_cast<double*>(field), cell, width, cells);
  double* destination = raw + cell * destination_width;
  for (int i = 0; i < width; ++i)
    destination[permutation != nullptr ? permutation[i] : i] = span[i];
}

template <class Layout>
__global__ void integrate_thread_per_cell(CompiledMechanismView m, RosenbrockTableau method,
                                          RosenbrockControl control, CellChecks checks,
                                          CellStorage storage, double duration) {
  const std::int64_t cell = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x;
  if (cell >= storage.cells) return;
  integrate_stored_cell<Layout>(m, method, control, checks, storage, cell, duration);
}

// Shared doubles of one warp-per-cell block: y, rate constants, workspace, reaction rates and
// reactant derivatives.
inline std::int64_t warp_cell_shared_doubles(const CompiledMechanismView& m, int work_width,
                                             int reactant_entries) {
  return m.species_count + 2 * static_cast<std::int64_t>(m.reaction_count) + work_width +
         reactant_entries;
}

// One 32-thread block per cell.
template <class Layout>
__global__ void integrate_warp_per_cell(CompiledMechanismView m, WarpGatherLists lists,
                                        RosenbrockTableau method, RosenbrockControl control,
                                        CellChecks checks, CellStorage storage, double duration) {
  extern __shared__ double shared[];
  const std::int64_t cell = blockIdx.x;
  const int lane = static_cast<int>(threadIdx.x);
  double* y = shared;
  double* k = y + m.species_count;
  double* work = k + m.reaction_count;
  double* rates = work + storage.work_width;
  double* derivatives = rates + m.reaction_count;

  const std::int64_t cells = storage.cells;
  const auto global_y = Layout::span(storage.concentrations, cell, m.species_count, cells);
  const int external_width = m.external_rate_count > 0 ? m.external_rate_count : 1;
  const auto external = Layout::span(storage.external_rates, cell, external_width, cells);
  const double temperature = storage.temperature[cell];
  const double pressure = storage.pressure[cell];
  for (int i = lane; i < m.species_count; i += 32) y[i] = global_y[i];
  for (int r = lane; r < m.reaction_count; r += 32) {
    k[r] = rate_constant(m.rate_type[r], m.rate_parameters + r * max_rate_parameters,
                         m.external_index[r], temperature, pressure, external, m.air_density_scale);
  }
  __syncwarp();
  const WarpCellOperations ops{m, lists, rates, derivatives, lane};
  const CellStatistics stats =
      integrate_cell(m, method, control, checks, duration, storage.statistics[cell].next_step,
                     CellSpan<1>{k}, CellSpan<1>{y}, CellSpan<1>{work}, ops);
  for (int i = lane; i < m.species_count; i += 32) global_y[i] = y[i];
  if (lane == 0) storage.statistics[cell] = stats;
}

template <class Layout>
__global__ void factor_batch(CompiledMechanismView m, double* matrices, std::int64_t cells) {
  const std::int64_t cell = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x;
  if (cell >= cells) return;
  factor_in_place(m, Layout::span(matrices, cell, m.nonzero_count, cells));
}

inline constexpr int factor_warps_per_block = 4;

// One warp per matrix: the matrix is read into shared memory once (coalesced in the per-cell
// layout), factored there by levels, and written back once: the byte floor of the factorisation.
template <class Layout>
__global__ void factor_batch_by_warps(CompiledMechanismView m, WarpGatherLists lists,
                                      double* matrices, std::int64_t cells) {
  extern __shared__ double shared[];
  const int warp = static_cast<int>(threadIdx.x) / 32;
  const int lane = static_cast<int>(threadIdx.x) % 32;
  const std::int64_t cell = blockIdx.x * static_cast<std::int64_t>(factor_warps_per_block) + warp;
  if (cell >= cells) return;  // whole warps leave together
  double* matrix = shared + static_cast<std::int64_t>(warp) * m.nonzero_count;
  const auto global = Layout::span(matrices, cell, m.nonzero_count, cells);
  for (int s = lane; s < m.nonzero_count; s += 32) matrix[s] = global[s];
  __syncwarp();
  factor_by_levels(m, lists, lane, matrix);
  for (int s = lane; s < m.nonzero_count; s += 32) global[s] = matrix[s];
}

}  // namespace foehn::chemistry::cuda_detail
