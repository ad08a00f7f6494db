// bench_stencils_distributed: the 4th-order horizontal diffusion over 1, 2, 4, ... MPI ranks
// (issue 21), each rank on its GPU (local rank mod device count, or -foehn_devices) or on the
// CPU. Launched once with the largest rank count (mpirun -n 4 ...); the smaller counts run in the
// same process on the first ranks, so every ratio comes from one run.
//
// For each rank count: the N x N x nz periodic field (the published cube) split by
// DistributedHorizontalDiffusion, one untimed warm-up run, then `repeats` timed runs (wall clock
// from a barrier to a barrier, median), with the per-step compute and exchange time of the
// slowest rank, on GPUs with halos GPU to GPU and through the host. Baseline: the one-device kernel
// on the whole field (CudaHorizontalDiffusion, automatic = fused_wrap, on rank 0's device), or
// diffuse_openmp for -backend cpu. Check: every gathered field bitwise equal to the baseline's.
//
//   mpirun -n 4 bench_stencils_distributed [-n 2048] [-nz 64] [-iterations 256] [-repeats 3]
//          [-backend cuda|cpu] [-out_dir DIR] [-foehn_devices 0,1,...]
#include <mpi.h>
#include <petscsys.h>

#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "bench_device.hpp"
#include "bench_mpi.hpp"
#include "bench_results.hpp"
#include "bench_timing.hpp"
#include "foehn/petsc/device_binding.hpp"
#include "foehn/petsc/mpi_collective.hpp"
#include "foehn/runtime/device.hpp"
#include "foehn/runtime/error.hpp"
#include "foehn/stencils/distributed_diffusion.hpp"
#include "foehn/stencils/reference_fields.hpp"

