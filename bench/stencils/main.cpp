// bench_stencils: 4th-order horizontal diffusion φ ← φ − α Δh(Δh φ) (issue 9, seed report 002).
//
// N x N x nz fields (default N = 64 ... 2048, nz = 64, 1024 iterations, float and double, the
// published cube initial condition). For every N and type:
//   GPU kernels baseline | fused | fused_wrap | fused_wrap+graph | level_resident (where a level
//   fits in shared memory), timed round-robin with CUDA events around run() (kernel time, the
//   field stays on the device), after one untimed warm-up run (which also captures the graphs);
//   CPU one core (the reference) and all cores (OpenMP) on a few iterations, scaled;
//   the published Fortran (1 core, Xeon E5-2690 v3) and OpenACC acc05 (P100) times for float.
// Byte model: φ read once and written once per iteration, 2·sizeof(T)·N²·nz bytes, against the
// device-to-device copy bandwidth measured at the start of this run.
// Check: every GPU kernel bitwise equal to the baseline kernel, and for N <= -check_max_n to the
// OpenMP version (itself bitwise equal to the CPU reference, tests/unit/stencils).
//
//   bench_stencils [-sizes 64,128,...] [-nz 64] [-iterations 1024] [-types float,double]
//                  [-repeats 3] [-check_max_n 256] [-out_dir DIR]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "bench_device.hpp"
#include "bench_results.hpp"
#include "bench_timing.hpp"
#include "foehn/runtime/device.hpp"
#include "foehn/runtime/device_array.hpp"
#include "foehn/runtime/error.hpp"
#include "foehn/runtime/stream.hpp"
#include "foehn/stencils/cuda_diffusion.hpp"
#include "foehn/stencils/horizontal_diffusion.hpp"
#include "foehn/stencils/reference_fields.hpp"

