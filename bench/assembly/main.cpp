// bench_assembly: the GPU assembly engine against the published pipeline (`staged`), the CPU
// reference on one core and a PyTorch/CuPy peer, on Mountainwave3D meshes of increasing size.
// Writes bench/results/assembly-<device>-<date>.json and .md (the format of BENCHMARKS.md).
//
//   bench_assembly --sizes 554394,10000000,20000000 --numberings natural,shuffled,reordered
//                  --repeats 20 --cpu-max-tets 3000000 --peer-results peer.txt --out-dir DIR
//   bench_assembly --export-peer-mesh DIR --sizes 554394     (inputs for the Python peer)

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <map>
#include <sstream>

#include "assembly_cases.hpp"
#include "bench_device.hpp"
#include "bench_results.hpp"
#include "bench_timing.hpp"
#include "foehn/fe/cpu_assembler.hpp"
#include "foehn/mesh/mountain.hpp"
#include "foehn/mesh/reorder.hpp"
#include "foehn/runtime/device.hpp"
#include "peer_export.hpp"

namespace foehn::bench {
namespace {

struct Options {
  std::vector<std::int64_t> sizes{554394};
  std::vector<std::string> numberings{"natural", "shuffled", "reordered"};
  int repeats = 20, warmups = 3, block_size = 256;
  std::int64_t cpu_max_tets = 3'000'000;  // the one-core reference above this is too slow
  std::string out_dir = "bench/results", peer_results, export_dir, suffix;
};

Options parse(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) fail(ErrorCategory::invalid_input, a, " needs a value");
      return argv[++i];
    };
    if (a == "--sizes") {
      o.sizes.clear();
      for (const std::string& s : bench::split_list(value())) o.sizes.push_back(std::stoll(s));
    } else if (a == "--numberings")
      o.numberings = bench::split_list(value());
    else if (a == "--repeats")
      o.repeats = std::stoi(value());
    else if (a == "--warmups")
      o.warmups = std::stoi(value());
    else if (a == "--block-size")
      o.block_size = std::stoi(value());
    else if (a == "--cpu-max-tets")
      o.cpu_max_tets = std::stoll(value());
    else if (a == "--out-dir")
      o.out_dir = value();
    else if (a == "--peer-results")
      o.peer_results = value();
    else if (a == "--export-peer-mesh")
      o.export_dir = value();
    else if (a == "--suffix")
      o.suffix = value();  // appended to the result file name
    else
      fail(ErrorCategory::invalid_input, "unknown option ", a);
  }
  if (o.repeats < 1 || o.warmups < 0)
    fail(ErrorCategory::invalid_input, "--repeats must be >= 1 and --warmups >= 0");
  return o;
}

TetMesh make_mesh(std::int64_t tets, const std::string& numbering) {
  TetMesh mesh = generate_mountain_mesh(mountain_options_for_tets(static_cast<std::size_t>(tets)));
  if (numbering == "shuffled")
    shuffle_numbering(mesh, 2026);
  else if (numbering == "reordered")
    reorder_for_locality(mesh);
  else if (numbering != "natural")
    fail(ErrorCategory::invalid_input, "unknown numbering ", numbering);
  return mesh;
}

// Median time of `body` on the stream, CUDA events around each repeat, after warm-ups.
template <class Body>
double time_on_device(const Stream& stream, int warmups, int repeats, Body&& body) {
  for (int i = 0; i < warmups; ++i) body();
  std::vector<double> samples;
  EventTimer timer;
  for (int i = 0; i < repeats; ++i) {
    timer.start(stream);
    body();
    timer.stop(stream);
    samples.push_back(timer.elapsed_ms());
  }
  return median(samples);
}

