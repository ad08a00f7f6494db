#pragma once
// Private to petsc_glue: whether this build can keep PETSc objects on the GPU.
#include <petscsys.h>

#include "foehn/config.hpp"

// Device Mats/Vecs need both a PETSc built with CUDA and Foehn's CUDA backend.
#if defined(PETSC_HAVE_CUDA) && FOEHN_HAVE_CUDA
#define FOEHN_DEVICE_PETSC 1
#else
#define FOEHN_DEVICE_PETSC 0
#endif

namespace foehn::petsc::detail {

// Why device Mats/Vecs are not available in this build, for error messages.
inline const char* why_no_device_solves() noexcept {
#if !defined(PETSC_HAVE_CUDA)
  return "this PETSc is built without CUDA (build with FOEHN_PETSC=cuda, see README.md)";
#elif !FOEHN_HAVE_CUDA
  return "this Foehn is built without its CUDA backend (FOEHN_CUDA=OFF)";
#else
  return "available";
#endif
}

}  // namespace foehn::petsc::detail
