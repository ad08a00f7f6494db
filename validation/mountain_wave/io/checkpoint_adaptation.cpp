#include "io/checkpoint_adaptation.hpp"

#include <cmath>

#include "foehn/runtime/error.hpp"
#include "io/hdf5_support.hpp"

namespace foehn::mountainwave {

void write_adaptation_record(hid_t h5, const CheckpointInfo& header,
                             const std::filesystem::path& file) {
  if (header.adapted_at_step >= 0) {
    detail::write_attribute(h5, "adapted_at_step", header.adapted_at_step, file);
    detail::write_attribute(h5, "adapt_interior_nodes_per_complexity",
                            header.adapt_interior_nodes_per_complexity, file);
    detail::write_attribute(h5, "adapt_nodes", header.adapt_nodes, file);
    detail::write_attribute(h5, "adapt_dt", header.adapt_dt, file);
  }
  if (header.pending_adaptation_step >= 0) {
    detail::write_attribute(h5, "pending_adaptation_step", header.pending_adaptation_step, file);
    detail::write_attribute(h5, "pending_adaptation_complexity",
                            header.pending_adaptation_complexity, file);
    detail::write_attribute(h5, "pending_adaptation_boundary_nodes",
                            header.pending_adaptation_boundary_nodes, file);
  }
}

void read_adaptation_record(hid_t h5, const std::filesystem::path& path, CheckpointInfo& info) {
  if (detail::has_attribute(h5, "adapted_at_step", path)) {
    info.adapted_at_step = detail::read_integer_attribute(h5, "adapted_at_step", path);
    info.adapt_interior_nodes_per_complexity =
        detail::read_double_attribute(h5, "adapt_interior_nodes_per_complexity", path);
    info.adapt_nodes = detail::read_double_attribute(h5, "adapt_nodes", path);
    info.adapt_dt = detail::read_double_attribute(h5, "adapt_dt", path);
    if (info.adapted_at_step < 0 || info.adapted_at_step >= info.step ||
        !(info.adapt_interior_nodes_per_complexity > 0) ||
        !std::isfinite(info.adapt_interior_nodes_per_complexity) || !(info.adapt_nodes >= 1) ||
        !(info.adapt_nodes <= 1e9) || !(info.adapt_dt > 0) || !std::isfinite(info.adapt_dt))
      fail(ErrorCategory::invalid_input, "'", path.string(), "'",
           ": corrupt adaptation record (adapted at step ", info.adapted_at_step, " of ", info.step,
           ", ", info.adapt_interior_nodes_per_complexity, " nodes per complexity)");
  }
  if (detail::has_attribute(h5, "pending_adaptation_step", path)) {
    info.pending_adaptation_step =
        detail::read_integer_attribute(h5, "pending_adaptation_step", path);
    info.pending_adaptation_complexity =
        detail::read_double_attribute(h5, "pending_adaptation_complexity", path);
    info.pending_adaptation_boundary_nodes =
        detail::read_integer_attribute(h5, "pending_adaptation_boundary_nodes", path);
    if (info.pending_adaptation_step < 0 || info.pending_adaptation_step > info.step ||
        info.pending_adaptation_step <= info.adapted_at_step ||
        !(info.pending_adaptation_complexity > 0) ||
        !std::isfinite(info.pending_adaptation_complexity) ||
        info.pending_adaptation_boundary_nodes < 0 ||
        info.pending_adaptation_boundary_nodes > info.global_nodes * 100)
      fail(ErrorCategory::invalid_input, "'", path.string(), "'",
           ": corrupt record of a pending adaptation (made at step ", info.pending_adaptation_step,
           " of ", info.step, ", complexity ", info.pending_adaptation_complexity, ")");
  }
}

}  // namespace foehn::mountainwave
