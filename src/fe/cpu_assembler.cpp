#include "foehn/fe/cpu_assembler.hpp"

#include <algorithm>

#include "foehn/fe/element_scatter.hpp"
#include "foehn/fe/operator_checks.hpp"
#include "foehn/runtime/error.hpp"

namespace foehn::fe {

CpuAssembler::CpuAssembler(const TetMesh& mesh, CpuAssemblyOptions options)
    : pattern_(std::make_shared<const CsrPattern>(build_node_pattern(mesh))) {
  coordinates_.reserve(mesh.nodes.size() * 3);
  for (const Point3& p : mesh.nodes) coordinates_.insert(coordinates_.end(), p.begin(), p.end());
  tets_.reserve(mesh.tets.size() * 4);
  for (const Tet& t : mesh.tets) tets_.insert(tets_.end(), t.begin(), t.end());
  if (options.use_slot_map) {
    slot_map_.resize(mesh.tets.size() * 16);
    for (std::size_t t = 0; t < mesh.tets.size(); ++t)
      for (int i = 0; i < 4; ++i)
        for (int j = 0; j < 4; ++j)
          slot_map_[t * 16 + i * 4 + j] =
              block_slot(pattern_->row_offsets.data(), pattern_->column_indices.data(),
                         mesh.tets[t][i], mesh.tets[t][j]);
  }
}

template <class Op>
void CpuAssembler::assemble(const Op& op, BlockCsrMatrix& matrix, std::span<double> rhs) const {
  constexpr int R = Op::block_rows, C = Op::block_cols;
  check_operator_fields(op, node_count(), FieldMemory::host);
  if (matrix.pattern != pattern_ || matrix.block_rows != R || matrix.block_cols != C)
    fail(ErrorCategory::invalid_input, Op::name, " operator: the matrix was not created for it "
         "on this mesh (use create_matrix<Op>())");
  if (!rhs.empty() && static_cast<std::int64_t>(rhs.size()) != node_count() * R)
    fail(ErrorCategory::invalid_input, Op::name, " operator: rhs has ", rhs.size(),
         " entries, expected ", node_count() * R);

  matrix.set_zero();
  std::fill(rhs.begin(), rhs.end(), 0.0);
  const std::int32_t* row_offsets = pattern_->row_offsets.data();
  const std::int32_t* column_indices = pattern_->column_indices.data();
  ElementContextFor<typename Op::Rule> ctx;
  ElementResult<Op> element;
  for (std::int64_t e = 0; e < tet_count(); ++e) {
    if (!prepare_element(coordinates_.data(), tets_.data(), e, ctx))
      fail(ErrorCategory::invalid_input, Op::name, " operator: tet ", e,
           " is degenerate or inverted (validate the mesh first)");
    compute_element(op, ctx, element);
    if (slot_map_.empty())
      scatter_element_matrix<R, C>(row_offsets, column_indices, matrix.values.data(), ctx.nodes,
                                   element, PlainAdd{});
    else
      scatter_element_matrix_mapped<R, C>(slot_map_.data() + e * 16, matrix.values.data(), element,
                                          PlainAdd{});
    if (!rhs.empty()) scatter_element_vector<R>(rhs.data(), ctx.nodes, element, PlainAdd{});
  }
}

// The operators of the FE core; a new operator adds a line here.
template void CpuAssembler::assemble(const MassOperator&, BlockCsrMatrix&, std::span<double>) const;
template void CpuAssembler::assemble(const AdvectionOperator&, BlockCsrMatrix&, std::span<double>) const;
template void CpuAssembler::assemble(const DiffusionOperator&, BlockCsrMatrix&, std::span<double>) const;
template void CpuAssembler::assemble(const AdvectionDiffusionOperator&, BlockCsrMatrix&,
                                     std::span<double>) const;
template void CpuAssembler::assemble(const StabilisationOperator&, BlockCsrMatrix&,
                                     std::span<double>) const;
template void CpuAssembler::assemble(const DivergenceOperator&, BlockCsrMatrix&, std::span<double>) const;
template void CpuAssembler::assemble(const MomentumOperator&, BlockCsrMatrix&, std::span<double>) const;

}  // namespace foehn::fe
