#include "foehn/petsc/log_events.hpp"

#include <array>
#include <atomic>
#include <map>
#include <mutex>
#include <string>

#include "foehn/petsc/petsc_check.hpp"
#include "foehn/runtime/error.hpp"

namespace foehn::petsc {

namespace {

struct EventInfo {
  const char* name;
  // Collective events get a barrier under -log_sync; per-rank work (assembly, copies, output
  // of one piece) must not, or ranks that skip it would deadlock the others.
  bool collective;
};

constexpr std::array<EventInfo, event_count> event_table = {{
    {"FoehnAssemble", false},
    {"FoehnAssembleGPU", false},
    {"FoehnCopyD2H", false},
    {"FoehnCopyH2D", false},
    {"FoehnMatUpdate", true},
    {"FoehnVecUpdate", true},
    {"FoehnDistribute", true},
    {"FoehnOutput", false},
    {"FoehnSolverSetup", true},
    {"FoehnSolve", true},
}};

// Ids are only valid between one PetscInitialize and its PetscFinalize; the finalize hook
// below clears them so a later PetscInitialize registers afresh.
struct Registry {
  std::mutex mutex;
  std::atomic<bool> registered{false};
  PetscClassId class_id = 0;
  std::array<PetscLogEvent, event_count> events{};
  std::map<std::string, PetscLogEvent, std::less<>> named_events;
  std::map<std::string, PetscLogStage, std::less<>> stages;
};

Registry& registry() {
  static Registry instance;
  return instance;
}

void require_petsc(std::string_view what) {
  if (!detail::petsc_is_running())
    fail(ErrorCategory::unavailable, what,
         " needs PETSc, which is not initialised: the application calls PetscInitialize before "
         "using foehn::petsc (Foehn never initialises PETSc itself) and PetscFinalize after");
}

PetscErrorCode forget_registrations() {
  Registry& r = registry();
  std::lock_guard lock(r.mutex);
  r.registered.store(false, std::memory_order_release);
  r.named_events.clear();
  r.stages.clear();
  return 0;
}

void register_if_needed(Registry& r) {
  if (r.registered.load(std::memory_order_acquire)) return;
  std::lock_guard lock(r.mutex);
  if (r.registered.load(std::memory_order_relaxed)) return;
  require_petsc("registering Foehn's log events");
  FOEHN_PETSC_CHECK(PetscClassIdRegister("Foehn", &r.class_id));
  for (int i = 0; i < event_count; ++i) {
    FOEHN_PETSC_CHECK(PetscLogEventRegister(event_table[i].name, r.class_id, &r.events[i]));
    FOEHN_PETSC_CHECK(PetscLogEventSetCollective(
        r.events[i], event_table[i].collective ? PETSC_TRUE : PETSC_FALSE));
  }
  FOEHN_PETSC_CHECK(PetscRegisterFinalize(forget_registrations));
  r.registered.store(true, std::memory_order_release);
}

}  // namespace

std::string_view event_name(LogEvent event) {
  return event_table[static_cast<int>(event)].name;
}

void register_log_events() {
  register_if_needed(registry());
}

PetscClassId log_class_id() {
  Registry& r = registry();
  register_if_needed(r);
  return r.class_id;
}

PetscLogEvent log_event_id(LogEvent event) {
  Registry& r = registry();
  register_if_needed(r);
  return r.events[static_cast<int>(event)];
}

PetscLogEvent log_event_id(std::string_view name) {
  Registry& r = registry();
  register_if_needed(r);
  std::lock_guard lock(r.mutex);
  if (const auto found = r.named_events.find(name); found != r.named_events.end())
    return found->second;
  if (name.empty()) fail(ErrorCategory::invalid_input, "a log event needs a name");
  const std::string key(name);
  PetscLogEvent event = -1;
  FOEHN_PETSC_CHECK(PetscLogEventRegister(key.c_str(), r.class_id, &event));
  r.named_events.emplace(key, event);
  return event;
}

PetscLogStage log_stage_id(std::string_view name) {
  Registry& r = registry();
  register_if_needed(r);
  std::lock_guard lock(r.mutex);
  if (const auto found = r.stages.find(name); found != r.stages.end()) return found->second;
  if (name.empty()) fail(ErrorCategory::invalid_input, "a log stage needs a name");
  const std::string key(name);
  PetscLogStage stage = -1;
  // Another part of the program may have registered the stage already: share it.
  FOEHN_PETSC_CHECK(PetscLogStageGetId(key.c_str(), &stage));
  if (stage < 0) FOEHN_PETSC_CHECK(PetscLogStageRegister(key.c_str(), &stage));
  r.stages.emplace(key, stage);
  return stage;
}

ScopedLogStage::ScopedLogStage(PetscLogStage stage) : stage_(stage) {
  if (stage_ < 0 || !detail::petsc_is_running()) {
    stage_ = -1;
    return;
  }
  FOEHN_PETSC_CHECK(PetscLogStagePush(stage_));
}

ScopedLogStage::~ScopedLogStage() {
  // Errors cannot leave a destructor; the pop only fails on an empty stage stack.
  if (stage_ >= 0 && detail::petsc_is_running()) (void)PetscLogStagePop();
}

}  // namespace foehn::petsc
