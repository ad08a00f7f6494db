// FieldUpdates on the GPU: Thrust runs the shared functors over the index range on the model's
// stream. Compiled without FMA contraction (CMakeLists.txt) so the arithmetic rounds as the
// host's does.
#include <thrust/execution_policy.h>
#include <thrust/for_each.h>
#include <thrust/functional.h>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/transform_reduce.h>

#include "field_updates.hpp"
#include "foehn/runtime/cuda_check.hpp"

namespace foehn::mountainwave::device {

namespace {

template <class F>
void for_each_index(std::size_t count, const F& f, const Stream& stream) {
  if (count == 0) return;
  thrust::for_each(thrust::cuda::par_nosync.on(native(stream)),
                   thrust::counting_iterator<std::size_t>(0),
                   thrust::counting_iterator<std::size_t>(count), f);
  FOEHN_CUDA_CHECK_LAUNCH("mountain-wave field update");
}

struct MaxOf {
  __host__ __device__ double operator()(double a, double b) const { return a > b ? a : b; }
};

struct NonFiniteAt {
  const double* values;
  __host__ __device__ std::size_t operator()(std::size_t i) const {
    return isfinite(values[i]) ? 0 : 1;
  }
};

}  // namespace

void copy(const StridedCopy& f, std::size_t count, const Stream& stream) {
  for_each_index(count, f, stream);
}
void add(const AddArrays& f, std::size_t count, const Stream& stream) {
  for_each_index(count, f, stream);
}
void body_force(const BodyForce& f, std::size_t nodes, const Stream& stream) {
  for_each_index(nodes, f, stream);
}
void boundary_velocity(const BoundaryVelocity& f, std::size_t nodes, const Stream& stream) {
  for_each_index(nodes, f, stream);
}
void restore_boundary(const RestoreBoundary& f, std::size_t points, const Stream& stream) {
  for_each_index(points, f, stream);
}

double max_cfl(const TetCfl& f, std::size_t tets, const Stream& stream) {
  if (tets == 0) return 0;
  // A reduction returns its result to the host: thrust::cuda::par (synchronising) on purpose.
  const double cfl = thrust::transform_reduce(
      thrust::cuda::par.on(native(stream)), thrust::counting_iterator<std::size_t>(0),
      thrust::counting_iterator<std::size_t>(tets), f, 0.0, MaxOf{});
  FOEHN_CUDA_CHECK_LAUNCH("mountain-wave CFL reduction");
  return cfl;
}

std::size_t count_non_finite(const double* values, std::size_t count, const Stream& stream) {
  if (count == 0) return 0;
  const std::size_t bad = thrust::transform_reduce(
      thrust::cuda::par.on(native(stream)), thrust::counting_iterator<std::size_t>(0),
      thrust::counting_iterator<std::size_t>(count), NonFiniteAt{values}, std::size_t{0},
      thrust::plus<std::size_t>());
  FOEHN_CUDA_CHECK_LAUNCH("mountain-wave finite check");
  return bad;
}

}  // namespace foehn::mountainwave::device
