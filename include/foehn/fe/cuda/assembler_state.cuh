#pragma once
// CUDA-only header (compile the including file with nvcc): the state of CudaAssembler and the
// helpers its strategies share. The strategies are templates in the headers of this folder, so
// that the library instantiates them for the built-in operators (operator_list.hpp) and a
// user's .cu file for operators of its own (define_operator.hpp); none of them knows which
// operator it runs.

#include <cuda_runtime.h>

#include <cstdint>
#include <map>

#include "foehn/fe/cuda_assembler.hpp"
#include "foehn/fe/element_scatter.hpp"
#include "foehn/fe/operator_interface.hpp"
#include "foehn/runtime/cuda_check.hpp"

namespace foehn::fe {

// How row_gather launches for blocks of W values per slot: rows per thread block and the
// dynamic shared memory holding the block's values (0: the rows are too long for shared
// memory, and every thread accumulates in its own row of the target).
struct RowGatherLaunch {
  int rows_per_block = 128;
  std::size_t shared_bytes = 0;
};

struct CudaAssembler::Impl {
  const Stream* stream = nullptr;
  CudaAssemblyOptions options;
  std::int64_t node_count = 0;
  std::int64_t tet_count = 0;
  std::int64_t nnz = 0;
  DeviceArray<double> coordinates;        // node * 3 + d
  DeviceArray<std::int32_t> tets;         // tet * 4 + k
  DeviceArray<std::int32_t> row_offsets;  // node pattern, nnz block slots
  DeviceArray<std::int32_t> column_indices;
  // fused_map and deterministic: slot of block (i, j) of tet e at e * 16 + i * 4 + j.
  DeviceArray<std::int32_t> slot_map;
  // deterministic: for each slot, its contributions (e * 16 + i * 4 + j) in ascending order;
  // for each node, its RHS contributions (e * 4 + i) in ascending order.
  DeviceArray<std::int32_t> slot_contribution_offsets;
  DeviceArray<std::int32_t> slot_contributions;
  DeviceArray<std::int32_t> node_contribution_offsets;
  DeviceArray<std::int32_t> node_contributions;
  // row_gather: launch shape per values-per-slot (1, 3, 9), chosen once per mesh.
  std::map<int, RowGatherLaunch> row_gather_launches;

  cudaStream_t native_stream() const { return native(*stream); }
  unsigned grid_for(std::int64_t threads) const {
    const std::int64_t blocks = (threads + options.block_size - 1) / options.block_size;
    return static_cast<unsigned>(blocks > 0 ? blocks : 1);  // kernels check their bounds
  }
  void build_pattern();
  void build_slot_map();
  void build_contribution_lists();
  void build_node_contributions();
  RowGatherLaunch row_gather_launch(int values_per_slot);
};

// The scatter policy of the atomic strategies: atomicAdd on the device (the host branch only
// exists so that the shared FOEHN_HD scatter compiles for both sides).
struct AtomicAdd {
  FOEHN_HD void operator()(double* target, double value) const {
#if defined(__CUDA_ARCH__)
    atomicAdd(target, value);
#else
    *target += value;
#endif
  }
};

// NaN everywhere: what a kernel stores for an element it could not compute (a degenerate tet
// that slipped past the host checks), so the failure shows in the result instead of hiding.
template <class Element>
__device__ void poison_element(Element& element) {
  element.set_all(__longlong_as_double(0x7ff8000000000000LL));
}

// Tet e's element result with the operator's own quadrature rule; the element context (its
// nodes are needed by the scatter) is returned through `ctx`.
template <class Op>
__device__ void element_result(const Op& op, const double* __restrict__ coordinates,
                               const std::int32_t* __restrict__ tets, std::int64_t e,
                               ElementContextFor<typename Op::Rule>& ctx,
                               ElementResult<Op>& element) {
  if (prepare_element(coordinates, tets, e, ctx))
    compute_element(op, ctx, element);
  else  // unreachable for a validated mesh: make the damage visible, never silent
    poison_element(element);
}

// Strategy entry points (staged_strategy.cuh, fused_strategy.cuh, deterministic_strategy.cuh,
// row_gather_strategy.cuh).
// The target's sizes have been checked.
template <class Op>
void assemble_staged(CudaAssembler::Impl& impl, const Op& op, const DeviceAssemblyTarget& target);
template <class Op>
void assemble_fused(CudaAssembler::Impl& impl, const Op& op, const DeviceAssemblyTarget& target,
                    bool use_slot_map);
template <class Op>
void assemble_deterministic(CudaAssembler::Impl& impl, const Op& op,
                            const DeviceAssemblyTarget& target);
template <class Op>
void assemble_row_gather(CudaAssembler::Impl& impl, const Op& op,
                         const DeviceAssemblyTarget& target);

// Zeroes the target's values (and right-hand side) on the assembler's stream: the atomic
// strategies add into them.
inline void zero_target(const CudaAssembler::Impl& impl, const DeviceAssemblyTarget& target) {
  ::foehn::detail::fill_bytes_async(target.values, 0, target.value_count * sizeof(double),
                                    impl.native_stream());
  if (target.rhs)
    ::foehn::detail::fill_bytes_async(target.rhs, 0, target.rhs_count * sizeof(double),
                                      impl.native_stream());
}

}  // namespace foehn::fe
