#pragma once
// Host-side checks of an operator's nodal fields before assembly: required fields present,
// sizes matching the mesh, and (for host memory) every value finite. A bad field is a clear
// foehn::Error (invalid_input) naming the operator, the field and the first bad entry, never a
// silently wrong matrix.

#include <cmath>
#include <cstdint>

#include "foehn/fe/operators.hpp"
#include "foehn/runtime/error.hpp"

namespace foehn::fe {

enum class FieldMemory { host, device };

template <class Op>
void check_operator_fields(const Op& op, std::int64_t node_count, FieldMemory memory) {
  op.for_each_field([&](const FieldRef& field, int components, const char* name, bool required) {
    if (!field.data) {
      if (required)
        fail(ErrorCategory::invalid_input, Op::name, " operator: the ", name, " field is required");
      return;
    }
    const std::int64_t expected = node_count * components;
    if (field.size != expected)
      fail(ErrorCategory::invalid_input, Op::name, " operator: field ", name, " has ", field.size,
           " values, expected ", expected, " (", node_count, " nodes x ", components,
           " components)");
    if (memory == FieldMemory::device) return;
    for (std::int64_t k = 0; k < field.size; ++k)
      if (!std::isfinite(field.data[k]))
        fail(ErrorCategory::invalid_input, Op::name, " operator: field ", name, " has value ",
             field.data[k], " at node ", k / components, " component ", k % components);
  });
}

// Checks the sizes of an assembly's outputs, the same for every backend: values for every block
// nonzero of the pattern (nnz * R * C) and, when a right-hand side is wanted, one entry per node
// and block row.
template <class Op>
void check_assembly_sizes(std::int64_t node_count, std::int64_t nnz, std::size_t value_count,
                          bool with_rhs, std::size_t rhs_count) {
  const std::size_t expected =
      static_cast<std::size_t>(nnz) * Op::block_rows * static_cast<std::size_t>(Op::block_cols);
  if (value_count != expected)
    fail(ErrorCategory::invalid_input, Op::name, " operator: the matrix holds ", value_count,
         " values; this mesh needs ", expected, " (", nnz, " block nonzeros of ", Op::block_rows,
         " x ", Op::block_cols, "; use create_matrix<Op>() or a target made for it)");
  if (with_rhs && static_cast<std::int64_t>(rhs_count) != node_count * Op::block_rows)
    fail(ErrorCategory::invalid_input, Op::name, " operator: rhs has ", rhs_count,
         " entries, expected ", node_count * Op::block_rows, " (", node_count, " nodes x ",
         Op::block_rows, ")");
}

}  // namespace foehn::fe
