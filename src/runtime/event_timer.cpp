// EventTimer is plain bookkeeping around two Events; the CUDA work is in Event.

#include "foehn/runtime/error.hpp"
#include "foehn/runtime/stream.hpp"

namespace foehn {

void EventTimer::start(const Stream& stream) {
  start_.record(stream);
  started_ = true;
  stopped_ = false;
}

void EventTimer::stop(const Stream& stream) {
  if (!started_) fail(ErrorCategory::invalid_input, "EventTimer::stop called before start");
  stop_.record(stream);
  stopped_ = true;
}

float EventTimer::elapsed_ms() const {
  if (!started_ || !stopped_) {
    fail(ErrorCategory::invalid_input,
         "EventTimer::elapsed_ms needs start() and then stop() to have been called");
  }
  return foehn::elapsed_ms(start_, stop_);
}

}  // namespace foehn
