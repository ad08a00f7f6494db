#pragma once
// Where arrays live and work on them runs: host memory and the calling thread, or device memory
// and one CUDA stream, with the backend that does the work. Carried instead of loose
// "on_device" flags: whatever takes arrays (for_each, fe::Constraints, PlacedArray, the
// hand-off to PETSc) takes their Placement and decides nothing else.
//
//   const Placement fields = Placement::device(stream);   // or Placement::host()
//   PlacedArray<double> u(3 * nodes, fields);
//   for_each(fields, nodes, BodyForce{...});               // runs where u lives
#include "foehn/runtime/backend.hpp"
#include "foehn/runtime/error.hpp"
#include "foehn/runtime/stream.hpp"

namespace foehn {

class Placement {
 public:
  // Host memory, CPU backend.
  static Placement host() noexcept { return Placement(Backend::cpu, false, nullptr); }
  // Device memory, CUDA backend, work queued on `stream` (which must outlive every user).
  static Placement device(const Stream& stream) noexcept {
    return Placement(Backend::cuda, true, &stream);
  }
  // Host memory, CUDA backend: host arrays that the CUDA backend stages through `stream` (the
  // CUDA assembly with a PETSc that solves on the host).
  static Placement host_staged_by(const Stream& stream) noexcept {
    return Placement(Backend::cuda, false, &stream);
  }
  // Host memory for the CPU backend, device memory on `stream` for the CUDA backend.
  static Placement for_backend(Backend backend, const Stream* stream) {
    if (backend == Backend::cpu) return host();
    if (stream == nullptr)
      fail(ErrorCategory::invalid_input, "Placement: the CUDA backend needs a stream");
    return device(*stream);
  }

  Backend backend() const noexcept { return backend_; }
  bool on_device() const noexcept { return on_device_; }
  // The stream of a CUDA-backend placement; internal error for the CPU backend's.
  const Stream& stream() const {
    if (stream_ == nullptr)
      fail(ErrorCategory::internal, "Placement: a host placement has no stream");
    return *stream_;
  }
  const Stream* stream_or_null() const noexcept { return stream_; }

  friend bool operator==(const Placement&, const Placement&) = default;

 private:
  Placement(Backend backend, bool on_device, const Stream* stream) noexcept
      : backend_(backend), on_device_(on_device), stream_(stream) {}
  Backend backend_;
  bool on_device_;
  const Stream* stream_;
};

}  // namespace foehn
