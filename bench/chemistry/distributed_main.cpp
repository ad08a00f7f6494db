// bench_chemistry_distributed: chemistry cells split across MPI ranks, one GPU each (issue 32).
// Cells never interact within a chemistry step, so each rank advances a contiguous share of the
// cells on its GPU and nothing is exchanged; what a chemistry-transport model gains from more
// GPUs is the step time of the largest share.
//
// The CB05-sized synthetic mechanism (80 species, 190 reactions) of bench_chemistry, one 120 s
// chemistry step, thread_per_cell in the interleaved layout. Every rank builds the same batch
// (make_synthetic_batch, the same seed) and takes its share. Timed: upload + advance + download
// of the share (data on the host, as in a model whose transport runs there) and advance alone
// (data resident), wall clock from a barrier to a barrier, median of `repeats` after a warm-up.
// Baseline in the same run: rank 0 alone with every cell on its GPU. Check: the split result
// bitwise the one-GPU result of the same cells, and within 1e-12 of the CPU on a sample.
//
//   mpirun -n 2 bench_chemistry_distributed [-cells 1e6] [-repeats 3] [-cpu_cells 1000]
//          [-out_dir DIR]
#include <mpi.h>
#include <petscsys.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <tuple>
#include <vector>

#include "bench_device.hpp"
#include "bench_mpi.hpp"
#include "bench_results.hpp"
#include "bench_timing.hpp"
#include "foehn/chemistry/comparison.hpp"
#include "foehn/chemistry/cuda_chemistry.hpp"
#include "foehn/chemistry/rosenbrock_solver.hpp"
#include "foehn/petsc/device_binding.hpp"
#include "foehn/petsc/mpi_collective.hpp"
#include "foehn/runtime/device.hpp"
#include "foehn/runtime/error.hpp"

namespace foehn::chemistry {
namespace {

using bench::BenchCase;

struct Options {
  double cells = 1e6;
  int repeats = 3;
  double cpu_cells = 1000;
  double duration = 120.0;
  std::string out_dir = FOEHN_BENCH_RESULTS_DIR;
};

Options parse(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) fail(ErrorCategory::invalid_input, a, " needs a value");
      return argv[++i];
    };
    if (a == "-cells") {
      o.cells = std::stod(value());
    } else if (a == "-repeats") {
      o.repeats = std::stoi(value());
    } else if (a == "-cpu_cells") {
      o.cpu_cells = std::stod(value());
    } else if (a == "-out_dir") {
      o.out_dir = value();
    } else if (a == "-foehn_devices" || a == "-use_gpu_aware_mpi" || a == "-device_select") {
      (void)value();  // PETSc's options database: read by select_device_for_rank and PETSc
    } else {
      fail(ErrorCategory::invalid_input, "unknown option ", a,
           " (options: -cells -repeats -cpu_cells -out_dir -foehn_devices)");
    }
  }
  if (!(o.cells >= 1 && o.cells < 1e12) || o.repeats < 1 || !(o.cpu_cells >= 1))
    fail(ErrorCategory::invalid_input, "need -cells >= 1, -repeats >= 1, -cpu_cells >= 1");
  return o;
}

// Cells [first, first + count) of `batch` as a batch of their own.
ChemistryBatch cells_of(const Mechanism& m, const ChemistryBatch& batch, std::int64_t first,
                        std::int64_t count) {
  ChemistryBatch part = make_batch(m, count);
  const auto n = static_cast<std::int64_t>(m.species.size());
  const auto e = static_cast<std::int64_t>(m.external_rate_names.size());
  std::copy_n(batch.concentrations.begin() + first * n, count * n, part.concentrations.begin());
  std::copy_n(batch.temperature.begin() + first, count, part.temperature.begin());
  std::copy_n(batch.pressure.begin() + first, count, part.pressure.begin());
  std::copy_n(batch.external_rates.begin() + first * e, count * e, part.external_rates.begin());
  return part;
}

struct Timed {
  double with_transfers_ms = 0;  // upload + advance + download
  double resident_ms = 0;        // advance alone
  ChemistryBatch result;
};

