// Foehn's PETSc log class, events and stages: registered once under the documented names,
// counted by PETSc's default logger (what -log_view prints), stages pushed and popped.
#include <gtest/gtest.h>

#include <iterator>
#include <string>

#include "foehn/petsc/linear_solver.hpp"
#include "foehn/petsc/log_events.hpp"
#include "solver_test_support.hpp"

namespace foehn::petsc {
namespace {

class LogEvents : public ::testing::Test {
 protected:
  // Registered up front so that counts taken before the first use are 0, not "no event".
  static void SetUpTestSuite() {
    PetscLogDefaultBegin();
    register_log_events();
  }
};

TEST_F(LogEvents, AllEventsAreRegisteredOnceUnderTheirNames) {
  register_log_events();
  register_log_events();  // idempotent
  EXPECT_GT(log_class_id(), 0);
  const char* names[] = {"FoehnAssemble",    "FoehnAssembleGPU", "FoehnCopyD2H",    "FoehnCopyH2D",
                         "FoehnMatUpdate",   "FoehnVecUpdate",   "FoehnDistribute", "FoehnOutput",
                         "FoehnSolverSetup", "FoehnSolve"};
  static_assert(std::size(names) == event_count);
  for (int i = 0; i < event_count; ++i) {
    const auto event = static_cast<LogEvent>(i);
    EXPECT_EQ(event_name(event), names[i]);
    PetscLogEvent by_name = -1;
    PetscLogEventGetId(names[i], &by_name);
    EXPECT_GE(by_name, 0) << names[i];
    EXPECT_EQ(log_event_id(event), by_name) << names[i];
  }
}

TEST_F(LogEvents, ScopedEventsAreCounted) {
  const int before = test::event_count("FoehnAssembleGPU");
  for (int i = 0; i < 3; ++i) {
    ScopedLogEvent event(LogEvent::assemble_gpu);
    event.add_flops(100.0);
  }
  EXPECT_EQ(test::event_count("FoehnAssembleGPU") - before, 3);
}

TEST_F(LogEvents, NestedEventsAreBothCounted) {
  const int outer_before = test::event_count("FoehnMatUpdate");
  const int inner_before = test::event_count("FoehnCopyD2H");
  {
    ScopedLogEvent outer(LogEvent::mat_update);
    ScopedLogEvent inner(LogEvent::copy_d2h);
  }
  EXPECT_EQ(test::event_count("FoehnMatUpdate") - outer_before, 1);
  EXPECT_EQ(test::event_count("FoehnCopyD2H") - inner_before, 1);
}

TEST_F(LogEvents, EachSolveLogsOneSetupAndOneSolve) {
  test::OwnedMat a = test::laplacian_7pt(6);
  auto system = test::system_for(a);
  LinearSolver solver(PETSC_COMM_SELF, "logged_", SolverKind::elliptic);
  solver.set_operator(a);
  const int setups = test::event_count("FoehnSolverSetup");
  const int solves = test::event_count("FoehnSolve");
  const int ksp_solves = test::event_count("KSPSolve");
  solver.solve(system.rhs, system.x);
  solver.solve(system.rhs, system.x);
  EXPECT_EQ(test::event_count("FoehnSolverSetup") - setups, 2);
  EXPECT_EQ(test::event_count("FoehnSolve") - solves, 2);
  EXPECT_EQ(test::event_count("KSPSolve") - ksp_solves, 2);  // PETSc's own, inside ours
}

TEST_F(LogEvents, NamedEventsAreRegisteredOnceAndCounted) {
  const PetscLogEvent first = log_event_id("FoehnTestPhase");
  EXPECT_EQ(log_event_id("FoehnTestPhase"), first);
  EXPECT_NE(first, log_event_id(LogEvent::assemble));
  const int before = test::event_count("FoehnTestPhase");
  { ScopedLogEvent event(first); }
  EXPECT_EQ(test::event_count("FoehnTestPhase") - before, 1);
}

TEST_F(LogEvents, StagesAreFoundByNameAndSeparateTheCounts) {
  const PetscLogStage stage = log_stage_id("Foehn test stage");
  EXPECT_GE(stage, 0);
  EXPECT_EQ(log_stage_id("Foehn test stage"), stage);
  PetscLogStage petsc_id = -1;
  PetscLogStageGetId("Foehn test stage", &petsc_id);
  EXPECT_EQ(petsc_id, stage);

  const PetscLogEvent output = log_event_id(LogEvent::output);
  PetscEventPerfInfo in_stage{};
  PetscLogEventGetPerfInfo(stage, output, &in_stage);
  const int stage_before = in_stage.count;
  const int current_before = test::event_count("FoehnOutput");
  {
    ScopedLogStage scoped(stage);
    ScopedLogEvent event(LogEvent::output);
  }
  {
    ScopedLogStage by_name("Foehn test stage");
    ScopedLogEvent event(LogEvent::output);
  }
  PetscLogEventGetPerfInfo(stage, output, &in_stage);
  EXPECT_EQ(in_stage.count - stage_before, 2);
  EXPECT_EQ(test::event_count("FoehnOutput") - current_before, 0);  // not in the outer stage
}

TEST_F(LogEvents, StagesRegisteredElsewhereAreShared) {
  PetscLogStage registered = -1;
  ASSERT_EQ(PetscLogStageRegister("Registered by the app", &registered), 0);
  EXPECT_EQ(log_stage_id("Registered by the app"), registered);
}

}  // namespace
}  // namespace foehn::petsc
