#pragma once
// Foehn's PETSc log events and stages, so `-log_view` shows where a timestep goes (assembly on
// the CPU or GPU, host/device copies, Mat/Vec updates, solves) next to PETSc's own KSPSolve,
// PCSetUp, MatMult, ...
//
// The class "Foehn" and its events are registered once, lazily, on first use after
// PetscInitialize (the library never initialises PETSc itself); PetscFinalize forgets them, so
// a program that initialises PETSc again registers them again.
//
//   {
//     foehn::petsc::ScopedLogStage stage("Momentum");          // a stage per timestep phase
//     {
//       foehn::petsc::ScopedLogEvent event(foehn::petsc::LogEvent::assemble_gpu);
//       gpu.assemble(op, matrix, &rhs, strategy);
//       stream.synchronize();   // events time the host: end them after the device has finished
//     }
//     solver.solve(b, x);       // FoehnSolverSetup + FoehnSolve inside
//   }
//
// Cost when logging is off (no -log_view): a ScopedLogEvent reads two globals and tests one
// pointer (PETSc's own PetscLogEventBegin macro); nothing is allocated or locked.

#include <petscsys.h>

#include <string_view>

namespace foehn::petsc {

// The events Foehn defines; their names in -log_view are in the comments.
enum class LogEvent {
  assemble,      // FoehnAssemble     assembly on the CPU (reference backend)
  assemble_gpu,  // FoehnAssembleGPU  assembly kernels on the device (host time, synchronised)
  copy_d2h,      // FoehnCopyD2H      device -> host (pinned) transfers
  copy_h2d,      // FoehnCopyH2D      host -> device transfers
  mat_update,    // FoehnMatUpdate    assembled values -> PETSc Mat (arrays or MatSetValuesCOO)
  vec_update,    // FoehnVecUpdate    assembled values -> PETSc Vec
  distribute,    // FoehnDistribute   mesh partition and distribution over the ranks
  output,        // FoehnOutput       VTK / HDF5 output
  solver_setup,  // FoehnSolverSetup  LinearSolver: KSPSetUp + KSPSetUpOnBlocks (PC build)
  solve,         // FoehnSolve        LinearSolver: KSPSolve
};
inline constexpr int event_count = static_cast<int>(LogEvent::solve) + 1;

// The name shown in -log_view ("FoehnAssembleGPU").
std::string_view event_name(LogEvent event);

// Registers the class and all events if not done yet (idempotent, thread-safe). Applications
// may call it right after PetscInitialize; everything below calls it when needed. Throws
// foehn::Error (unavailable) when PETSc is not initialised.
void register_log_events();

// The PETSc class id "Foehn" and the id of one event (registering them on first use).
PetscClassId log_class_id();
PetscLogEvent log_event_id(LogEvent event);

// An event of the Foehn class with any other name, registered on first use and remembered by
// name (for subsystems that want their own lines in -log_view). PETSc prints 16 characters.
PetscLogEvent log_event_id(std::string_view name);

// A log stage by name, registered on first use (or found, if someone registered it before).
PetscLogStage log_stage_id(std::string_view name);

namespace detail {
// True between PetscInitialize and PetscFinalize: scoped helpers do nothing outside it, so
// code that is also used without PETSc (a CPU assembler in a test) can be instrumented.
inline bool petsc_is_running() noexcept {
  return PetscInitializeCalled && !PetscFinalizeCalled;
}
}  // namespace detail

// Begins a PETSc log event on construction and ends it on destruction. Does nothing when PETSc
// is not running; costs one pointer test when logging is off. Not copyable or movable: an
// event is a lexical scope.
class ScopedLogEvent {
 public:
  explicit ScopedLogEvent(LogEvent event, PetscObject o1 = nullptr, PetscObject o2 = nullptr)
      : ScopedLogEvent(detail::petsc_is_running() ? log_event_id(event) : -1, o1, o2) {}

  explicit ScopedLogEvent(PetscLogEvent event, PetscObject o1 = nullptr,
                          PetscObject o2 = nullptr) noexcept
      : event_(event), o1_(o1), o2_(o2) {
    if (event_ >= 0 && detail::petsc_is_running())
      (void)PetscLogEventBegin(event_, o1_, o2_, nullptr, nullptr);
    else
      event_ = -1;
  }

  ~ScopedLogEvent() {
    // Errors cannot leave a destructor; PetscLogEventEnd only fails on a broken event stack.
    if (event_ >= 0 && detail::petsc_is_running())
      (void)PetscLogEventEnd(event_, o1_, o2_, nullptr, nullptr);
  }

  ScopedLogEvent(const ScopedLogEvent&) = delete;
  ScopedLogEvent& operator=(const ScopedLogEvent&) = delete;

  // Adds floating-point operations to the event (shown as Mflop/s in -log_view).
  void add_flops(double flops) const noexcept {
    (void)flops;  // unused where PETSc is built without logging
    if (event_ >= 0) (void)PetscLogFlops(flops);
  }

 private:
  PetscLogEvent event_;
  PetscObject o1_;
  PetscObject o2_;
};

// Pushes a PETSc log stage on construction and pops it on destruction: -log_view then reports
// every event once per stage. Stages nest. Does nothing when PETSc is not running.
class ScopedLogStage {
 public:
  explicit ScopedLogStage(std::string_view name)
      : ScopedLogStage(detail::petsc_is_running() ? log_stage_id(name) : -1) {}
  explicit ScopedLogStage(PetscLogStage stage);
  ~ScopedLogStage();

  ScopedLogStage(const ScopedLogStage&) = delete;
  ScopedLogStage& operator=(const ScopedLogStage&) = delete;

 private:
  PetscLogStage stage_;
};

}  // namespace foehn::petsc
