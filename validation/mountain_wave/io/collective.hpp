#pragma once
// The io library's names for Foehn's collective error handling (foehn/petsc/mpi_collective.hpp):
// when rank 0 fails to read or write a file, every rank throws the same foehn::Error.
#include "foehn/petsc/mpi_collective.hpp"

namespace foehn::mountainwave::detail {
using petsc::detail::agree_on_failure;
using petsc::detail::capture_failure;
using petsc::detail::comm_shape;
using petsc::detail::CommShape;
using petsc::detail::displacements_of;
using petsc::detail::Failure;
using petsc::detail::run_collectively;
using petsc::detail::to_mpi_count;
}  // namespace foehn::mountainwave::detail
