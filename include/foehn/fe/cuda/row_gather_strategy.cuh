#pragma once
// row_gather: no atomics, no zeroing pass, no element buffer. One thread per matrix row (block
// row for BCSR) walks the elements around its node in ascending element order (the node ->
// element adjacency built once per mesh on the device), computes each element with the shared
// element math, and adds that element's row into accumulators only it touches. The block's
// rows are consecutive, so their nonzeros are one contiguous range of the CSR values: the
// accumulators of the whole block live in shared memory, and the block writes the range once,
// coalesced, at the end. The right-hand side of the row is summed in registers.
//
// Every slot receives its contributions in increasing element order, starting from 0: the
// CPU reference's order. This file is compiled with --fmad=false (like the host side with
// -ffp-contract=off), so the result is bitwise identical to the CPU reference.
//
// Each element is computed once per vertex, four times in all. Measured on the H100 at 10 M tets
// (bench/results/assembly-h100-20261124.md): diffusion 7.7 ms against 2.2 ms for deterministic,
// momentum 16.2 ms against 9.0 ms. The recomputation is not the cheaper side here: the element
// math (fp64, without FMA contraction for bitwise equality) of four elements per node costs more
// than moving one element buffer through memory, so deterministic stays the default (see
// default_assembly_strategy) and row_gather is the variant that needs no buffer at all.

#include "foehn/fe/cuda/assembler_state.cuh"

namespace foehn::fe {

namespace strategy_detail {

// Rows [blockIdx.x * blockDim.x, + blockDim.x). InShared: the block's values are accumulated in
// dynamic shared memory and copied out at the end; otherwise (a row too long for shared
// memory) each thread accumulates straight into its own row of `values`, which no other thread
// touches.
template <class Op, bool InShared>
__global__ void row_gather_kernel(Op op, const double* __restrict__ coordinates,
                                  const std::int32_t* __restrict__ tets, std::int64_t node_count,
                                  const std::int32_t* __restrict__ row_offsets,
                                  const std::int32_t* __restrict__ column_indices,
                                  const std::int32_t* __restrict__ node_element_offsets,
                                  const std::int32_t* __restrict__ node_elements,
                                  double* __restrict__ values, double* __restrict__ rhs) {
  constexpr int R = Op::block_rows, C = Op::block_cols, W = R * C;
  extern __shared__ double shared_values[];
  const std::int64_t first_row = static_cast<std::int64_t>(blockIdx.x) * blockDim.x;
  const std::int64_t row = first_row + threadIdx.x;
  const std::int64_t last_row = min(first_row + blockDim.x, node_count);  // exclusive
  const std::int32_t block_begin = row_offsets[first_row];
  double* accumulators =
      InShared ? shared_values - static_cast<std::int64_t>(block_begin) * W : values;
  if (row < node_count) {
    const std::int32_t begin = row_offsets[row], end = row_offsets[row + 1];
    for (std::int64_t k = static_cast<std::int64_t>(begin) * W;
         k < static_cast<std::int64_t>(end) * W; ++k)
      accumulators[k] = 0.0;
    double row_rhs[R];
#pragma unroll
    for (int r = 0; r < R; ++r) row_rhs[r] = 0.0;
    ElementContextFor<typename Op::Rule> ctx;
    ElementResult<Op> element;
    for (std::int32_t k = node_element_offsets[row]; k < node_element_offsets[row + 1]; ++k) {
      const std::int32_t contribution = node_elements[k];  // e * 4 + local vertex
      const std::int64_t e = contribution >> 2;
      const int l = contribution & 3;
      element_result(op, coordinates, tets, e, ctx, element);
#pragma unroll
      for (int j = 0; j < 4; ++j) {
        const std::int32_t slot = find_column(column_indices, begin, end, ctx.nodes[j]);
        double* block = accumulators + static_cast<std::int64_t>(slot) * W;
#pragma unroll
        for (int r = 0; r < R; ++r) {
#pragma unroll
          for (int c = 0; c < C; ++c) block[r * C + c] += element.entry(l, j, r, c);
        }
      }
      if (rhs) {
#pragma unroll
        for (int r = 0; r < R; ++r) row_rhs[r] += element.rhs(l * R + r);
      }
    }
    if (rhs) {
#pragma unroll
      for (int r = 0; r < R; ++r) rhs[row * R + r] = row_rhs[r];
    }
  }
  if constexpr (InShared) {
    __syncthreads();
    const std::int64_t count = static_cast<std::int64_t>(row_offsets[last_row] - block_begin) * W;
    double* out = values + static_cast<std::int64_t>(block_begin) * W;
    for (std::int64_t k = threadIdx.x; k < count; k += blockDim.x) out[k] = shared_values[k];
  }
}

}  // namespace strategy_detail

template <class Op>
void assemble_row_gather(CudaAssembler::Impl& impl, const Op& op,
                         const DeviceAssemblyTarget& target) {
  using namespace strategy_detail;
  constexpr int W = Op::block_rows * Op::block_cols;
  const RowGatherLaunch launch = impl.row_gather_launch(W);
  const unsigned grid =
      static_cast<unsigned>((impl.node_count + launch.rows_per_block - 1) / launch.rows_per_block);
  if (launch.shared_bytes > 0) {
    // Above 48 KiB a kernel must opt in to its dynamic shared memory (once per instantiation
    // and size; cheap, and the sizes only grow on a new mesh).
    FOEHN_CUDA_CHECK(cudaFuncSetAttribute(row_gather_kernel<Op, true>,
                                          cudaFuncAttributeMaxDynamicSharedMemorySize,
                                          static_cast<int>(launch.shared_bytes)));
    row_gather_kernel<Op, true>
        <<<grid, launch.rows_per_block, launch.shared_bytes, impl.native_stream()>>>(
            op, impl.coordinates.data(), impl.tets.data(), impl.node_count, impl.row_offsets.data(),
            impl.column_indices.data(), impl.node_contribution_offsets.data(),
            impl.node_contributions.data(), target.values, target.rhs);
  } else {
    row_gather_kernel<Op, false><<<grid, launch.rows_per_block, 0, impl.native_stream()>>>(
        op, impl.coordinates.data(), impl.tets.data(), impl.node_count, impl.row_offsets.data(),
        impl.column_indices.data(), impl.node_contribution_offsets.data(),
        impl.node_contributions.data(), target.values, target.rhs);
  }
  FOEHN_CUDA_CHECK_LAUNCH("row_gather assembly kernel");
}

}  // namespace foehn::fe

#define FOEHN_INSTANTIATE_CUDA_ROW_GATHER(Op)                                              \
  template void foehn::fe::assemble_row_gather(foehn::fe::CudaAssembler::Impl&, const Op&, \
                                               const foehn::fe::DeviceAssemblyTarget&);
