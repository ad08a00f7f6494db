#pragma once
// Test helper: runs a command line through the shell and returns its exit code together with
// everything it printed (stdout and stderr), as a user at a terminal would see it.

#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <string>

namespace foehn::testing {

struct RunResult {
  int exit_code = -1;
  std::string output;  // stdout and stderr together
};

inline RunResult run_command(const std::string& command) {
  RunResult result;
  FILE* pipe = ::popen((command + " 2>&1").c_str(), "r");
  if (!pipe) return result;
  std::array<char, 4096> buffer;
  while (std::size_t n = std::fread(buffer.data(), 1, buffer.size(), pipe))
    result.output.append(buffer.data(), n);
  const int status = ::pclose(pipe);
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128;
  return result;
}

}  // namespace foehn::testing
