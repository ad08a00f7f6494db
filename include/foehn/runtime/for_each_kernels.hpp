#pragma once
// The device side of for_each.hpp. Include it in one source file per subsystem and instantiate
// each functor there:
//
//   #include "foehn/runtime/for_each_kernels.hpp"
//   FOEHN_INSTANTIATE_FOR_EACH(BodyForce)
//   FOEHN_INSTANTIATE_MAX_OF(TetCfl)
//
// In CMake: compile that file as CUDA (--fmad=false) where the CUDA backend is built and as C++
// otherwise (foehn_add_device_kernels in cmake/FoehnCuda.cmake does both). Without CUDA the
// same lines instantiate stand-ins that throw unavailable ("built without CUDA"), which is
// what keeps the CPU-only build linking.
#include "foehn/runtime/for_each.hpp"

#if defined(__CUDACC__)
#include <thrust/execution_policy.h>
#include <thrust/for_each.h>
#include <thrust/functional.h>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/transform_reduce.h>

#include "foehn/runtime/cuda_check.hpp"
#endif

namespace foehn::detail {

#if defined(__CUDACC__)

template <class F>
struct CountTrue {
  F f;
  __host__ __device__ std::size_t operator()(std::size_t i) const { return f(i) ? 1 : 0; }
};

struct MaxOfTwo {
  __host__ __device__ double operator()(double a, double b) const { return a > b ? a : b; }
};

template <class F>
void for_each_on_device(std::size_t count, const F& f, const Stream& stream) {
  if (count == 0) return;
  thrust::for_each(thrust::cuda::par_nosync.on(native(stream)),
                   thrust::counting_iterator<std::size_t>(0),
                   thrust::counting_iterator<std::size_t>(count), f);
  FOEHN_CUDA_CHECK_LAUNCH("for_each on the GPU");
}

template <class F>
double max_on_device(std::size_t count, const F& f, const Stream& stream) {
  if (count == 0) return 0;
  // A reduction hands its result to the host: the synchronising policy on purpose.
  const double largest = thrust::transform_reduce(
      thrust::cuda::par.on(native(stream)), thrust::counting_iterator<std::size_t>(0),
      thrust::counting_iterator<std::size_t>(count), f, 0.0, MaxOfTwo{});
  FOEHN_CUDA_CHECK_LAUNCH("max_of on the GPU");
  return largest;
}

template <class F>
std::size_t count_on_device(std::size_t count, const F& f, const Stream& stream) {
  if (count == 0) return 0;
  const std::size_t n = thrust::transform_reduce(
      thrust::cuda::par.on(native(stream)), thrust::counting_iterator<std::size_t>(0),
      thrust::counting_iterator<std::size_t>(count), CountTrue<F>{f}, std::size_t{0},
      thrust::plus<std::size_t>());
  FOEHN_CUDA_CHECK_LAUNCH("count_where on the GPU");
  return n;
}

#else  // the stand-ins of a build without CUDA

template <class F>
void for_each_on_device(std::size_t, const F&, const Stream&) {
  fail_built_without_cuda("for_each on the GPU");
}
template <class F>
double max_on_device(std::size_t, const F&, const Stream&) {
  fail_built_without_cuda("max_of on the GPU");
}
template <class F>
std::size_t count_on_device(std::size_t, const F&, const Stream&) {
  fail_built_without_cuda("count_where on the GPU");
}

#endif

}  // namespace foehn::detail

#define FOEHN_INSTANTIATE_FOR_EACH(F) \
  template void foehn::detail::for_each_on_device<F>(std::size_t, const F&, const foehn::Stream&);
#define FOEHN_INSTANTIATE_MAX_OF(F) \
  template double foehn::detail::max_on_device<F>(std::size_t, const F&, const foehn::Stream&);
#define FOEHN_INSTANTIATE_COUNT_WHERE(F)                                        \
  template std::size_t foehn::detail::count_on_device<F>(std::size_t, const F&, \
                                                         const foehn::Stream&);
