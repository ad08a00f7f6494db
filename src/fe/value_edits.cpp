// ValueEdits: the positions each edit touches, computed once, and the host edits.
#include "foehn/fe/value_edits.hpp"

#include <algorithm>
#include <utility>

#include "foehn/runtime/error.hpp"

namespace foehn::fe {

ValueEdits::ValueEdits(std::shared_ptr<const CsrPattern> shared_pattern, int block_size,
                       std::int32_t owned_nodes)
    : pattern_(std::move(shared_pattern)), block_size_(block_size) {
  if (!pattern_) fail(ErrorCategory::invalid_input, "ValueEdits: no pattern given");
  const CsrPattern& pattern = *pattern_;
  if (block_size != 1 && block_size != 3)
    fail(ErrorCategory::invalid_input, "ValueEdits: block size ", block_size,
         " (1 for scalar operators, 3 for 3 x 3 blocks)");
  if (pattern.rows != pattern.cols ||
      pattern.row_offsets.size() != static_cast<std::size_t>(pattern.rows) + 1)
    fail(ErrorCategory::invalid_input, "ValueEdits: a square node pattern is needed, got ",
         pattern.rows, " x ", pattern.cols, " with ", pattern.row_offsets.size(), " row offsets");
  if (owned_nodes < 0 || owned_nodes > pattern.rows)
    fail(ErrorCategory::invalid_input, "ValueEdits: ", owned_nodes, " owned nodes of ",
         pattern.rows);
  const std::int64_t block = static_cast<std::int64_t>(block_size) * block_size;
  value_count_ = pattern.nnz() * static_cast<std::size_t>(block);
  local_points_ = static_cast<std::size_t>(pattern.rows) * block_size;
  diagonal_positions_.reserve(static_cast<std::size_t>(owned_nodes) * block_size);
  for (std::int32_t node = 0; node < owned_nodes; ++node) {
    const std::int32_t slot = find_column(pattern.column_indices.data(), pattern.row_offsets[node],
                                          pattern.row_offsets[node + 1], node);
    if (slot < 0)
      fail(ErrorCategory::invalid_input, "ValueEdits: row ", node,
           " of the pattern has no diagonal entry");
    for (int r = 0; r < block_size; ++r)
      diagonal_positions_.push_back(slot * block + r * block_size + r);
  }
}

void ValueEdits::constrain(std::span<const std::uint8_t> constrained, ConstraintSymmetry symmetry) {
  if (constrained.size() != local_points_)
    fail(ErrorCategory::invalid_input, "ValueEdits::constrain: ", constrained.size(), " flags for ",
         local_points_, " local points");
  symmetry_ = symmetry;
  zeroed_positions_.clear();
  constrained_diagonal_positions_.clear();
  owned_constrained_points_.clear();
  correction_rows_.clear();
  correction_positions_.clear();
  correction_columns_.clear();
  correction_offsets_.assign(1, 0);
  const CsrPattern& pattern = *pattern_;
  const int b = block_size_;
  const std::int64_t block = static_cast<std::int64_t>(b) * b;
  const auto owned_nodes = static_cast<std::int32_t>(diagonal_positions_.size() / b);
  for (std::int32_t node = 0; node < pattern.rows; ++node) {
    const std::int32_t begin = pattern.row_offsets[node], end = pattern.row_offsets[node + 1];
    for (int r = 0; r < b; ++r) {
      const std::int64_t point = static_cast<std::int64_t>(node) * b + r;
      if (constrained[static_cast<std::size_t>(point)]) {
        for (std::int32_t slot = begin; slot < end; ++slot)
          for (int c = 0; c < b; ++c) zeroed_positions_.push_back(slot * block + r * b + c);
        if (node < owned_nodes) {
          constrained_diagonal_positions_.push_back(
              diagonal_positions_[static_cast<std::size_t>(point)]);
          owned_constrained_points_.push_back(point);
        }
        continue;
      }
      if (symmetry != ConstraintSymmetry::symmetric) continue;
      for (std::int32_t slot = begin; slot < end; ++slot)
        for (int c = 0; c < b; ++c) {
          const std::int64_t column =
              static_cast<std::int64_t>(pattern.column_indices[slot]) * b + c;
          if (!constrained[static_cast<std::size_t>(column)]) continue;
          const std::int64_t position = slot * block + r * b + c;
          zeroed_positions_.push_back(position);
          correction_positions_.push_back(position);
          correction_columns_.push_back(column);
        }
      if (correction_positions_.size() != static_cast<std::size_t>(correction_offsets_.back())) {
        correction_rows_.push_back(point);
        correction_offsets_.push_back(static_cast<std::int64_t>(correction_positions_.size()));
      }
    }
  }
}

void ValueEdits::check_values(std::size_t count, const char* who) const {
  if (count != value_count_)
    fail(ErrorCategory::invalid_input, "ValueEdits::", who, ": ", count, " values for a ",
         block_size_, " x ", block_size_, " operator of ", value_count_);
}

void ValueEdits::add_diagonal(std::span<double> values, std::span<const double> lumped) const {
  check_values(values.size(), "add_diagonal");
  if (lumped.size() != diagonal_positions_.size())
    fail(ErrorCategory::invalid_input, "ValueEdits::add_diagonal: ", lumped.size(),
         " lumped values for ", diagonal_positions_.size(), " owned points");
  for (std::size_t p = 0; p < lumped.size(); ++p)
    values[static_cast<std::size_t>(diagonal_positions_[p])] += lumped[p];
}

void ValueEdits::apply_constraints(std::span<double> values, double diagonal) const {
  check_values(values.size(), "apply_constraints");
  for (const std::int64_t position : zeroed_positions_)
    values[static_cast<std::size_t>(position)] = 0;
  for (const std::int64_t position : constrained_diagonal_positions_)
    values[static_cast<std::size_t>(position)] = diagonal;
}

void ValueEdits::column_correction(std::span<const double> values, std::span<const double> g,
                                   std::span<double> correction) const {
  check_values(values.size(), "column_correction");
  if (symmetry_ != ConstraintSymmetry::symmetric)
    fail(ErrorCategory::invalid_input,
         "ValueEdits::column_correction: the constraints are rows_only (no columns removed)");
  if (g.size() != local_points_ || correction.size() != local_points_)
    fail(ErrorCategory::invalid_input, "ValueEdits::column_correction: ", g.size(), " values and ",
         correction.size(), " corrections for ", local_points_, " local points");
  std::fill(correction.begin(), correction.end(), 0.0);
  for (std::size_t k = 0; k < correction_rows_.size(); ++k) {
    double sum = 0;
    for (auto e = correction_offsets_[k]; e < correction_offsets_[k + 1]; ++e)
      sum += values[static_cast<std::size_t>(correction_positions_[static_cast<std::size_t>(e)])] *
             g[static_cast<std::size_t>(correction_columns_[static_cast<std::size_t>(e)])];
    correction[static_cast<std::size_t>(correction_rows_[k])] = -sum;
  }
}

void ValueEdits::constrain_rhs(std::span<double> rhs, std::span<const double> g,
                               double diagonal) const {
  if (rhs.size() != diagonal_positions_.size() || g.size() != diagonal_positions_.size())
    fail(ErrorCategory::invalid_input, "ValueEdits::constrain_rhs: ", rhs.size(), " and ", g.size(),
         " values for ", diagonal_positions_.size(), " owned points");
  for (const std::int64_t point : owned_constrained_points_)
    rhs[static_cast<std::size_t>(point)] = diagonal * g[static_cast<std::size_t>(point)];
}

}  // namespace foehn::fe
