#pragma once
// deterministic: no atomics. Element matrices go to a buffer (E x 16 blocks of R x C, stored
// component-major so the element kernel's stores coalesce); then one
// thread per nonzero block sums that block's contributions in ascending element order, which
// is exactly the order of the CPU reference loop (zero, then += element by element). This
// file is compiled with --fmad=false, like the host side is with -ffp-contract=off, so the
// element matrices and the sums are bitwise identical to the CPU reference.
//
// Byte model per element (scalar operator with a P1 tensor field): the element kernel reads
// connectivity 16, coordinates 96, tensor 288 and writes 16 x 8 matrix values + 4 x 8 RHS;
// the gather reads 16 x (4 + 8) per element (contribution index + value) and writes each
// nonzero once (8 bytes, about 6.5 per element for a P1 tet mesh), plus its offsets.

#include "foehn/fe/cuda/assembler_state.cuh"

namespace foehn::fe {

namespace strategy_detail {

template <class Op>
__global__ void element_matrices_kernel(Op op, const double* __restrict__ coordinates,
                                        const std::int32_t* __restrict__ tets,
                                        std::int64_t tet_count, double* __restrict__ matrices,
                                        double* __restrict__ vectors) {
  constexpr int R = Op::block_rows, C = Op::block_cols;
  const std::int64_t e = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x;
  if (e >= tet_count) return;
  ElementContextFor<typename Op::Rule> ctx;
  ElementResult<Op> element;
  element_result(op, coordinates, tets, e, ctx, element);
  if constexpr (HasCompactElement<Op>) {
    element.store(matrices + e * Op::CompactElement::stored_doubles);
  } else {
    // Component-major: entry q of every element is contiguous, so a warp's stores coalesce.
#pragma unroll
    for (int i = 0; i < 4; ++i) {
#pragma unroll
      for (int j = 0; j < 4; ++j) {
#pragma unroll
        for (int r = 0; r < R; ++r) {
#pragma unroll
          for (int c = 0; c < C; ++c)
            matrices[(((i * 4 + j) * R + r) * C + c) * tet_count + e] = element.entry(i, j, r, c);
        }
      }
    }
  }
  if (vectors) {
#pragma unroll
    for (int k = 0; k < 4 * R; ++k) vectors[k * tet_count + e] = element.rhs(k);
  }
}

// values[s * W + w] = sum over the contributions of s, in order, of their parts. Contribution
// number n = e * P + l (element e, local block or node l, P = 16 blocks or 4 nodes per tet)
// has its w-th value at parts[(l * W + w) * tet_count + e] (component-major, see above).
template <int W, int P>
__global__ void ordered_sum_kernel(const std::int32_t* __restrict__ offsets,
                                   const std::int32_t* __restrict__ contributions,
                                   std::int64_t targets, const double* __restrict__ parts,
                                   std::int64_t tet_count, double* __restrict__ values) {
  static_assert(P == 16 || P == 4, "16 blocks or 4 nodes per tet");
  constexpr int shift = P == 16 ? 4 : 2;
  const std::int64_t s = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x;
  if (s >= targets) return;
  double sum[W];
#pragma unroll
  for (int w = 0; w < W; ++w) sum[w] = 0.0;
  for (std::int32_t k = offsets[s]; k < offsets[s + 1]; ++k) {
    const std::int32_t n = contributions[k];
    const double* part =
        parts + static_cast<std::int64_t>(n & (P - 1)) * W * tet_count + (n >> shift);
#pragma unroll
    for (int w = 0; w < W; ++w) sum[w] += part[w * tet_count];
  }
#pragma unroll
  for (int w = 0; w < W; ++w) values[s * W + w] = sum[w];
}

// The gather of an operator with a compact element form, from the stored compact elements:
// every entry of a contribution is rebuilt with CompactElement::stored_entry, the arithmetic
// of the form's entry() that the CPU reference scatters.
template <class Op>
__global__ void ordered_sum_compact_kernel(const std::int32_t* __restrict__ offsets,
                                           const std::int32_t* __restrict__ contributions,
                                           std::int64_t targets, const double* __restrict__ stored,
                                           double* __restrict__ values) {
  using Compact = typename Op::CompactElement;
  constexpr int R = Op::block_rows, C = Op::block_cols;
  const std::int64_t s = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x;
  if (s >= targets) return;
  double sum[R * C];
#pragma unroll
  for (int w = 0; w < R * C; ++w) sum[w] = 0.0;
  for (std::int32_t k = offsets[s]; k < offsets[s + 1]; ++k) {
    const std::int32_t contribution = contributions[k];
    const int i = (contribution & 15) >> 2, j = contribution & 3;
    const double* element =
        stored + static_cast<std::int64_t>(contribution >> 4) * Compact::stored_doubles;
#pragma unroll
    for (int r = 0; r < R; ++r) {
#pragma unroll
      for (int c = 0; c < C; ++c) sum[r * C + c] += Compact::stored_entry(element, i, j, r, c);
    }
  }
#pragma unroll
  for (int w = 0; w < R * C; ++w) values[s * (R * C) + w] = sum[w];
}

}  // namespace strategy_detail

template <class Op>
void assemble_deterministic(CudaAssembler::Impl& impl, const Op& op,
                            const DeviceAssemblyTarget& target) {
  using namespace strategy_detail;
  constexpr int R = Op::block_rows, C = Op::block_cols;
  const Stream& stream = *impl.stream;
  // Stream-ordered pool allocations: after the first assembly these come from the pool.
  std::size_t per_element = 16 * R * C;
  if constexpr (HasCompactElement<Op>) per_element = Op::CompactElement::stored_doubles;
  DeviceArray<double> matrices(static_cast<std::size_t>(impl.tet_count) * per_element, stream);
  const bool with_rhs = target.rhs != nullptr;
  DeviceArray<double> vectors(with_rhs ? static_cast<std::size_t>(impl.tet_count) * 4 * R : 0,
                              stream);
  element_matrices_kernel<Op>
      <<<impl.grid_for(impl.tet_count), impl.options.block_size, 0, impl.native_stream()>>>(
          op, impl.coordinates.data(), impl.tets.data(), impl.tet_count, matrices.data(),
          with_rhs ? vectors.data() : nullptr);
  FOEHN_CUDA_CHECK_LAUNCH("deterministic element matrices kernel");
  if constexpr (HasCompactElement<Op>)
    ordered_sum_compact_kernel<Op>
        <<<impl.grid_for(impl.nnz), impl.options.block_size, 0, impl.native_stream()>>>(
            impl.slot_contribution_offsets.data(), impl.slot_contributions.data(), impl.nnz,
            matrices.data(), target.values);
  else
    ordered_sum_kernel<R * C, 16>
        <<<impl.grid_for(impl.nnz), impl.options.block_size, 0, impl.native_stream()>>>(
            impl.slot_contribution_offsets.data(), impl.slot_contributions.data(), impl.nnz,
            matrices.data(), impl.tet_count, target.values);
  FOEHN_CUDA_CHECK_LAUNCH("deterministic matrix gather kernel");
  if (with_rhs) {
    ordered_sum_kernel<R, 4>
        <<<impl.grid_for(impl.node_count), impl.options.block_size, 0, impl.native_stream()>>>(
            impl.node_contribution_offsets.data(), impl.node_contributions.data(), impl.node_count,
            vectors.data(), impl.tet_count, target.rhs);
    FOEHN_CUDA_CHECK_LAUNCH("deterministic rhs gather kernel");
  }
}

}  // namespace foehn::fe

#define FOEHN_INSTANTIATE_CUDA_DETERMINISTIC(Op)                                              \
  template void foehn::fe::assemble_deterministic(foehn::fe::CudaAssembler::Impl&, const Op&, \
                                                  const foehn::fe::DeviceAssemblyTarget&);
