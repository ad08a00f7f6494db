#pragma once
// Command line of bench_fe_cpu. Plain GNU-style options (`--tets 100000` or `--tets=100000`),
// read before PETSc starts, so PETSc never sees them (the benchmark gives PETSc no options).

#include <cstdint>
#include <string>
#include <vector>

namespace foehn::bench {

struct FeCpuOptions {
  std::int64_t tets = 0;  // 0: the default mountain mesh (48 x 48 x 40 cells, 552,960 tets)
  int repeats = 9;
  int warmups = 1;
  std::vector<std::string> numberings = {"natural", "shuffled", "reordered"};
  std::vector<std::string> operators = {"diffusion", "mass", "advection", "momentum"};
  std::string out;       // JSON path; empty: <source>/bench/results/fe_cpu-<cpu>-<date>.json
  std::string markdown;  // empty: the JSON path with .md
  bool write_files = true;
  bool petsc_coo = true;
  int copy_megabytes = 256;  // memcpy buffer for the copy bandwidth; 0 skips it
  std::uint64_t seed = 20261122;  // shuffle_numbering
  bool help = false;
};

// Throws foehn::Error (invalid_input) naming the offending argument.
FeCpuOptions parse_fe_cpu_options(int argc, char** argv);

std::string fe_cpu_usage();

}  // namespace foehn::bench
