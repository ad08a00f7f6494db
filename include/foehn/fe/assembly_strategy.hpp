#pragma once
// The CUDA backend's assembly strategies, named by what they do (cuda_assembler.hpp describes
// each): backend-neutral, so that options, reports and the CPU backend need no CUDA header.
//   staged         the published pipeline: one kernel per stage, each through global memory,
//                  then a binary-search atomicAdd scatter (the baseline of every benchmark)
//   fused_atomic   one kernel per element: element math in registers, atomicAdd scatter
//   fused_map      the same with a precomputed slot map instead of the binary search
//   deterministic  element values to a buffer, then a fixed-order gather per entry: the CPU's
//                  sums bit for bit
//   row_gather     one thread per matrix row gathering its elements: bitwise too, no atomics
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace foehn::fe {

enum class AssemblyStrategy { staged, fused_atomic, fused_map, deterministic, row_gather };

// What `-foehn_assembly auto` (every program's default) selects: the fastest strategy measured
// by bench/assembly on the H100 at 10 M tets for both the CSR and the 3x3 BCSR operators, in
// natural and reordered numbering (docs/fe_assembly.md has the table), which is also bitwise
// equal to the CPU reference.
inline constexpr AssemblyStrategy default_assembly_strategy = AssemblyStrategy::deterministic;

std::string_view to_string(AssemblyStrategy strategy);
// "staged", "fused_atomic", "fused_map", "deterministic", "row_gather", or "auto" (the
// default_assembly_strategy); "seed", the staged pipeline's name until 2026-11, is still read
// (the C ABI's callers pass strings). Anything else is invalid_input.
AssemblyStrategy parse_assembly_strategy(std::string_view name);
inline constexpr AssemblyStrategy all_assembly_strategies[] = {
    AssemblyStrategy::staged, AssemblyStrategy::fused_atomic, AssemblyStrategy::fused_map,
    AssemblyStrategy::deterministic, AssemblyStrategy::row_gather};
// Whether the strategy's sums are the CPU reference's, bit for bit (no atomics, element order).
constexpr bool bitwise_equal_to_cpu(AssemblyStrategy strategy) {
  return strategy == AssemblyStrategy::deterministic || strategy == AssemblyStrategy::row_gather;
}
// The names an option may take: "auto" (default_assembly_strategy), then every strategy.
std::vector<std::pair<std::string, AssemblyStrategy>> assembly_strategy_choices();

}  // namespace foehn::fe
