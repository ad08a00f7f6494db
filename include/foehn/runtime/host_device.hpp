#pragma once
// FOEHN_HD marks element math that is compiled once for the host (CPU reference backend)
// and once for the device (CUDA backend), so both backends run the very same arithmetic.

#if defined(__CUDACC__)
#define FOEHN_HD __host__ __device__ __forceinline__
#define FOEHN_DEVICE_COMPILE 1
#else
#define FOEHN_HD inline
#define FOEHN_DEVICE_COMPILE 0
#endif
