#include "options_files.hpp"

#include <cctype>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <system_error>
#include <vector>

#include "foehn/runtime/error.hpp"
#include "foehn/runtime/input_file.hpp"

namespace foehn::app {

namespace {

namespace fs = std::filesystem;

std::vector<std::string> tokens_of(const std::string& text) {
  std::vector<std::string> tokens;
  std::istringstream in(text);
  for (std::string token; in >> token;) tokens.push_back(token);
  return tokens;
}

// An options-file line split as PETSc's reader splits it (PetscOptionsInsertFile): tabs and
// carriage returns are blanks, tokens are separated by runs of blanks, and a token opening
// with '"' runs to the next '"' (blanks included, the quotes dropped).
std::vector<std::string> petsc_line_tokens(std::string line) {
  for (char& c : line)
    if (c == '\t' || c == '\r' || c == '\n') c = ' ';
  std::vector<std::string> tokens;
  std::size_t at = line.find_first_not_of(' ');
  while (at != std::string::npos && at < line.size()) {
    const char end = line[at] == '"' ? '"' : ' ';
    if (end == '"') ++at;
    const std::size_t stop = line.find(end, at);
    tokens.push_back(line.substr(at, stop == std::string::npos ? std::string::npos : stop - at));
    if (stop == std::string::npos) break;
    at = line.find_first_not_of(' ', stop + 1);
  }
  return tokens;
}

// PETSc's test of an option name (PetscOptionsValidKey): '-' or '--', a letter, and not a
// number such as -inf.
bool is_option_name(const std::string& token) {
  if (token.size() < 2 || token[0] != '-') return false;
  const std::size_t letter = token[1] == '-' ? 2 : 1;
  if (letter >= token.size() || !std::isalpha(static_cast<unsigned char>(token[letter])))
    return false;
  const char* text = token.c_str() + (letter - 1);
  char* after = nullptr;
  (void)std::strtod(text, &after);
  return after == text || *after == '_' || std::isalnum(static_cast<unsigned char>(*after));
}

// What PETSc's reader refuses in one line (with a multi-line error trace), said in one line:
// empty when PETSc takes it. A line is "-name [value]" or "alias -name -other".
std::string line_problem(const std::vector<std::string>& tokens) {
  if (is_option_name(tokens[0])) {
    for (std::size_t i = 1; i < tokens.size(); ++i)
      if (is_option_name(tokens[i]))
        return "two options on one line ('" + tokens[0] + "' and '" + tokens[i] +
               "'; PETSc takes one option per line)";
    if (tokens.size() > 2)
      return "'" + tokens[2] + "' after '" + tokens[0] + " " + tokens[1] +
             "' (PETSc takes one option and one value per line; quote a value with blanks)";
    return "";
  }
  std::string first = tokens[0];
  for (char& c : first) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (first != "alias")
    return "'" + tokens[0] + "' is not an option (-name [value], or alias -name -other)";
  if (tokens.size() != 3 || !is_option_name(tokens[1]) || !is_option_name(tokens[2]))
    return "an alias line is 'alias -name -other'";
  return "";
}

class OptionsFileChecker {
 public:
  // `option` is how the file was named (-options_file, -options_file_yaml, PETSC_OPTIONS, ...).
  std::string check(const std::string& option, const std::string& path, bool yaml) {
    const std::string named = option + " '" + path + "'";
    std::error_code error;
    if (!fs::exists(path, error)) return named + ": cannot be read (no such file)";
    try {
      require_regular_file(path, option);  // "<option> '<path>': is a FIFO, not a file"
    } catch (const Error& not_a_file) {
      return not_a_file.what();
    }
    const std::uintmax_t bytes = fs::file_size(path, error);
    if (error) return named + ": cannot be read";
    if (bytes > max_options_file_bytes)
      return named + ": is " + std::to_string(bytes) + " bytes, more than the " +
             std::to_string(max_options_file_bytes) + " an options file may have";
    const fs::path identity = fs::weakly_canonical(path, error);
    for (const fs::path& open : chain_)
      if (open == identity) return named + ": includes itself (" + chain_text(identity) + ")";
    if (static_cast<int>(chain_.size()) >= max_options_file_depth)
      return named + ": options files nested deeper than " +
             std::to_string(max_options_file_depth) + " levels";
    std::ifstream in(path, std::ios::binary);
    std::ostringstream content;
    content << in.rdbuf();
    if (!in.good() && !in.eof()) return named + ": cannot be read";
    const std::string text = content.str();
    if (text.find('\0') != std::string::npos)
      return named + ": is not text (a NUL byte: UTF-16 or binary?)";
    if (yaml) return "";  // PETSc's YAML reader: only the kind, size and text are checked here
    chain_.push_back(identity);
    std::istringstream lines(text);
    int number = 0;
    for (std::string line; std::getline(lines, line);) {
      ++number;
      const std::size_t comment = line.find('#');
      if (comment != std::string::npos) line.erase(comment);
      const std::vector<std::string> tokens = petsc_line_tokens(line);
      if (tokens.empty()) continue;
      const std::string where = named + " line " + std::to_string(number);
      if (const std::string problem = line_problem(tokens); !problem.empty())
        return where + ": " + problem;
      std::string problem = check_tokens(tokens, where);
      if (!problem.empty()) return problem;
    }
    chain_.pop_back();
    return "";
  }

  // The -options_file / -options_file_yaml pairs of a list of tokens (a command line, a line of
  // an options file, PETSC_OPTIONS).
  std::string check_tokens(const std::vector<std::string>& tokens, const std::string& where) {
    for (std::size_t i = 0; i < tokens.size(); ++i) {
      const bool plain = tokens[i] == "-options_file", yaml = tokens[i] == "-options_file_yaml";
      if (!plain && !yaml) continue;
      if (i + 1 >= tokens.size() || tokens[i + 1].empty() || tokens[i + 1][0] == '-')
        return (where.empty() ? "" : where + ": ") + tokens[i] + ": needs a file name";
      const std::string option = where.empty() ? tokens[i] : where + ": " + tokens[i];
      std::string problem = check(option, tokens[i + 1], yaml);
      if (!problem.empty()) return problem;
    }
    return "";
  }

 private:
  std::string chain_text(const fs::path& again) const {
    std::string text;
    for (const fs::path& open : chain_) text += open.filename().string() + " -> ";
    return text + again.filename().string();
  }

  std::vector<fs::path> chain_;  // the files being read, outermost first
};

}  // namespace

std::string check_options_files(int argc, char** argv) {
  OptionsFileChecker checker;
  std::vector<std::string> arguments(argv + 1, argv + argc);
  bool skip_rc = false;
  for (const std::string& a : arguments) skip_rc = skip_rc || a == "-skip_petscrc";
  std::string problem = checker.check_tokens(arguments, "");
  if (!problem.empty()) return problem;
  if (const char* environment = std::getenv("PETSC_OPTIONS")) {
    problem = checker.check_tokens(tokens_of(environment), "PETSC_OPTIONS");
    if (!problem.empty()) return problem;
  }
  if (skip_rc) return "";
  // The files PETSc reads by default where they exist.
  std::vector<std::string> defaults = {".petscrc", "petscrc"};
  if (const char* home = std::getenv("HOME")) defaults.push_back(std::string(home) + "/.petscrc");
  for (const std::string& rc : defaults) {
    std::error_code error;
    if (!fs::exists(fs::symlink_status(rc, error))) continue;
    problem = checker.check("PETSc's default options file", rc, false);
    if (!problem.empty()) return problem;
  }
  return "";
}

}  // namespace foehn::app
