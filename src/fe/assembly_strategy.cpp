#include "foehn/fe/cuda_assembler.hpp"
#include "foehn/runtime/error.hpp"

namespace foehn::fe {

std::string_view to_string(AssemblyStrategy strategy) {
  switch (strategy) {
    case AssemblyStrategy::seed: return "seed";
    case AssemblyStrategy::fused_atomic: return "fused_atomic";
    case AssemblyStrategy::fused_map: return "fused_map";
    case AssemblyStrategy::deterministic: return "deterministic";
  }
  return "unknown";
}

AssemblyStrategy parse_assembly_strategy(std::string_view name) {
  for (AssemblyStrategy s : all_assembly_strategies)
    if (name == to_string(s)) return s;
  fail(ErrorCategory::invalid_input, "unknown assembly strategy '", name,
       "' (valid: seed, fused_atomic, fused_map, deterministic)");
}

}  // namespace foehn::fe
