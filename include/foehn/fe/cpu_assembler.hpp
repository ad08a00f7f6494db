#pragma once
// The CPU reference backend of the FE core: a single-threaded loop over elements that computes
// each element matrix with the shared element math (operators.hpp) and adds it into block-CSR
// values with a binary search in the row, in element order. It is the ground truth every GPU
// strategy is tested against; in deterministic mode the CUDA backend reproduces its sums
// bit for bit. On several threads (CpuAssemblyOptions::threads) the same sums are made by the
// row-block gather of row_blocks.hpp, bitwise equal to the serial loop.
//
//   CpuAssembler assembler(mesh);                        // pattern built once per mesh
//   BlockCsrMatrix k = assembler.create_matrix<DiffusionOperator>();
//   DiffusionOperator op;  op.tensor = field_ref(kappa);  op.source = field_ref(f);
//   assembler.assemble(op, k, rhs);                       // values refreshed every call

#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "foehn/fe/block_csr_matrix.hpp"
#include "foehn/fe/operators.hpp"
#include "foehn/fe/row_blocks.hpp"
#include "foehn/mesh/tet_mesh.hpp"
#include "foehn/runtime/error.hpp"

namespace foehn::fe {

struct CpuAssemblyOptions {
  // Find each block's slot through an element -> slot map built once per mesh (16 ints per
  // tet) instead of a binary search in the row per block, as the published code does. The
  // sums, and so the results, are the same bit for bit: only the lookup differs.
  bool use_slot_map = true;
  // Threads of the assembly (OpenMP): 1 runs the serial element loop, the reference; 0 takes
  // OpenMP's default (OMP_NUM_THREADS, else every core); more than 1 runs the row-block gather
  // on that many. Give MPI ranks one thread each unless cores are left over.
  int threads = 1;
  // Run the row-block gather even on one thread (benchmarks and tests).
  bool row_blocks = false;
  // Consecutive rows per block of the gather: larger blocks compute fewer elements twice,
  // smaller ones balance the threads better.
  std::int32_t rows_per_block = 2048;
};

class CpuAssembler {
 public:
  // Copies coordinates and connectivity (the mesh may go away) and builds the node pattern.
  // The mesh should have been validated; indices out of range are rejected here too.
  explicit CpuAssembler(const TetMesh& mesh, CpuAssemblyOptions options = {});

  std::int64_t node_count() const noexcept {
    return static_cast<std::int64_t>(coordinates_.size() / 3);
  }
  std::int64_t tet_count() const noexcept { return static_cast<std::int64_t>(tets_.size() / 4); }
  const std::shared_ptr<const CsrPattern>& pattern() const noexcept { return pattern_; }
  const std::vector<double>& coordinates() const noexcept { return coordinates_; }
  const std::vector<std::int32_t>& tets() const noexcept { return tets_; }
  // Threads the assembly runs on, and the row-block layout (empty for the serial loop).
  int threads() const noexcept { return threads_; }
  const RowBlockLayout& row_block_layout() const noexcept { return row_blocks_; }

  // A zero matrix with the operator's block shape on this mesh's pattern.
  template <class Op>
  BlockCsrMatrix create_matrix() const {
    return BlockCsrMatrix(pattern_, Op::block_rows, Op::block_cols);
  }

  // Sets `matrix` (and `rhs`, when not empty: node_count * Op::block_rows entries) to the
  // assembled operator. Throws foehn::Error (invalid_input) for fields of the wrong size or
  // with non-finite values, a matrix of another pattern or block shape, a wrong rhs size, or
  // a degenerate element.
  template <class Op>
  void assemble(const Op& op, BlockCsrMatrix& matrix, std::span<double> rhs = {}) const {
    if (matrix.pattern != pattern_ || matrix.block_rows != Op::block_rows ||
        matrix.block_cols != Op::block_cols)
      fail(ErrorCategory::invalid_input, Op::name,
           " operator: the matrix was not created for it on this mesh (use create_matrix<Op>())");
    assemble(op, std::span<double>(matrix.values), rhs);
  }
  // The same into any host memory of the right sizes (checked): pattern()->nnz() * R * C values
  // in Foehn's block order, and node_count * R right-hand-side entries when rhs is not empty.
  template <class Op>
  void assemble(const Op& op, std::span<double> values, std::span<double> rhs) const;

 private:
  std::vector<double> coordinates_;  // node * 3 + d
  std::vector<std::int32_t> tets_;   // tet * 4 + k
  std::shared_ptr<const CsrPattern> pattern_;
  std::vector<std::int32_t> slot_map_;  // tet * 16 + i * 4 + j, when use_slot_map
  int threads_ = 1;
  RowBlockLayout row_blocks_;  // when more than one thread or asked for

  template <class Op>
  void assemble_serial(const Op& op, std::span<double> values, std::span<double> rhs) const;
  template <class Op>
  void assemble_row_blocks(const Op& op, std::span<double> values, std::span<double> rhs) const;
};

}  // namespace foehn::fe