// One warm-up, then `repeats` chemistry steps of `cells` on this rank's GPU, every rank of
// `comm` at once; wall clock between barriers.
Timed time_steps(MPI_Comm comm, const Mechanism& mechanism, const RosenbrockOptions& options,
                 const ChemistryBatch& cells, const Options& o) {
  Stream stream;
  CudaChemistrySettings settings;
  settings.strategy = GpuChemistryStrategy::thread_per_cell;
  settings.layout = CellLayoutKind::interleaved;
  CudaChemistrySolver gpu(mechanism, options, settings, stream);
  std::vector<double> with_transfers, resident;
  Timed timed;
  for (int r = 0; r <= o.repeats; ++r) {
    timed.result = cells;
    FOEHN_MPI_CHECK(MPI_Barrier(comm));
    const double start = MPI_Wtime();
    gpu.upload(timed.result);
    gpu.reset_steps();
    const double advance_start = MPI_Wtime();
    gpu.advance(o.duration);
    stream.synchronize();
    const double advance_end = MPI_Wtime();
    gpu.download(timed.result);
    FOEHN_MPI_CHECK(MPI_Barrier(comm));
    const double end = MPI_Wtime();
    double advance_s = advance_end - advance_start, slowest = 0;
    FOEHN_MPI_CHECK(MPI_Allreduce(&advance_s, &slowest, 1, MPI_DOUBLE, MPI_MAX, comm));
    if (r == 0) continue;  // warm-up: allocation, module load
    with_transfers.push_back(1e3 * (end - start));
    resident.push_back(1e3 * slowest);
  }
  timed.with_transfers_ms = bench::median(with_transfers);
  timed.resident_ms = bench::median(resident);
  return timed;
}

