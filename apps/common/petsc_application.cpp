#include "petsc_application.hpp"

#include "options_files.hpp"

#include <petscsys.h>

#include <strings.h>
#include <chrono>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <new>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "foehn/petsc/device_binding.hpp"
#include "foehn/petsc/petsc_check.hpp"
#include "foehn/runtime/error.hpp"

namespace foehn::app {

namespace {

bool help_flag = false;

// Options that PETSc or MPI read themselves even if our code never asks for them.
bool is_framework_option(const std::string& name) {
  for (const char* prefix :
       {"help", "options_", "log_", "malloc", "on_error", "no_signal", "info", "history", "petsc",
        "mpi", "fp_trap", "skip_petscrc", "check_pointer", "memory_view", "objects_dump",
        // A CUDA PETSc reads it at its device set-up; Foehn sets it from -foehn_devices, and
        // a PETSc without CUDA never reads it.
        "device_select"})
    if (name.rfind(prefix, 0) == 0) return true;
  return false;
}

// PETSc's report of an error in PetscInitialize (an options file or YAML file it refused),
// collected instead of printed: PetscErrorPrintf is PETSc's hook for that text.
std::string& initialisation_report() {
  static std::string text;
  return text;
}

PetscErrorCode collect_initialisation_report(const char format[], ...) {
  char buffer[4096];
  va_list arguments;
  va_start(arguments, format);
  std::vsnprintf(buffer, sizeof buffer, format, arguments);
  va_end(arguments);
  initialisation_report() += buffer;
  return static_cast<PetscErrorCode>(0);  // PETSC_SUCCESS, which PETSc 3.18 lacks
}

// The report's message on one line: after the "Error Message" header come PETSc's error class
// ("No support for this operation ...") and the line that says what was wrong; the class where
// there is nothing else.
std::string initialisation_message(const std::string& report) {
  std::vector<std::string> lines;
  std::istringstream in(report);
  bool after_header = false;
  for (std::string line; std::getline(in, line);) {
    // PetscErrorPrintfDefault adds the "[0]PETSC ERROR: " prefix; the text collected has none.
    const std::size_t tag = line.find("PETSC ERROR: ");
    if (tag != std::string::npos) line.erase(0, tag + std::strlen("PETSC ERROR: "));
    if (line.find("Error Message") != std::string::npos) {
      after_header = true;
      continue;
    }
    if (after_header && lines.size() < 2 && !line.empty()) lines.push_back(line);
  }
  if (lines.empty()) return "no message";
  return lines.back();
}

bool same_ignoring_case(const std::string& a, const char* b) {
  return a.size() == std::strlen(b) && strncasecmp(a.c_str(), b, a.size()) == 0;
}

// The YAML sources named on the command line, in PETSC_OPTIONS or PETSC_OPTIONS_YAML (PETSc's
// YAML reader, whose refusals name no file): to say which one PETSc refused.
std::string yaml_sources_named(int argc, char** argv) {
  std::vector<std::string> tokens(argv + 1, argv + argc);
  if (const char* environment = std::getenv("PETSC_OPTIONS")) {
    std::istringstream in(environment);
    for (std::string token; in >> token;) tokens.push_back(token);
  }
  std::string named;
  for (std::size_t i = 0; i + 1 < tokens.size(); ++i)
    if (same_ignoring_case(tokens[i], "-options_file_yaml") ||
        same_ignoring_case(tokens[i], "-options_string_yaml"))
      named += (named.empty() ? "" : ", ") + (tokens[i] + " '" + shown(tokens[i + 1]) + "'");
  if (const char* environment = std::getenv("PETSC_OPTIONS_YAML"); environment && *environment)
    named += std::string(named.empty() ? "" : ", ") + "PETSC_OPTIONS_YAML";
  return named;
}

// The options guard (options_files.hpp) runs on rank 0, where PETSc reads every file and
// variable (and broadcasts them); its verdict is broadcast, so that every rank refuses, or none,
// and no rank waits in PetscInitialize for one that has left. Empty when the options pass.
std::string options_guard_verdict(int argc, char** argv) {
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  std::string problem = rank == 0 ? check_options_files(argc, argv) : std::string();
  int length = static_cast<int>(problem.size());
  if (MPI_Bcast(&length, 1, MPI_INT, 0, MPI_COMM_WORLD) != MPI_SUCCESS)
    return "the options check could not be shared between the ranks (MPI_Bcast failed)";
  problem.resize(static_cast<std::size_t>(length));
  if (length > 0 && MPI_Bcast(problem.data(), length, MPI_CHAR, 0, MPI_COMM_WORLD) != MPI_SUCCESS)
    return "the options check could not be shared between the ranks (MPI_Bcast failed)";
  return problem;
}

}  // namespace

namespace {
// An error is reported on one line: a library's text (HDF5's, PETSc's, the C library's) may
// carry line breaks.
// A word of more than 300 characters (a 65,534-character value a message echoes) is shortened to
// its start and its length.
std::string one_line(std::string text) {
  for (char& c : text)
    if (c == '\n' || c == '\r') c = ' ';
  while (!text.empty() && text.back() == ' ') text.pop_back();
  std::string shortened;
  for (std::size_t at = 0; at < text.size();) {
    std::size_t end = text.find(' ', at);
    if (end == std::string::npos) end = text.size();
    shortened += shown(text.substr(at, end - at), 280);
    if (end < text.size()) shortened += ' ';
    at = end + 1;
  }
  return shortened;
}
}  // namespace

void reject_unused_options(const std::string& program) {
  PetscInt count = 0;
  char** names = nullptr;
  char** values = nullptr;
  FOEHN_PETSC_CHECK(PetscOptionsLeftGet(nullptr, &count, &names, &values));
  std::string unused;
  for (PetscInt i = 0; i < count; ++i) {
    if (is_framework_option(names[i])) continue;
    unused += std::string(unused.empty() ? "" : ", ") + "-" + shown(names[i]);
  }
  FOEHN_PETSC_CHECK(PetscOptionsLeftRestore(nullptr, &count, &names, &values));
  if (!unused.empty())
    fail(ErrorCategory::invalid_input, "unknown option(s) ", unused, " (", program,
         " -help lists the options)");
}

namespace {

// How long a rank that failed waits for the others before it ends them all.
constexpr auto failed_rank_grace = std::chrono::seconds(60);

// Every rank passes here on its way out, failed or not, before the collective PetscFinalize. An
// error that every rank raised (Foehn's checks agree across ranks) brings them all here at once.
// An error raised inside a collective PETSc call on one rank only (a GPU failure in one rank's
// preconditioner set-up, say) leaves the others waiting in that call forever: a failed rank
// that has not seen every rank arrive within the grace time ends the job with MPI_Abort and its
// exit code, instead of a hang.
void finish_together(const char* program, int exit_code) {
  int ranks = 1;
  if (MPI_Comm_size(MPI_COMM_WORLD, &ranks) != MPI_SUCCESS || ranks == 1) return;
  MPI_Request arrived = MPI_REQUEST_NULL;
  if (MPI_Ibarrier(MPI_COMM_WORLD, &arrived) != MPI_SUCCESS) return;
  const auto deadline = std::chrono::steady_clock::now() + failed_rank_grace;
  for (int done = 0;;) {
    if (MPI_Test(&arrived, &done, MPI_STATUS_IGNORE) != MPI_SUCCESS || done) return;
    if (exit_code != 0 && std::chrono::steady_clock::now() > deadline) {
      std::cerr << program << ": the other ranks did not finish within "
                << failed_rank_grace.count() << " s of this rank's error: ending them\n";
      MPI_Abort(MPI_COMM_WORLD, exit_code);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
}

}  // namespace

bool help_requested() {
  return help_flag;
}

int run_petsc_application(int argc, char** argv, const ApplicationInfo& info,
                          const std::function<void()>& body) {
  static char help_option[] = "-help";
  std::vector<char*> arguments(argv, argv + argc);
  for (char*& argument : arguments)
    if (std::strcmp(argument, "--help") == 0 || std::strcmp(argument, "-h") == 0)
      argument = help_option;
  arguments.push_back(nullptr);
  int count = argc;
  char** vector = arguments.data();

  // MPI first, so that the GPU presets can ask it which ranks share a host.
  int provided = 0;  // the level PetscInitialize would ask for
  if (MPI_Init_thread(&count, &vector, MPI_THREAD_FUNNELED, &provided) != MPI_SUCCESS) {
    std::cerr << info.name << ": MPI could not be initialised\n";
    return 1;
  }
  // Every way PETSc takes options in, checked before PETSc reads any (options_files.hpp), on
  // the arguments PETSc will see.
  if (const std::string problem = options_guard_verdict(count, vector); !problem.empty()) {
    int rank = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0)
      std::cerr << info.name << ": " << to_string(ErrorCategory::invalid_input) << ": " << problem
                << "\n";
    MPI_Finalize();
    return 2;
  }
  petsc::preset_gpu_mpi_options(MPI_COMM_WORLD);
  // What PETSc would print about a failure here (15 lines and more) is collected, and said in
  // one line below: an options or YAML file it refused is invalid input (exit 2).
  PetscErrorCode (*const default_error_printf)(const char[], ...) = PetscErrorPrintf;
  PetscErrorPrintf = collect_initialisation_report;
  const PetscErrorCode initialised = PetscInitialize(&count, &vector, nullptr, info.usage.c_str());
  PetscErrorPrintf = default_error_printf;
  if (initialised != 0) {
    const std::string message = one_line(initialisation_message(initialisation_report()));
    const std::string yaml = yaml_sources_named(argc, argv);
    const bool options = !yaml.empty() || message.find("options file") != std::string::npos ||
                         message.find("ption") != std::string::npos;
    if (options)
      std::cerr << info.name << ": " << to_string(ErrorCategory::invalid_input) << ": "
                << (yaml.empty() ? "" : yaml + ": ") << "PETSc refused the options: " << message
                << "\n";
    else
      std::cerr << info.name << ": PETSc could not be initialised: " << message << "\n";
    MPI_Finalize();
    return options ? 2 : 1;
  }
  // PETSc errors become foehn::Error (FOEHN_PETSC_CHECK) carrying PETSc's message, and main
  // prints that one line: PETSc's own multi-line report to stderr would only repeat it.
  PetscPushErrorHandler(PetscReturnErrorHandler, nullptr);
  int exit_code = 0;
  try {
    PetscBool has_help = PETSC_FALSE;
    FOEHN_PETSC_CHECK(PetscOptionsHasHelp(nullptr, &has_help));
    help_flag = has_help == PETSC_TRUE;
    body();
    if (!help_flag) reject_unused_options(info.name);
  } catch (const Error& error) {
    std::cerr << info.name << ": " << to_string(error.category()) << ": " << one_line(error.what())
              << "\n";
    exit_code = exit_code_for(error);
  } catch (const std::bad_alloc&) {
    // Size requests are checked before they are made (memory_budget.hpp); one that slips
    // through is still a request the machine cannot hold.
    std::cerr << info.name << ": " << to_string(ErrorCategory::out_of_memory)
              << ": a host allocation failed (std::bad_alloc); the input asks for more memory "
                 "than this machine has available\n";
    exit_code = exit_code_for(Error(ErrorCategory::out_of_memory, ""));
  } catch (const std::exception& error) {
    std::cerr << info.name << ": unexpected error: " << one_line(error.what()) << "\n";
    exit_code = 1;
  }
  finish_together(info.name.c_str(), exit_code);
  PetscPopErrorHandler();  // its 32 bytes were the one block -malloc_dump reported
  // Unused options were already reported; keep PETSc from printing its own warning too (but
  // keep the database: PetscFinalize still reads -log_view and friends).
  PetscOptionsSetValue(nullptr, "-options_left", "false");
  if (PetscFinalize() != 0 && exit_code == 0) exit_code = 1;
  MPI_Finalize();  // PETSc leaves MPI to whoever initialised it
  return exit_code;
}

}  // namespace foehn::app
