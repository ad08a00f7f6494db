#pragma once
// Host wall-clock time on a steady clock: how long a phase took, for the times the library and
// its tools report (solver set-up and solve, assembly and hand-off, the core's phases, progress
// lines). GPU work must be synchronised before a time that should include it is read.

#include <chrono>

namespace foehn {

class Stopwatch {
 public:
  // Seconds since construction or the last lap().
  double seconds() const {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  }
  // Seconds since construction or the last lap(), and a new start now: consecutive phases
  // timed with one watch, none of the time between them lost.
  double lap() {
    const auto now = std::chrono::steady_clock::now();
    const double elapsed = std::chrono::duration<double>(now - start_).count();
    start_ = now;
    return elapsed;
  }

 private:
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
};

// Adds the wall time of its scope to `total` (a phase whose several parts add up).
class ScopedSeconds {
 public:
  explicit ScopedSeconds(double& total) : total_(total) {}
  ~ScopedSeconds() { total_ += watch_.seconds(); }
  ScopedSeconds(const ScopedSeconds&) = delete;
  ScopedSeconds& operator=(const ScopedSeconds&) = delete;

 private:
  double& total_;
  Stopwatch watch_;
};

}  // namespace foehn
