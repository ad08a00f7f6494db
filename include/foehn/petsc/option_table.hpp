#pragma once
// One way to read Foehn's options from the PETSc options database, for every tool and for the
// library's own option groups.
//
// PETSc's typed getters wrap integers modulo 2^32 (PetscInt is 32-bit in Debian's build), fall
// back to the default on an empty value, never copy the default of a string option and report
// a bad value without naming the option. An OptionTable reads each value as text (so -help
// still lists every option with PETSc's usual layout) and parses it itself: integers as 64-bit
// and range-checked, reals finite and range-checked, lists checked for their count, choices
// against their names, output files against their extensions. Every error is
// foehn::Error(invalid_input) naming the option, the value given and what is allowed.
//
//   OptionTable table(comm, "foehn-mesh options");
//   table.integer("-cells_x", "cells along x", &cells_x, {1, 100000})
//       .real("-dt", "time step, s", &dt, RealRange::above(0))
//       .output_file("-o", "output mesh", &output, {".vtu", ".msh"});
//   table.read();
//
// The help line of each option ends with its kind in brackets ("[integer 1..100000]",
// "[real > 0]", "[one of: a, b]", "[file: .vtu, .msh]", ...), which users read and the
// command-line tests parse to try a bad value of every option.

#include <mpi.h>

#include <cstdint>
#include <functional>
#include <limits>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "foehn/runtime/error.hpp"

namespace foehn::petsc {

// Inclusive range of an integer option.
struct IntegerRange {
  long long min = std::numeric_limits<long long>::min();
  long long max = std::numeric_limits<long long>::max();
  std::string describe() const;  // "1..100000", ">= 0"
};

// Range of a real option: finite always, each bound open, closed or absent.
struct RealRange {
  double min = -std::numeric_limits<double>::infinity();
  double max = std::numeric_limits<double>::infinity();
  bool min_inclusive = true;
  bool max_inclusive = true;

  static RealRange any() { return {}; }
  static RealRange at_least(double bound) { return {bound, max_default(), true, true}; }
  static RealRange above(double bound) { return {bound, max_default(), false, true}; }
  static RealRange closed(double low, double high) { return {low, high, true, true}; }
  // (low, high]
  static RealRange above_up_to(double low, double high) { return {low, high, false, true}; }
  bool contains(double value) const;
  std::string describe() const;  // "> 0", "0.5..1", "in (0, 1]"

 private:
  static double max_default() { return std::numeric_limits<double>::infinity(); }
};

// Pure parsers, usable without PETSc; each throws foehn::Error(invalid_input) naming `option`.
long long parse_integer(std::string_view option, std::string_view text, IntegerRange range);
double parse_real(std::string_view option, std::string_view text, RealRange range);
bool parse_flag(std::string_view option, std::string_view text);
// Comma-separated items; empty items are errors ("4,,4").
std::vector<std::string> split_option_list(std::string_view option, std::string_view text);

class OptionTable {
 public:
  // `prefix` is the options prefix without its dash (as PetscObjectSetOptionsPrefix takes it);
  // `title` heads the group in -help.
  OptionTable(MPI_Comm comm, std::string title, std::string prefix = "");

