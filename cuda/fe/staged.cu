// The library's instantiations of the staged strategy for the built-in operators (the strategy
// itself is a template in foehn/fe/cuda/staged_strategy.cuh).
#include "foehn/fe/cuda/staged_strategy.cuh"
#include "foehn/fe/operator_list.hpp"

FOEHN_FOR_EACH_BUILTIN_OPERATOR(FOEHN_INSTANTIATE_CUDA_STAGED)
