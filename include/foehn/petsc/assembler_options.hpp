#pragma once
// fe::AssemblerOptions from the PETSc options database, with a prefix (listed by -help):
//   -<prefix>foehn_backend cpu|cuda|auto      where operators are assembled (default auto)
//   -<prefix>foehn_assembly auto|<strategy>   CUDA strategy (fe::assembly_strategy_choices())
// Values are parsed by Foehn: a wrong one is invalid_input naming the option and the accepted
// values. Options not given keep `defaults`.
#include <mpi.h>

#include <string>

#include "foehn/fe/assembler.hpp"

namespace foehn::petsc {

fe::AssemblerOptions assembler_options_from_database(MPI_Comm comm, const std::string& prefix,
                                                     fe::AssemblerOptions defaults = {});

}  // namespace foehn::petsc
