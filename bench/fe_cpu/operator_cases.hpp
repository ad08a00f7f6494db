#pragma once
// The cases of one operator on one mesh numbering: element kernel, Foehn's CPU assembly, the
// scatter of stored element matrices, and PETSc's assembly of the same matrix (MatSetValues,
// and MatSetValuesCOO for scalar operators), all timed interleaved in the same process and
// each checked against the reference matrix before it counts.

#include <optional>
#include <string>
#include <vector>

#include "bench_results.hpp"
#include "foehn/fe/cpu_assembler.hpp"

namespace foehn::bench {

struct CaseSettings {
  int warmups = 1;
  int repeats = 5;
  std::optional<double> copy_bandwidth_gbs;  // for fraction_of_copy_bw
  bool petsc_coo = true;                     // the MatSetValuesCOO peer (scalar operators)
  // The row-block gather on the same mesh: on one thread and on every core (OpenMP's default).
  const fe::CpuAssembler* row_gather_one_core = nullptr;
  const fe::CpuAssembler* row_gather_all_cores = nullptr;
};

// A case only counts when its check is below this: every matrix here is summed in element
// order or (COO) in an order PETSc chooses, so round-off alone stays near 1e-16.
inline constexpr double max_allowed_rel_error = 1e-13;

// `name` is the case name (e.g. "diffusion_csr"), `field_doubles_per_node` the nodal field
// data the operator reads (byte model), `ordering` the numbering label.
template <class Op>
std::vector<BenchCase> run_operator_cases(const fe::CpuAssembler& assembler, const Op& op,
                                          const std::string& name, int field_doubles_per_node,
                                          const std::string& ordering,
                                          const CaseSettings& settings);

}  // namespace foehn::bench
