// The host timer: its times are never negative, cover a known wait, and add up across scopes.

#include <gtest/gtest.h>

#include <chrono>
#include <thread>

#include "foehn/runtime/stopwatch.hpp"

namespace foehn {
namespace {

constexpr auto wait = std::chrono::milliseconds(5);
constexpr double wait_seconds = 0.005;

TEST(Stopwatch, MeasuresAtLeastAWaitAndLapStartsAgain) {
  Stopwatch watch;
  std::this_thread::sleep_for(wait);
  const double first = watch.lap();
  EXPECT_GE(first, wait_seconds);
  // After lap() the watch counts from the lap, not from construction.
  const double since_lap = watch.seconds();
  EXPECT_GE(since_lap, 0.0);
  EXPECT_LT(since_lap, first);
}

TEST(ScopedSeconds, AddsEachScopeToTheTotal) {
  double total = 1.0;  // added to, not overwritten
  for (int scope = 0; scope < 2; ++scope) {
    const ScopedSeconds timer(total);
    std::this_thread::sleep_for(wait);
  }
  EXPECT_GE(total, 1.0 + 2 * wait_seconds);
}

}  // namespace
}  // namespace foehn
