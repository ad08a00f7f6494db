#include "bench_device.hpp"

#include <sstream>

#include "bench_timing.hpp"
#include "foehn/runtime/device_array.hpp"

namespace foehn::bench {

double measure_device_copy_bandwidth(const Stream& stream) {
  const std::size_t count = std::size_t{1} << 27;  // 1 GiB of doubles per buffer
  DeviceArray<double> source(count, stream), target(count, stream);
  source.fill_async(1.0, stream);
  std::vector<double> samples;
  for (int i = 0; i < 8; ++i) {
    EventTimer timer;
    timer.start(stream);
    target.copy_from_async(source, stream);
    timer.stop(stream);
    if (i >= 2) samples.push_back(timer.elapsed_ms());
  }
  return 2.0 * static_cast<double>(source.bytes()) / (median(samples) * 1e-3) / 1e9;
}

std::vector<std::string> split_list(const std::string& list) {
  std::vector<std::string> items;
  std::stringstream in(list);
  for (std::string item; std::getline(in, item, ',');)
    if (!item.empty()) items.push_back(item);
  return items;
}

}  // namespace foehn::bench
