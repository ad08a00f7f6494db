#pragma once
// The CUDA backend of the FE core: the operators of operators.hpp assembled on the GPU, with
// five interchangeable strategies that produce the same matrix:
//
//   staged         the published pipeline, kernel by kernel: gather element-local arrays,
//                  transform_to_physical writing shape derivatives and detwei per quadrature
//                  point, coefficients at the quadrature points, an element-matrix kernel
//                  writing E x 16 R C values, then a separate binary-search + atomicAdd scatter
//                  (and the same for the RHS). The baseline every benchmark compares to.
//   fused_atomic   one kernel: element matrix in registers, binary search, atomicAdd.
//   fused_map      one kernel: a precomputed element -> CSR-slot map replaces the search.
//   deterministic  no atomics: element matrices to a buffer, then every nonzero sums its
//                  contributions in element order, exactly as the CPU reference does; compiled
//                  without FMA contraction, so the result is bitwise identical to the CPU.
//   row_gather     no atomics, no buffer: one thread per (block) row recomputes the elements
//                  around its node in element order and writes each nonzero once; bitwise
//                  identical to the CPU like deterministic, with no element buffer, but
//                  computing every element four times (slower than deterministic on the H100).
//
// Fields of an operator passed here must be in device memory (DeviceArray::data()).
// No CUDA header is included: the header compiles in CPU-only builds, where every call throws
// foehn::Error (unavailable).

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "foehn/fe/assembly_strategy.hpp"
#include "foehn/fe/block_csr_matrix.hpp"
#include "foehn/fe/device_block_csr_matrix.hpp"
#include "foehn/fe/operators.hpp"
#include "foehn/mesh/tet_mesh.hpp"
#include "foehn/runtime/device_array.hpp"
#include "foehn/runtime/stream.hpp"

namespace foehn::fe {

// Per-stage times of the staged pipeline (milliseconds, summed over calls), for the published
// breakdown: events between the stages, and a wait for the last one at the end of every
// profiled assembly (benchmarks only).
struct StagedPipelineTimes {
  double gather_ms = 0, transform_ms = 0, coefficient_ms = 0, element_ms = 0, scatter_ms = 0,
         rhs_ms = 0;
  int calls = 0;
};

struct CudaAssemblyOptions {
  int block_size = 256;  // threads per block of the element kernels (128 or 256 in the paper)
  StagedPipelineTimes* staged_profile = nullptr;  // when set, staged assemblies record stage times
};

class CudaAssembler {
 public:
  // Uploads coordinates and connectivity and builds the node pattern on the device (sort and
  // unique of the (row, column) pairs with CUB), identical to build_node_pattern's. Every
  // call runs on `stream`, which must outlive the assembler; matrices, right-hand sides and
  // fields used with it must be ready on that stream (allocated on it, or synchronised).
  CudaAssembler(const TetMesh& mesh, const Stream& stream, CudaAssemblyOptions options = {});
  ~CudaAssembler();
  CudaAssembler(CudaAssembler&&) noexcept;
  CudaAssembler& operator=(CudaAssembler&&) noexcept;

  std::int64_t node_count() const noexcept;
  std::int64_t tet_count() const noexcept;
  std::int64_t nnz() const noexcept;  // block nonzeros of the node pattern
  const Stream& stream() const noexcept;
  const DeviceArray<std::int32_t>& row_offsets() const noexcept;
  const DeviceArray<std::int32_t>& column_indices() const noexcept;
  const DeviceArray<double>& coordinates() const noexcept;
  const DeviceArray<std::int32_t>& tets() const noexcept;
  CsrPattern download_pattern() const;

  // Builds what a strategy needs once per mesh (the slot map for fused_map and deterministic,
  // the contribution lists for deterministic); assemble() calls it when needed, so calling
  // it first only moves the cost out of the first assembly.
  void prepare(AssemblyStrategy strategy);
  // Bytes of device memory held for the pattern and the per-strategy structures.
  std::size_t setup_bytes() const noexcept;

  template <class Op>
  DeviceBlockCsrMatrix create_matrix() const {
    return DeviceBlockCsrMatrix{
        Op::block_rows, Op::block_cols,
        DeviceArray<double>(static_cast<std::size_t>(nnz()) * Op::block_rows * Op::block_cols,
                            stream())};
  }

  // Sets `matrix` (and `rhs` when not null: node_count * Op::block_rows entries) to the
  // assembled operator, asynchronously on the assembler's stream. Field sizes are checked on
  // the host; field values are the caller's (device memory).
  template <class Op>
  void assemble(const Op& op, DeviceBlockCsrMatrix& matrix, DeviceArray<double>* rhs,
                AssemblyStrategy strategy) {
    assemble(op, DeviceAssemblyTarget::of(matrix, rhs), strategy);
  }
  // The same into any device memory of the right sizes (checked), e.g. straight into the value
  // array of a PETSc Mat on the GPU. The memory must be free to write on the assembler's stream.
  template <class Op>
  void assemble(const Op& op, const DeviceAssemblyTarget& target, AssemblyStrategy strategy);

  // Copies device values into a host matrix on `pattern` (waits for the stream).
  BlockCsrMatrix download(const DeviceBlockCsrMatrix& matrix,
                          std::shared_ptr<const CsrPattern> pattern) const;

  struct Impl;

 private:
  std::unique_ptr<Impl> impl_;
};

}  // namespace foehn::fe

// Explicit instantiation of CudaAssembler::assemble for Op, where its definition is visible
// (the library's own files; FOEHN_DEFINE_OPERATOR of define_operator.hpp for a user's operator).
#define FOEHN_INSTANTIATE_CUDA_DISPATCH(Op)         \
  template void foehn::fe::CudaAssembler::assemble( \
      const Op&, const foehn::fe::DeviceAssemblyTarget&, foehn::fe::AssemblyStrategy);