int run(int argc, char** argv) {
  const Options o = parse(argc, argv);
  MPI_Comm world = PETSC_COMM_WORLD;
  int rank = 0, size = 1;
  FOEHN_MPI_CHECK(MPI_Comm_rank(world, &rank));
  FOEHN_MPI_CHECK(MPI_Comm_size(world, &size));
  const int device = petsc::select_device_for_rank(world);
  for (const std::string& line : petsc::device_placement_report(world, device))
    std::printf("%s\n", line.c_str());
  const int gpus = bench::distinct_devices(world, device);

  const Mechanism mechanism = make_synthetic_mechanism(80, 190, 1);
  RosenbrockOptions options;
  options.method = RosenbrockMethod::rodas3;
  options.control.relative_tolerance = 1e-4;
  options.absolute_tolerance.assign(mechanism.species.size(), 1e-3);
  options.throw_on_failure = true;
  const auto total = static_cast<std::int64_t>(o.cells);
  const ChemistryBatch all = make_synthetic_batch(mechanism, total, 1);

  Timed one;
  if (rank == 0) one = time_steps(MPI_COMM_SELF, mechanism, options, all, o);
  FOEHN_MPI_CHECK(MPI_Barrier(world));
  const std::int64_t first = total * rank / size, count = total * (rank + 1) / size - first;
  const Timed split =
      time_steps(world, mechanism, options, cells_of(mechanism, all, first, count), o);

  // Rank 0 gathers the split result (in rank order: the cells' order) and checks it.
  const auto species = static_cast<std::int64_t>(mechanism.species.size());
  std::vector<int> counts(static_cast<std::size_t>(size));
  const int mine = petsc::detail::to_mpi_count(count * species, "concentrations");
  FOEHN_MPI_CHECK(MPI_Gather(&mine, 1, MPI_INT, counts.data(), 1, MPI_INT, 0, world));
  const std::vector<int> displacements =
      rank == 0 ? petsc::detail::displacements_of(counts, "concentrations") : std::vector<int>();
  std::vector<double> gathered(rank == 0 ? static_cast<std::size_t>(total * species) : 0);
  FOEHN_MPI_CHECK(MPI_Gatherv(split.result.concentrations.data(), mine, MPI_DOUBLE, gathered.data(),
                              counts.data(), displacements.data(), MPI_DOUBLE, 0, world));
  int passed = 1;
  double vs_cpu = 0;
  if (rank == 0) {
    const bool bitwise = gathered == one.result.concentrations;
    const std::int64_t sample = std::min(total, static_cast<std::int64_t>(o.cpu_cells));
    ChemistryBatch cpu_result = cells_of(mechanism, all, 0, sample);
    CpuChemistrySolver cpu(mechanism, options);
    cpu.solve(cpu_result, o.duration);
    const std::vector<double> split_sample(gathered.begin(), gathered.begin() + sample * species);
    // Relative with a floor of 1000 atol, as bench_chemistry compares.
    vs_cpu = max_relative_error(cpu_result.concentrations, split_sample, 1.0);
    passed = bitwise && vs_cpu <= 1e-12 ? 1 : 0;
    std::printf("check: split vs one GPU %s; vs the CPU on %lld cells max relative %.3g\n",
                bitwise ? "bitwise equal" : "DIFFERENT", static_cast<long long>(sample), vs_cpu);
  }
  FOEHN_MPI_CHECK(MPI_Bcast(&passed, 1, MPI_INT, 0, world));
  if (rank != 0) return passed ? 0 : 1;

  bench::BenchReport report = bench::make_report("chemistry", device_info(device).name, argc, argv);
  const std::string variant = "split_" + std::to_string(size) + "ranks_" + std::to_string(gpus) +
                              "gpus_thread_per_cell_interleaved";
  for (const auto& [name, one_ms, split_ms] :
       {std::tuple{std::string("chemistry_step_with_transfers"), one.with_transfers_ms,
                   split.with_transfers_ms},
        std::tuple{std::string("chemistry_step"), one.resident_ms, split.resident_ms}}) {
    BenchCase base;
    base.name = name;
    base.size = total;
    base.size_unit = "cells";
    base.variant = "one_gpu_thread_per_cell_interleaved";
    base.time_ms = one_ms;
    base.repeats = o.repeats;
    base.throughput = static_cast<double>(total) / (one_ms * 1e-3);
    base.throughput_unit = "cells/s";
    base.gpus = 1;
    base.ranks = 1;
    BenchCase c = base;
    c.variant = variant;
    c.time_ms = split_ms;
    c.throughput = static_cast<double>(total) / (split_ms * 1e-3);
    c.gpus = gpus;
    c.ranks = size;
    c.baseline = "1_gpu";
    c.speedup_vs_baseline = one_ms / split_ms;
    c.max_rel_error_vs_reference = vs_cpu;
    report.cases.push_back(base);
    report.cases.push_back(c);
    std::printf("%s, %lld cells: 1 GPU %.3f ms, %d ranks on %d GPU(s) %.3f ms: %.2fx\n",
                name.c_str(), static_cast<long long>(total), one_ms, size, gpus, split_ms,
                one_ms / split_ms);
  }
  report.notes.push_back(
      "Cells split over the ranks in contiguous shares, one GPU per rank, RODAS3, rtol 1e-4, "
      "atol 1e-3, one 120 s step; wall clock between barriers, median of " +
      std::to_string(o.repeats) +
      " after a warm-up; baseline 1_gpu: rank 0 alone with every "
      "cell in the same run. Check: the gathered split result bitwise the one-GPU result; max "
      "relative difference to the CPU (floor 1 molecule cm^-3) on a sample in "
      "max_rel_error_vs_reference.");
  if (!passed) {
    std::printf("%s\nA check failed: no result files written.\n",
                bench::to_markdown(report).c_str());
    return 1;
  }
  bench::write_report(report, bench::default_result_path(o.out_dir, "chemistry-distributed",
                                                         bench::device_short_name(report.device)));
  return 0;
}

}  // namespace
}  // namespace foehn::chemistry

int main(int argc, char** argv) {
  return foehn::bench::run_mpi_benchmark(argc, argv, "bench_chemistry_distributed",
                                         foehn::chemistry::run);
}
