// bench_chemistry: a CB05-sized synthetic mechanism (80 species, 190 reactions) over one 120 s
// chemistry step, 10^3 ... 10^6 cells (issue 8, seed reports 003/004).
//
// For every cell count:
//   GPU thread_per_cell in the three layouts and block_per_cell: advance() time (data resident,
//   CUDA events) and upload + advance + download (transfers counted); every cell starts from
//   control.initial_step in every repeat (reset_steps), as the CPU runs do;
//   CPU one core and all cores (our solver) and CVODE (BDF + KLU) on one core, each on the first
//   -cpu_cells / -cvode_cells cells and scaled to the cell count (cells are i.i.d. draws of
//   make_synthetic_batch, so the first K are a fair sample).
// Factorisation kernel alone (factor_matrices) in each layout against the byte model: each LU
// entry read once and written once, 16 B x nonzeros per cell, at the copy bandwidth measured here.
// The CPU+GPU split over -split_steps chemistry steps at -split_cells cells.
// Checks: GPU vs the one-core CPU result on the sampled cells (<= 1e-12 relative, floor 1e-3
// molecule cm^-3); CVODE vs our solver worst-species NRMSE (reported).
//
//   bench_chemistry [-cells 1000,10000,100000,1000000] [-method rodas3] [-rtol 1e-4] [-atol 1e-3]
//                   [-duration 120] [-cpu_cells 2000] [-cvode_cells 300] [-repeats 3]
//                   [-split_cells 100000] [-split_steps 6] [-all_variants_up_to 100000] [-out_dir
//                   DIR]
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

#include "bench_device.hpp"
#include "bench_results.hpp"
#include "bench_timing.hpp"
#include "foehn/chemistry/comparison.hpp"
#include "foehn/chemistry/cuda_chemistry.hpp"
#include "foehn/chemistry/cvode_reference.hpp"
#include "foehn/chemistry/split_chemistry.hpp"
#include "foehn/runtime/device.hpp"
#include "foehn/runtime/device_array.hpp"
#include "foehn/runtime/error.hpp"

namespace foehn::chemistry {
namespace {

using bench::BenchCase;

struct Options {
  std::vector<std::int64_t> cells{1000, 10000, 100000, 1000000};
  RosenbrockMethod method = RosenbrockMethod::rodas3;
  double rtol = 1e-4;
  double atol = 1e-3;
  double duration = 120.0;
  std::int64_t cpu_cells = 2000;
  std::int64_t cvode_cells = 300;
  int repeats = 3;
  std::int64_t split_cells = 100000;
  std::int64_t all_variants_up_to = 100000;
  bool factor_only = false;  // only the factorisation kernels (a quick tuning run; writes no files)
  int split_steps = 6;
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
      o.cells.clear();
      for (const std::string& item : bench::split_list(value()))
        o.cells.push_back(std::llround(std::stod(item)));
    } else if (a == "-method") {
      o.method = parse_rosenbrock_method(value());
    } else if (a == "-rtol") {
      o.rtol = std::stod(value());
    } else if (a == "-atol") {
      o.atol = std::stod(value());
    } else if (a == "-duration") {
      o.duration = std::stod(value());
    } else if (a == "-cpu_cells") {
      o.cpu_cells = std::stoll(value());
    } else if (a == "-cvode_cells") {
      o.cvode_cells = std::stoll(value());
    } else if (a == "-repeats") {
      o.repeats = std::stoi(value());
    } else if (a == "-split_cells") {
      o.split_cells = std::stoll(value());
    } else if (a == "-factor_only") {
      o.factor_only = true;
    } else if (a == "-all_variants_up_to") {
      o.all_variants_up_to = std::stoll(value());
    } else if (a == "-split_steps") {
      o.split_steps = std::stoi(value());
    } else if (a == "-out_dir") {
      o.out_dir = value();
    } else {
      fail(ErrorCategory::invalid_input, "unknown option ", a,
           " (options: -cells -method -rtol -atol -duration -cpu_cells -cvode_cells -repeats "
           "-split_cells "
           "-split_steps -all_variants_up_to -factor_only -out_dir)");
    }
  }
  if (o.cells.empty() || o.repeats < 1 || o.cpu_cells < 1 || o.cvode_cells < 1)
    fail(ErrorCategory::invalid_input,
         "need -cells, -repeats >= 1, -cpu_cells >= 1, -cvode_cells >= 1");
  return o;
}

