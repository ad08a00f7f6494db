#pragma once
// destination[index[i]] = source[i] on the device, for permuting values between storage
// orders (e.g. Foehn's row-major 3x3 blocks into PETSc's column-major BAIJ blocks) before a
// single contiguous copy to the host. Thrust does the work; this header has no CUDA include.
#include <cstdint>

#include "foehn/runtime/device_array.hpp"
#include "foehn/runtime/stream.hpp"

namespace foehn {

// Every index must be in [0, destination.size()) and appear once (a permutation or an
// injection); sizes are checked, index values are the caller's contract (built on the host
// once per pattern). Asynchronous on `stream`.
void scatter_async(const DeviceArray<double>& source, const DeviceArray<std::int32_t>& index,
                   DeviceArray<double>& destination, const Stream& stream);
// The same on device memory owned elsewhere (e.g. a PETSc Mat's value array): `count` values and
// indices; the destination's size is the caller's contract.
void scatter_async(const double* source, std::size_t count, const std::int32_t* index,
                   double* destination, const Stream& stream);

}  // namespace foehn
