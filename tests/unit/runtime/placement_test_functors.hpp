#pragma once
// Functors of test_placement.cpp; their device side is instantiated in
// placement_test_kernels.cpp (as a subsystem of the library's users would).
#include <cstddef>

#include "foehn/runtime/host_device.hpp"

namespace foehn::testing {

// y[i] = a * x[i] + b * y[i]: rounds differently with a fused multiply-add, so host and device
// agree bitwise only when the kernels are compiled as documented (--fmad=false).
struct ScaleAndAdd {
  const double* x;
  double* y;
  double a, b;
  FOEHN_HD void operator()(std::size_t i) const { y[i] = a * x[i] + b * y[i]; }
};

// |x[i]| * weight: what max_of reduces.
struct ScaledMagnitude {
  const double* x;
  double weight;
  FOEHN_HD double operator()(std::size_t i) const { return (x[i] < 0 ? -x[i] : x[i]) * weight; }
};

// x[i] is NaN or infinite.
struct NotFinite {
  const double* x;
  FOEHN_HD bool operator()(std::size_t i) const { return !(x[i] - x[i] == 0.0); }
};

}  // namespace foehn::testing
