#include "bench_timing.hpp"

#include <cstring>

namespace foehn::bench {

std::vector<Timing> time_interleaved(const std::vector<std::function<void()>>& bodies,
                                     int warmups, int repeats) {
  for (int i = 0; i < warmups; ++i)
    for (const auto& body : bodies) body();
  std::vector<std::vector<double>> samples(bodies.size());
  for (int k = 0; k < repeats; ++k)
    for (std::size_t b = 0; b < bodies.size(); ++b) {
      const auto start = std::chrono::steady_clock::now();
      bodies[b]();
      const auto stop = std::chrono::steady_clock::now();
      samples[b].push_back(std::chrono::duration<double, std::milli>(stop - start).count());
    }
  std::vector<Timing> timings(bodies.size());
  for (std::size_t b = 0; b < bodies.size(); ++b) {
    Timing& t = timings[b];
    t.repeats = repeats;
    if (!samples[b].empty()) {
      t.min_ms = *std::min_element(samples[b].begin(), samples[b].end());
      t.max_ms = *std::max_element(samples[b].begin(), samples[b].end());
    }
    t.median_ms = median(std::move(samples[b]));
  }
  return timings;
}

double measure_host_copy_bandwidth_gbs(std::size_t bytes, int repeats) {
  // Both buffers written first, so the timed copies see no first-touch page faults.
  std::vector<char> source(bytes, 1), target(bytes, 0);
  const Timing t = time_repeats(
      [&] {
        std::memcpy(target.data(), source.data(), bytes);
        do_not_optimize(target[bytes / 2]);
      },
      1, repeats);
  return 2.0 * static_cast<double>(bytes) / (t.median_ms * 1e-3) / 1e9;
}

}  // namespace foehn::bench
