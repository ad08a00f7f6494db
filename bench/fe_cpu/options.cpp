#include "options.hpp"

#include <algorithm>
#include <charconv>
#include <sstream>
#include <string_view>

#include "foehn/runtime/error.hpp"

namespace foehn::bench {

namespace {

template <class Int>
Int parse_integer(std::string_view option, const std::string& text, Int minimum) {
  Int value{};
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc{} || end != text.data() + text.size() || value < minimum)
    fail(ErrorCategory::invalid_input, "--", option, ": '", text, "' is not an integer >= ",
         minimum);
  return value;
}

// Comma-separated list whose entries must come from `allowed`; "all" stands for all of them.
std::vector<std::string> parse_list(std::string_view option, const std::string& text,
                                    const std::vector<std::string>& allowed) {
  if (text == "all") return allowed;
  std::vector<std::string> out;
  std::istringstream items(text);
  std::string item;
  while (std::getline(items, item, ',')) {
    if (std::find(allowed.begin(), allowed.end(), item) == allowed.end()) {
      std::string names;
      for (const std::string& a : allowed) names += a + ", ";
      fail(ErrorCategory::invalid_input, "--", option, ": unknown '", item, "' (one of ", names,
           "all)");
    }
    if (std::find(out.begin(), out.end(), item) == out.end()) out.push_back(item);
  }
  if (out.empty()) fail(ErrorCategory::invalid_input, "--", option, ": empty list");
  return out;
}

}  // namespace

std::string fe_cpu_usage() {
  return R"(bench_fe_cpu: CPU element kernels and assembly against PETSc MatSetValues, one thread.

Options (--name value or --name=value):
  --tets N          mesh size in tets (mountain mesh scaled uniformly); default: the default
                    mountain mesh, 552,960 tets
  --repeats N       timed runs per case, median reported (default 9)
  --warmup N        untimed runs per case first (default 1)
  --numbering LIST  natural,shuffled,reordered or all (default all): numberings of the
                    diffusion case; the other operators run on the first one listed
  --operators LIST  diffusion,mass,advection,momentum or all (default all)
  --out FILE        JSON results (default <source>/bench/results/fe_cpu-<cpu>-<yyyymmdd>.json)
  --markdown FILE   markdown table (default: the JSON path with .md)
  --no-files        print the table only
  --no-coo          skip the PETSc MatSetValuesCOO peer
  --copy-mb N       memcpy buffer for the copy bandwidth, MiB (default 256; 0 skips it)
  --seed N          seed of the shuffled numbering (default 20261122)
  --help            this text

Exit status: 0 when every case passed its correctness check, 1 when one failed (no files are
written then), 2 for bad options.
)";
}

FeCpuOptions parse_fe_cpu_options(int argc, char** argv) {
  static const std::vector<std::string> all_numberings = {"natural", "shuffled", "reordered"};
  static const std::vector<std::string> all_operators = {"diffusion", "mass", "advection",
                                                         "momentum"};
  FeCpuOptions options;
  for (int i = 1; i < argc; ++i) {
    std::string argument = argv[i];
    if (argument == "--help" || argument == "-h" || argument == "-help") {
      options.help = true;
      continue;
    }
    if (argument.rfind("--", 0) != 0)
      fail(ErrorCategory::invalid_input, "unexpected argument '", argument, "' (--help)");
    std::string name = argument.substr(2), value;
    bool has_value = false;
    if (const auto equals = name.find('='); equals != std::string::npos) {
      value = name.substr(equals + 1);
      name.resize(equals);
      has_value = true;
    }
    if (name == "no-files" || name == "no-coo") {
      if (has_value) fail(ErrorCategory::invalid_input, "--", name, " takes no value");
      (name == "no-files" ? options.write_files : options.petsc_coo) = false;
      continue;
    }
    static const std::vector<std::string> with_value = {"tets", "repeats", "warmup", "numbering",
                                                        "operators", "out", "markdown",
                                                        "copy-mb", "seed"};
    if (std::find(with_value.begin(), with_value.end(), name) == with_value.end())
      fail(ErrorCategory::invalid_input, "unknown option --", name, " (--help)");
    if (!has_value) {
      if (i + 1 >= argc) fail(ErrorCategory::invalid_input, "--", name, " needs a value");
      value = argv[++i];
    }
    if (name == "tets") options.tets = parse_integer<std::int64_t>(name, value, 1);
    else if (name == "repeats") options.repeats = parse_integer<int>(name, value, 1);
    else if (name == "warmup") options.warmups = parse_integer<int>(name, value, 0);
    else if (name == "numbering") options.numberings = parse_list(name, value, all_numberings);
    else if (name == "operators") options.operators = parse_list(name, value, all_operators);
    else if (name == "out") options.out = value;
    else if (name == "markdown") options.markdown = value;
    else if (name == "copy-mb") options.copy_megabytes = parse_integer<int>(name, value, 0);
    else options.seed = parse_integer<std::uint64_t>(name, value, 0);  // "seed"
  }
  return options;
}

}  // namespace foehn::bench
