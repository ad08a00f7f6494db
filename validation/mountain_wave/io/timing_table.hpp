#pragma once
// Per-step times of the core's phases, reported in the layout of the seed paper's Table 10
// (Temperature / WaterVapor / CloudWater / RainWater / Momentum / Pressure Correction Matrix,
// Total PETSc (Setup + Solver), Other unaccelerated modules, Total timestep duration: mean
// seconds per step and percentage of the step), with our divergence, stabilisation and
// projection matrices as rows of their own. Pure C++; timing_reduce.hpp takes the maximum over
// MPI ranks.
//
//   StepTimings timings;
//   timings.add(TimedPhase::petsc_solve, seconds);
//   timings.finish_step(step_seconds);            // closes the step
//   std::cout << timings.table("1 CPU core").markdown();
//
// A matrix phase covers its element integration, assembly and hand-off to PETSc (the work the
// paper's rows time); GPU work must be synchronised before its timer stops. "Other" is what is
// left of the step: its time minus every timed phase.
#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace foehn::mountainwave {

enum class TimedPhase : int {
  temperature_matrix,
  water_vapor_matrix,
  cloud_water_matrix,
  rain_water_matrix,
  momentum_matrix,
  pressure_correction_matrix,
  divergence_matrix,
  stabilisation_matrix,
  projection_matrix,
  petsc_setup,  // KSPSetUp / PCSetUp (preconditioner builds)
  petsc_solve,  // KSPSolve
};
inline constexpr int timed_phase_count = 11;

// "momentum_matrix" (the JSON key) and "Momentum Matrix" (the table's label).
std::string_view key_of(TimedPhase phase) noexcept;
std::string_view label_of(TimedPhase phase) noexcept;

struct TimingRow {
  std::string key;    // "temperature_matrix", ..., "petsc_total", "petsc_setup", "petsc_solve",
                      // "other", "total"
  std::string label;  // as in Table 10
  double seconds_per_step = 0.0;
  double percentage = 0.0;        // of total's seconds_per_step
  bool part_of_previous = false;  // petsc_setup and petsc_solve: parts of the PETSc total row
};

struct TimingTable {
  std::string label;  // the configuration, e.g. "4 CPU cores + 1 GPU"
  std::int64_t steps = 0;
  int ranks = 1;                // > 1: every row is the maximum over the ranks
  std::vector<TimingRow> rows;  // the matrices, PETSc total, setup, solve, other, total

  const TimingRow& row(std::string_view key) const;  // throws foehn::Error (internal) if absent
  // A markdown table: "| Functional module | <label> Time (s) | Percentage |", a line above it
  // saying over how many steps and ranks.
  std::string markdown() const;
  // {"label": ..., "steps": n, "ranks": r, "reduction": "max over ranks",
  //  "rows": [{"key": ..., "label": ..., "seconds_per_step": ..., "percentage": ...,
  //            "part_of": "petsc_total" (setup and solve only)}, ...]}
  std::string json() const;
};

class StepTimings {
 public:
  // Adds `seconds` to `phase` in the current step (several calls add up, e.g. per Picard
  // iteration). Throws foehn::Error (invalid_input) for a negative or non-finite time.
  void add(TimedPhase phase, double seconds);
  // Closes the current step: its phase times count, `step_seconds` is its whole duration.
  void finish_step(double step_seconds);
  // Forgets everything (e.g. after warm-up steps, so the means are of steady steps).
  void reset() noexcept;

  std::int64_t steps() const noexcept { return steps_; }
  double total_seconds(TimedPhase phase) const noexcept;  // over the finished steps
  double total_step_seconds() const noexcept { return step_seconds_; }
  // Other: total step time minus the timed phases, over the finished steps.
  double other_seconds() const noexcept;

  // This rank's mean per step (no reduction).
  TimingTable table(std::string label = {}) const;

 private:
  std::array<double, timed_phase_count> current_{};
  std::array<double, timed_phase_count> totals_{};
  double step_seconds_ = 0.0;
  std::int64_t steps_ = 0;
};

// Builds a table from summed times: phase totals (timed_phase_count values), other, step total.
TimingTable make_timing_table(std::string label, std::int64_t steps, int ranks,
                              const std::array<double, timed_phase_count>& phase_seconds,
                              double other_seconds, double step_seconds);

}  // namespace foehn::mountainwave
