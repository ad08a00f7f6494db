// bench_adapt: the metric of an adaptation (issue 37) on the GPU against the host, on the
// mountain meshes the core runs: the default case (48 x 48 x 20 cells), the published size and a
// larger one. Per mesh: the Hessian recovery of one field (the kernel that dominates), and the
// whole metric the adaptive run builds (two fields' Hessians, two normalised metrics, their
// intersection, its complexity). Checked against the host functions to 1e-12 before anything is
// written.
//
//   bench_adapt [--meshes default,published,large] [--repeats 10] [--out-dir bench/results]
//
// Byte model of the Hessian recovery, per node: its patch offset (8 B), the patch's node indices
// (4 B each), its coordinates (24 B), its field value (8 B) and its Hessian out (48 B), each
// array counted once, as if every neighbour's coordinates and value came from cache.
#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "bench_device.hpp"
#include "bench_results.hpp"
#include "bench_timing.hpp"
#include "foehn/adapt/device_metric.hpp"
#include "foehn/mesh/mountain.hpp"
#include "foehn/mesh/reorder.hpp"
#include "foehn/runtime/device.hpp"
#include "foehn/runtime/error.hpp"
#include "foehn/runtime/stopwatch.hpp"

namespace foehn::adapt {
namespace {

using bench::BenchCase;
using bench::BenchReport;

struct Options {
  std::vector<std::string> meshes = {"default", "published", "large"};
  int repeats = 10;
  std::string out_dir = FOEHN_BENCH_RESULTS_DIR;
};

Options parse(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    const auto value = [&]() -> std::string {
      if (i + 1 >= argc) fail(ErrorCategory::invalid_input, arg, " needs a value");
      return argv[++i];
    };
    if (arg == "--meshes")
      o.meshes = bench::split_list(value());
    else if (arg == "--repeats")
      o.repeats = std::stoi(value());
    else if (arg == "--out-dir")
      o.out_dir = value();
    else
      fail(ErrorCategory::invalid_input, "bench_adapt: unknown argument ", arg);
  }
  if (o.repeats < 1) fail(ErrorCategory::invalid_input, "--repeats must be at least 1");
  return o;
}

MountainMeshOptions mesh_options(const std::string& name) {
  MountainMeshOptions o;
  o.horizontal_growth = 1.08;
  if (name == "default") {
    o.cells_x = o.cells_y = 48;
    o.cells_z = 20;
  } else if (name == "published") {
    o.horizontal_growth = 1.15;
    o = mountain_options_for_tets(554394, o);
  } else if (name == "large") {
    o = mountain_options_for_tets(5000000, o);
  } else {
    fail(ErrorCategory::invalid_input, "bench_adapt: unknown mesh ", name,
         " (default, published, large)");
  }
  return o;
}

bool bench_mesh(const std::string& name, const Options& o, const Stream& stream,
                BenchReport& report) {
  TetMesh mesh = generate_mountain_mesh(mesh_options(name));
  reorder_for_locality(mesh);  // as the core numbers it
  const std::size_t nodes = mesh.node_count();
  std::vector<double> layer(nodes), wave(nodes);
  for (std::size_t n = 0; n < nodes; ++n) {
    layer[n] = std::tanh((mesh.nodes[n][2] - 3000.0) / 300.0);
    wave[n] = std::sin(mesh.nodes[n][0] / 4000.0) * std::exp(-mesh.nodes[n][2] / 5000.0);
  }
  const NodePatches patches = node_patches(mesh);
  const auto volumes = lumped_volumes(mesh);
  MetricOptions options;
  options.bounds = {125.0, 10000.0, 100.0};
  options.target_complexity = 0.5 * static_cast<double>(nodes);
  // The host reference, timed once (it is the slow side).
  Stopwatch watch;
  const auto host_hessians = recover_hessians(mesh, patches, wave);
  const double host_hessian_ms = 1000 * watch.lap();
  const auto host_metric =
      intersect(metric_from_hessians(host_hessians, volumes, options),
                metric_from_hessians(recover_hessians(mesh, patches, layer), volumes, options));
  const double host_complexity = complexity(host_metric, volumes);
  const double host_metric_ms = host_hessian_ms + 1000 * watch.lap();

  const DeviceMetricBuilder builder(mesh, patches, volumes, stream);
  const auto hessian_timing = bench::time_repeats(
      [&] { bench::do_not_optimize(builder.recover_hessians(wave).data()); }, 2, o.repeats);
  double device_complexity = 0;
  DeviceArray<double> metric;
  const auto metric_timing = bench::time_repeats(
      [&] {
        metric = builder.metric_from_hessians(builder.recover_hessians(wave), options);
        builder.intersect_into(
            metric, builder.metric_from_hessians(builder.recover_hessians(layer), options));
        device_complexity = builder.complexity(metric);
      },
      1, o.repeats);
  const double hessian_error =
      max_relative_difference(builder.to_host(builder.recover_hessians(wave)), host_hessians);
  const double metric_error = max_relative_difference(builder.to_host(metric), host_metric);
  const double complexity_error = std::fabs(device_complexity / host_complexity - 1);
  const double error = std::fmax(std::fmax(hessian_error, metric_error), complexity_error);
  const bool passed = error <= 1e-12;
  std::printf(
      "%s: %zu nodes, %zu tets; host Hessians %.1f ms, metric %.1f ms; GPU %.2f / %.2f ms; "
      "largest difference %.2e%s\n",
      name.c_str(), nodes, mesh.tet_count(), host_hessian_ms, host_metric_ms,
      hessian_timing.median_ms, metric_timing.median_ms, error, passed ? "" : " FAILED");

  BenchCase hessians;
  hessians.name = "hessian_recovery";
  hessians.size = static_cast<std::int64_t>(nodes);
  hessians.size_unit = "nodes";
  hessians.variant = "gpu_for_each";
  hessians.ordering = name;
  hessians.time_ms = hessian_timing.median_ms;
  hessians.repeats = hessian_timing.repeats;
  hessians.throughput = static_cast<double>(nodes) / (hessian_timing.median_ms * 1e-3);
  hessians.throughput_unit = "nodes/s";
  hessians.model_bytes = static_cast<double>(nodes) * (8 + 24 + 8 + 48) +
                         4.0 * static_cast<double>(patches.nodes.size());
  hessians.baseline = "host_one_thread";
  hessians.speedup_vs_baseline = host_hessian_ms / hessian_timing.median_ms;
  hessians.max_rel_error_vs_reference = hessian_error;
  hessians.check_passed = passed;
  bench::derive_bandwidths(hessians, report.copy_bandwidth_gbs);
  report.cases.push_back(hessians);

  BenchCase host = hessians;
  host.variant = "host_one_thread";
  host.time_ms = host_hessian_ms;
  host.repeats = 1;
  host.throughput = static_cast<double>(nodes) / (host_hessian_ms * 1e-3);
  host.baseline.clear();
  host.speedup_vs_baseline.reset();
  host.max_rel_error_vs_reference.reset();
  host.achieved_gbs.reset();
  host.fraction_of_copy_bw.reset();
  host.model_bytes.reset();
  report.cases.push_back(host);

  BenchCase whole;
  whole.name = "adaptation_metric_two_fields";
  whole.size = static_cast<std::int64_t>(nodes);
  whole.size_unit = "nodes";
  whole.variant = "gpu_for_each";
  whole.ordering = name;
  whole.time_ms = metric_timing.median_ms;
  whole.repeats = metric_timing.repeats;
  whole.throughput = static_cast<double>(nodes) / (metric_timing.median_ms * 1e-3);
  whole.throughput_unit = "nodes/s";
  whole.baseline = "host_one_thread";
  whole.speedup_vs_baseline = host_metric_ms / metric_timing.median_ms;
  whole.max_rel_error_vs_reference = std::fmax(metric_error, complexity_error);
  whole.check_passed = passed;
  report.cases.push_back(whole);
  return passed;
}

int run(int argc, char** argv) {
  const Options o = parse(argc, argv);
  Stream stream;
  const DeviceInfo info = device_info(current_device());
  BenchReport report = bench::make_report("adapt", info.name, argc, argv);
  report.copy_bandwidth_gbs = bench::measure_device_copy_bandwidth(stream);
  std::printf("%s; device-to-device copy %.1f GB/s (read + write, measured now)\n",
              describe(info).c_str(), *report.copy_bandwidth_gbs);
  report.notes.push_back(
      "hessian_recovery: DeviceMetricBuilder::recover_hessians of one field (its upload, the "
      "HessianAt kernel, the not-finite check that waits), median after warm-up; the host "
      "reference recover_hessians on one thread, timed once (" +
      bench::host_cpu_model() + ")");
  report.notes.push_back(
      "byte model per node: offset 8 B, patch indices 4 B each, coordinates 24 B, field 8 B, "
      "Hessian 48 B, each array once");
  report.notes.push_back(
      "adaptation_metric_two_fields: what the adaptive run builds (two Hessians, two normalised "
      "metrics, intersection, complexity; each normalisation's sum on the host)");
  report.notes.push_back(
      "check: GPU within 1e-12 of the host (each node relative to its "
      "largest entry; complexity relative)");
  bool passed = true;
  for (const std::string& name : o.meshes) passed = bench_mesh(name, o, stream, report) && passed;
  if (!passed) {
    std::printf("%s\nA check failed: no result files written.\n",
                bench::to_markdown(report).c_str());
    return 1;
  }
  bench::write_report(
      report, bench::default_result_path(o.out_dir, "adapt", bench::device_short_name(info.name)));
  return 0;
}

}  // namespace
}  // namespace foehn::adapt

int main(int argc, char** argv) {
  try {
    return foehn::adapt::run(argc, argv);
  } catch (const foehn::Error& error) {
    std::fprintf(stderr, "bench_adapt: %s\n", error.what());
    return foehn::exit_code_for(error);
  }
}
