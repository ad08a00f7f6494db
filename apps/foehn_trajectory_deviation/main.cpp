// foehn-trajectory-deviation: compares two parcel snapshots (e.g. a CPU and a GPU run, or a
// sorted and an unsorted one, at the same time) parcel by parcel, matched by id: AHTD, AVTD
// and, when both files carry path lengths, RHTD and RVTD, plus every shared quantity.
// No PETSc here: the tool loads netCDF (serial HDF5) and nothing that brings the MPI HDF5.

#include <cstdio>
#include <exception>
#include <fstream>
#include <string>
#include <vector>

#include "foehn/particles/io/particle_file.hpp"
#include "foehn/particles/io/trajectory_deviation.hpp"
#include "foehn/runtime/error.hpp"

namespace {

using namespace foehn::particles;

constexpr const char* program = "foehn-trajectory-deviation";
constexpr const char* usage =
    "usage: foehn-trajectory-deviation A.nc B.nc [--json out.json]\n"
    "Compares two parcel snapshots (docs/particles_io.md) parcel by parcel, matched by id:\n"
    "AHTD (chord distance, m), AVTD (|dz| in log-pressure height, m), RHTD and RVTD (%, when\n"
    "both files carry path_horizontal_m and path_vertical_m) and every shared quantity.\n"
    "Exit code 0 on success, 2 for unreadable files or no common ids, 1 otherwise.\n";

struct Arguments {
  std::string file_a, file_b, json;
  bool help = false;
};

Arguments parse_arguments(int argc, char** argv) {
  Arguments arguments;
  std::vector<std::string> files;
  for (int i = 1; i < argc; ++i) {
    const std::string argument = argv[i];
    if (argument == "--help" || argument == "-h") {
      arguments.help = true;
    } else if (argument == "--json") {
      if (i + 1 >= argc) foehn::fail(foehn::ErrorCategory::invalid_input, "--json needs a file name");
      arguments.json = argv[++i];
    } else if (argument.rfind("--json=", 0) == 0) {
      arguments.json = argument.substr(7);
    } else if (argument.size() > 1 && argument[0] == '-') {
      foehn::fail(foehn::ErrorCategory::invalid_input, "unknown option '", argument, "'\n", usage);
    } else {
      files.push_back(argument);
    }
  }
  if (arguments.help) return arguments;
  if (files.size() != 2) {
    foehn::fail(foehn::ErrorCategory::invalid_input, "expected two particle files, got ",
                files.size(), "\n", usage);
  }
  arguments.file_a = files[0];
  arguments.file_b = files[1];
  return arguments;
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
  std::printf("%s: A = %s (%zu parcels), B = %s (%zu parcels)\n", program,
              arguments.file_a.c_str(), d.parcels_a, arguments.file_b.c_str(), d.parcels_b);
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
    std::printf("RHTD, RVTD: not computed (both files need path_horizontal_m and "
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

void write_json(const std::string& path, const std::string& text) {
  const std::string temporary = path + ".tmp";
  {
    std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
    out << text;
    out.close();
    if (!out) foehn::fail(foehn::ErrorCategory::io, path, ": cannot write ", temporary);
  }
  if (std::rename(temporary.c_str(), path.c_str()) != 0) {
    std::remove(temporary.c_str());
    foehn::fail(foehn::ErrorCategory::io, path, ": cannot rename ", temporary, " onto it");
  }
}

int run(int argc, char** argv) {
  const Arguments arguments = parse_arguments(argc, argv);
  if (arguments.help) {
    std::fputs(usage, stdout);
    return 0;
  }
  const ParticleSet a = read_particle_file(arguments.file_a);
  const ParticleSet b = read_particle_file(arguments.file_b);
  const TrajectoryDeviation deviation = compare_trajectories(a, b);
  if (deviation.parcels.empty()) {
    foehn::fail(foehn::ErrorCategory::invalid_input, "no parcel ids in common between ",
                arguments.file_a, " (", a.size(), " parcels) and ", arguments.file_b, " (",
                b.size(), " parcels): nothing to compare");
  }
  print_table(deviation, arguments);
  if (!arguments.json.empty()) {
    write_json(arguments.json, deviation_json(deviation));
    std::printf("summary written to %s\n", arguments.json.c_str());
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return run(argc, argv);
  } catch (const foehn::Error& e) {
    std::fprintf(stderr, "%s: error: %s\n", program, e.what());
    return foehn::exit_code_for(e);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s: error: %s\n", program, e.what());
    return 1;
  }
}
