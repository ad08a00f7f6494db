#include "foehn/petsc/device_petsc.hpp"

#include "foehn/config.hpp"
#include "foehn/petsc/petsc_check.hpp"
#include "foehn/runtime/error.hpp"
#include "petsc_device_support.hpp"

#if FOEHN_DEVICE_PETSC
#include <petscdevice.h>
#endif

namespace foehn::petsc {

bool device_solves_available() noexcept {
  return FOEHN_DEVICE_PETSC != 0;
}

CUstream_st* petsc_device_stream() {
#if FOEHN_DEVICE_PETSC
  PetscDeviceContext context = nullptr;
  FOEHN_PETSC_CHECK(PetscDeviceContextGetCurrentContext(&context));
  void* handle = nullptr;
  FOEHN_PETSC_CHECK(PetscDeviceContextGetStreamHandle(context, &handle));
  // The handle points at the context's cudaStream_t (a CUstream_st*).
  return handle != nullptr ? *static_cast<CUstream_st**>(handle) : nullptr;
#else
  fail(ErrorCategory::unavailable, "petsc_device_stream: ", detail::why_no_device_solves());
#endif
}

namespace {

// Foehn's stream and PETSc's device context must be on one GPU: with several GPUs per host,
// PETSc takes -device_select (preset per host rank), while a Foehn stream is on the device that
// was current when it was made. Mixed, the hand-off fails inside CUDA on that rank only, and
// the other ranks wait for it in their next collective call.
void require_petsc_device(const Stream& stream) {
#if FOEHN_DEVICE_PETSC
  const int foehn_device = stream.device();
  PetscDeviceContext context = nullptr;
  PetscDevice device = nullptr;
  PetscInt petsc_device = 0;
  FOEHN_PETSC_CHECK(PetscDeviceContextGetCurrentContext(&context));
  FOEHN_PETSC_CHECK(PetscDeviceContextGetDevice(context, &device));
  FOEHN_PETSC_CHECK(PetscDeviceGetDeviceId(device, &petsc_device));
  if (petsc_device != foehn_device)
    fail(ErrorCategory::invalid_input, "PETSc hand-off: Foehn's stream is on CUDA device ",
         foehn_device, " but PETSc's device context is on device ", petsc_device,
         " (-device_select): call foehn::petsc::select_device_for_rank(comm) after "
         "PetscInitialize and before creating Foehn streams, arrays or assemblers");
#else
  (void)stream;
#endif
}

}  // namespace

void petsc_waits_for(const Stream& stream) {
  require_petsc_device(stream);
  order_streams(stream.native_handle(), petsc_device_stream());
}

void stream_waits_for_petsc(const Stream& stream) {
  require_petsc_device(stream);
  order_streams(petsc_device_stream(), stream.native_handle());
}

bool is_device_vec(Vec vec) {
  PetscBool device = PETSC_FALSE;
#if FOEHN_DEVICE_PETSC
  FOEHN_PETSC_CHECK(PetscObjectTypeCompareAny(reinterpret_cast<PetscObject>(vec), &device,
                                              VECSEQCUDA, VECMPICUDA, VECCUDA, ""));
#else
  (void)vec;
#endif
  return device == PETSC_TRUE;
}

VecArray::VecArray(Vec vec, VecAccess access, const Stream* stream)
    : vec_(vec), access_(access), stream_(stream) {
  if (vec == nullptr) fail(ErrorCategory::invalid_input, "VecArray: the Vec is null");
  if (stream == nullptr && is_device_vec(vec))
    fail(ErrorCategory::invalid_input,
         "VecArray: a device Vec needs the stream its array will be used on");
  PetscInt local = 0;
  FOEHN_PETSC_CHECK(VecGetLocalSize(vec, &local));
  size_ = static_cast<std::size_t>(local);
  PetscMemType memory = PETSC_MEMTYPE_HOST;
  PetscScalar* array = nullptr;
  switch (access) {
    case VecAccess::read: {
      const PetscScalar* read = nullptr;
      FOEHN_PETSC_CHECK(VecGetArrayReadAndMemType(vec, &read, &memory));
      array = const_cast<PetscScalar*>(read);  // handed out as const by the caller's contract
      break;
    }
    case VecAccess::write:
      FOEHN_PETSC_CHECK(VecGetArrayWriteAndMemType(vec, &array, &memory));
      break;
    case VecAccess::read_write:
      FOEHN_PETSC_CHECK(VecGetArrayAndMemType(vec, &array, &memory));
      break;
  }
  data_ = array;
  on_device_ = PetscMemTypeDevice(memory);
  if (!on_device_) return;
  try {
    stream_waits_for_petsc(*stream_);
  } catch (...) {
    restore();  // no destructor runs for a constructor that throws: give the array back here
    throw;
  }
}

VecArray::~VecArray() {
  if (data_ == nullptr) return;
  try {
    if (on_device_) petsc_waits_for(*stream_);
  } catch (const Error&) {
    // A destructor cannot throw; the restore below still runs, and the CUDA error reappears
    // at the next checked call.
  }
  restore();
}

void VecArray::restore() noexcept {
  PetscScalar* array = data_;
  switch (access_) {
    case VecAccess::read: {
      const PetscScalar* read = array;
      (void)VecRestoreArrayReadAndMemType(vec_, &read);
      break;
    }
    case VecAccess::write:
      (void)VecRestoreArrayWriteAndMemType(vec_, &array);
      break;
    case VecAccess::read_write:
      (void)VecRestoreArrayAndMemType(vec_, &array);
      break;
  }
  data_ = nullptr;
}

}  // namespace foehn::petsc