struct PeerResult {
  std::string variant;
  std::int64_t tets;
  double time_ms, max_rel_error;
};
std::vector<PeerResult> read_peer_results(const std::string& path) {
  std::vector<PeerResult> results;
  if (path.empty()) return results;
  std::ifstream in(path);
  if (!in) fail(ErrorCategory::io, "cannot read peer results '", path, "'");
  PeerResult r;
  while (in >> r.variant >> r.tets >> r.time_ms >> r.max_rel_error) results.push_back(r);
  return results;
}

template <class Op>
void run_operator(BenchReport& report, const Options& o, const TetMesh& mesh,
                  fe::CudaAssembler& gpu, const Op& op, const Op& host_op, const std::string& name,
                  const std::string& numbering, int field_components, bool with_rhs) {
  constexpr int R = Op::block_rows, C = Op::block_cols;
  const Stream& stream = gpu.stream();
  const std::int64_t tets = gpu.tet_count();
  const auto pattern = std::make_shared<const fe::CsrPattern>(gpu.download_pattern());
  fe::DeviceBlockCsrMatrix matrix = gpu.create_matrix<Op>();
  DeviceArray<double> rhs(with_rhs ? static_cast<std::size_t>(gpu.node_count()) * R : 0, stream);
  DeviceArray<double>* rhs_ptr = with_rhs ? &rhs : nullptr;
  const double model =
      floor_bytes(tets, gpu.node_count(), gpu.nnz(), field_components, R, C, with_rhs);

  // Reference: deterministic (bitwise equal to the CPU reference, checked below where the CPU
  // runs and in tests/cuda/fe).
  gpu.assemble(op, matrix, rhs_ptr, fe::AssemblyStrategy::deterministic);
  const fe::BlockCsrMatrix reference = gpu.download(matrix, pattern);
  const std::vector<double> reference_rhs =
      with_rhs ? rhs.copy_to_host(stream) : std::vector<double>{};
  auto rhs_difference = [&](const std::vector<double>& got) {
    double d = 0.0, r = 0.0;
    for (std::size_t k = 0; k < got.size(); ++k) {
      d += (got[k] - reference_rhs[k]) * (got[k] - reference_rhs[k]);
      r += reference_rhs[k] * reference_rhs[k];
    }
    return r > 0.0 ? std::sqrt(d / r) : std::sqrt(d);
  };

  std::map<std::string, double> times;
  for (fe::AssemblyStrategy s : fe::all_assembly_strategies) {
    const auto prepare_start = std::chrono::steady_clock::now();
    gpu.prepare(s);  // per-mesh setup (slot map, contribution lists), not in the timed loop
    const double prepare_ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - prepare_start)
            .count();
    if (prepare_ms > 0.01)
      report.notes.push_back(name + " " + numbering + " " + std::to_string(tets) +
                             " tets: " + std::string(to_string(s)) + " per-mesh setup " +
                             std::to_string(prepare_ms) + " ms (wall, once per mesh)");
    poison_async(matrix.values, stream);
    const double ms =
        time_on_device(stream, o.warmups, o.repeats, [&] { gpu.assemble(op, matrix, rhs_ptr, s); });
    const fe::BlockCsrMatrix result = gpu.download(matrix, pattern);
    const std::vector<double> result_rhs =
        with_rhs ? rhs.copy_to_host(stream) : std::vector<double>{};
    BenchCase c;
    c.name = name;
    c.size = tets;
    c.variant = std::string(to_string(s));
    c.ordering = numbering;
    c.time_ms = ms;
    c.repeats = o.repeats;
    c.throughput = static_cast<double>(tets) / (ms * 1e-3);
    // row_gather must also read its node -> element adjacency: its own floor.
    c.model_bytes = s == fe::AssemblyStrategy::row_gather
                        ? model + adjacency_bytes(tets, gpu.node_count())
                        : model;
    c.max_rel_error_vs_reference = fe::relative_frobenius_difference(result, reference);
    c.check_passed = *c.max_rel_error_vs_reference <= 1e-14 &&
                     rhs_difference(result_rhs) <= 1e-14 &&
                     (!fe::bitwise_equal_to_cpu(s) ||
                      (result.values == reference.values && result_rhs == reference_rhs));
    if (s != fe::AssemblyStrategy::staged) {
      c.baseline = "staged";
      c.speedup_vs_baseline = times["staged"] / ms;
    }
    derive_bandwidths(c, report.copy_bandwidth_gbs);
    times[c.variant] = ms;
    report.cases.push_back(c);
    std::printf("%-10s %9lld tets %-9s %-13s %9.3f ms %8.3g tets/s  %5.1f%% of copy bw  err %.1e\n",
                name.c_str(), static_cast<long long>(tets), numbering.c_str(), c.variant.c_str(),
                ms, c.throughput, 100.0 * c.fraction_of_copy_bw.value_or(0.0),
                *c.max_rel_error_vs_reference);
    std::fflush(stdout);
  }

  if (numbering == "natural") {  // the published breakdown, once per size
    fe::StagedPipelineTimes stages;
    fe::CudaAssemblyOptions profiled{o.block_size, &stages};
    fe::CudaAssembler profiling(mesh, stream, profiled);
    fe::CudaAssembler warm(mesh, stream, {o.block_size, nullptr});  // warm-ups, unprofiled
    for (int i = 0; i < o.warmups; ++i)
      warm.assemble(op, matrix, rhs_ptr, fe::AssemblyStrategy::staged);
    for (int i = 0; i < o.repeats; ++i)
      profiling.assemble(op, matrix, rhs_ptr, fe::AssemblyStrategy::staged);
    const double n = stages.calls;
    const std::pair<const char*, double> parts[] = {
        {"gather", stages.gather_ms / n},
        {"transform_to_physical", stages.transform_ms / n},
        {"coefficient_at_quadrature", stages.coefficient_ms / n},
        {"element_matrix", stages.element_ms / n},
        {"assemble_csr_matrix", stages.scatter_ms / n},
        {"rhs_addto", stages.rhs_ms / n}};
    for (const auto& [stage, ms] : parts) {
      BenchCase c;
      c.name = name + "_staged_stage_" + stage;
      c.size = tets;
      c.variant = "staged";
      c.ordering = numbering;
      c.time_ms = ms;
      c.repeats = o.repeats;
      c.throughput = static_cast<double>(tets) / (ms * 1e-3);
      report.cases.push_back(c);
    }
  }

  if (numbering == "natural" && tets <= o.cpu_max_tets) {  // one CPU core, the reference
    fe::CpuAssembler cpu(mesh);
    fe::BlockCsrMatrix host = cpu.create_matrix<Op>();
    std::vector<double> host_rhs(with_rhs ? static_cast<std::size_t>(gpu.node_count()) * R : 0);
    const Timing t = time_repeats([&] { cpu.assemble(host_op, host, host_rhs); }, 1, 3);
    BenchCase c;
    c.name = name;
    c.size = tets;
    c.variant = "cpu_reference_1core";
    c.ordering = numbering;
    c.time_ms = t.median_ms;
    c.repeats = t.repeats;
    c.throughput = static_cast<double>(tets) / (t.median_ms * 1e-3);
    c.max_rel_error_vs_reference = fe::relative_frobenius_difference(host, reference);
    // deterministic GPU is bitwise the CPU, matrix and RHS
    c.check_passed = host.values == reference.values && (!with_rhs || host_rhs == reference_rhs);
    report.cases.push_back(c);
    double best = 1e300;
    for (const auto& [variant, ms] : times) best = std::min(best, ms);
    report.notes.push_back(
        name + " at " + std::to_string(tets) + " tets: best GPU strategy is " +
        std::to_string(t.median_ms / best) + "x the CPU reference on one core" +
        (c.check_passed ? " (deterministic GPU == CPU bitwise)" : " (CHECK FAILED)"));
    std::printf("%-10s %9lld tets cpu 1 core %9.3f ms  deterministic==cpu bitwise: %s\n",
                name.c_str(), static_cast<long long>(tets), t.median_ms,
                c.check_passed ? "yes" : "NO");
  }
}