namespace foehn::stencils {
namespace {

using bench::BenchCase;

struct Options {
  int n = 2048;
  int nz = 64;
  int iterations = 256;
  int repeats = 3;
  Backend backend = Backend::cuda;
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
    if (a == "-n") {
      o.n = std::stoi(value());
    } else if (a == "-nz") {
      o.nz = std::stoi(value());
    } else if (a == "-iterations") {
      o.iterations = std::stoi(value());
    } else if (a == "-repeats") {
      o.repeats = std::stoi(value());
    } else if (a == "-backend") {
      o.backend = parse_backend(value());
    } else if (a == "-out_dir") {
      o.out_dir = value();
    } else if (a == "-foehn_devices" || a == "-use_gpu_aware_mpi" || a == "-device_select") {
      (void)value();  // PETSc's options database: read by select_device_for_rank and PETSc
    } else {
      fail(ErrorCategory::invalid_input, "unknown option ", a,
           " (options: -n -nz -iterations -repeats -backend -out_dir -foehn_devices)");
    }
  }
  if (o.iterations < 1 || o.repeats < 1)
    fail(ErrorCategory::invalid_input, "need -iterations >= 1 and -repeats >= 1");
  return o;
}

double max_over(MPI_Comm comm, double value) {
  double result = 0.0;
  FOEHN_MPI_CHECK(MPI_Allreduce(&value, &result, 1, MPI_DOUBLE, MPI_MAX, comm));
  return result;
}

struct Measured {
  double time_ms = 0.0;
  double compute_ms_per_step = 0.0;
  double exchange_ms_per_step = 0.0;
  bool bitwise_equal = false;
  std::string halo_routes;  // rank 0's
};

Measured run_ranks(MPI_Comm comm, const StencilGrid& grid, const Options& o,
                   const std::vector<float>& initial, const std::vector<float>& expected,
                   bool gpu_to_gpu_halos) {
  HorizontalDiffusion options;
  options.iterations = o.iterations;
  DistributedHorizontalDiffusion<float> diffusion(
      comm, grid, options, {.backend = o.backend, .gpu_to_gpu_halos = gpu_to_gpu_halos});
  const std::vector<float> local_initial = local_field_of<float>(initial, diffusion.block());
  diffusion.set_field(local_initial);
  diffusion.run();  // warm-up: first launches, MPI connections
  std::vector<double> samples;
  Measured m;
  m.halo_routes = diffusion.halo_routes();
  for (int repeat = 0; repeat < o.repeats; ++repeat) {
    diffusion.set_field(local_initial);
    diffusion.reset_timing();
    FOEHN_MPI_CHECK(MPI_Barrier(comm));
    const double start = MPI_Wtime();
    diffusion.run();
    FOEHN_MPI_CHECK(MPI_Barrier(comm));
    samples.push_back(1e3 * (MPI_Wtime() - start));
    m.compute_ms_per_step +=
        1e3 * max_over(comm, diffusion.timing().compute_s) / o.iterations / o.repeats;
    m.exchange_ms_per_step +=
        1e3 * max_over(comm, diffusion.timing().exchange_s) / o.iterations / o.repeats;
  }
  m.time_ms = bench::median(samples);
  std::vector<float> local(diffusion.block().local.size());
  diffusion.get_field(local);
  const std::vector<float> whole = gather_field<float>(diffusion, local);
  int rank = 0;
  FOEHN_MPI_CHECK(MPI_Comm_rank(comm, &rank));
  int equal = rank == 0 ? (bitwise_differences<float>(whole, expected) == 0 ? 1 : 0) : 1;
  FOEHN_MPI_CHECK(MPI_Bcast(&equal, 1, MPI_INT, 0, comm));
  m.bitwise_equal = equal == 1;
  return m;
}

BenchCase make_case(const StencilGrid& grid, const Options& o, std::string variant,
                    double time_ms) {
  BenchCase c;
  c.name = "horizontal_diffusion_float";
  c.size = static_cast<std::int64_t>(grid.interior_points());
  c.size_unit = "points";
  c.variant = std::move(variant);
  c.time_ms = time_ms;
  c.repeats = o.repeats;
  c.throughput = static_cast<double>(grid.interior_points()) * o.iterations / (time_ms * 1e-3);
  c.throughput_unit = "point-updates/s";
  c.model_bytes = 2.0 * sizeof(float) * static_cast<double>(grid.interior_points()) * o.iterations;
  return c;
}

int run(int argc, char** argv) {
  const Options o = parse(argc, argv);
  MPI_Comm world = PETSC_COMM_WORLD;
  int rank = 0, size = 1;
  FOEHN_MPI_CHECK(MPI_Comm_rank(world, &rank));
  FOEHN_MPI_CHECK(MPI_Comm_size(world, &size));
  const bool gpu = o.backend == Backend::cuda;
  const int device = gpu ? petsc::select_device_for_rank(world) : -1;
  for (const std::string& line : petsc::device_placement_report(world, device))
    std::printf("%s\n", line.c_str());

  const StencilGrid grid{o.n, o.n, o.nz};
  const std::vector<float> initial = published_cube_field<float>(grid);
  HorizontalDiffusion options;
  options.iterations = o.iterations;

  bench::BenchReport report = bench::make_report(
      "stencils", gpu ? device_info(device).name : bench::host_cpu_model(), argc, argv);
  // Baseline on rank 0: the one-device code on the whole field.
  std::vector<float> expected;
  double baseline_ms = 0.0;
  std::string baseline_variant;
  if (rank == 0) {
    expected = initial;
    std::vector<double> samples;
    if (gpu) {
      Stream stream;
      report.copy_bandwidth_gbs = bench::measure_device_copy_bandwidth(stream);
      CudaHorizontalDiffusion<float> whole(grid, options, {}, stream);
      baseline_variant = "one_gpu_" + std::string(to_string(whole.kernel())) +
                         (whole.uses_graph() ? "_graph" : "");
      whole.upload(initial, stream);
      whole.run(stream);  // warm-up
      for (int repeat = 0; repeat < o.repeats; ++repeat) {
        whole.upload(initial, stream);
        EventTimer timer;
        timer.start(stream);
        whole.run(stream);
        timer.stop(stream);
        samples.push_back(timer.elapsed_ms());
      }
      whole.download(expected, stream);
      stream.synchronize();
    } else {
      baseline_variant = "cpu_openmp_" + std::to_string(openmp_threads()) + "threads";
      for (int repeat = 0; repeat < o.repeats; ++repeat) {
        expected = initial;
        const double start = MPI_Wtime();
        diffuse_openmp<float>(expected, grid, options);
        samples.push_back(1e3 * (MPI_Wtime() - start));
      }
    }
    baseline_ms = bench::median(samples);
    BenchCase c = make_case(grid, o, baseline_variant, baseline_ms);
    c.gpus = gpu ? 1 : 0;
    c.ranks = 1;
    bench::derive_bandwidths(c, report.copy_bandwidth_gbs);
    report.cases.push_back(c);
    std::printf("N=%d nz=%d %d iterations: %s %.3f ms\n", o.n, o.nz, o.iterations,
                baseline_variant.c_str(), baseline_ms);
  }

  std::vector<int> rank_counts;
  for (int n = 1; n < size; n *= 2) rank_counts.push_back(n);
  rank_counts.push_back(size);
  bool passed = true;
  double one_rank_ms = 0.0;
  for (const int ranks : rank_counts) {
    MPI_Comm sub = MPI_COMM_NULL;
    FOEHN_MPI_CHECK(MPI_Comm_split(world, rank < ranks ? 0 : MPI_UNDEFINED, rank, &sub));
    if (sub != MPI_COMM_NULL) {
      const int gpus = gpu ? bench::distinct_devices(sub, device) : 0;
      // On GPUs both halo routes, GPU to GPU (the default) and through the host, in one run.
      for (const bool gpu_to_gpu :
           gpu ? std::vector<bool>{true, false} : std::vector<bool>{false}) {
        const Measured m = run_ranks(sub, grid, o, initial, expected, gpu_to_gpu);
        if (ranks == 1 && gpu_to_gpu == gpu) one_rank_ms = m.time_ms;
        if (rank != 0) continue;
        const std::string variant = "distributed_" + std::to_string(ranks) + "ranks_" +
                                    (gpu ? std::to_string(gpus) + "gpus" : "cpu") +
                                    (gpu ? (gpu_to_gpu ? "_gpu_to_gpu" : "_host_staged") : "");
        BenchCase c = make_case(grid, o, variant, m.time_ms);
        c.gpus = gpus;
        c.ranks = ranks;
        c.baseline = baseline_variant;
        c.speedup_vs_baseline = baseline_ms / m.time_ms;
        c.max_rel_error_vs_reference = m.bitwise_equal ? 0.0 : 1.0;  // bitwise: 0 or "differs"
        c.check_passed = m.bitwise_equal;
        bench::derive_bandwidths(c, report.copy_bandwidth_gbs);
        report.cases.push_back(c);
        const double vs_one_rank = one_rank_ms / m.time_ms;
        std::printf(
            "%d ranks on %d GPU(s), halos %s: %.3f ms (%.3f ms/step: compute %.3f, exchange "
            "%.3f, slowest rank), x%.3f vs %s, x%.3f vs 1 rank%s\n",
            ranks, gpus, m.halo_routes.c_str(), m.time_ms, m.time_ms / o.iterations,
            m.compute_ms_per_step, m.exchange_ms_per_step, c.speedup_vs_baseline.value_or(0),
            baseline_variant.c_str(), vs_one_rank,
            m.bitwise_equal ? "" : "  CHECK FAILED (not bitwise equal)");
        report.notes.push_back(
            variant + " (halos: " + m.halo_routes + "): per step " +
            std::to_string(m.compute_ms_per_step) + " ms compute + " +
            std::to_string(m.exchange_ms_per_step) + " ms halo exchange (slowest rank, mean of " +
            "the timed runs); " + std::to_string(vs_one_rank) + "x the 1-rank distributed run" +
            (gpu && gpus > 0 ? "; parallel efficiency vs the one-GPU kernel " +
                                   std::to_string(100.0 * baseline_ms / m.time_ms / gpus) + "%"
                             : std::string()));
        passed = passed && m.bitwise_equal;
      }
      MPI_Comm_free(&sub);
    }
    FOEHN_MPI_CHECK(MPI_Barrier(world));
  }
  int ok = passed ? 1 : 0;
  FOEHN_MPI_CHECK(MPI_Bcast(&ok, 1, MPI_INT, 0, world));
  if (rank != 0) return ok ? 0 : 1;
  report.notes.insert(
      report.notes.begin(),
      {"N x N x " + std::to_string(o.nz) + " float, periodic, " + std::to_string(o.iterations) +
           " iterations, published cube; distributed runs timed by wall clock between barriers "
           "(median of " +
           std::to_string(o.repeats) + " after a warm-up run), baseline by " +
           (gpu ? "CUDA events" : "wall clock"),
       "distributed blocks take Dirichlet-band steps between halo exchanges; on GPUs each rank "
       "count runs twice: halos GPU to GPU between ranks of one host (CUDA IPC, on the GPU for "
       "a rank that is its own periodic neighbour) and staged through pinned host memory and "
       "MPI (which is not CUDA-aware here); gpus = distinct devices used by the ranks",
       "check: every gathered distributed field bitwise equal to the baseline's"});
  if (!ok) {
    std::printf("%s\nA check failed: no result files written.\n",
                bench::to_markdown(report).c_str());
    return 1;
  }
  const auto json = bench::default_result_path(
      o.out_dir, "stencils-distributed",
      gpu ? bench::device_short_name(report.device) : std::string("cpu"));
  bench::write_report(report, json);
  return 0;
}

}  // namespace
}  // namespace foehn::stencils

int main(int argc, char** argv) {
  return foehn::bench::run_mpi_benchmark(argc, argv, "bench_stencils_distributed",
                                         foehn::stencils::run);
}
