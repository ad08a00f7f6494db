#pragma once
// What foehn-mountainwave reports of its timed steps besides the timing table (Table 10's rows):
// the matrix rows split into assembly and hand-off, the Krylov iterations, and each linear
// system's own counts and times (petsc::System's), in run.json and the log.
#include <mpi.h>

#include <array>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "foehn/petsc/system.hpp"
#include "foehn/runtime/cuda_call_counts.hpp"
#include "io/timing_table.hpp"
#include "mountain_wave_model.hpp"

namespace foehn::mountainwave {

// Means over the timed steps of the assemblies, their edits and hand-off, PETSc's set-up and
// solve, the step, and the Krylov iterations of every system.
class StepBreakdown {
 public:
  // `cuda_calls`: the CUDA calls the step made (zero unless counting, -count_cuda_calls);
  // `communication`: its halo exchanges, messages and reductions (always counted).
  void add(const StepReport& report, const CudaCallCounts& cuda_calls = {},
           const petsc::CommunicationCounts& communication = {});
  // Seconds are the largest over the ranks (as the timing table's). Collective.
  nlohmann::json json(MPI_Comm comm) const;

 private:
  std::int64_t steps_ = 0;
  std::array<double, 5> seconds_{};
  std::array<std::int64_t, linear_system_count> iterations_{};
  CudaCallCounts cuda_calls_;
  petsc::CommunicationCounts communication_;
};

// CUDA call counts per step as JSON (kernel launches, graph launches, host synchronisations,
// copies and bytes each way), the largest over the ranks. Collective.
nlohmann::json cuda_calls_per_step(const CudaCallCounts& counts, std::int64_t steps, MPI_Comm comm);

// MPI communication per step as JSON (halo exchanges, messages, reductions), the largest over the
// ranks. Collective.
nlohmann::json communication_per_step(const petsc::CommunicationCounts& counts, std::int64_t steps,
                                      MPI_Comm comm);

// Adds one step's times to the timing table, row by row.
void add_times(StepTimings& timings, const StepTimes& t);

// One entry per row of linear_systems: name, prefix, and per timed step its assemblies, solves,
// Krylov iterations and seconds (assembly, hand-off, preconditioner set-up, Krylov solve; the
// largest over the ranks). `times`: model.system_times() over `steps` timed steps. Collective.
nlohmann::json system_report(const std::vector<petsc::SystemTimes>& times, std::int64_t steps,
                             MPI_Comm comm);
// The same as a markdown table, for the log.
std::string system_report_markdown(const nlohmann::json& report, std::int64_t steps);

}  // namespace foehn::mountainwave
