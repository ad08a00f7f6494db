// libFuzzer target: the options-file checker every Foehn program runs before PETSc reads its
// options (apps/common/options_files.cpp). The input is written to a file and named by
// -options_file; it may name other files, itself, folders or devices through -options_file and
// -options_file_yaml lines. The checker must return (never throw, crash or hang) and its answer
// must be one line naming an option or a file; a file it accepts holds no NUL byte and every one
// of its lines is an option, an alias, blank or a comment.

#include <unistd.h>

#include <cctype>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "options_files.hpp"

namespace {

std::string scratch_file() {
  // One file per process, in the working folder (libFuzzer's): the input may name it to
  // include itself.
  return "fuzz_options_" + std::to_string(getpid()) + ".opts";
}

bool all_lines_are_options(std::string_view text) {
  std::size_t start = 0;
  while (start <= text.size()) {
    std::size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(start, end - start);
    if (const std::size_t comment = line.find('#'); comment != std::string_view::npos)
      line = line.substr(0, comment);
    const std::size_t first = line.find_first_not_of(" \t\r\f\v");
    if (first != std::string_view::npos) {
      // PETSc reads a token opening with '"' up to the next '"', without the quotes.
      const bool quoted = line[first] == '"';
      const std::size_t start_of = first + (quoted ? 1 : 0);
      const std::string_view token = line.substr(
          start_of,
          (quoted ? line.find('"', start_of) : line.find_first_of(" \t\r\f\v", start_of)) -
              start_of);
      // PETSc's option names: "-name" or "--name", starting with a letter.
      const std::size_t letter = token.size() >= 2 && token[1] == '-' ? 2 : 1;
      const bool option = token.size() > letter && token[0] == '-' &&
                          std::isalpha(static_cast<unsigned char>(token[letter]));
      std::string lower(token);
      for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      if (!option && lower != "alias") return false;  // PETSc: "alias" in any case
    }
    start = end + 1;
  }
  return true;
}

}  // namespace

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
  if (problem.empty()) {
    // Accepted: text, within the size bound, every line an option (includes were checked too).
    if (text.find('\0') != std::string_view::npos || size > foehn::app::max_options_file_bytes ||
        !all_lines_are_options(text))
      std::abort();
  } else if (problem.find('\n') != std::string::npos ||
             (problem.find("-options_file") == std::string::npos &&
              problem.find("PETSC_OPTIONS") == std::string::npos)) {
    std::abort();  // a refusal is one line naming how the file was reached
  }
  std::remove(path.c_str());
  return 0;
}