double seconds_of(const std::function<void()>& body) {
  const auto start = std::chrono::steady_clock::now();
  body();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// The first `count` cells of a batch.
ChemistryBatch head(const Mechanism& m, const ChemistryBatch& batch, std::int64_t count) {
  ChemistryBatch part = make_batch(m, count);
  const auto n = m.species.size(), e = m.external_rate_names.size();
  std::copy_n(batch.concentrations.begin(), count * n, part.concentrations.begin());
  std::copy_n(batch.temperature.begin(), count, part.temperature.begin());
  std::copy_n(batch.pressure.begin(), count, part.pressure.begin());
  std::copy_n(batch.external_rates.begin(), count * e, part.external_rates.begin());
  return part;
}

BenchCase make_case(std::string name, std::int64_t cells, std::string variant, double ms,
                    int repeats) {
  BenchCase c;
  c.name = std::move(name);
  c.size = cells;
  c.size_unit = "cells";
  c.variant = std::move(variant);
  c.time_ms = ms;
  c.repeats = repeats;
  c.throughput = ms > 0.0 ? static_cast<double>(cells) / (ms * 1e-3) : 0.0;
  c.throughput_unit = "cells/s";
  return c;
}

int run(int argc, char** argv) {
  const Options o = parse(argc, argv);
  Stream stream;
  const DeviceInfo info = device_info(current_device());
  bench::BenchReport report = bench::make_report("chemistry", info.name, argc, argv);
  report.copy_bandwidth_gbs = bench::measure_device_copy_bandwidth(stream);
  std::printf("%s\ncopy bandwidth %.0f GB/s\n", describe(info).c_str(), *report.copy_bandwidth_gbs);

  const Mechanism mechanism = make_synthetic_mechanism(80, 190, 1);
  RosenbrockOptions options;
  options.method = o.method;
  options.control.relative_tolerance = o.rtol;
  options.absolute_tolerance.assign(mechanism.species.size(), o.atol);
  options.throw_on_failure = true;
  const std::int64_t largest = *std::max_element(o.cells.begin(), o.cells.end());
  const ChemistryBatch all_cells =
      make_synthetic_batch(mechanism, std::max(largest, o.split_cells), 1);
  const int host_threads = omp_get_max_threads();

  bool all_checks_passed = true;
  std::int64_t cpu_sample = 0;
  double one_core_per_cell_ms = 0.0;
  if (!o.factor_only) {
    // CPU reference on a sample: one core, all cores, CVODE one core.
    cpu_sample = std::min(o.cpu_cells, largest);
    CpuChemistrySolver cpu(mechanism, options);
    ChemistryBatch cpu_result = head(mechanism, all_cells, cpu_sample);
    const double one_core_s =
        seconds_of([&] { cpu.solve_range(cpu_result, o.duration, 0, cpu_sample, 1); });
    const ChemistryStepReport cpu_report = summarize(cpu.cell_statistics().data(), cpu_sample);
    const std::int64_t all_core_sample = std::min<std::int64_t>(cpu_sample * host_threads, largest);
    ChemistryBatch all_core_batch = head(mechanism, all_cells, all_core_sample);
    CpuChemistrySolver cpu_all(mechanism, options);
    const double all_cores_s = seconds_of([&] { cpu_all.solve(all_core_batch, o.duration); });
    const std::int64_t cvode_sample = std::min(o.cvode_cells, cpu_sample);
    CvodeOptions cvode_options;
    cvode_options.relative_tolerance = o.rtol;
    const CompiledMechanism& compiled = cpu.prepared().compiled;
    cvode_options.absolute_tolerance.assign(mechanism.species.size(), o.atol);
    CvodeReferenceSolver cvode(mechanism, compiled, cvode_options);
    ChemistryBatch cvode_result = head(mechanism, all_cells, cvode_sample);
    const double cvode_s = seconds_of([&] { cvode.integrate_batch(cvode_result, o.duration); });
    one_core_per_cell_ms = one_core_s * 1e3 / static_cast<double>(cpu_sample);
    const double all_cores_per_cell_ms = all_cores_s * 1e3 / static_cast<double>(all_core_sample);
    const double cvode_per_cell_ms = cvode_s * 1e3 / static_cast<double>(cvode_sample);
    // Species that never exceed 1000 atol are below what the tolerances resolve (comparison.hpp).
    const std::vector<SpeciesError> nrmse = species_nrmse(
        cvode_result.concentrations, head(mechanism, cpu_result, cvode_sample).concentrations,
        cvode_sample, static_cast<int>(mechanism.species.size()), 0.0, 1000.0 * o.atol);
    const SpeciesError worst = worst_species(nrmse);
    std::printf(
        "CPU one core %.3f ms/cell (%lld cells, %.1f accepted + %.1f rejected steps/cell), all %d "
        "threads %.4f ms/cell, CVODE %.3f ms/cell; worst-species NRMSE vs CVODE %.3g%% (%s)\n",
        one_core_per_cell_ms, static_cast<long long>(cpu_sample),
        static_cast<double>(cpu_report.accepted) / cpu_sample,
        static_cast<double>(cpu_report.rejected) / cpu_sample, host_threads, all_cores_per_cell_ms,
        cvode_per_cell_ms, 100.0 * worst.nrmse,
        worst.species >= 0 ? mechanism.species[worst.species].name.c_str() : "-");
    report.notes.push_back("CVODE (BDF, KLU, same rtol/atol) vs our " +
                           std::string(rosenbrock_method_name(o.method)) + " on " +
                           std::to_string(cvode_sample) + " cells: worst-species NRMSE " +
                           std::to_string(100.0 * worst.nrmse) + "% (target <= 0.02%)");

    for (const std::int64_t cells : o.cells) {
      const ChemistryBatch batch = head(mechanism, all_cells, cells);
      double reference_ms = one_core_per_cell_ms * static_cast<double>(cells);
      BenchCase one = make_case("chemistry_step", cells, "cpu_one_core", reference_ms, 1);
      BenchCase all =
          make_case("chemistry_step", cells, "cpu_all_cores_" + std::to_string(host_threads),
                    all_cores_per_cell_ms * static_cast<double>(cells), 1);
      BenchCase cv = make_case("chemistry_step", cells, "peer_cvode_klu_one_core",
                               cvode_per_cell_ms * cells, 1);
      for (BenchCase* c : {&all, &cv}) {
        c->baseline = "cpu_one_core";
        c->speedup_vs_baseline = reference_ms / c->time_ms;
      }
      report.cases.insert(report.cases.end(), {one, all, cv});

      struct Variant {
        GpuChemistryStrategy strategy;
        CellLayoutKind layout;
      };
      for (const Variant v :
           {Variant{GpuChemistryStrategy::thread_per_cell, CellLayoutKind::interleaved},
            Variant{GpuChemistryStrategy::thread_per_cell, CellLayoutKind::block_interleaved},
            Variant{GpuChemistryStrategy::thread_per_cell, CellLayoutKind::per_cell},
            Variant{GpuChemistryStrategy::block_per_cell, CellLayoutKind::per_cell}}) {
        // Above -all_variants_up_to cells only the interleaved layouts (the others were measured
        // several times slower at 1e5 cells; they would dominate the run time).
        if (cells > o.all_variants_up_to && v.layout == CellLayoutKind::per_cell) continue;
        CudaChemistrySettings settings;
        settings.strategy = v.strategy;
        settings.layout = v.layout;
        const std::string name =
            std::string(to_string(v.strategy)) + "/" + std::string(to_string(v.layout));
        CudaChemistrySolver gpu(mechanism, options, settings, stream);
        ChemistryBatch result = batch;
        std::vector<double> advance_ms, total_ms;
        for (int r = 0; r < o.repeats + 1;
             ++r) {  // the first run warms up (allocation, module load)
          result = batch;
          gpu.upload(result);
          gpu.reset_steps();
          gpu.upload(result);  // timed again without the allocation
          gpu.advance(o.duration);
          gpu.download(result);
          const CudaChemistryTimings t = gpu.last_timings();
          if (r > 0) {
            advance_ms.push_back(t.advance_ms);
            total_ms.push_back(t.upload_ms + t.advance_ms + t.download_ms);
          }
        }
        const std::int64_t checked = std::min(cells, cpu_sample);
        // Relative with a floor of 1000 atol (1 molecule cm^-3): below it values are not resolved
        // by the tolerances, and the device's exp/pow differ from glibc's by an ulp.
        const double error =
            max_relative_error(head(mechanism, cpu_result, checked).concentrations,
                               head(mechanism, result, checked).concentrations, 1000.0 * o.atol);
        const bool passed = error <= 1e-12;
        all_checks_passed = all_checks_passed && passed;
        BenchCase resident =
            make_case("chemistry_step", cells, "gpu_" + name, bench::median(advance_ms), o.repeats);
        BenchCase moved = make_case("chemistry_step_with_transfers", cells, "gpu_" + name,
                                    bench::median(total_ms), o.repeats);
        for (BenchCase* c : {&resident, &moved}) {
          c->baseline = "cpu_one_core";
          c->speedup_vs_baseline = reference_ms / c->time_ms;
          c->max_rel_error_vs_reference = error;
          c->check_passed = passed;
        }
        std::printf(
            "%8lld cells %-34s %9.3f ms (%7.1fx one core) with transfers %9.3f ms (%7.1fx); vs CPU "
            "%.2g\n",
            static_cast<long long>(cells), name.c_str(), resident.time_ms,
            *resident.speedup_vs_baseline, moved.time_ms, *moved.speedup_vs_baseline, error);
        report.cases.insert(report.cases.end(), {resident, moved});
      }
    }
  }

  // Factorisation kernels alone: the byte floor is one read and one write of every LU entry.
  struct FactorVariant {
    GpuChemistryStrategy strategy;
    CellLayoutKind layout;
  };
  for (const std::int64_t cells : o.cells) {
    for (const FactorVariant v :
         {FactorVariant{GpuChemistryStrategy::thread_per_cell, CellLayoutKind::interleaved},
          FactorVariant{GpuChemistryStrategy::thread_per_cell, CellLayoutKind::block_interleaved},
          FactorVariant{GpuChemistryStrategy::thread_per_cell, CellLayoutKind::per_cell},
          FactorVariant{GpuChemistryStrategy::block_per_cell, CellLayoutKind::per_cell}}) {
      CudaChemistrySettings settings;
      settings.strategy = v.strategy;
      settings.layout = v.layout;
      CudaChemistrySolver gpu(mechanism, options, settings, stream);
      const CompiledMechanism& c = gpu.prepared().compiled;
      const int nonzeros = static_cast<int>(c.column.size());
      const std::size_t entries = static_cast<std::size_t>(
          v.layout == CellLayoutKind::block_interleaved
              ? BlockInterleavedLayout<gpu_interleave_block>::storage(nonzeros, cells)
              : static_cast<std::int64_t>(nonzeros) * cells);
      DeviceArray<double> matrices(entries, stream);
      matrices.fill_async(0.25, stream);  // values do not change the work; no zero pivots
      std::vector<double> times;
      for (int r = 0; r < o.repeats + 1; ++r) {
        const double ms = gpu.factor_matrices(matrices.data(), cells);
        if (r > 0) times.push_back(ms);
        matrices.fill_async(0.25, stream);
      }
      const std::string name =
          std::string(to_string(v.strategy)) + "/" + std::string(to_string(v.layout));
      BenchCase f =
          make_case("lu_factorisation", cells, "gpu_" + name, bench::median(times), o.repeats);
      f.model_bytes = 16.0 * nonzeros * static_cast<double>(cells);
      bench::derive_bandwidths(f, report.copy_bandwidth_gbs);
      std::printf(
          "%8lld cells LU factorisation %-34s %8.3f ms, %.0f GB/s = %.1f%% of copy bandwidth\n",
          static_cast<long long>(cells), name.c_str(), f.time_ms, f.achieved_gbs.value_or(0.0),
          100.0 * f.fraction_of_copy_bw.value_or(0.0));
      report.cases.push_back(f);
    }
  }

  if (o.factor_only) return 0;

  // CPU + GPU split: how the share converges and what it gains over the GPU alone.
  if (o.split_steps > 0 && o.split_cells > 0) {
    SplitSettings split_settings;
    split_settings.initial_gpu_fraction = 0.5;
    SplitChemistrySolver split(mechanism, options, split_settings, stream);
    ChemistryBatch batch = head(mechanism, all_cells, o.split_cells);
    std::string trajectory;
    double last_ms = 0.0;
    for (int step = 0; step < o.split_steps; ++step) {
      ChemistryBatch work = batch;  // the same chemistry step each time: only the split changes
      last_ms = 1e3 * seconds_of([&] { split.solve(work, o.duration); });
      const SplitStepTiming& t = split.last_timing();
      char line[160];
      std::snprintf(line, sizeof line, "%s%.3f (GPU %.0f ms, CPU %.0f ms)", step ? ", " : "",
                    t.gpu_fraction, 1e3 * t.gpu_seconds, 1e3 * t.cpu_seconds);
      trajectory += line;
    }
    BenchCase s =
        make_case("chemistry_step_with_transfers", o.split_cells, "cpu_gpu_split", last_ms, 1);
    s.baseline = "cpu_one_core";
    s.speedup_vs_baseline = one_core_per_cell_ms * static_cast<double>(o.split_cells) / last_ms;
    report.cases.push_back(s);
    report.notes.push_back("CPU+GPU split at " + std::to_string(o.split_cells) +
                           " cells, GPU share per step: " + trajectory);
    std::printf("split: %s\n", trajectory.c_str());
  }

  // Published ratios (never mixed into measured ones).
  BenchCase cam =
      make_case("chemistry_step", 7168,
                "published_camchem_k20x_vs_one_core_11.7x_3.82x_with_transfers", 0.0, 0);
  BenchCase camp =
      make_case("chemistry_step", 100000, "published_camp_h100_vs_one_core_70x", 0.0, 0);
  cam.published = camp.published = true;
  report.cases.insert(report.cases.end(), {cam, camp});
  report.notes.push_back("Synthetic CB05-sized mechanism (80 species, 190 reactions, seed 1), " +
                         std::string(rosenbrock_method_name(o.method)) + ", rtol " +
                         std::to_string(o.rtol) + ", atol " + std::to_string(o.atol) +
                         " molecule cm^-3, one " + std::to_string(o.duration) +
                         " s chemistry step; CPU times measured on " + std::to_string(cpu_sample) +
                         " cells and scaled per cell.");
  report.notes.push_back(
      "Targets (H100, 1e5 cells): >= 100x one core of our CPU solver including transfers; "
      ">= 50% of the byte-model floor in the factorisation kernel.");
  if (!all_checks_passed) {
    std::fprintf(
        stderr,
        "bench_chemistry: a GPU result disagreed with the CPU reference; no files written\n");
    return 1;
  }
  bench::write_report(report, bench::default_result_path(o.out_dir, "chemistry",
                                                         bench::device_short_name(info.name)));
  return 0;
}

}  // namespace
}  // namespace foehn::chemistry

int main(int argc, char** argv) {
  try {
    return foehn::chemistry::run(argc, argv);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bench_chemistry: %s\n", e.what());
    return 1;
  }
}
