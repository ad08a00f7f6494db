#include "field_updates.hpp"

#include <algorithm>
#include <cmath>

#include "foehn/runtime/error.hpp"

namespace foehn::mountainwave {

FieldUpdates::FieldUpdates(bool on_device, const Stream* stream)
    : on_device_(on_device), stream_(stream) {
  if (on_device && stream == nullptr)
    fail(ErrorCategory::invalid_input, "FieldUpdates: device fields need a stream");
}

namespace {
template <class F>
void for_each_index(std::size_t count, const F& f) {
  for (std::size_t i = 0; i < count; ++i) f(i);
}
}  // namespace

void FieldUpdates::copy(const StridedCopy& f, std::size_t count) const {
  if (on_device_) return device::copy(f, count, *stream_);
  for_each_index(count, f);
}

void FieldUpdates::add(const AddArrays& f, std::size_t count) const {
  if (on_device_) return device::add(f, count, *stream_);
  for_each_index(count, f);
}

void FieldUpdates::body_force(const BodyForce& f, std::size_t nodes) const {
  if (on_device_) return device::body_force(f, nodes, *stream_);
  for_each_index(nodes, f);
}

void FieldUpdates::boundary_velocity(const BoundaryVelocity& f, std::size_t nodes) const {
  if (on_device_) return device::boundary_velocity(f, nodes, *stream_);
  for_each_index(nodes, f);
}

void FieldUpdates::restore_boundary(const RestoreBoundary& f, std::size_t points) const {
  if (on_device_) return device::restore_boundary(f, points, *stream_);
  for_each_index(points, f);
}

double FieldUpdates::max_cfl(const TetCfl& f, std::size_t tets) const {
  if (on_device_) return device::max_cfl(f, tets, *stream_);
  double cfl = 0;
  for (std::size_t t = 0; t < tets; ++t) cfl = std::max(cfl, f(t));
  return cfl;
}

std::size_t FieldUpdates::count_non_finite(const double* values, std::size_t count) const {
  if (on_device_) return device::count_non_finite(values, count, *stream_);
  return static_cast<std::size_t>(
      std::count_if(values, values + count, [](double v) { return !std::isfinite(v); }));
}

}  // namespace foehn::mountainwave
