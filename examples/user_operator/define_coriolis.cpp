// The one file that makes CoriolisOperator assemblable by Foehn's backends. Compiled by nvcc
// (LANGUAGE CUDA, see CMakeLists.txt) when Foehn has a CUDA backend, by the C++ compiler
// otherwise; define_operator.hpp picks the matching instantiations.
#include "coriolis_operator.hpp"
#include "foehn/fe/define_operator.hpp"

FOEHN_DEFINE_OPERATOR(foehn_examples::CoriolisOperator)
