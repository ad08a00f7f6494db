// The Coriolis operator through petsc::System too (the library's path to a KSP: placement-driven
// hand-off, constraints, options prefix): one explicit instantiation, in plain C++. The
// backends' instantiation is define_coriolis.cpp's FOEHN_DEFINE_OPERATOR.
#include <foehn/petsc/define_system_operator.hpp>

#include "coriolis_operator.hpp"

FOEHN_DEFINE_SYSTEM_OPERATOR(foehn_examples::CoriolisOperator)
