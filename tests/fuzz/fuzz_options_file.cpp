// libFuzzer target: the options guard every Foehn program runs before PETSc reads its options
// (apps/common/options_files.hpp). The input is written to a file and named by -options_file;
// it may name other files, itself, folders or devices through -options_file,
// -options_file_yaml and -options_string_yaml lines in any case (PETSc matches them ignoring
// case), or open with "---" and be read as YAML, with `$$name: !include file` pairs. The guard
// must return (never throw, crash or hang) and its answer must be one line naming an option or a
// file. The oracle, independent of the guard's code:
//  - an accepted plain file holds no NUL byte and every one of its lines is an option, an
//    alias, blank or a comment;
//  - a plain file without quotes that has a line "<-options_file in any case> <hostile>", or a
//    YAML file whose first pair is "$$name: !include <hostile>", is refused, where <hostile>
//    is a file PETSc would crash or hang on: the input itself, a FIFO, a file of NUL bytes, a
//    YAML file including itself, /dev/zero, /proc/self/pagemap.

#include <sys/stat.h>
#include <unistd.h>

#include <cctype>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "options_files.hpp"

namespace {

std::string scratch_file() {
  // One file per process, in the working folder (libFuzzer's): the input may name it to
  // include itself.
  return "fuzz_options_" + std::to_string(getpid()) + ".opts";
}

// Files PETSc's reader crashed or hung on, made once in the working folder (named by the
// process, removed at exit).
std::string helper(const char* what) {
  return "fuzz_options_" + std::to_string(getpid()) + "_" + what;
}

void remove_helpers() {
  for (const char* what : {"fifo", "nul", "loop.yaml"}) std::remove(helper(what).c_str());
}

void make_helpers() {
  remove_helpers();
  if (::mkfifo(helper("fifo").c_str(), 0600) != 0) std::abort();
  if (std::FILE* file = std::fopen(helper("nul").c_str(), "wb")) {
    const char zeros[64] = {};
    std::fwrite(zeros, 1, sizeof zeros, file);
    std::fclose(file);
  }
  if (std::FILE* file = std::fopen(helper("loop.yaml").c_str(), "wb")) {
    std::fprintf(file, "$$i: !include %s\n", helper("loop.yaml").c_str());
    std::fclose(file);
  }
  std::atexit(remove_helpers);
}

bool is_hostile(const std::string& name) {
  return name == scratch_file() || name == helper("fifo") || name == helper("nul") ||
         name == helper("loop.yaml") || name == "/dev/zero" || name == "/proc/self/pagemap";
}

bool same_ignoring_case(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i)
    if (std::tolower(static_cast<unsigned char>(a[i])) !=
        std::tolower(static_cast<unsigned char>(b[i])))
      return false;
  return true;
}

bool all_lines_are_options(std::string_view text) {
  std::size_t start = 0;
  while (start <= text.size()) {
    std::size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(start, end - start);
    if (const std::size_t comment = line.find('#'); comment != std::string_view::npos)
      line = line.substr(0, comment);
    std::size_t first = line.find_first_not_of(" \t\r\f\v");
    // PETSc reads a token opening with '"' up to the next '"', without the quotes; an empty
    // first token ("") it replaces, once, by the next.
    std::string_view token;
    for (int attempt = 0; attempt < 2 && first != std::string_view::npos; ++attempt) {
      const bool quoted = line[first] == '"';
      const std::size_t start_of = first + (quoted ? 1 : 0);
      const std::size_t end_of =
          quoted ? line.find('"', start_of) : line.find_first_of(" \t\r\f\v", start_of);
      token = line.substr(start_of, end_of == std::string_view::npos ? end_of : end_of - start_of);
      if (!token.empty() || end_of == std::string_view::npos) break;
      first = line.find_first_not_of(" \t\r\f\v", end_of + 1);
    }
    if (!token.empty()) {
      // PETSc's option names: "-name" or "--name", starting with a letter.
      const std::size_t letter = token.size() >= 2 && token[1] == '-' ? 2 : 1;
      const bool option = token.size() > letter && token[0] == '-' &&
                          std::isalpha(static_cast<unsigned char>(token[letter]));
      if (!option && !same_ignoring_case(token, "alias")) return false;
    }
    start = end + 1;
  }
  return true;
}

// A line "<reader option, any case> <hostile file>" of a plain file with no quote (which PETSc
// would read as one token spanning lines) and no line past Petscgetline's 1023-character piece.
bool names_a_hostile_file(std::string_view text) {
  if (text.find('"') != std::string_view::npos) return false;
  std::istringstream lines{std::string(text)};
  bool hostile = false;
  for (std::string line; std::getline(lines, line);) {
    if (line.size() > 1000) return false;
    if (const std::size_t comment = line.find('#'); comment != std::string::npos)
      line.erase(comment);
    std::istringstream words(line);
    std::vector<std::string> tokens;
    for (std::string word; words >> word;) tokens.push_back(word);
    if (tokens.size() == 2 &&
        (same_ignoring_case(tokens[0], "-options_file") ||
         same_ignoring_case(tokens[0], "-options_file_yaml")) &&
        is_hostile(tokens[1]))
      hostile = true;
  }
  return hostile;
}

// "---" and a first pair "$$name: !include <hostile>": PETSc's YAML reader visits it first.
bool includes_a_hostile_file(std::string_view text) {
  if (text.substr(0, 4) != "---\n") return false;
  const std::size_t end = text.find('\n', 4);
  const std::string_view line = text.substr(4, end == std::string_view::npos ? end : end - 4);
  const std::size_t tag = line.find(": !include ");
  if (line.substr(0, 2) != "$$" || tag == std::string_view::npos) return false;
  for (char c : line.substr(2, tag - 2))
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') return false;
  return is_hostile(std::string(line.substr(tag + 11)));
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  make_helpers();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string path = scratch_file();
  if (std::FILE* file = std::fopen(path.c_str(), "wb")) {
    if (size > 0) std::fwrite(data, 1, size, file);
    std::fclose(file);
  } else {
    std::abort();
  }
  std::string program = "fuzz", option = "-options_file", name = path, skip = "-skip_petscrc";
  char* argv[] = {program.data(), option.data(), name.data(), skip.data(), nullptr};
  const std::string problem = foehn::app::check_options_files(4, argv);
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  // PETSc reads a file opening with "---" or "%YAML " as YAML.
  const bool yaml = text.substr(0, 3) == "---" || text.substr(0, 6) == "%YAML ";
  if (problem.empty()) {
    // Accepted: text, within the size bound, every line an option (includes were checked too).
    if (text.find('\0') != std::string_view::npos || size > foehn::app::max_options_file_bytes ||
        (!yaml && !all_lines_are_options(text)))
      std::abort();
    if (yaml ? includes_a_hostile_file(text) : names_a_hostile_file(text)) std::abort();
  } else if (problem.find('\n') != std::string::npos ||
             (problem.find("-options_file") == std::string::npos &&
              problem.find("PETSC_OPTIONS") == std::string::npos)) {
    std::abort();  // a refusal is one line naming how the file was reached
  }
  std::remove(path.c_str());
  return 0;
}
