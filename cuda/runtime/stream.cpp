// Streams and events, CUDA backend.

#include "foehn/runtime/stream.hpp"

#include <utility>
#include <vector>

#include "runtime_internal.hpp"

namespace foehn {

Stream::Stream() {
  cudaStream_t stream = nullptr;
  FOEHN_CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  handle_ = stream;
}

Stream Stream::borrow(CUstream_st* caller_stream) {
  if (caller_stream == nullptr)
    fail(ErrorCategory::invalid_input,
         "Stream::borrow: the caller's stream is the legacy default stream (null); pass a stream "
         "made with cudaStreamCreate");
  return Stream(Borrowed{}, caller_stream);
}

Stream::~Stream() {
  if (handle_ != nullptr && owned_)
    detail::report_in_destructor(cudaStreamDestroy(handle_), "cudaStreamDestroy");
}

Stream::Stream(Stream&& other) noexcept
    : handle_(std::exchange(other.handle_, nullptr)), owned_(other.owned_) {}

Stream& Stream::operator=(Stream&& other) noexcept {
  if (this != &other) {
    if (handle_ != nullptr && owned_) {
      detail::report_in_destructor(cudaStreamDestroy(handle_), "cudaStreamDestroy");
    }
    handle_ = std::exchange(other.handle_, nullptr);
    owned_ = other.owned_;
  }
  return *this;
}

void Stream::synchronize() const {
  detail::require_handle(handle_, "Stream", "Stream::synchronize");
  FOEHN_CUDA_CHECK(cudaStreamSynchronize(handle_));
}

bool Stream::query() const {
  detail::require_handle(handle_, "Stream", "Stream::query");
  const cudaError_t code = cudaStreamQuery(handle_);
  if (code == cudaErrorNotReady) return false;
  FOEHN_CUDA_CHECK(code);
  return true;
}

void Stream::wait(const Event& event) const {
  detail::require_handle(handle_, "Stream", "Stream::wait");
  detail::require_handle(event.native_handle(), "Event", "Stream::wait");
  FOEHN_CUDA_CHECK(cudaStreamWaitEvent(handle_, event.native_handle(), cudaEventWaitDefault));
}

Event::Event() {
  cudaEvent_t event = nullptr;
  FOEHN_CUDA_CHECK(cudaEventCreateWithFlags(&event, cudaEventDefault));
  handle_ = event;
}

Event::~Event() {
  if (handle_ != nullptr)
    detail::report_in_destructor(cudaEventDestroy(handle_), "cudaEventDestroy");
}

Event::Event(Event&& other) noexcept : handle_(std::exchange(other.handle_, nullptr)) {}

Event& Event::operator=(Event&& other) noexcept {
  if (this != &other) {
    if (handle_ != nullptr) {
      detail::report_in_destructor(cudaEventDestroy(handle_), "cudaEventDestroy");
    }
    handle_ = std::exchange(other.handle_, nullptr);
  }
  return *this;
}

void Event::record(const Stream& stream) {
  detail::require_handle(handle_, "Event", "Event::record");
  detail::require_handle(stream.native_handle(), "Stream", "Event::record");
  FOEHN_CUDA_CHECK(cudaEventRecord(handle_, stream.native_handle()));
}

void Event::synchronize() const {
  detail::require_handle(handle_, "Event", "Event::synchronize");
  FOEHN_CUDA_CHECK(cudaEventSynchronize(handle_));
}

bool Event::query() const {
  detail::require_handle(handle_, "Event", "Event::query");
  const cudaError_t code = cudaEventQuery(handle_);
  if (code == cudaErrorNotReady) return false;
  FOEHN_CUDA_CHECK(code);
  return true;
}

int Stream::device() const {
  detail::require_handle(handle_, "Stream", "Stream::device");
  int index = 0;
  FOEHN_CUDA_CHECK(cudaStreamGetDevice(handle_, &index));
  return index;
}

void order_streams(CUstream_st* producer, CUstream_st* consumer) {
  if (producer == consumer) return;  // one stream is already in order
  // One event per device, reused: cudaStreamWaitEvent waits for the event's most recent record
  // at the time of the call, so later records do not disturb earlier waits. The event must
  // belong to the producer's device (the legacy default stream: the current device).
  static std::vector<cudaEvent_t> events;
  int current = 0;
  FOEHN_CUDA_CHECK(cudaGetDevice(&current));
  int device = current, consumer_device = current;
  if (producer != nullptr) FOEHN_CUDA_CHECK(cudaStreamGetDevice(producer, &device));
  if (consumer != nullptr) FOEHN_CUDA_CHECK(cudaStreamGetDevice(consumer, &consumer_device));
  if (consumer_device != device)
    fail(ErrorCategory::invalid_input, "order_streams: the producing stream is on CUDA device ",
         device, " and the consuming stream on device ", consumer_device,
         ": work handed between libraries must stay on one device per rank (with MPI: "
         "foehn::petsc::select_device_for_rank before creating streams)");
  // The event is created on, and recorded from, the streams' device, whichever is current.
  if (current != device) FOEHN_CUDA_CHECK(cudaSetDevice(device));
  struct RestoreDevice {
    int device;
    ~RestoreDevice() { (void)cudaSetDevice(device); }
  } restore{current};
  if (events.size() <= static_cast<std::size_t>(device)) events.resize(device + 1, nullptr);
  cudaEvent_t& event = events[static_cast<std::size_t>(device)];
  if (event == nullptr) FOEHN_CUDA_CHECK(cudaEventCreateWithFlags(&event, cudaEventDisableTiming));
  FOEHN_CUDA_CHECK(cudaEventRecord(event, producer));
  FOEHN_CUDA_CHECK(cudaStreamWaitEvent(consumer, event, cudaEventWaitDefault));
}

float elapsed_ms(const Event& start, const Event& stop) {
  detail::require_handle(start.native_handle(), "Event", "elapsed_ms");
  detail::require_handle(stop.native_handle(), "Event", "elapsed_ms");
  FOEHN_CUDA_CHECK(cudaEventSynchronize(stop.native_handle()));
  float ms = 0.0f;
  FOEHN_CUDA_CHECK(cudaEventElapsedTime(&ms, start.native_handle(), stop.native_handle()));
  return ms;
}

}  // namespace foehn
