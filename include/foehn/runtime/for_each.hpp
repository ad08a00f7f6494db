#pragma once
// Pointwise work written once: a FOEHN_HD functor over an index, run where its arrays live
// (Placement): a loop on the host, a Thrust kernel on the placement's stream on the device. The
// host and the device run the same arithmetic (compile the device side with --fmad=false for
// bitwise equal results).
//
//   struct Scale { double* x; double a; FOEHN_HD void operator()(std::size_t i) const {...} };
//   for_each(fields, n, Scale{u.data(), 2.0});
//
// The device side of each functor is instantiated in one source file per subsystem that
// includes foehn/runtime/for_each_kernels.hpp and lists its functors
// (FOEHN_INSTANTIATE_FOR_EACH(Scale)). That file is compiled by nvcc where CUDA is built and by
// the host compiler elsewhere, where the same lines instantiate stand-ins that throw
// "built without CUDA": no hand-written stand-in per functor.
#include <cstddef>

#include "foehn/runtime/placement.hpp"

namespace foehn {

namespace detail {
template <class F>
void for_each_on_device(std::size_t count, const F& f, const Stream& stream);
template <class F>
double max_on_device(std::size_t count, const F& f, const Stream& stream);
template <class F>
std::size_t count_on_device(std::size_t count, const F& f, const Stream& stream);
}  // namespace detail

// f(i) for i < count. Asynchronous on the device (ordered on the placement's stream).
template <class F>
void for_each(const Placement& where, std::size_t count, const F& f) {
  if (where.on_device()) return detail::for_each_on_device(count, f, where.stream());
  for (std::size_t i = 0; i < count; ++i) f(i);
}

// max(0, f(0), ..., f(count - 1)) for a functor returning double. Waits for the result.
template <class F>
double max_of(const Placement& where, std::size_t count, const F& f) {
  if (where.on_device()) return detail::max_on_device(count, f, where.stream());
  double largest = 0;
  for (std::size_t i = 0; i < count; ++i) {
    const double v = f(i);
    largest = v > largest ? v : largest;
  }
  return largest;
}

// The number of i < count with f(i) true. Waits for the result.
template <class F>
std::size_t count_where(const Placement& where, std::size_t count, const F& f) {
  if (where.on_device()) return detail::count_on_device(count, f, where.stream());
  std::size_t n = 0;
  for (std::size_t i = 0; i < count; ++i) n += f(i) ? 1 : 0;
  return n;
}

}  // namespace foehn