  OptionTable& integer(std::string name, std::string help, long long* value, IntegerRange range);
  // Narrower integer types: the range must fit the type (checked when declared).
  template <typename Int>
  requires(std::is_integral_v<Int> && !std::is_same_v<Int, long long> &&
           !std::is_same_v<Int, bool>) OptionTable& integer(std::string name, std::string help,
                                                            Int* value, IntegerRange range) {
    FOEHN_CHECK(range.min >= static_cast<long long>(std::numeric_limits<Int>::min()) &&
                    static_cast<unsigned long long>(range.max) <=
                        static_cast<unsigned long long>(std::numeric_limits<Int>::max()),
                "range of ", name, " does not fit its variable");
    return add_integer(
        std::move(name), std::move(help), static_cast<long long>(*value), range,
        [value](long long parsed) { *value = static_cast<Int>(parsed); },
        [value] { return static_cast<long long>(*value); });
  }
  OptionTable& real(std::string name, std::string help, double* value, RealRange range);
  // -name alone means true; true/false, yes/no, on/off, 1/0 (any case) are accepted.
  OptionTable& flag(std::string name, std::string help, bool* value);
  // One of `allowed` (exact spelling), stored as given.
  OptionTable& choice(std::string name, std::string help, std::string* value,
                      std::vector<std::string> allowed);
  template <typename Enum>
  requires std::is_enum_v<Enum> OptionTable& choice(
      std::string name, std::string help, Enum* value,
      std::vector<std::pair<std::string, Enum>> allowed) {
    std::vector<std::string> names;
    std::string current;
    for (const auto& [text, item] : allowed) {
      names.push_back(text);
      if (item == *value) current = text;
    }
    return add_choice(
        std::move(name), std::move(help), current, std::move(names),
        [value, allowed](std::size_t index) { *value = allowed[index].second; },
        [value, allowed]() -> std::string {
          for (const auto& [text, item] : allowed)
            if (item == *value) return text;
          return "(none of the choices)";
        });
  }
  // Free text (a label): any non-empty value.
  OptionTable& text(std::string name, std::string help, std::string* value);
  // A file or folder to read; any non-empty value (its reader checks that it exists).
  OptionTable& input_path(std::string name, std::string help, std::string* value);
  // A file to write; its name must end in one of `extensions` (".vtu", any case). The default
  // (the variable's value on entry) may be empty: the output is then optional.
  OptionTable& output_file(std::string name, std::string help, std::string* value,
                           std::vector<std::string> extensions);
  // A folder to write into; any non-empty value (made when needed; refused there if a file
  // of that name exists).
  OptionTable& output_folder(std::string name, std::string help, std::string* value);
  // Exactly `count` comma-separated integers each in `range`.
  OptionTable& integer_list(std::string name, std::string help, std::vector<long long>* values,
                            std::size_t count, IntegerRange range);
  // One or more comma-separated paths to read.
  OptionTable& input_path_list(std::string name, std::string help,
                               std::vector<std::string>* values);

  // Reads every declared option (listing them under -help; with -help the variables keep their
  // defaults), then parses and checks the values given. Throws foehn::Error(invalid_input).
  void read();
  // After read(): whether the option was on the command line / in the database.
  bool was_set(std::string_view name) const;
  // "-prefix_name", as the user types it.
  std::string spelled(std::string_view name) const;

  // Marks the option declared last as one that does not change what a run computes (an output
  // folder, an interval, a label, or one whose effect another option or a derived value
  // records): result_defining_values() leaves it out.
  OptionTable& without_effect_on_results();
  // Every other option with its variable's value now as text (reals in shortest round-trip
  // form), in declaration order: what a restart fingerprint or a run's record needs. Reads the
  // variables, not the database: no read() is needed, and values derived after read() count.
  std::vector<std::pair<std::string, std::string>> result_defining_values() const;

 private:
  struct Entry {
    std::string name;
    std::string help;  // with the kind in brackets appended
    std::string default_text;
    bool value_optional = false;  // flags: -name alone is a value
    std::function<void(const std::string& spelled, const std::string& text)> assign;
    std::function<std::string()> current;  // the variable's value now, as text
    bool affects_results = true;
  };
  OptionTable& add(Entry entry);
  OptionTable& add_integer(std::string name, std::string help, long long current,
                           IntegerRange range, std::function<void(long long)> store,
                           std::function<long long()> load);
  OptionTable& add_choice(std::string name, std::string help, std::string current,
                          std::vector<std::string> allowed, std::function<void(std::size_t)> store,
                          std::function<std::string()> load);

  MPI_Comm comm_;
  std::string title_;
  std::string prefix_;
  std::vector<Entry> entries_;
  std::vector<bool> set_;  // after read(), per entry
};

}  // namespace foehn::petsc
