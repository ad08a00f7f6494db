#pragma once
// PETSc and Foehn sharing one GPU. A PETSc built with CUDA keeps the values of MATAIJCUSPARSE
// matrices and VECCUDA vectors in device memory and queues its kernels on its own stream; Foehn
// queues on its own streams (foehn::Stream). Whenever one of them writes device memory the other
// reads, the streams are ordered here, with events: neither blocks the host.
//
//   if (petsc::device_solves_available()) { ... VECCUDA, MATAIJCUSPARSE ... }
//   {
//     petsc::VecArray b(rhs, petsc::VecAccess::read_write, &stream);  // host or device array
//     my_kernel<<<..., native(stream)>>>(b.data(), b.size());        // waits for PETSc's work
//   }                                                                 // PETSc's next work waits
//
// With Debian's PETSc (no CUDA) every Vec is a host Vec and VecArray hands out host arrays.
#include <petscvec.h>

#include <cstddef>

#include "foehn/runtime/placement.hpp"
#include "foehn/runtime/stream.hpp"

namespace foehn::petsc {

// True when PETSc was built with CUDA and Foehn with its CUDA backend, so that matrices,
// vectors and solves can live on the GPU. (Whether a device exists is a separate question:
// foehn::cuda_device_count().)
bool device_solves_available() noexcept;

// PETSc's current device stream (its default device context's), null for the legacy default
// stream. Throws unavailable when device_solves_available() is false.
CUstream_st* petsc_device_stream();
// PETSc's work queued after the call waits for the work queued on `stream` before it.
// Both need `stream` on PETSc's device (-device_select; select_device_for_rank makes them one):
// a stream on another GPU is refused with invalid_input naming both devices.
void petsc_waits_for(const Stream& stream);
// Work queued on `stream` after the call waits for PETSc's device work queued before it.
void stream_waits_for_petsc(const Stream& stream);

enum class VecAccess { read, write, read_write };

// The local entries of a Vec where their valid copy lives: PETSc's device array for a CUDA Vec,
// its host array otherwise. For a device array the access is ordered against `stream` (required
// then; ignored for host arrays): the constructor makes `stream` wait for PETSc's queued work,
// the destructor makes PETSc's later work wait for `stream`. Writing through a read access, or
// reading a write access's old contents, is the caller's bug.
class VecArray {
 public:
  VecArray(Vec vec, VecAccess access, const Stream* stream = nullptr);
  ~VecArray();
  VecArray(const VecArray&) = delete;
  VecArray& operator=(const VecArray&) = delete;

  double* data() const noexcept { return data_; }
  std::size_t size() const noexcept { return size_; }
  bool on_device() const noexcept { return on_device_; }
  // Where data() lives: device memory on the given stream, or host memory.
  Placement placement() const noexcept {
    return on_device_ ? Placement::device(*stream_) : Placement::host();
  }

 private:
  void restore() noexcept;  // gives the array back to PETSc

  Vec vec_;
  VecAccess access_;
  const Stream* stream_;
  double* data_ = nullptr;
  std::size_t size_ = 0;
  bool on_device_ = false;
};

// True when `vec` is a CUDA Vec (VECSEQCUDA, VECMPICUDA).
bool is_device_vec(Vec vec);

}  // namespace foehn::petsc
