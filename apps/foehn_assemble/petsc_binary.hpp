#pragma once
// The assembled matrix (and right-hand side) in PETSc's binary format, for MatLoad/VecLoad
// and PetscBinaryIO.py: a SEQAIJ matrix first, then, when a right-hand side is given, a Vec.
// The file is written under AtomicOutputFile's temporary name and renamed when complete.
// PETSc's companion ".info" file is not written at all (PetscViewerBinarySetSkipInfo): it
// would only carry -matload_block_size, and a second file next to the temporary would have to
// be renamed separately, which the atomic rename cannot cover.

#include <filesystem>
#include <span>

#include "foehn/fe/block_csr_matrix.hpp"

namespace foehn::app {

// Requires PETSc to be initialised. Throws foehn::Error: io for an unwritable destination,
// invalid_input for a matrix too large for this PETSc build's PetscInt, petsc when PETSc fails.
void write_petsc_binary(const fe::PointCsr& matrix, std::span<const double> rhs,
                        const std::filesystem::path& path);

}  // namespace foehn::app
