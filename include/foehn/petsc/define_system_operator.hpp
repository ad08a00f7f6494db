#pragma once
// Making an operator of your own code assemblable through petsc::System (and SystemAssembler),
// the path the library's own systems take: the placement-driven hand-off, constraints and the
// KSP with its prefix. After FOEHN_DEFINE_OPERATOR has made the operator assemblable by the
// backends (fe/define_operator.hpp), in exactly one C++ source file of your program (no nvcc
// needed; PETSc's headers must be on its include path):
//
//   #include <foehn/petsc/define_system_operator.hpp>
//   #include "my_operator.hpp"
//   FOEHN_DEFINE_SYSTEM_OPERATOR(my::CoriolisOperator)
//
// An explicit instantiation: at namespace scope, once per operator per program.
#include "foehn/petsc/system_assembler_impl.hpp"

#define FOEHN_DEFINE_SYSTEM_OPERATOR(Op) FOEHN_INSTANTIATE_SYSTEM_ASSEMBLE(Op)
