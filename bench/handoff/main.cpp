// bench_handoff: what handing GPU-assembled operators to PETSc costs per assembly against the
// assembly itself, on Mountainwave3D meshes, on one rank and on several ranks sharing the GPUs
// of a host. Host matrices (-device_matrices 0, or a PETSc without CUDA): device -> host copy +
// PETSc update (SeqAIJ/SeqBAIJ arrays, MatSetValuesCOO). Matrices on the GPU (the default with
// a CUDA PETSc): the assembly writes into PETSc's device arrays, and the hand-off is the device
// permutation of 3 x 3 blocks (nothing for scalar operators) or MatSetValuesCOO on the device.
// Writes bench/results/handoff-<device>-<date>-<ranks>[-device].json and .md.
//
//   mpiexec -n 4 bench_handoff -sizes 554394,10000000 -repeats 10 -out_dir DIR

#include <petscsys.h>

#include <algorithm>
#include <chrono>
#include <iostream>
#include <sstream>

#include "bench_results.hpp"
#include "foehn/mesh/mountain.hpp"
#include "foehn/mesh/reorder.hpp"
#include "foehn/petsc/device_binding.hpp"
#include "foehn/petsc/device_petsc.hpp"
#include "foehn/petsc/distributed_mesh.hpp"
#include "foehn/petsc/petsc_check.hpp"
#include "foehn/runtime/device.hpp"
#include "handoff_cases.hpp"
#include "petsc_application.hpp"

namespace foehn::bench {
namespace {

struct Options {
  std::vector<std::int64_t> sizes{554394};
  int repeats = 10, warmups = 2;
  std::string strategy = "fused_atomic", out_dir = FOEHN_BENCH_RESULTS_DIR, suffix;
  bool device_matrices = petsc::device_solves_available();
};

Options read_options() {
  Options o;
  PetscInt sizes[16];
  PetscInt count = 16;
  PetscBool set = PETSC_FALSE;
  FOEHN_PETSC_CHECK(PetscOptionsGetIntArray(nullptr, nullptr, "-sizes", sizes, &count, &set));
  if (set) o.sizes.assign(sizes, sizes + count);
  PetscInt value = 0;
  FOEHN_PETSC_CHECK(PetscOptionsGetInt(nullptr, nullptr, "-repeats", &value, &set));
  if (set) o.repeats = static_cast<int>(value);
  FOEHN_PETSC_CHECK(PetscOptionsGetInt(nullptr, nullptr, "-warmups", &value, &set));
  if (set) o.warmups = static_cast<int>(value);
  char text[PETSC_MAX_PATH_LEN];
  FOEHN_PETSC_CHECK(PetscOptionsGetString(nullptr, nullptr, "-strategy", text, sizeof text, &set));
  if (set) o.strategy = text;
  FOEHN_PETSC_CHECK(PetscOptionsGetString(nullptr, nullptr, "-out_dir", text, sizeof text, &set));
  if (set) o.out_dir = text;
  FOEHN_PETSC_CHECK(PetscOptionsGetString(nullptr, nullptr, "-suffix", text, sizeof text, &set));
  if (set) o.suffix = text;
  PetscBool device = o.device_matrices ? PETSC_TRUE : PETSC_FALSE;
  FOEHN_PETSC_CHECK(PetscOptionsGetBool(nullptr, nullptr, "-device_matrices", &device, &set));
  o.device_matrices = device == PETSC_TRUE;
  if (o.device_matrices && !petsc::device_solves_available())
    fail(ErrorCategory::unavailable, "-device_matrices needs a PETSc built with CUDA");
  if (o.repeats < 1 || o.warmups < 0 || o.sizes.empty())
    fail(ErrorCategory::invalid_input, "-repeats must be >= 1, -warmups >= 0, -sizes non-empty");
  for (const auto size : o.sizes)
    if (size < 6) fail(ErrorCategory::invalid_input, "-sizes: ", size, " tets is too small");
  return o;
}

double max_over_ranks(double value, MPI_Comm comm) {
  double result = 0;
  MPI_Allreduce(&value, &result, 1, MPI_DOUBLE, MPI_MAX, comm);
  return result;
}
double min_over_ranks(double value, MPI_Comm comm) {
  double result = 0;
  MPI_Allreduce(&value, &result, 1, MPI_DOUBLE, MPI_MIN, comm);
  return result;
}
double sum_over_ranks(double value, MPI_Comm comm) {
  double result = 0;
  MPI_Allreduce(&value, &result, 1, MPI_DOUBLE, MPI_SUM, comm);
  return result;
}

void run(int argc, char** argv) {
  const Options options = read_options();
  if (app::help_requested()) return;
  MPI_Comm comm = PETSC_COMM_WORLD;
  int rank = 0, ranks = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &ranks);
  const int device = petsc::select_device_for_rank(comm);
  const fe::AssemblyStrategy strategy = fe::parse_assembly_strategy(options.strategy);
  const std::string rank_label = std::to_string(ranks) + (ranks == 1 ? "rank" : "ranks");

