// The Table-10 timing table on one rank: sums, means, percentages, markdown and JSON.
#include <cmath>
#include <string>

#include <gtest/gtest.h>

#include "foehn/runtime/error.hpp"
#include "io/timing_table.hpp"

namespace foehn::mountainwave {
namespace {

// The seed paper's "4 CPU cores + 1 GPU" column as one step (our extra rows zero).
StepTimings sample_step() {
  StepTimings timings;
  timings.add(TimedPhase::temperature_matrix, 0.0120);
  timings.add(TimedPhase::water_vapor_matrix, 0.0041);
  timings.add(TimedPhase::cloud_water_matrix, 0.0038);
  timings.add(TimedPhase::rain_water_matrix, 0.0029);
  timings.add(TimedPhase::momentum_matrix, 0.0384);
  timings.add(TimedPhase::pressure_correction_matrix, 0.0092);
  timings.add(TimedPhase::petsc_setup, 0.1921);
  timings.add(TimedPhase::petsc_solve, 2.0);
  timings.finish_step(4.880);
  return timings;
}

TEST(TimingTableTest, RowsAddUpToTheStepAndPercentagesToHundred) {
  StepTimings timings;
  for (int step = 0; step < 3; ++step) {
    timings.add(TimedPhase::temperature_matrix, 0.25);
    timings.add(TimedPhase::temperature_matrix, 0.25);  // a second Picard iteration adds up
    timings.add(TimedPhase::momentum_matrix, 1.0);
    timings.add(TimedPhase::divergence_matrix, 0.125);
    timings.add(TimedPhase::petsc_setup, 0.5);
    timings.add(TimedPhase::petsc_solve, 1.5);
    timings.finish_step(4.0 + step);  // 4, 5, 6 s: mean 5
  }
  timings.add(TimedPhase::momentum_matrix, 100.0);  // an unfinished step does not count
  EXPECT_EQ(timings.steps(), 3);
  EXPECT_DOUBLE_EQ(timings.other_seconds(), 15.0 - 3 * 3.625);

  const TimingTable table = timings.table("1 CPU core");
  EXPECT_DOUBLE_EQ(table.row("temperature_matrix").seconds_per_step, 0.5);
  EXPECT_DOUBLE_EQ(table.row("momentum_matrix").seconds_per_step, 1.0);
  EXPECT_DOUBLE_EQ(table.row("petsc_total").seconds_per_step, 2.0);
  EXPECT_DOUBLE_EQ(table.row("petsc_setup").seconds_per_step, 0.5);
  EXPECT_DOUBLE_EQ(table.row("other").seconds_per_step, 5.0 - 3.625);
  EXPECT_DOUBLE_EQ(table.row("total").seconds_per_step, 5.0);
  EXPECT_DOUBLE_EQ(table.row("momentum_matrix").percentage, 20.0);
  EXPECT_DOUBLE_EQ(table.row("total").percentage, 100.0);

  double seconds = 0.0, percent = 0.0;
  for (const TimingRow& row : table.rows) {
    if (row.part_of_previous || row.key == "total") continue;
    seconds += row.seconds_per_step;
    percent += row.percentage;
  }
  EXPECT_NEAR(seconds, 5.0, 1e-12);
  EXPECT_NEAR(percent, 100.0, 1e-10);
  EXPECT_THROW((void)table.row("nonsense"), foehn::Error);
}

TEST(TimingTableTest, MarkdownInThePaperTableLayout) {
  const std::string markdown = sample_step().table("4 CPU cores + 1 GPU").markdown();
  const char* expected_lines[] = {
      "| Functional module | 4 CPU cores + 1 GPU Time (s) | Percentage |",
      "| Temperature Matrix | 0.012 | 0.25% |",
      "| WaterVapor Matrix | 0.0041 | 0.08% |",
      "| Momentum Matrix | 0.0384 | 0.79% |",
      "| Pressure Correction Matrix | 0.0092 | 0.19% |",
      "| Divergence Matrix | 0 | 0.00% |",
      "| Total PETSc (Setup + Solver) | 2.192 | 44.92% |",
      "| &emsp;of which PETSc Solver | 2 | 40.98% |",
      "| Other unaccelerated modules | 2.61",  // 2.6175 s: 53.64%
      "| Total timestep duration | 4.88 | 100.00% |",
  };
  for (const char* line : expected_lines)
    EXPECT_NE(markdown.find(line), std::string::npos) << line << "\nin\n" << markdown;
  EXPECT_EQ(markdown.rfind("Mean time per timestep over 1 step.", 0), 0u) << markdown;
}

TEST(TimingTableTest, Json) {
  const std::string json = sample_step().table("a \"quoted\" label").json();
  for (const char* expected :
       {"\"label\": \"a \\\"quoted\\\" label\"", "\"steps\": 1", "\"ranks\": 1",
        "{\"key\": \"temperature_matrix\", \"label\": \"Temperature Matrix\", "
        "\"seconds_per_step\": 0.012, \"percentage\": ",
        "\"key\": \"petsc_setup\"", "\"part_of\": \"petsc_total\"",
        "{\"key\": \"total\", \"label\": \"Total timestep duration\", \"seconds_per_step\": 4.88, "
        "\"percentage\": 100}"})
    EXPECT_NE(json.find(expected), std::string::npos) << expected << "\nin\n" << json;
  EXPECT_EQ(StepTimings().table().json().find("nan"), std::string::npos);  // no steps: zeros
}

TEST(TimingTableTest, RejectsBadTimesAndResets) {
  StepTimings timings;
  EXPECT_THROW(timings.add(TimedPhase::petsc_solve, -1.0), foehn::Error);
  EXPECT_THROW(timings.add(TimedPhase::petsc_solve, std::nan("")), foehn::Error);
  EXPECT_THROW(timings.finish_step(-1.0), foehn::Error);
  timings.add(TimedPhase::projection_matrix, 0.25);
  timings.finish_step(1.0);
  EXPECT_EQ(timings.total_seconds(TimedPhase::projection_matrix), 0.25);
  timings.reset();
  EXPECT_EQ(timings.steps(), 0);
  EXPECT_EQ(timings.total_step_seconds(), 0.0);
  EXPECT_EQ(label_of(TimedPhase::stabilisation_matrix), "Stabilisation Matrix");
  EXPECT_EQ(key_of(TimedPhase::water_vapor_matrix), "water_vapor_matrix");
}

}  // namespace
}  // namespace foehn::mountainwave
