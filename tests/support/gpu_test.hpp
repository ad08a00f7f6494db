#pragma once
// Support for GPU tests: every test in tests/cuda/ starts with FOEHN_SKIP_WITHOUT_GPU(), so the
// suite passes (as "skipped") on machines without a CUDA device.

#include <gtest/gtest.h>

#include "foehn/runtime/device.hpp"

#define FOEHN_SKIP_WITHOUT_GPU()                                                     \
  do {                                                                               \
    if (::foehn::cuda_device_count() == 0) {                                         \
      GTEST_SKIP() << "no CUDA device (or no usable NVIDIA driver) on this machine"; \
    }                                                                                \
  } while (false)