  BenchReport report = make_report("handoff", device_info(device).name, argc, argv);
  bool all_checks_passed = true;
  for (const std::int64_t target : options.sizes) {
    TetMesh whole;
    if (rank == 0) {
      whole = generate_mountain_mesh(mountain_options_for_tets(static_cast<std::size_t>(target)));
      reorder_for_locality(whole);  // RCM nodes, tets by lowest node: the assembly bench's best
    }
    const petsc::DistributedMesh mesh = petsc::distribute_mesh(comm, rank == 0 ? &whole : nullptr);
    whole = TetMesh();
    const HandoffRun local = run_handoff_cases(mesh, strategy, options.warmups, options.repeats,
                                               options.device_matrices);

    for (const HandoffTimes& t : local.operators) {
      const double assemble = max_over_ranks(t.assemble_ms, comm);
      const double copy = max_over_ranks(t.copy_ms, comm);
      const double update = max_over_ranks(t.update_ms, comm);
      const double bytes = sum_over_ranks(t.value_bytes, comm);
      // Link bandwidth of the slowest rank's own copy (ranks copy at different moments, so
      // total bytes over the longest copy would overstate it).
      const double copy_gbs = min_over_ranks(t.value_bytes / (t.copy_ms * 1e-3) / 1e9, comm);
      const double error = max_over_ranks(t.check_relative_error, comm);
      // Round-off of summing ~10^8 entries of both signs in different orders.
      const bool passed = error <= 1e-10;
      all_checks_passed = all_checks_passed && passed;
      const std::string path =
          t.path + (t.path == "seq_array" ? (t.registered ? "_registered" : "_staged") : "");
      auto add = [&](const std::string& stage, const std::string& variant, double ms) {
        BenchCase c;
        c.name = t.operator_name + "_" + stage;
        c.size = mesh.global_tets;
        c.variant = variant + "_" + rank_label;
        c.time_ms = ms;
        c.repeats = options.repeats;
        c.throughput = static_cast<double>(mesh.global_tets) / (ms * 1e-3);
        c.check_passed = passed;
        if (stage != "assembly") {
          c.model_bytes = bytes;  // matrix + RHS values, each crossing the link once
          if (stage == "handoff_copy") c.achieved_gbs = copy_gbs;
          c.baseline = options.strategy + "_" + rank_label;  // the assembly it serves
          c.speedup_vs_baseline = assemble / ms;             // < 1: the hand-off costs more
          c.max_rel_error_vs_reference = error;
        }
        report.cases.push_back(c);
      };
      add("assembly", options.strategy, assemble);
      if (!options.device_matrices) add("handoff_copy", path + "_" + t.format, copy);
      add("handoff_petsc_update", path + "_" + t.format, update);
      add("handoff_total", path + "_" + t.format, copy + update);
      if (rank == 0)
        std::cout << t.operator_name << " " << mesh.global_tets << " tets, " << rank_label
                  << ": assembly " << assemble << " ms, copy " << copy << " ms (" << copy_gbs
                  << " GB/s per rank), PETSc update " << update << " ms, hand-off/assembly "
                  << (copy + update) / assemble << " [" << path << ", " << t.format << "], check "
                  << error << "\n";
    }
    if (options.device_matrices) continue;  // no copies: no pipeline to measure
    const double sequential = max_over_ranks(local.pipeline.sequential_ms, comm);
    const double overlapped = max_over_ranks(local.pipeline.overlapped_ms, comm);
    for (int variant = 0; variant < 2; ++variant) {
      BenchCase c;
      c.name = "timestep_pair_assembly_and_handoff";
      c.size = mesh.global_tets;
      c.variant = std::string(variant == 0 ? "sequential_" : "overlapped_") + rank_label;
      c.time_ms = variant == 0 ? sequential : overlapped;
      c.repeats = options.repeats;
      c.throughput = static_cast<double>(mesh.global_tets) / (c.time_ms * 1e-3);
      if (variant == 1) {
        c.baseline = "sequential_" + rank_label;
        c.speedup_vs_baseline = sequential / overlapped;
      }
      report.cases.push_back(c);
    }
    if (rank == 0)
      std::cout << "diffusion + momentum with hand-off: sequential " << sequential
                << " ms, overlapped " << overlapped << " ms (" << sequential / overlapped << "x)\n";
  }
  report.notes.push_back(
      "Times are the maximum over ranks of each rank's median; `speedup_vs_baseline` of a "
      "hand-off case is assembly time / hand-off time (below 1: the hand-off costs more than "
      "the assembly it serves). `model_bytes`: matrix and RHS values summed over ranks; "
      "`achieved_gbs` of a copy: the slowest rank's own bytes over its own copy time.");
  report.notes.push_back(
      "Check: the sum of all entries of the PETSc matrix (A * ones, summed) equals the sum of "
      "the values every rank handed in, relative to the sum of their magnitudes.");
  if (!all_checks_passed)
    fail(ErrorCategory::internal, "a hand-off check failed: no result written");
  if (rank == 0) {
    const std::string stem = "handoff-" + device_short_name(report.device) + "-" + today_compact() +
                             "-" + rank_label + (options.device_matrices ? "-device" : "") +
                             options.suffix;
    write_report(report, std::filesystem::path(options.out_dir) / (stem + ".json"),
                 std::filesystem::path(options.out_dir) / (stem + ".md"));
    std::cout << "wrote " << options.out_dir << "/" << stem << ".{json,md}\n";
  }
}

}  // namespace
}  // namespace foehn::bench

int main(int argc, char** argv) {
  return foehn::app::run_petsc_application(
      argc, argv,
      {"bench_handoff",
       "bench_handoff [-sizes 554394,10000000] [-repeats 10] [-warmups 2] "
       "[-strategy fused_atomic] [-device_matrices 0|1] [-out_dir DIR] [-suffix TEXT]\n"},
      [&] { foehn::bench::run(argc, argv); });
}
