#include "foehn/fe/assembly_strategy.hpp"
#include "foehn/runtime/error.hpp"

namespace foehn::fe {

std::string_view to_string(AssemblyStrategy strategy) {
  switch (strategy) {
    case AssemblyStrategy::staged:
      return "staged";
    case AssemblyStrategy::fused_atomic:
      return "fused_atomic";
    case AssemblyStrategy::fused_map:
      return "fused_map";
    case AssemblyStrategy::deterministic:
      return "deterministic";
    case AssemblyStrategy::row_gather:
      return "row_gather";
  }
  return "unknown";
}

std::vector<std::pair<std::string, AssemblyStrategy>> assembly_strategy_choices() {
  std::vector<std::pair<std::string, AssemblyStrategy>> choices{
      {"auto", default_assembly_strategy}};
  for (AssemblyStrategy s : all_assembly_strategies)
    choices.emplace_back(std::string(to_string(s)), s);
  return choices;
}

AssemblyStrategy parse_assembly_strategy(std::string_view name) {
  if (name == "auto") return default_assembly_strategy;
  if (name == "seed") return AssemblyStrategy::staged;  // its name until 2026-11
  for (AssemblyStrategy s : all_assembly_strategies)
    if (name == to_string(s)) return s;
  std::string valid = "auto";
  for (AssemblyStrategy s : all_assembly_strategies) valid.append(", ").append(to_string(s));
  fail(ErrorCategory::invalid_input, "unknown assembly strategy '", name, "' (valid: ", valid, ")");
}

}  // namespace foehn::fe
