#pragma once
// Streams and events. Every kernel launch and transfer in Foehn takes a Stream, so work on
// different streams can overlap; Events order streams against each other and time them.
// Public header: the CUDA handles stay opaque (cudaStream_t is `CUstream_st*`, cudaEvent_t
// is `CUevent_st*`), so nothing here needs CUDA headers. Code compiled with CUDA gets the
// native handles through native() in foehn/runtime/cuda_check.hpp.

struct CUstream_st;
struct CUevent_st;

namespace foehn {

class Event;

// An owned, non-blocking CUDA stream on the device current at construction. Non-blocking so
// that it never serialises against the legacy default stream used by other libraries.
class Stream {
 public:
  Stream();  // throws foehn::Error (unavailable without CUDA or device, cuda otherwise)
  // A stream the caller created and owns (a cudaStream_t), used but never destroyed by Foehn;
  // it must outlive this object and everything that uses it. The legacy default stream (null)
  // is refused (invalid_input): Foehn's work must not serialise with every other stream.
  static Stream borrow(CUstream_st* caller_stream);
  ~Stream();
  Stream(Stream&& other) noexcept;
  Stream& operator=(Stream&& other) noexcept;
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;

  // Blocks the host until all work queued on the stream has finished; reports any
  // asynchronous error of that work as foehn::Error.
  void synchronize() const;
  // True when all queued work has finished (does not block).
  bool query() const;
  // Work queued on this stream after the call waits for `event` (recorded on any stream).
  void wait(const Event& event) const;

  CUstream_st* native_handle() const noexcept { return handle_; }
  bool owned() const noexcept { return owned_; }
  // The CUDA device the stream belongs to (its kernels and allocations run there).
  int device() const;

 private:
  struct Borrowed {};
  Stream(Borrowed, CUstream_st* handle) noexcept : handle_(handle), owned_(false) {}
  CUstream_st* handle_ = nullptr;  // null only after a move
  bool owned_ = true;              // false for a borrowed stream
};

// An owned CUDA event with timing enabled.
class Event {
 public:
  Event();
  ~Event();
  Event(Event&& other) noexcept;
  Event& operator=(Event&& other) noexcept;
  Event(const Event&) = delete;
  Event& operator=(const Event&) = delete;

  // Captures the work queued on `stream` so far.
  void record(const Stream& stream);
  // Blocks until the captured work has finished.
  void synchronize() const;
  // True when the captured work has finished (does not block).
  bool query() const;

  CUevent_st* native_handle() const noexcept { return handle_; }

 private:
  CUevent_st* handle_ = nullptr;  // null only after a move
};

// Orders streams that Foehn does not own (a library's, such as PETSc's) against Foehn's: work
// queued on `consumer` after the call waits for the work queued on `producer` before it, without
// blocking the host. A null handle is the legacy default stream. Needed wherever Foehn and
// another library write and read the same device arrays from their own streams. Both streams
// must belong to one device: streams of two devices (a rank whose Foehn streams are on GPU 0
// while PETSc was told -device_select 1) are refused with invalid_input, naming both devices,
// instead of failing inside CUDA.
void order_streams(CUstream_st* producer, CUstream_st* consumer);

// Milliseconds between two recorded events; waits for `stop`.
float elapsed_ms(const Event& start, const Event& stop);

// Times the work queued on a stream between start() and stop(), measured on the device
// (so host-side launch overhead is not counted unless the stream was idle).
class EventTimer {
 public:
  EventTimer() = default;
  void start(const Stream& stream);
  void stop(const Stream& stream);
  // Waits for stop; throws invalid_input if start() and stop() were not both called.
  float elapsed_ms() const;

 private:
  Event start_;
  Event stop_;
  bool started_ = false;
  bool stopped_ = false;
};

}  // namespace foehn
