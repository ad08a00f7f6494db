#include "foehn/fe/constraints.hpp"

namespace foehn::fe {

Constraints::Constraints(std::shared_ptr<const CsrPattern> pattern, int block_size,
                         std::int32_t owned_nodes, const Placement& values)
    : values_(values), host_(std::move(pattern), block_size, owned_nodes) {}

Constraints::~Constraints() = default;

void Constraints::constrain(std::span<const std::uint8_t> constrained, ConstraintSymmetry symmetry,
                            double diagonal) {
  host_.constrain(constrained, symmetry);
  diagonal_ = diagonal;
  device_.reset();
  if (values_.on_device()) device_ = std::make_unique<DeviceValueEdits>(host_, values_.stream());
}

const DeviceValueEdits& Constraints::device_edits(const char* who) const {
  if (!device_)
    fail(ErrorCategory::invalid_input, "fe::Constraints::", who,
         ": device arrays given, but the system's values are in host memory");
  return *device_;
}

void Constraints::add_diagonal(double* values, const double* lumped) const {
  if (values_.on_device())
    return device_edits("add_diagonal").add_diagonal(values, lumped, values_.stream());
  host_.add_diagonal(std::span<double>(values, host_.value_count()),
                     std::span<const double>(lumped, host_.owned_points()));
}

void Constraints::apply(double* values) const {
  if (values_.on_device())
    return device_edits("apply").apply_constraints(values, diagonal_, values_.stream());
  host_.apply_constraints(std::span<double>(values, host_.value_count()), diagonal_);
}

void Constraints::constrain_rhs(const Placement& where, double* rhs, const double* g) const {
  if (where.on_device())
    return device_edits("constrain_rhs").constrain_rhs(rhs, g, diagonal_, where.stream());
  host_.constrain_rhs(std::span<double>(rhs, host_.owned_points()),
                      std::span<const double>(g, host_.owned_points()), diagonal_);
}

}  // namespace foehn::fe