namespace foehn::stencils {
namespace {

using bench::BenchCase;
using bench::BenchReport;

struct Options {
  std::vector<int> sizes{64, 128, 256, 512, 1024, 2048};
  int nz = 64;
  int iterations = 1024;
  std::vector<std::string> types{"float", "double"};
  int repeats = 3;
  int check_max_n = 256;
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
    if (a == "-sizes") {
      o.sizes.clear();
      for (const std::string& item : bench::split_list(value())) o.sizes.push_back(std::stoi(item));
    } else if (a == "-nz") {
      o.nz = std::stoi(value());
    } else if (a == "-iterations") {
      o.iterations = std::stoi(value());
    } else if (a == "-types") {
      o.types = bench::split_list(value());
    } else if (a == "-repeats") {
      o.repeats = std::stoi(value());
    } else if (a == "-check_max_n") {
      o.check_max_n = std::stoi(value());
    } else if (a == "-out_dir") {
      o.out_dir = value();
    } else {
      fail(ErrorCategory::invalid_input, "unknown option ", a,
           " (options: -sizes -nz -iterations -types -repeats -check_max_n -out_dir)");
    }
  }
  if (o.iterations < 1 || o.repeats < 1 || o.sizes.empty() || o.nz < 1)
    fail(ErrorCategory::invalid_input, "need -iterations >= 1, -repeats >= 1, -nz >= 1");
  for (const std::string& t : o.types)
    if (t != "float" && t != "double")
      fail(ErrorCategory::invalid_input, "-types takes float,double; got ", t);
  return o;
}

// Published times of the seed (P100 node of Piz Daint; N x N x 64, 1024 iterations, float),
// from the group's tables/runtimes.txt (digest seed002_stencil.md, section 2.4).
struct PublishedTimes {
  int n;
  double fortran_one_core_s, openacc_acc05_p100_s;
};
constexpr PublishedTimes published_times[] = {{64, 0.41109, 0.11995},  {128, 1.42165, 0.38582},
                                              {256, 10.5499, 1.32071}, {512, 42.397, 4.9286},
                                              {1024, 168.83, 19.192},  {2048, 701.29, 77.342}};

struct GpuVariant {
  std::string name;
  CudaHorizontalDiffusionSettings settings;
};

// Seconds per step of a CPU backend: a run of 2 * `steps` steps minus a run of `steps` steps
// (both pay the same copies, allocations and final halo update, so the difference is the
// steps alone). The shortest of two tries of each, against the noise of a shared host.
template <typename T>
double cpu_seconds_per_step(
    const std::function<void(std::vector<T>&, const HorizontalDiffusion&)>& diffuse,
    const std::vector<T>& initial, int steps) {
  auto timed = [&](int iterations) {
    double best = 1e300;
    for (int attempt = 0; attempt < 2; ++attempt) {
      std::vector<T> field = initial;
      HorizontalDiffusion options;
      options.iterations = iterations;
      const auto start = std::chrono::steady_clock::now();
      diffuse(field, options);
      best = std::min(
          best, std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
      bench::do_not_optimize(field[field.size() / 2]);
    }
    return best;
  };
  const double single = timed(steps);
  const double twice = timed(2 * steps);
  // Noise can make the difference vanish on tiny runs; then the plain average is the bound.
  return twice > single ? (twice - single) / steps : twice / (2.0 * steps);
}

template <typename T>
BenchCase make_case(const std::string& type, const StencilGrid& g, int iterations,
                    const std::string& variant, double time_ms, int repeats) {
  BenchCase c;
  c.name = "horizontal_diffusion_" + type;
  c.size = static_cast<std::int64_t>(g.interior_points());
  c.size_unit = "points";
  c.variant = variant;
  c.time_ms = time_ms;
  c.repeats = repeats;
  c.throughput = static_cast<double>(g.interior_points()) * iterations / (time_ms * 1e-3);
  c.throughput_unit = "point-updates/s";
  c.model_bytes = 2.0 * sizeof(T) * static_cast<double>(g.interior_points()) * iterations;
  return c;
}

template <typename T>
bool bench_size(const std::string& type, int n, const Options& o, const Stream& stream,
                BenchReport& report) {
  const StencilGrid grid{n, n, o.nz};
  HorizontalDiffusion options;
  options.iterations = o.iterations;
  const std::vector<T> initial = published_cube_field<T>(grid);

  std::vector<GpuVariant> variants = {
      {"baseline", {CudaDiffusionKernel::baseline, false, 64}},
      {"fused", {CudaDiffusionKernel::fused, false, 64}},
      {"fused_wrap", {CudaDiffusionKernel::fused_wrap, false, 64}},
      {"fused_wrap_graph", {CudaDiffusionKernel::fused_wrap, true, 64}}};
  if (level_resident_fits(grid, sizeof(T)))
    variants.push_back({"level_resident", {CudaDiffusionKernel::level_resident, false, 64}});
  std::vector<std::unique_ptr<CudaHorizontalDiffusion<T>>> runs;
  for (const GpuVariant& v : variants) {
    runs.push_back(std::make_unique<CudaHorizontalDiffusion<T>>(grid, options, v.settings, stream));
    runs.back()->upload(initial, stream);
    runs.back()->run(stream);  // warm-up: first launches, graph capture and instantiation
  }
  stream.synchronize();
  std::vector<std::vector<double>> samples(variants.size());
  for (int repeat = 0; repeat < o.repeats; ++repeat) {
    for (std::size_t v = 0; v < variants.size(); ++v) {
      runs[v]->upload(initial, stream);
      EventTimer timer;
      timer.start(stream);
      runs[v]->run(stream);
      timer.stop(stream);
      samples[v].push_back(timer.elapsed_ms());
    }
  }
  std::vector<std::vector<T>> results(variants.size(), std::vector<T>(grid.size()));
  for (std::size_t v = 0; v < variants.size(); ++v) runs[v]->download(results[v], stream);
  stream.synchronize();
  runs.clear();  // free the device memory before the next size

  bool passed = true;
  std::vector<T> openmp_result;
  if (n <= o.check_max_n) {
    openmp_result = initial;
    diffuse_openmp<T>(openmp_result, grid, options);
  }
  const double baseline_ms = bench::median(samples[0]);
  std::vector<BenchCase> cases;
  for (std::size_t v = 0; v < variants.size(); ++v) {
    BenchCase c = make_case<T>(type, grid, o.iterations, variants[v].name,
                               bench::median(samples[v]), o.repeats);
    bench::derive_bandwidths(c, report.copy_bandwidth_gbs);
    std::size_t differences = bitwise_differences(results[v], results[0]);
    if (!openmp_result.empty()) differences += bitwise_differences(results[v], openmp_result);
    c.max_rel_error_vs_reference = differences == 0 ? 0.0 : 1.0;  // bitwise: 0 or "differs"
    c.check_passed = differences == 0;
    passed = passed && c.check_passed;
    if (v > 0) {
      c.baseline = "baseline";
      c.speedup_vs_baseline = baseline_ms / c.time_ms;
    }
    std::printf(
        "%-6s N=%5d %-17s %10.3f ms %8.2f us/it %8.1f Gpts/s %7.0f GB/s %5.1f%% of copy"
        "%s%s\n",
        type.c_str(), n, variants[v].name.c_str(), c.time_ms, 1e3 * c.time_ms / o.iterations,
        c.throughput / 1e9, c.achieved_gbs.value_or(0), 100.0 * c.fraction_of_copy_bw.value_or(0),
        v > 0
            ? (" x" + std::to_string(*c.speedup_vs_baseline).substr(0, 5) + " vs baseline").c_str()
            : "",
        c.check_passed ? "" : "  CHECK FAILED (not bitwise equal)");
    cases.push_back(c);
  }

  // CPU: a few steps, scaled to the full iteration count (say so in the variant name).
  const int cpu_steps =
      std::clamp(static_cast<int>((1LL << 26) / grid.interior_points()), 1, o.iterations);
  const double one_core = cpu_seconds_per_step<T>(
      [&](std::vector<T>& f, const HorizontalDiffusion& opt) {
        diffuse_reference<T>(f, grid, opt);
      },
      initial, cpu_steps);
  const int omp_steps =
      std::clamp(static_cast<int>((1LL << 29) / grid.interior_points()), 1, o.iterations);
  const double all_cores = cpu_seconds_per_step<T>(
      [&](std::vector<T>& f, const HorizontalDiffusion& opt) { diffuse_openmp<T>(f, grid, opt); },
      initial, omp_steps);
  BenchCase cpu1 =
      make_case<T>(type, grid, o.iterations,
                   "cpu_reference_1core_scaled_from_" + std::to_string(cpu_steps) + "_steps",
                   one_core * o.iterations * 1e3, 1);
  BenchCase cpun = make_case<T>(type, grid, o.iterations,
                                "cpu_openmp_" + std::to_string(openmp_threads()) +
                                    "threads_scaled_from_" + std::to_string(omp_steps) + "_steps",
                                all_cores * o.iterations * 1e3, 1);
  cpun.baseline = cpu1.variant;
  cpun.speedup_vs_baseline = cpu1.time_ms / cpun.time_ms;
  double best_gpu_ms = cases[0].time_ms;
  std::string best_gpu = cases[0].variant;
  for (const BenchCase& c : cases)
    if (c.time_ms < best_gpu_ms) best_gpu_ms = c.time_ms, best_gpu = c.variant;
  std::printf(
      "%-6s N=%5d cpu 1 core %.1f ms (scaled from %d steps), OpenMP %d threads %.1f ms "
      "(from %d steps); best GPU %s: %.0fx one core, %.1fx all cores\n",
      type.c_str(), n, cpu1.time_ms, cpu_steps, openmp_threads(), cpun.time_ms, omp_steps,
      best_gpu.c_str(), cpu1.time_ms / best_gpu_ms, cpun.time_ms / best_gpu_ms);
  report.notes.push_back(type + " N=" + std::to_string(n) + ": best GPU kernel " + best_gpu +
                         " is " + std::to_string(cpu1.time_ms / best_gpu_ms) +
                         "x one CPU core (reference, scaled from " + std::to_string(cpu_steps) +
                         " steps) and " + std::to_string(cpun.time_ms / best_gpu_ms) +
                         "x all cores (OpenMP)");
  cases.push_back(cpu1);
  cases.push_back(cpun);

  if (type == "float" && o.nz == 64 && o.iterations == 1024) {
    for (const PublishedTimes& p : published_times) {
      if (p.n != n) continue;
      BenchCase orig =
          make_case<T>(type, grid, o.iterations, "published_fortran_orig_1core_e5_2690v3",
                       p.fortran_one_core_s * 1e3, 1);
      orig.published = true;
      BenchCase acc = make_case<T>(type, grid, o.iterations, "published_openacc_acc05_p100",
                                   p.openacc_acc05_p100_s * 1e3, 1);
      acc.published = true;
      acc.model_bytes.reset();  // its time includes host transfers: no bandwidth claim
      orig.model_bytes.reset();
      std::printf(
          "%-6s N=%5d published: Fortran 1 core %.1f ms, OpenACC acc05 on P100 %.1f ms "
          "(best GPU here %.1fx faster than acc05)\n",
          type.c_str(), n, orig.time_ms, acc.time_ms, acc.time_ms / best_gpu_ms);
      cases.push_back(orig);
      cases.push_back(acc);
    }
  }
  for (BenchCase& c : cases) report.cases.push_back(c);
  std::fflush(stdout);
  return passed;
}

int run(int argc, char** argv) {
  const Options o = parse(argc, argv);
  Stream stream;
  const DeviceInfo info = device_info(current_device());
  BenchReport report = bench::make_report("stencils", info.name, argc, argv);
  report.copy_bandwidth_gbs = bench::measure_device_copy_bandwidth(stream);
  std::printf("%s; device-to-device copy %.1f GB/s (read + write, measured now)\n",
              describe(info).c_str(), *report.copy_bandwidth_gbs);
  report.notes.push_back("N x N x " + std::to_string(o.nz) + ", " + std::to_string(o.iterations) +
                         " iterations, cube initial condition, periodic; GPU time = CUDA events "
                         "around run() (field on the device), median of " +
                         std::to_string(o.repeats) + " round-robin repeats after a warm-up run");
  report.notes.push_back("byte model: 2·sizeof(T)·N²·nz per iteration (φ read + written once)");
  report.notes.push_back(
      "CPU times are a few steps scaled to the full run (variant names say how "
      "many): the time of 2k steps minus that of k steps, so set-up is not counted; host: " +
      bench::host_cpu_model());
  report.notes.push_back(
      "published_* are the seed's float times (P100 node, 1024 iterations, "
      "acc05 including its host transfers), never part of measured ratios");
  report.notes.push_back(
      "check: every GPU kernel bitwise equal to the baseline kernel, and for N "
      "<= " +
      std::to_string(o.check_max_n) + " to the OpenMP version");
  bool passed = true;
  for (const std::string& type : o.types)
    for (const int n : o.sizes)
      passed = (type == "float" ? bench_size<float>(type, n, o, stream, report)
                                : bench_size<double>(type, n, o, stream, report)) &&
               passed;
  if (!passed) {
    std::printf("%s\nA check failed: no result files written.\n",
                bench::to_markdown(report).c_str());
    return 1;
  }
  const auto json =
      bench::default_result_path(o.out_dir, "stencils", bench::device_short_name(info.name));
  bench::write_report(report, json);
  return 0;
}

}  // namespace
}  // namespace foehn::stencils

int main(int argc, char** argv) {
  try {
    return foehn::stencils::run(argc, argv);
  } catch (const foehn::Error& error) {
    std::fprintf(stderr, "bench_stencils: %s\n", error.what());
    return foehn::exit_code_for(error);
  }
}
