#pragma once
// The results format every Foehn benchmark writes (docs/benchmarks.md, after
// design/BENCHMARKS.md): one JSON file per run in bench/results/ and a markdown table beside it.
// Host-only and free of CUDA and PETSc, so CPU and GPU benchmarks share one writer and their
// files stay comparable field for field.
//
//   BenchReport report = make_report("fe_cpu", host_cpu_model(), argc, argv);
//   report.cases.push_back(BenchCase{.name = "diffusion_csr", ...});
//   write_report(report, "bench/results/fe_cpu-xeon-20261122.json", "....md");

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace foehn::bench {

// One measured (or published) case. Optional fields are written only when set, so a case says
// nothing rather than a misleading 0 where a quantity does not apply.
struct BenchCase {
  std::string name;  // what was computed, e.g. "diffusion_csr"
  std::int64_t size = 0;
  std::string size_unit = "tets";
  std::string variant;   // strategy / implementation, peers as "peer_..."
  std::string ordering;  // mesh numbering where it applies (empty: not written)
  double time_ms = 0.0;  // median of `repeats` timed runs after warm-up
  int repeats = 0;
  double throughput = 0.0;
  std::string throughput_unit = "tets/s";
  std::optional<double> model_bytes;  // the byte model documented next to the code measured
  std::optional<double> achieved_gbs;
  std::optional<double> fraction_of_copy_bw;
  std::string baseline;                       // variant this case is compared with (empty: none)
  std::optional<double> speedup_vs_baseline;  // baseline time / this time, same process
  std::optional<double> max_rel_error_vs_reference;
  // Multi-rank runs (issue 21): GPUs in use (distinct devices over the ranks) and MPI ranks.
  std::optional<int> gpus;
  std::optional<int> ranks;
  bool published = false;    // a number quoted from a paper, never part of measured ratios
  bool check_passed = true;  // not written: a run with a failed check writes no files
};

struct BenchReport {
  std::string area;    // assembly | handoff | ... | fe_cpu
  std::string device;  // GPU name from the driver, or the CPU model
  std::string commit;
  std::string command;
  std::string date;                          // yyyy-mm-dd
  std::optional<double> copy_bandwidth_gbs;  // read + write bytes per second, this run
  std::vector<BenchCase> cases;
  std::vector<std::string> notes;  // markdown only: what a reader needs to judge the table
};

// Fills area, device, commit, command line and today's date.
BenchReport make_report(std::string area, std::string device, int argc, char** argv);

// Sets achieved_gbs and fraction_of_copy_bw from model_bytes, time_ms and the report's copy
// bandwidth (each only where its inputs are known).
void derive_bandwidths(BenchCase& c, std::optional<double> copy_bandwidth_gbs);

// Time of the case with this name/variant/ordering, or nothing.
std::optional<double> find_time_ms(const BenchReport& report, std::string_view name,
                                   std::string_view variant, std::string_view ordering);

std::string to_json(const BenchReport& report);
std::string to_markdown(const BenchReport& report);

// Writes both files atomically (foehn::AtomicOutputFile); the folders must exist.
void write_report(const BenchReport& report, const std::filesystem::path& json_path,
                  const std::filesystem::path& markdown_path);
// The same with the markdown beside the JSON (same name, .md); prints "wrote <json> and <md>".
void write_report(const BenchReport& report, const std::filesystem::path& json_path);

// "bench/results/<area>-<device_short>-<yyyymmdd>.json" under `results_dir`.
std::filesystem::path default_result_path(const std::filesystem::path& results_dir,
                                          std::string_view area, std::string_view device_short);

// ---- facts about this run --------------------------------------------------------------------
std::string host_cpu_model();  // "model name" of /proc/cpuinfo, else "unknown CPU"
// Short lowercase name for file names: "xeon", "epyc", "h100", "a100", ..., else the first
// word of the model that carries a digit, else "cpu".
std::string device_short_name(std::string_view model);
// `git rev-parse --short HEAD` in the source tree now (the binary may be older than the
// checkout); the commit seen at configure time if git is unavailable; else "unknown".
std::string git_commit();
std::string today_iso();      // 2026-11-22 (UTC)
std::string today_compact();  // 20261122 (UTC)
// argv joined with spaces, argv[0] reduced to its file name (paths differ between hosts),
// arguments with spaces or quotes single-quoted.
std::string command_line(int argc, char** argv);

}  // namespace foehn::bench
