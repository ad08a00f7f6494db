// The C ABI's checks of MPI, PETSc and the PETSc objects callers pass (c_api_petsc_objects.hpp).
#include "c_api_petsc_objects.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <mutex>

#include "foehn/runtime/error.hpp"

// The layout of a PETSc object's header (where its class id is): PETSc's private header, as
// petsc_glue/handoff/petsc_matrix.cpp does; PETSCFREEDHEADER is the class id of a freed one.
#include <petsc/private/petscimpl.h>

namespace foehn::c_api {

namespace {

// Bytes of an object's header up to and with its class id.
constexpr std::size_t header_bytes =
    offsetof(struct _p_PetscObject, classid) + sizeof(PetscClassId);

// Copies `bytes` bytes at `address` into `into` when they can be read; false when not. write(2)
// to a pipe reads the caller's buffer in the kernel, which returns EFAULT for an address that
// is not mapped readable instead of raising SIGSEGV.
bool read_if_readable(const void* address, void* into, std::size_t bytes) {
  static std::mutex mutex;
  static int ends[2] = {-1, -1};
  const std::lock_guard lock(mutex);
  if (ends[0] < 0 && pipe2(ends, O_CLOEXEC | O_NONBLOCK) != 0)
    fail(ErrorCategory::internal,
         "cannot make the pipe that checks PETSc object addresses: ", std::strerror(errno));
  ssize_t written = 0;
  do {
    written = write(ends[1], address, bytes);
  } while (written < 0 && errno == EINTR);
  if (written < 0) {
    if (errno == EFAULT) return false;
    fail(ErrorCategory::internal, "cannot check a PETSc object's address: ", std::strerror(errno));
  }
  std::size_t got = 0;
  while (got < static_cast<std::size_t>(written)) {
    const ssize_t n =
        read(ends[0], static_cast<char*>(into) + got, static_cast<std::size_t>(written) - got);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0)
      fail(ErrorCategory::internal,
           "cannot check a PETSc object's address: ", std::strerror(errno));
    got += static_cast<std::size_t>(n);
  }
  return static_cast<std::size_t>(written) == bytes;
}

}  // namespace

void require_petsc() {
  PetscBool initialized = PETSC_FALSE, finalized = PETSC_FALSE;
  // Both only read PETSc's flags: callable before PetscInitialize and after PetscFinalize
  // (which clears the first: asked first, the second says why).
  if (PetscFinalized(&finalized) != 0 || finalized)
    fail(ErrorCategory::unavailable, "PETSc is needed, but PetscFinalize has been called");
  if (PetscInitialized(&initialized) != 0 || !initialized)
    fail(ErrorCategory::unavailable,
         "PETSc is needed, but the application has not called PetscInitialize (Foehn never does)");
}

bool is_fortran_null(const void* fortran_value) {
  const auto value = reinterpret_cast<std::intptr_t>(fortran_value);
  return value == 0 || value == -1 || value == -2 || value == -3;
}

void require_petsc_object(const void* object, PetscClassId classid, const char* class_name,
                          const char* argument) {
  if (object == nullptr) fail(ErrorCategory::invalid_input, argument, " is NULL");
  const auto address = reinterpret_cast<std::uintptr_t>(object);
  // PETSc objects are heap blocks: aligned, never in the first or last page. A Fortran object's
  // %v is -2 before MatCreate (PETSC_FORTRAN_TYPE_INITIALIZE).
  constexpr std::uintptr_t page = 4096;
  if (address < page || address > UINTPTR_MAX - page || address % alignof(void*) != 0)
    fail(ErrorCategory::invalid_input, argument, " is not a PETSc ", class_name, " (address ",
         static_cast<std::intptr_t>(address), "): never created (a Fortran ", class_name,
         " before ", class_name, "Create has %v = -2), destroyed, or not set");
  unsigned char header[header_bytes];
  if (!read_if_readable(object, header, header_bytes))
    fail(ErrorCategory::invalid_input, argument, " is not a PETSc ", class_name,
         ": its address cannot be read (never created, destroyed, or garbage)");
  PetscClassId found = 0;
  std::memcpy(&found, header + offsetof(struct _p_PetscObject, classid), sizeof found);
  if (found == classid) return;
  if (found == PETSCFREEDHEADER)
    fail(ErrorCategory::invalid_input, argument, " is a PETSc object that was destroyed (",
         class_name, "Destroy) where a live ", class_name, " is expected");
  if (found >= PETSC_SMALLEST_CLASSID && found <= PETSC_LARGEST_CLASSID) {
    const char* name = nullptr;
    if (PetscObjectGetClassName(static_cast<PetscObject>(const_cast<void*>(object)), &name) == 0 &&
        name != nullptr)
      fail(ErrorCategory::invalid_input, argument, " is a PETSc ", name, " where a ", class_name,
           " is expected");
  }
  fail(ErrorCategory::invalid_input, argument, " is not a PETSc ", class_name,
       " (no PETSc object header at its address: never created, destroyed, or another object)");
}

void require_same_ranks(PetscObject object, MPI_Comm comm, const char* argument) {
  MPI_Comm object_comm = MPI_COMM_NULL;
  if (PetscObjectGetComm(object, &object_comm) != 0 || object_comm == MPI_COMM_NULL)
    fail(ErrorCategory::invalid_input, argument, " has no communicator");
  int comparison = MPI_UNEQUAL;
  if (MPI_Comm_compare(object_comm, comm, &comparison) != MPI_SUCCESS)
    fail(ErrorCategory::internal, "MPI_Comm_compare of ", argument, "'s communicator failed");
  if (comparison == MPI_IDENT || comparison == MPI_CONGRUENT) return;
  int object_ranks = 0, ranks = 0;
  MPI_Comm_size(object_comm, &object_ranks);
  MPI_Comm_size(comm, &ranks);
  fail(ErrorCategory::invalid_input, argument, " lives on a communicator of ", object_ranks,
       " rank(s) that is not the mesh's (", ranks,
       " rank(s)); make it on the communicator the mesh was made on");
}

}  // namespace foehn::c_api
