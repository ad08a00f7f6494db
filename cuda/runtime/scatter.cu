#include <thrust/execution_policy.h>
#include <thrust/scatter.h>

#include "foehn/runtime/error.hpp"
#include "foehn/runtime/scatter.hpp"
#include "runtime_internal.hpp"

namespace foehn {

void scatter_async(const DeviceArray<double>& source, const DeviceArray<std::int32_t>& index,
                   DeviceArray<double>& destination, const Stream& stream) {
  if (index.size() != source.size() || destination.size() < source.size())
    fail(ErrorCategory::invalid_input, "scatter_async: ", source.size(), " values, ", index.size(),
         " indices and a destination of ", destination.size(),
         " (need as many indices as values and a destination at least as large)");
  scatter_async(source.data(), source.size(), index.data(), destination.data(), stream);
}

void scatter_async(const double* source, std::size_t count, const std::int32_t* index,
                   double* destination, const Stream& stream) {
  if (count == 0) return;
  thrust::scatter(thrust::cuda::par_nosync.on(stream.native_handle()), source, source + count,
                  index, destination);
  FOEHN_CUDA_CHECK_LAUNCH("thrust::scatter");
}

}  // namespace foehn
