// The options guard's sources (options_files.hpp): the command line, PETSC_OPTIONS,
// PETSC_OPTIONS_YAML, the default files and each plain options file's lines, split and matched
// as PETSc splits and matches them (options.c: PetscOptionsInsert, PetscOptionsInsertArgs,
// PetscOptionsInsertString_Private, PetscOptionsInsertFilePetsc, Petscgetline). PETSc compares
// -options_file and its kin ignoring case, so the guard does too.
#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <string>
#include <vector>

#include "options_files.hpp"
#include "options_guard.hpp"

namespace foehn::app::detail {

namespace {

[[noreturn]] void refuse(const std::string& message) {
  throw Refusal(message);
}

std::string quoted(const std::string& text) {
  return "'" + shown(text) + "'";
}

enum class Reader { none, options_file, options_file_yaml, options_string_yaml, push, pop };

Reader reader_of(const std::string& token) {
  if (same_ignoring_case(token, "-options_file")) return Reader::options_file;
  if (same_ignoring_case(token, "-options_file_yaml")) return Reader::options_file_yaml;
  if (same_ignoring_case(token, "-options_string_yaml")) return Reader::options_string_yaml;
  if (same_ignoring_case(token, "-prefix_push")) return Reader::push;
  if (same_ignoring_case(token, "-prefix_pop")) return Reader::pop;
  return Reader::none;
}

// What PETSc's reader refuses in one line (with a multi-line error trace), said in one line:
// empty when PETSc takes it. A line is "-name [value]" or "alias -name -other".
std::string line_problem(const std::vector<std::string>& tokens) {
  if (is_option_name(tokens[0])) {
    for (std::size_t i = 1; i < tokens.size(); ++i)
      if (is_option_name(tokens[i]))
        return "two options on one line (" + quoted(tokens[0]) + " and " + quoted(tokens[i]) +
               "; PETSc takes one option per line)";
    if (tokens.size() > 2)
      return quoted(tokens[2]) + " after '" + shown(tokens[0]) + " " + shown(tokens[1]) +
             "' (PETSc takes one option and one value per line; quote a value with blanks)";
    return "";
  }
  if (!same_ignoring_case(tokens[0], "alias"))
    return quoted(tokens[0]) + " is not an option (-name [value], or alias -name -other)";
  if (tokens.size() != 3 || !is_option_name(tokens[1]) || !is_option_name(tokens[2]))
    return "an alias line is 'alias -name -other'";
  return "";
}

// Petscgetline: fgets in pieces of 1023 characters, a line ending where a piece ends with '\n'
// or '\r'.
std::vector<std::string> petsc_lines(const std::string& text) {
  std::vector<std::string> lines;
  std::size_t at = 0;
  while (at < text.size()) {
    std::string line;
    for (;;) {
      const std::size_t newline = text.find('\n', at);
      const std::size_t piece_end = std::min(
          {text.size(), at + 1023, newline == std::string::npos ? text.size() : newline + 1});
      line.append(text, at, piece_end - at);
      at = piece_end;
      if (at >= text.size() || line.back() == '\n' || line.back() == '\r') break;
    }
    lines.push_back(line);
  }
  return lines;
}

// PetscOptionsStringToBool for -skip_petscrc's value; PETSc refuses anything else (and then
// reads nothing), taken here as "not skipped".
bool skips_default_files(const std::vector<std::string>& arguments) {
  bool skip = false;
  for (std::size_t i = 0; i < arguments.size(); ++i) {
    if (!is_option_name(arguments[i]) || !same_ignoring_case(arguments[i], "-skip_petscrc"))
      continue;
    const bool has_value =
        i + 1 < arguments.size() && !arguments[i + 1].empty() && arguments[i + 1][0] != '-';
    skip = !has_value;
    if (has_value)
      for (const char* yes : {"true", "yes", "1", "on"})
        skip = skip || same_ignoring_case(arguments[i + 1], yes);
  }
  return skip;
}

}  // namespace

void OptionsGuard::check_yaml_string(const std::string& how, const std::string& text) {
  if (text.size() > max_options_file_bytes)
    refuse(how + ": is " + std::to_string(text.size()) + " bytes, more than the " +
           std::to_string(max_options_file_bytes) + " a YAML string may have");
  count_bytes(how, text.size());
  check_yaml_text(how, text);
}

void OptionsGuard::check_plain_text(const std::string& how, const std::string& text) {
  // PetscOptionsInsertFilePetsc: each line's option and value are packed as `-name "value" `
  // into one string, read afterwards as PETSC_OPTIONS is; which line each packed word came
  // from is kept for the messages.
  std::string packed;
  std::vector<std::pair<std::size_t, int>> line_at;  // (offset in packed, line number)
  int number = 0;
  for (std::string line : petsc_lines(text)) {
    ++number;
    if (const std::size_t comment = line.find('#'); comment != std::string::npos)
      line.erase(comment);
    for (char& c : line)
      if (c == '\t' || c == '\r' || c == '\n') c = ' ';
    std::vector<std::string> tokens = petsc_tokens(line, ' ');
    if (!tokens.empty() && tokens[0].empty()) tokens.erase(tokens.begin());
    if (tokens.empty()) continue;
    if (const std::string problem = line_problem(tokens); !problem.empty())
      refuse(how + " line " + std::to_string(number) + ": " + problem);
    if (same_ignoring_case(tokens[0], "alias")) continue;
    line_at.emplace_back(packed.size(), number);
    packed += tokens[0] + ' ';
    if (tokens.size() > 1) packed += '"' + tokens[1] + "\" ";
  }
  std::vector<std::size_t> offsets;
  const std::vector<std::string> tokens = petsc_tokens(packed, ' ', &offsets);
  std::vector<std::string> where;
  for (std::size_t offset : offsets) {
    auto after = std::upper_bound(line_at.begin(), line_at.end(), offset,
                                  [](std::size_t value, const std::pair<std::size_t, int>& entry) {
                                    return value < entry.first;
                                  });
    where.push_back(after == line_at.begin() ? "" : "line " + std::to_string((after - 1)->second));
  }
  check_inserted_string(how, tokens, where);
}

void OptionsGuard::check_inserted_string(const std::string& how,
                                         const std::vector<std::string>& tokens,
                                         const std::vector<std::string>& where) {
  for (std::size_t i = 0; i < tokens.size();) {
    const std::string& first = tokens[i];
    if (!is_option_name(first)) {
      ++i;
      continue;
    }
    const std::string place = where.size() > i && !where[i].empty() ? how + " " + where[i] : how;
    const std::string option = within(place) + shown(first);
    const Reader reader = reader_of(first);
    if (reader == Reader::options_file || reader == Reader::options_file_yaml) {
      // PETSc takes the next word as the name, whatever it is (nothing: a null name).
      if (i + 1 >= tokens.size() || tokens[i + 1].empty()) refuse(option + ": needs a file name");
      if (tokens[i + 1][0] == '-')
        refuse(option + ": needs a file name, not the option " + quoted(tokens[i + 1]));
      if (reader == Reader::options_file)
        check_options_file(option, tokens[i + 1], true);
      else
        check_yaml_file(option, tokens[i + 1]);
      i += 2;
    } else if (reader == Reader::options_string_yaml) {
      if (i + 1 >= tokens.size()) refuse(option + ": needs a YAML string");
      check_yaml_string(option + " " + quoted(tokens[i + 1]), tokens[i + 1]);
      i += 2;
    } else if (reader == Reader::push) {
      i += 2;
    } else if (reader == Reader::pop) {
      ++i;
    } else {
      i += i + 1 < tokens.size() && !is_option_name(tokens[i + 1]) ? 2 : 1;
    }
  }
}

void OptionsGuard::check_arguments(const std::vector<std::string>& arguments) {
  for (std::size_t i = 0; i < arguments.size();) {
    const std::string& argument = arguments[i];
    if (!is_option_name(argument)) {
      ++i;
      continue;
    }
    const Reader reader = reader_of(argument);
    const std::string option = shown(argument);
    if (reader == Reader::options_file || reader == Reader::options_file_yaml ||
        reader == Reader::options_string_yaml) {
      const bool has_value = i + 1 < arguments.size() && arguments[i + 1][0] != '-';
      if (!has_value)
        refuse(option + (reader == Reader::options_string_yaml ? ": needs a YAML string"
                                                               : ": needs a file name"));
      const std::string& value = arguments[i + 1];
      if (value.empty()) refuse(option + ": needs a file name");
      if (reader == Reader::options_file)
        check_options_file(option, value, true);
      else if (reader == Reader::options_file_yaml)
        check_yaml_file(option, value);
      else
        check_yaml_string(option + " " + quoted(value), value);
      i += 2;
    } else if (reader == Reader::push) {
      i += 2;
    } else if (reader == Reader::pop) {
      ++i;
    } else {
      i += i + 1 < arguments.size() && !is_option_name(arguments[i + 1]) ? 2 : 1;
    }
  }
}

void OptionsGuard::check_everything(int argc, char** argv) {
  std::vector<std::string> arguments;
  for (int i = 1; i < argc && argv[i]; ++i) arguments.emplace_back(argv[i]);
  // PetscOptionsInsert's order; PETSc reads the first three only where they exist.
  if (!skips_default_files(arguments)) {
    if (const char* home = std::getenv("HOME"); home && *home)
      check_options_file("PETSc's default options file", std::string(home) + "/.petscrc", false);
    check_options_file("PETSc's default options file", ".petscrc", false);
    check_options_file("PETSc's default options file", "petscrc", false);
  }
  if (const char* options = std::getenv("PETSC_OPTIONS"); options && *options) {
    const std::string text = options;
    count_bytes("PETSC_OPTIONS", text.size());
    check_inserted_string("PETSC_OPTIONS", petsc_tokens(text, ' '), {});
  }
  if (const char* yaml = std::getenv("PETSC_OPTIONS_YAML"); yaml && *yaml)
    check_yaml_string("PETSC_OPTIONS_YAML", yaml);
  check_arguments(arguments);
}

}  // namespace foehn::app::detail
