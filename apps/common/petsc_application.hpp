#pragma once
// The frame every Foehn command-line application runs in: PETSc initialised once with the
// program's help text, options read from the PETSc options database, foehn::Error mapped to
// one line on stderr and exit code 2 (bad input) or 1 (anything else), and options nobody
// read reported as errors instead of being silently ignored.

#include <functional>
#include <string>

namespace foehn::app {

struct ApplicationInfo {
  std::string name;   // e.g. "foehn-mesh"
  std::string usage;  // printed before PETSc's option listing by -help
};

// Runs `body` between PetscInitialize and PetscFinalize and returns the process exit code.
// `--help` and `-h` are accepted as synonyms of PETSc's `-help`. With -help, body still runs
// so that its PetscOptions* queries are listed, and must return early when help_requested().
int run_petsc_application(int argc, char** argv, const ApplicationInfo& info,
                          const std::function<void()>& body);

bool help_requested();

// Throws foehn::Error (invalid_input) listing options that nothing has read, so a typo is an
// error rather than a silently ignored setting. Call it once every option has been read
// (run_petsc_application calls it again after the body).
void reject_unused_options(const std::string& program);

}  // namespace foehn::app
