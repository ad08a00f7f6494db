#include "io/timing_reduce.hpp"

#include <array>
#include <cstdint>

#include "foehn/runtime/error.hpp"
#include "io/collective.hpp"

namespace foehn::mountainwave {

TimingTable reduce_timing_table(const StepTimings& timings, MPI_Comm comm, std::string label) {
  const detail::CommShape shape = detail::comm_shape(comm, "reduce_timing_table");
  std::int64_t steps[2] = {timings.steps(), -timings.steps()};  // max and -min in one call
  FOEHN_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, steps, 2, MPI_INT64_T, MPI_MAX, comm));
  if (steps[0] != -steps[1])
    fail(ErrorCategory::invalid_input, "reduce_timing_table: the ranks timed between ", -steps[1],
         " and ", steps[0], " steps");

  // Phases, then other (per rank, before the reduction), then the step total.
  std::array<double, timed_phase_count + 2> seconds{};
  for (int p = 0; p < timed_phase_count; ++p)
    seconds[static_cast<std::size_t>(p)] = timings.total_seconds(static_cast<TimedPhase>(p));
  seconds[timed_phase_count] = timings.other_seconds();
  seconds[timed_phase_count + 1] = timings.total_step_seconds();
  FOEHN_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, seconds.data(), static_cast<int>(seconds.size()),
                                   MPI_DOUBLE, MPI_MAX, comm));
  std::array<double, timed_phase_count> phases{};
  for (std::size_t p = 0; p < phases.size(); ++p) phases[p] = seconds[p];
  return make_timing_table(std::move(label), steps[0], shape.size, phases,
                           seconds[timed_phase_count], seconds[timed_phase_count + 1]);
}

}  // namespace foehn::mountainwave
