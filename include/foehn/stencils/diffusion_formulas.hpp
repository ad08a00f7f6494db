#pragma once
// The point formulas of 4th-order horizontal diffusion, written once and called by every
// backend (CPU reference, OpenMP, every CUDA kernel), so all of them run the same operations in
// the same order on every point:
//
//   laplacian(c, l, r, d, u) = ((((-4·c) + l) + r) + d) + u      (stencil2d-orig.F90 order:
//                              c = φ(i,j), l = φ(i-1,j), r = φ(i+1,j), d = φ(i,j-1), u = φ(i,j+1))
//   diffusion_update(φ, lap2, α) = φ − (α·lap2)
//
// Why the explicit rounding helpers: nvcc contracts a·b + c into one FMA by default (one
// rounding instead of two), while the host build of libfoehn uses -ffp-contract=off. With
// α = 1/32 and -4 every product is exact, so contraction would not change a bit; for any other α
// it would. __fmul_rn / __fadd_rn / __fsub_rn (and the __d* versions) are never contracted, so
// the device rounds exactly like the host whatever --fmad says, and bitwise agreement holds for
// every α and every field, not only for power-of-two data. The memory-bound kernels do not
// notice the few extra instructions.

#include <type_traits>

#include "foehn/runtime/host_device.hpp"

namespace foehn::stencils {

template <typename T>
FOEHN_HD T rounded_mul(T a, T b) {
  static_assert(std::is_same_v<T, float> || std::is_same_v<T, double>, "float or double");
#if defined(__CUDA_ARCH__)
  if constexpr (std::is_same_v<T, float>) {
    return __fmul_rn(a, b);
  } else {
    return __dmul_rn(a, b);
  }
#else
  return a * b;
#endif
}

template <typename T>
FOEHN_HD T rounded_add(T a, T b) {
#if defined(__CUDA_ARCH__)
  if constexpr (std::is_same_v<T, float>) {
    return __fadd_rn(a, b);
  } else {
    return __dadd_rn(a, b);
  }
#else
  return a + b;
#endif
}

template <typename T>
FOEHN_HD T rounded_sub(T a, T b) {
#if defined(__CUDA_ARCH__)
  if constexpr (std::is_same_v<T, float>) {
    return __fsub_rn(a, b);
  } else {
    return __dsub_rn(a, b);
  }
#else
  return a - b;
#endif
}

// 5-point Laplacian without the 1/Δx² factor (folded into α), published summation order.
template <typename T>
FOEHN_HD T laplacian(T centre, T left, T right, T down, T up) {
  T sum = rounded_mul(T(-4), centre);
  sum = rounded_add(sum, left);
  sum = rounded_add(sum, right);
  sum = rounded_add(sum, down);
  return rounded_add(sum, up);
}

// Forward-Euler step of ∂t φ = −α Δh(Δh φ): φ − α·lap2.
template <typename T>
FOEHN_HD T diffusion_update(T phi, T laplacian_of_laplacian, T alpha) {
  return rounded_sub(phi, rounded_mul(alpha, laplacian_of_laplacian));
}

// Laplacian of a field stored with row stride `row` at `p` (a pointer to the centre value).
template <typename T>
FOEHN_HD T laplacian_at(const T* p, int row) {
  return laplacian(p[0], p[-1], p[1], p[-row], p[row]);
}

}  // namespace foehn::stencils
