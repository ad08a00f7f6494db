#pragma once
// Timing helpers shared by the host-side benchmarks: the median of repeats after warm-up,
// an optimisation barrier, and a single-thread memcpy bandwidth for the fraction_of_copy_bw
// of CPU cases.

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <functional>
#include <utility>
#include <vector>

namespace foehn::bench {

// Makes the compiler assume `value` is read (and memory clobbered), so a computation whose
// result is otherwise unused cannot be removed or hoisted out of a timed loop. Costs nothing
// beyond materialising the value in memory.
template <class T>
inline void do_not_optimize(const T& value) {
  asm volatile("" : : "m"(value) : "memory");
}

struct Timing {
  double median_ms = 0.0;
  double min_ms = 0.0;
  double max_ms = 0.0;
  int repeats = 0;
};

// Median (mean of the middle two for an even count); the vector is reordered.
inline double median(std::vector<double> samples) {
  if (samples.empty()) return 0.0;
  const std::size_t mid = samples.size() / 2;
  std::nth_element(samples.begin(), samples.begin() + static_cast<std::ptrdiff_t>(mid),
                   samples.end());
  const double upper = samples[mid];
  if (samples.size() % 2 == 1) return upper;
  const double lower = *std::max_element(samples.begin(),
                                         samples.begin() + static_cast<std::ptrdiff_t>(mid));
  return 0.5 * (lower + upper);
}

// Runs body() `warmups` times untimed (page faults, caches, lazy PETSc structures), then
// `repeats` times timed one by one with steady_clock. The median resists the noise of a
// shared machine better than the mean; min and max show how noisy the run was.
template <class Body>
Timing time_repeats(Body&& body, int warmups, int repeats) {
  for (int i = 0; i < warmups; ++i) body();
  std::vector<double> samples;
  samples.reserve(static_cast<std::size_t>(repeats));
  for (int i = 0; i < repeats; ++i) {
    const auto start = std::chrono::steady_clock::now();
    body();
    const auto stop = std::chrono::steady_clock::now();
    samples.push_back(std::chrono::duration<double, std::milli>(stop - start).count());
  }
  Timing t;
  t.repeats = repeats;
  if (!samples.empty()) {
    t.min_ms = *std::min_element(samples.begin(), samples.end());
    t.max_ms = *std::max_element(samples.begin(), samples.end());
  }
  t.median_ms = median(std::move(samples));
  return t;
}

// Several bodies timed round-robin: warm-ups first, then repeat k of every body before repeat
// k + 1 of any. On a shared machine, load that comes and goes then hits all variants alike,
// so the ratios between them (what a benchmark reports) are steadier than with the bodies
// timed one after the other.
std::vector<Timing> time_interleaved(const std::vector<std::function<void()>>& bodies,
                                     int warmups, int repeats);

// Single-thread std::memcpy between two buffers of `bytes` each (far larger than the last
// level cache for the default), median of `repeats`; GB/s counts read + write bytes, as the
// device-to-device copy of the GPU benchmarks does.
double measure_host_copy_bandwidth_gbs(std::size_t bytes, int repeats);

}  // namespace foehn::bench
