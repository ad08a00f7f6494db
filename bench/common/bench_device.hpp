#pragma once
// Helpers of the GPU benchmarks that need only libfoehn's runtime (no CUDA headers): the
// device copy bandwidth every GPU result is compared with, and comma-separated option lists.

#include <string>
#include <vector>

#include "foehn/runtime/stream.hpp"

namespace foehn::bench {

// Device-to-device copy of a 1 GiB buffer on `stream`: read + write bytes per second (GB/s),
// median of 6 copies after 2 warm-ups, CUDA events around each. The roofline every GPU
// case's fraction_of_copy_bw refers to, measured in the same run.
double measure_device_copy_bandwidth(const Stream& stream);

// "a,b,c" -> {"a", "b", "c"} (empty items dropped).
std::vector<std::string> split_list(const std::string& list);

}  // namespace foehn::bench
