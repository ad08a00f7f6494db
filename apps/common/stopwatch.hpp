#pragma once
// Wall-clock seconds since construction, for the progress lines of the applications.

#include <chrono>

namespace foehn::app {

class Stopwatch {
 public:
  double seconds() const {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  }

 private:
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
};

}  // namespace foehn::app