int run(int argc, char** argv) {
  const Options o = parse(argc, argv);
  Stream stream;
  const DeviceInfo info = device_info(current_device());
  if (!o.export_dir.empty()) {
    for (std::int64_t size : o.sizes)
      export_peer_inputs(make_mesh(size, "natural"), stream, o.export_dir);
    return 0;
  }
  BenchReport report = make_report("assembly", info.name, argc, argv);
  report.copy_bandwidth_gbs = bench::measure_device_copy_bandwidth(stream);
  std::printf("device %s, device-to-device copy %.1f GB/s\n", info.name.c_str(),
              *report.copy_bandwidth_gbs);

  for (std::int64_t size : o.sizes)
    for (const std::string& numbering : o.numberings) {
      const TetMesh mesh = make_mesh(size, numbering);
      EventTimer setup;
      setup.start(stream);
      fe::CudaAssembler gpu(mesh, stream, {o.block_size, nullptr});
      setup.stop(stream);
      std::printf(
          "mesh %lld tets, %lld nodes (%s): assembler setup %.2f ms (host checks, upload, "
          "device pattern), nnz %lld\n",
          static_cast<long long>(mesh.tet_count()), static_cast<long long>(mesh.node_count()),
          numbering.c_str(), setup.elapsed_ms(), static_cast<long long>(gpu.nnz()));
      AssemblyFields fields = make_assembly_fields(mesh, stream);
      run_operator(report, o, mesh, gpu, diffusion_case(fields), diffusion_case_host(fields),
                   "diffusion_csr", numbering, 10, true);
      run_operator(report, o, mesh, gpu, momentum_case(fields), momentum_case_host(fields),
                   "momentum_bcsr3", numbering, 3, false);
    }

  for (const PeerResult& p : read_peer_results(o.peer_results)) {
    BenchCase c;
    c.name = "diffusion_csr";
    c.size = p.tets;
    c.variant = p.variant;
    c.ordering = "natural";
    c.time_ms = p.time_ms;
    c.repeats = o.repeats;
    c.throughput = static_cast<double>(p.tets) / (p.time_ms * 1e-3);
    c.max_rel_error_vs_reference = p.max_rel_error;
    c.check_passed = p.max_rel_error <= 1e-12;
    double best = 1e300;
    for (const BenchCase& m : report.cases)
      if (m.name == "diffusion_csr" && m.size == p.tets && m.ordering == "natural" &&
          m.variant != "cpu_reference_1core" && !m.published)
        best = std::min(best, m.time_ms);
    if (best < 1e300)
      report.notes.push_back("diffusion_csr at " + std::to_string(p.tets) +
                             " tets: best strategy is " + std::to_string(p.time_ms / best) +
                             "x faster than " + p.variant);
    report.cases.push_back(c);
  }
  add_published_a100_cases(report);

  bool all_passed = true;
  for (const BenchCase& c : report.cases) all_passed = all_passed && c.check_passed;
  if (!all_passed) {
    std::fprintf(stderr, "bench_assembly: a correctness check failed; no results written\n");
    return 1;
  }
  const std::string short_name = device_short_name(info.name);
  const auto json = std::filesystem::path(o.out_dir) /
                    ("assembly-" + short_name + "-" + today_compact() + o.suffix + ".json");
  write_report(report, json);
  return 0;
}

}  // namespace
}  // namespace foehn::bench

int main(int argc, char** argv) {
  try {
    return foehn::bench::run(argc, argv);
  } catch (const foehn::Error& e) {
    std::fprintf(stderr, "bench_assembly: %s\n", e.what());
    return foehn::exit_code_for(e);
  }
}
