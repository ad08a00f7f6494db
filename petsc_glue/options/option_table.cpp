#include "foehn/petsc/option_table.hpp"

#include <petscsys.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstring>

#include "foehn/petsc/petsc_check.hpp"

namespace foehn::petsc {

namespace {

// PETSc copies a string option into a caller buffer and silently cuts what does not fit: a
// value that fills the buffer is refused rather than used cut. 64 KiB, not a path's length: a
// list such as foehn-box's -external_rates for MUSICA's T1S2 (190 per-cell values) is 6 kB.
constexpr std::size_t value_capacity = std::size_t{1} << 16;

// A value in a message: whole when short, else its start and its length (a 65,534-character
// value echoed whole filled the terminal).
std::string quoted(std::string_view text) {
  constexpr std::size_t shown_characters = 80;
  if (text.size() <= shown_characters + 20) return "'" + std::string(text) + "'";
  return "'" + std::string(text.substr(0, shown_characters)) + "...' (" +
         std::to_string(text.size()) + " characters)";
}

std::string lower_case(std::string_view text) {
  std::string result(text);
  std::transform(result.begin(), result.end(), result.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return result;
}

std::string_view without_plus(std::string_view text) {
  if (!text.empty() && text.front() == '+') text.remove_prefix(1);
  return text;
}

// The shortest text that reads back as the same double: 0.1, not 0.10000000000000001.
std::string shortest(double value) {
  char text[32];
  const auto [end, error] = std::to_chars(text, text + sizeof text, value);
  return error == std::errc() ? std::string(text, end) : detail::concat(value);
}

// "2,3,4": an integer list as the user types it.
std::string comma_joined(const std::vector<long long>& values) {
  std::string text;
  for (long long v : values) {
    if (!text.empty()) text += ',';
    text += std::to_string(v);
  }
  return text;
}

std::string joined(const std::vector<std::string>& items, std::string_view separator) {
  std::string result;
  for (const std::string& item : items)
    result += (result.empty() ? "" : std::string(separator)) + item;
  return result;
}

// A whole-string double; false for anything else (trailing characters, overflow).
bool to_double(std::string_view text, double& value) {
  text = without_plus(text);
  if (text.empty()) return false;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  return error == std::errc() && end == text.data() + text.size();
}

// PetscBool is C's bool in newer PETSc, and std::vector<bool> has no addressable elements.
struct SetFlag {
  PetscBool value = PETSC_FALSE;
};

PetscErrorCode query(MPI_Comm comm, const char* prefix, const char* title,
                     const std::vector<std::string>& names, const std::vector<std::string>& helps,
                     const std::vector<std::string>& defaults, std::vector<std::string>& given,
                     std::vector<SetFlag>& set) {
  PetscFunctionBeginUser;
  std::vector<char> buffer(value_capacity);
  PetscOptionsBegin(comm, prefix, title, nullptr);
  for (std::size_t i = 0; i < names.size(); ++i) {
    std::fill(buffer.begin(), buffer.end(), '\0');
    PetscCall(PetscOptionsString(names[i].c_str(), helps[i].c_str(), nullptr, defaults[i].c_str(),
                                 buffer.data(), buffer.size(), &set[i].value));
    given[i] = buffer.data();
  }
  PetscOptionsEnd();
  PetscFunctionReturn(0);
}

}  // namespace

std::string IntegerRange::describe() const {
  constexpr long long lowest = std::numeric_limits<long long>::min();
  constexpr long long highest = std::numeric_limits<long long>::max();
  if (min == lowest && max == highest) return "any";
  if (max == highest) return ">= " + std::to_string(min);
  if (min == lowest) return "<= " + std::to_string(max);
  return std::to_string(min) + ".." + std::to_string(max);
}

bool RealRange::contains(double value) const {
  if (!std::isfinite(value)) return false;
  const bool above_min = min_inclusive ? value >= min : value > min;
  const bool below_max = max_inclusive ? value <= max : value < max;
  return above_min && below_max;
}

std::string RealRange::describe() const {
  const auto number = [](double v) { return shortest(v); };
  const bool has_min = std::isfinite(min), has_max = std::isfinite(max);
  const std::string lower = has_min ? (min_inclusive ? ">= " : "> ") + number(min) : "";
  const std::string upper = has_max ? (max_inclusive ? "<= " : "< ") + number(max) : "";
  if (has_min && has_max && min_inclusive && max_inclusive) return number(min) + ".." + number(max);
  if (has_min && has_max) return lower + " and " + upper;
  if (has_min) return lower;
  if (has_max) return upper;
  return "any finite";
}

long long parse_integer(std::string_view option, std::string_view text, IntegerRange range) {
  const auto refuse = [&](std::string_view why) {
    fail(ErrorCategory::invalid_input, option, " ", quoted(text), ": ", why,
         "; expected an integer ", range.describe());
  };
  const std::string_view digits = without_plus(text);
  long long value = 0;
  const auto [end, error] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
  if (digits.empty()) refuse("not a number");
  if (error == std::errc::result_out_of_range) refuse("out of range");
  if (error != std::errc() || end != digits.data() + digits.size()) {
    // 5e6 and 2.0 are whole numbers written as reals: accepted, exactly.
    double real = 0.0;
    if (!to_double(text, real)) refuse("not a number");
    if (!std::isfinite(real) || std::fabs(real) >= 9.2e18) refuse("out of range");
    if (real != std::trunc(real)) refuse("not a whole number");
    value = static_cast<long long>(real);
  }
  if (value < range.min || value > range.max) refuse("out of range");
  return value;
}

double parse_real(std::string_view option, std::string_view text, RealRange range) {
  const auto refuse = [&](std::string_view why) {
    fail(ErrorCategory::invalid_input, option, " ", quoted(text), ": ", why,
         "; expected a finite number ", range.describe());
  };
  double value = 0.0;
  if (!to_double(text, value)) {
    // from_chars reports overflow (1e999) as out of range; anything else is not a number.
    const std::string_view digits = without_plus(text);
    double ignored = 0.0;
    const auto [end, error] =
        std::from_chars(digits.data(), digits.data() + digits.size(), ignored);
    refuse(error == std::errc::result_out_of_range ? "out of range" : "not a number");
  }
  if (!std::isfinite(value)) refuse("not finite");
  if (!range.contains(value)) refuse("out of range");
  return value;
}

bool parse_flag(std::string_view option, std::string_view text) {
  const std::string word = lower_case(text);
  if (word.empty() || word == "true" || word == "yes" || word == "on" || word == "1") return true;
  if (word == "false" || word == "no" || word == "off" || word == "0") return false;
  fail(ErrorCategory::invalid_input, option, " ", quoted(text),
       ": expected true or false (yes/no, on/off, 1/0), or the option alone for true");
}

std::vector<std::string> split_option_list(std::string_view option, std::string_view text) {
  std::vector<std::string> items;
  std::size_t start = 0;
  while (true) {
    const std::size_t comma = text.find(',', start);
    const std::string_view item = text.substr(
        start, comma == std::string_view::npos ? std::string_view::npos : comma - start);
    if (item.empty())
      fail(ErrorCategory::invalid_input, option, " ", quoted(text),
           ": empty item in the comma-separated list");
    items.emplace_back(item);
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
  return items;
}

OptionTable::OptionTable(MPI_Comm comm, std::string title, std::string prefix)
    : comm_(comm), title_(std::move(title)), prefix_(std::move(prefix)) {
  if (!prefix_.empty() && prefix_.front() == '-') prefix_.erase(0, 1);
}

std::string OptionTable::spelled(std::string_view name) const {
  std::string_view bare = name;
  if (!bare.empty() && bare.front() == '-') bare.remove_prefix(1);
  return "-" + prefix_ + std::string(bare);
}

OptionTable& OptionTable::without_effect_on_results() {
  FOEHN_CHECK(!entries_.empty(), "without_effect_on_results() before any option");
  entries_.back().affects_results = false;
  return *this;
}

std::vector<std::pair<std::string, std::string>> OptionTable::result_defining_values() const {
  std::vector<std::pair<std::string, std::string>> values;
  for (const Entry& entry : entries_)
    if (entry.affects_results) values.emplace_back(entry.name, entry.current());
  return values;
}

OptionTable& OptionTable::add(Entry entry) {
  FOEHN_CHECK(!entry.name.empty() && entry.name.front() == '-', "option name ", entry.name);
  FOEHN_CHECK(static_cast<bool>(entry.current), "option ", entry.name, " without a read-back");
  for (const Entry& other : entries_)
    FOEHN_CHECK(other.name != entry.name, "option ", entry.name, " declared twice");
  entries_.push_back(std::move(entry));
  return *this;
}

OptionTable& OptionTable::add_integer(std::string name, std::string help, long long current,
                                      IntegerRange range, std::function<void(long long)> store,
                                      std::function<long long()> load) {
  const std::string kind = " [integer " + range.describe() + "]";
  return add({std::move(name), std::move(help) + kind, std::to_string(current), false,
              [range, store](const std::string& option, const std::string& text) {
                store(parse_integer(option, text, range));
              },
              [load] { return std::to_string(load()); }});
}

OptionTable& OptionTable::integer(std::string name, std::string help, long long* value,
                                  IntegerRange range) {
  return add_integer(
      std::move(name), std::move(help), *value, range,
      [value](long long parsed) { *value = parsed; }, [value] { return *value; });
}

OptionTable& OptionTable::real(std::string name, std::string help, double* value, RealRange range) {
  const std::string kind = " [real " + range.describe() + "]";
  return add({std::move(name), std::move(help) + kind, shortest(*value), false,
              [range, value](const std::string& option, const std::string& text) {
                *value = parse_real(option, text, range);
              },
              [value] { return shortest(*value); }});
}

OptionTable& OptionTable::flag(std::string name, std::string help, bool* value) {
  return add({std::move(name), std::move(help) + " [flag]", *value ? "true" : "false", true,
              [value](const std::string& option, const std::string& text) {
                *value = parse_flag(option, text);
              },
              [value] { return std::string(*value ? "true" : "false"); }});
}

OptionTable& OptionTable::add_choice(std::string name, std::string help, std::string current,
                                     std::vector<std::string> allowed,
                                     std::function<void(std::size_t)> store,
                                     std::function<std::string()> load) {
  FOEHN_CHECK(!allowed.empty(), "choices of ", name);
  const std::string kind = " [one of " + joined(allowed, "|") + "]";
  return add({std::move(name), std::move(help) + kind, std::move(current), false,
              [allowed, store](const std::string& option, const std::string& text) {
                const auto found = std::find(allowed.begin(), allowed.end(), text);
                if (found == allowed.end())
                  fail(ErrorCategory::invalid_input, option, " ", quoted(text),
                       ": expected one of ", joined(allowed, ", "));
                store(static_cast<std::size_t>(found - allowed.begin()));
              },
              std::move(load)});
}

OptionTable& OptionTable::choice(std::string name, std::string help, std::string* value,
                                 std::vector<std::string> allowed) {
  const std::vector<std::string> names = allowed;
  return add_choice(
      std::move(name), std::move(help), *value, std::move(allowed),
      [value, names](std::size_t index) { *value = names[index]; }, [value] { return *value; });
}

OptionTable& OptionTable::text(std::string name, std::string help, std::string* value) {
  return add({std::move(name), std::move(help) + " [text]", *value, false,
              [value](const std::string&, const std::string& text) { *value = text; },
              [value] { return *value; }});
}

OptionTable& OptionTable::input_path(std::string name, std::string help, std::string* value) {
  return add({std::move(name), std::move(help) + " [input file]", *value, false,
              [value](const std::string&, const std::string& text) { *value = text; },
              [value] { return *value; }});
}

OptionTable& OptionTable::output_file(std::string name, std::string help, std::string* value,
                                      std::vector<std::string> extensions) {
  FOEHN_CHECK(!extensions.empty(), "extensions of ", name);
  const std::string kind = " [output file " + joined(extensions, "|") + "]";
  return add({std::move(name), std::move(help) + kind, *value, false,
              [value, extensions](const std::string& option, const std::string& text) {
                const std::string lower = lower_case(text);
                const bool known = std::any_of(
                    extensions.begin(), extensions.end(), [&](const std::string& extension) {
                      return lower.size() > extension.size() &&
                             lower.compare(lower.size() - extension.size(), extension.size(),
                                           lower_case(extension)) == 0;
                    });
                if (!known)
                  fail(ErrorCategory::invalid_input, option, " ", quoted(text),
                       ": expected a file name ending in ", joined(extensions, " or "));
                *value = text;
              },
              [value] { return *value; }});
}

OptionTable& OptionTable::output_folder(std::string name, std::string help, std::string* value) {
  return add({std::move(name), std::move(help) + " [output folder]", *value, false,
              [value](const std::string&, const std::string& text) { *value = text; },
              [value] { return *value; }});
}

OptionTable& OptionTable::integer_list(std::string name, std::string help,
                                       std::vector<long long>* values, std::size_t count,
                                       IntegerRange range) {
  const std::string kind =
      " [" + std::to_string(count) + " integers " + range.describe() + ", comma-separated]";
  return add({std::move(name), std::move(help) + kind, comma_joined(*values), false,
              [values, count, range](const std::string& option, const std::string& text) {
                const std::vector<std::string> items = split_option_list(option, text);
                if (items.size() != count)
                  fail(ErrorCategory::invalid_input, option, " ", quoted(text), ": expected ",
                       count, " comma-separated integers, got ", items.size());
                std::vector<long long> parsed;
                for (std::size_t i = 0; i < items.size(); ++i)
                  parsed.push_back(parse_integer(
                      detail::concat(option, " '", text, "': item ", i + 1), items[i], range));
                *values = std::move(parsed);
              },
              [values] { return comma_joined(*values); }});
}

OptionTable& OptionTable::input_path_list(std::string name, std::string help,
                                          std::vector<std::string>* values) {
  return add({std::move(name), std::move(help) + " [input files, comma-separated]",
              joined(*values, ","), false,
              [values](const std::string& option, const std::string& text) {
                *values = split_option_list(option, text);
              },
              [values] { return joined(*values, ","); }});
}

void OptionTable::read() {
  const std::size_t n = entries_.size();
  std::vector<std::string> names(n), helps(n), defaults(n), given(n);
  std::vector<SetFlag> set(n);
  for (std::size_t i = 0; i < n; ++i) {
    names[i] = entries_[i].name;
    helps[i] = entries_[i].help;
    defaults[i] = entries_[i].default_text;
  }
  FOEHN_PETSC_CHECK(query(comm_, prefix_.empty() ? nullptr : prefix_.c_str(), title_.c_str(), names,
                          helps, defaults, given, set));
  PetscBool help = PETSC_FALSE;
  FOEHN_PETSC_CHECK(PetscOptionsHasHelp(nullptr, &help));
  set_.assign(n, false);
  for (std::size_t i = 0; i < n; ++i) {
    const Entry& entry = entries_[i];
    set_[i] = set[i].value == PETSC_TRUE;
    if (!set_[i] || help == PETSC_TRUE) continue;
    const std::string option = spelled(entry.name);
    if (given[i].size() + 1 >= value_capacity)
      fail(ErrorCategory::invalid_input, option, ": value longer than ", value_capacity - 2,
           " characters");
    if (given[i].empty() && !entry.value_optional)
      fail(ErrorCategory::invalid_input, option, ": needs a value (",
           entry.help.substr(entry.help.rfind(" [") + 1), ")");
    entry.assign(option, given[i]);
  }
}

bool OptionTable::was_set(std::string_view name) const {
  for (std::size_t i = 0; i < entries_.size(); ++i)
    if (entries_[i].name == name) return i < set_.size() && set_[i];
  FOEHN_CHECK(false, "was_set(", name, "): option not declared");
  return false;
}

}  // namespace foehn::petsc
