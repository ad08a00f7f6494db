// Builds without CUDA: the device side of FieldUpdates says why it cannot run. (The model
// never asks for it there: its fields are on the device only when the solves are.)
#include "field_updates.hpp"
#include "foehn/runtime/error.hpp"

namespace foehn::mountainwave::device {

void copy(const StridedCopy&, std::size_t, const Stream&) {
  fail_built_without_cuda("mountain-wave field updates on the GPU");
}
void add(const AddArrays&, std::size_t, const Stream&) {
  fail_built_without_cuda("mountain-wave field updates on the GPU");
}
void body_force(const BodyForce&, std::size_t, const Stream&) {
  fail_built_without_cuda("mountain-wave field updates on the GPU");
}
void boundary_velocity(const BoundaryVelocity&, std::size_t, const Stream&) {
  fail_built_without_cuda("mountain-wave field updates on the GPU");
}
void restore_boundary(const RestoreBoundary&, std::size_t, const Stream&) {
  fail_built_without_cuda("mountain-wave field updates on the GPU");
}
double max_cfl(const TetCfl&, std::size_t, const Stream&) {
  fail_built_without_cuda("mountain-wave field updates on the GPU");
}
std::size_t count_non_finite(const double*, std::size_t, const Stream&) {
  fail_built_without_cuda("mountain-wave field updates on the GPU");
}

}  // namespace foehn::mountainwave::device
