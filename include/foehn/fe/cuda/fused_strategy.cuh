#pragma once
// fused_atomic and fused_map: one thread per element computes its element matrix in registers
// with the shared element math and adds it straight into the CSR values with atomicAdd.
// fused_atomic finds each block's slot by binary search in the row (as the published scatter
// does); fused_map reads it from the slot map built once per mesh.
//
// Byte model per element (scalar operator with a P1 tensor field, 8-byte doubles, 4-byte ints),
// counted as the fewest bytes that must move through device memory:
//   connectivity 16; coordinates 4 x 24 (mostly cache hits, counted once per element);
//   tensor 4 x 72; CSR values 16 x (8 read + 8 write) for the atomics; RHS 4 x 16;
//   fused_atomic also reads column indices of 4 rows for the search (~4 x 4 x log2(15) ints,
//   mostly L1/L2); fused_map reads 16 x 4 bytes of slot map instead.
// The benchmark (bench/assembly) computes these totals from the real field layout.

#include "foehn/fe/cuda/assembler_state.cuh"

namespace foehn::fe {

namespace strategy_detail {

template <class Op, bool UseMap>
__global__ void fused_assembly_kernel(Op op, const double* __restrict__ coordinates,
                                      const std::int32_t* __restrict__ tets, std::int64_t tet_count,
                                      const std::int32_t* __restrict__ row_offsets,
                                      const std::int32_t* __restrict__ column_indices,
                                      const std::int32_t* __restrict__ slot_map,
                                      double* __restrict__ values, double* __restrict__ rhs) {
  constexpr int R = Op::block_rows, C = Op::block_cols;
  const std::int64_t e = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x;
  if (e >= tet_count) return;
  ElementContextFor<typename Op::Rule> ctx;
  ElementResult<Op> element;
  element_result(op, coordinates, tets, e, ctx, element);
  if constexpr (UseMap)
    scatter_element_matrix_mapped<R, C>(slot_map + e * 16, values, element, AtomicAdd{});
  else
    scatter_element_matrix<R, C>(row_offsets, column_indices, values, ctx.nodes, element,
                                 AtomicAdd{});
  if (rhs) scatter_element_vector<R>(rhs, ctx.nodes, element, AtomicAdd{});
}

}  // namespace strategy_detail

template <class Op>
void assemble_fused(CudaAssembler::Impl& impl, const Op& op, const DeviceAssemblyTarget& target,
                    bool use_slot_map) {
  using namespace strategy_detail;
  zero_target(impl, target);
  double* rhs_data = target.rhs;
  const unsigned grid = impl.grid_for(impl.tet_count);
  if (use_slot_map) {
    fused_assembly_kernel<Op, true><<<grid, impl.options.block_size, 0, impl.native_stream()>>>(
        op, impl.coordinates.data(), impl.tets.data(), impl.tet_count, impl.row_offsets.data(),
        impl.column_indices.data(), impl.slot_map.data(), target.values, rhs_data);
    FOEHN_CUDA_CHECK_LAUNCH("fused_map assembly kernel");
  } else {
    fused_assembly_kernel<Op, false><<<grid, impl.options.block_size, 0, impl.native_stream()>>>(
        op, impl.coordinates.data(), impl.tets.data(), impl.tet_count, impl.row_offsets.data(),
        impl.column_indices.data(), nullptr, target.values, rhs_data);
    FOEHN_CUDA_CHECK_LAUNCH("fused_atomic assembly kernel");
  }
}

}  // namespace foehn::fe

#define FOEHN_INSTANTIATE_CUDA_FUSED(Op)                                              \
  template void foehn::fe::assemble_fused(foehn::fe::CudaAssembler::Impl&, const Op&, \
                                          const foehn::fe::DeviceAssemblyTarget&, bool);
