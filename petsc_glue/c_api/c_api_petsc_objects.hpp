#pragma once
// Checks of what a C or Fortran caller hands the PETSc part of the C ABI, before Foehn calls
// PETSc or MPI with it: that MPI and PETSc are running, and that a Mat or Vec argument is a live
// PETSc object of that class (PETSc's own PetscValidHeaderSpecific is compiled out of optimised
// PETSc builds, so a Vec passed as the Mat, a Fortran Mat never created, or a destroyed one would
// otherwise crash inside PETSc).
#include <mpi.h>
#include <petscsys.h>

namespace foehn::c_api {

// Throws unavailable unless PETSc is initialised and not finalised.
void require_petsc();

// Throws invalid_input naming `argument` unless `object` points at a live PETSc object of class
// `classid` (`class_name`, e.g. "Mat"): NULL, an address that cannot be a heap object (a Fortran
// object's %v before it was created is -2), memory that cannot be read, a destroyed object
// (PETSc marks a freed header) and an object of another class (a Vec) are each said so. The
// memory is read without a signal handler (through a pipe, which reports an unreadable address
// as EFAULT). A destroyed object is recognised as long as its freed header was not reused.
void require_petsc_object(const void* object, PetscClassId classid, const char* class_name,
                          const char* argument);

// A Fortran PETSc object's %v that means "no object": 0 (PETSC_NULL_...), -2 (never created, or
// destroyed by PETSc 3.22 and later) or -3 (PETSc's null-argument marker), and -1.
bool is_fortran_null(const void* fortran_value);

// Throws invalid_input naming `argument` unless the PETSc object's communicator has the same
// ranks as `comm` (congruent: PETSc keeps a duplicate of the caller's communicator).
void require_same_ranks(PetscObject object, MPI_Comm comm, const char* argument);

}  // namespace foehn::c_api
