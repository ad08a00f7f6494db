// foehn-trajectory-deviation: compares two parcel snapshots (e.g. a CPU and a GPU run, or a
// sorted and an unsorted one, at the same time) parcel by parcel, matched by id: AHTD, AVTD
// and, when both files carry path lengths, RHTD and RVTD, plus every shared quantity.
// Options come from the PETSc options database like every Foehn tool's (so -help lists them
// with their kinds and a bad value is refused naming the option); the two files are the
// arguments that are not options.

#include <petscsys.h>

#include <cctype>
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include "foehn/particles/io/particle_file.hpp"
#include "foehn/particles/io/trajectory_deviation.hpp"
#include "foehn/petsc/option_table.hpp"
#include "foehn/runtime/atomic_file.hpp"
#include "foehn/runtime/error.hpp"
#include "option_paths.hpp"
#include "petsc_application.hpp"

namespace foehn::app {
namespace {

using namespace foehn::particles;

constexpr const char* program = "foehn-trajectory-deviation";
constexpr const char* usage =
    "usage: foehn-trajectory-deviation A.nc B.nc [-json out.json]\n"
    "Compares two parcel snapshots (docs/particles_io.md) parcel by parcel, matched by id:\n"
    "AHTD (chord distance, m), AVTD (|dz| in log-pressure height, m), RHTD and RVTD (%, when\n"
    "both files carry path_horizontal_m and path_vertical_m) and every shared quantity.\n"
    "Exit code 0 on success, 2 for bad options, unreadable files or no common ids, 1 "
    "otherwise.\n\n";

struct Arguments {
  std::string file_a, file_b, json;
};

// Whether PETSc reads `argument` as an option name (PetscOptionsValidKey): a dash (or two)
// and a letter, so that "-5" is a value.
bool is_option_name(const std::string& argument) {
  std::size_t letter = 1;
  if (argument.size() > 1 && argument[0] == '-' && argument[1] == '-') letter = 2;
  return argument.size() > letter && argument[0] == '-' &&
         std::isalpha(static_cast<unsigned char>(argument[letter]));
}

// The arguments PETSc skips: neither an option name nor the value that follows one.
std::vector<std::string> file_arguments(const std::vector<std::string>& arguments) {
  std::vector<std::string> files;
  for (std::size_t i = 0; i < arguments.size(); ++i) {
    if (!is_option_name(arguments[i])) {
      files.push_back(arguments[i]);
    } else if (i + 1 < arguments.size() && !is_option_name(arguments[i + 1])) {
      ++i;  // the option's value
    }
  }
  return files;
}

Arguments read_arguments(const std::vector<std::string>& arguments) {
  Arguments result;
  petsc::OptionTable table(PETSC_COMM_WORLD, "foehn-trajectory-deviation options");
  table.output_file("-json", "Also write the summary as JSON", &result.json, {".json"});
  table.read();
  if (help_requested()) return result;
  reject_unused_options(program);
  const std::vector<std::string> files = file_arguments(arguments);
  if (files.size() != 2)
    fail(ErrorCategory::invalid_input, "expected two particle files, got ", files.size(), "\n",
         usage);
  result.file_a = files[0];
  result.file_b = files[1];
  if (!result.json.empty()) require_output_file_not_folder("-json", result.json);
  return result;
}

std::string first_ids(const std::vector<std::int64_t>& ids) {
  constexpr std::size_t shown = 10;
  std::string text;
  for (std::size_t i = 0; i < ids.size() && i < shown; ++i)
    text += (i > 0 ? ", " : "") + std::to_string(ids[i]);
  if (ids.size() > shown) text += ", ...";
  return text;
}

void print_row(const std::string& label, const DeviationSummary& s) {
  std::printf("%-28s %10zu %13.6g %13.6g %13.6g %13.6g %13.6g\n", label.c_str(), s.count, s.mean,
              s.standard_deviation, s.min, s.max, s.median);
}

void print_table(const TrajectoryDeviation& d, const Arguments& arguments) {
  std::printf("%s: A = %s (%zu parcels), B = %s (%zu parcels)\n", program, arguments.file_a.c_str(),
              d.parcels_a, arguments.file_b.c_str(), d.parcels_b);
  std::printf("matched by id: %zu; only in A: %zu%s%s%s; only in B: %zu%s%s%s\n", d.parcels.size(),
              d.only_in_a.size(), d.only_in_a.empty() ? "" : " (ids ",
              first_ids(d.only_in_a).c_str(), d.only_in_a.empty() ? "" : ")", d.only_in_b.size(),
              d.only_in_b.empty() ? "" : " (ids ", first_ids(d.only_in_b).c_str(),
              d.only_in_b.empty() ? "" : ")");
  if (d.time_mismatches > 0) {
    std::printf("warning: %zu matched parcels have different times (max |tA - tB| = %g s)\n",
                d.time_mismatches, d.max_time_difference_s);
  }
  if (d.status_mismatches > 0)
    std::printf("note: %zu matched parcels differ in status\n", d.status_mismatches);
  std::printf("%-28s %10s %13s %13s %13s %13s %13s\n", "measure", "count", "mean", "sd", "min",
              "max", "median");
  print_row("AHTD [m]", d.ahtd_m);
  print_row("AVTD [m]", d.avtd_m);
  if (d.relative_available) {
    print_row("RHTD [%]", d.rhtd_percent);
    print_row("RVTD [%]", d.rvtd_percent);
  } else {
    std::printf(
        "RHTD, RVTD: not computed (both files need path_horizontal_m and "
        "path_vertical_m)\n");
  }
  for (const QuantityDeviation& q : d.quantities) {
    print_row(q.name + " |dq|", q.absolute);
    print_row(q.name + " rel [%]", q.relative_percent);
  }
  for (const std::string& name : d.quantities_only_in_a)
    std::printf("quantity %s only in A: not compared\n", name.c_str());
  for (const std::string& name : d.quantities_only_in_b)
    std::printf("quantity %s only in B: not compared\n", name.c_str());
}

void run(const std::vector<std::string>& command_line) {
  const Arguments arguments = read_arguments(command_line);
  if (help_requested()) return;
  // Checked (folder exists and is writable) before the comparison, written only at the end.
  std::optional<AtomicOutputFile> json;
  if (!arguments.json.empty()) json.emplace(arguments.json);
  const ParticleSet a = read_particle_file(arguments.file_a);
  const ParticleSet b = read_particle_file(arguments.file_b);
  const TrajectoryDeviation deviation = compare_trajectories(a, b);
  if (deviation.parcels.empty()) {
    fail(ErrorCategory::invalid_input, "no parcel ids in common between ", arguments.file_a, " (",
         a.size(), " parcels) and ", arguments.file_b, " (", b.size(),
         " parcels): nothing to compare");
  }
  print_table(deviation, arguments);
  if (json) {
    json->stream() << deviation_json(deviation);
    json->commit();
    std::printf("summary written to %s\n", arguments.json.c_str());
  }
}

}  // namespace
}  // namespace foehn::app

int main(int argc, char** argv) {
  // The tool has always taken "--json out.json" and "--json=out.json": double-dash options
  // become the single-dash ones PETSc reads, and "-name=value" two arguments. The command
  // line is kept for the file arguments.
  std::vector<std::string> command_line;
  for (int i = 1; i < argc; ++i) {
    std::string argument = argv[i];
    if (argument.size() > 2 && argument.compare(0, 2, "--") == 0 &&
        std::isalpha(static_cast<unsigned char>(argument[2])))
      argument.erase(0, 1);
    const std::size_t equals = argument.find('=');
    if (foehn::app::is_option_name(argument) && equals != std::string::npos) {
      command_line.push_back(argument.substr(0, equals));
      command_line.push_back(argument.substr(equals + 1));
    } else {
      command_line.push_back(argument);
    }
  }
  std::vector<char*> arguments{argv[0]};
  for (std::string& argument : command_line) arguments.push_back(argument.data());
  arguments.push_back(nullptr);
  return foehn::app::run_petsc_application(static_cast<int>(arguments.size()) - 1, arguments.data(),
                                           {foehn::app::program, foehn::app::usage},
                                           [&] { foehn::app::run(command_line); });
}
