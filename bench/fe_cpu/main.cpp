// bench_fe_cpu: the CPU path of the FE core as a benchmark. Element kernels and assembly on the
// default mountain mesh, single thread, against PETSc's own MatSetValues assembly of the same
// matrix in the same process; results in the format of docs/benchmarks.md.
//
// Every case is checked before it counts; a failed check prints the table, writes no files and
// exits 1, so a results file in bench/results/ always comes from a run that passed.

#include <petscsys.h>

#include <cmath>
#include <cstdio>
#include <iostream>
#include <numbers>

#include "bench_results.hpp"
#include "bench_timing.hpp"
#include "foehn/mesh/mountain.hpp"
#include "foehn/mesh/reorder.hpp"
#include "foehn/petsc/petsc_check.hpp"
#include "foehn/runtime/error.hpp"
#include "operator_cases.hpp"
#include "options.hpp"

#ifndef FOEHN_BENCH_RESULTS_DIR
#define FOEHN_BENCH_RESULTS_DIR "bench/results"
#endif

namespace foehn::bench {
namespace {

// Nodal fields as smooth functions of position, evaluated after renumbering so every
// numbering assembles the same operator. Values have atmospheric magnitudes (m, m/s, m^2/s).
template <class Function>
std::vector<double> nodal_field(const fe::CpuAssembler& assembler, int components, Function f) {
  const std::vector<double>& xyz = assembler.coordinates();
  std::vector<double> values(static_cast<std::size_t>(assembler.node_count()) * components);
  for (std::int64_t n = 0; n < assembler.node_count(); ++n)
    f(&xyz[static_cast<std::size_t>(n) * 3], &values[static_cast<std::size_t>(n) * components]);
  return values;
}

// Anisotropic eddy diffusivity: large horizontal, small vertical, coupled off the diagonal;
// strictly diagonally dominant, hence SPD.
std::vector<double> diffusivity_tensor(const fe::CpuAssembler& a) {
  return nodal_field(a, 9, [](const double* p, double* k) {
    const double kh = 100.0 * (1.0 + 0.5 * p[0] / 30000.0), kv = 1.0 + p[2] / 1000.0;
    const double tensor[9] = {kh,       0.2 * kh, 0.1 * kv, 0.2 * kh, 0.8 * kh,
                              0.1 * kv, 0.1 * kv, 0.1 * kv, kv};
    std::copy(tensor, tensor + 9, k);
  });
}

std::vector<double> wind(const fe::CpuAssembler& a) {
  return nodal_field(a, 3, [](const double* p, double* u) {
    const double w = 2.0 * std::numbers::pi / 60000.0;
    u[0] = 10.0 + 1e-3 * p[2];
    u[1] = 2.0 * std::sin(w * p[0]);
    u[2] = 0.1 * std::cos(w * p[1]);
  });
}

std::vector<double> density(const fe::CpuAssembler& a) {
  return nodal_field(a, 1,
                     [](const double* p, double* rho) { rho[0] = 1.2 * std::exp(-p[2] / 8000.0); });
}

std::vector<BenchCase> run_operator(const std::string& which, const fe::CpuAssembler& assembler,
                                    const std::string& ordering, const CaseSettings& settings) {
  if (which == "diffusion") {
    const auto kappa = diffusivity_tensor(assembler);
    fe::DiffusionOperator op;
    op.tensor = fe::field_ref(kappa);
    return run_operator_cases(assembler, op, "diffusion_csr", 9, ordering, settings);
  }
  if (which == "mass") {
    const auto rho = density(assembler);
    fe::MassOperator op;
    op.coefficient = fe::field_ref(rho);
    return run_operator_cases(assembler, op, "mass_csr", 1, ordering, settings);
  }
  const auto u = wind(assembler);
  if (which == "advection") {
    fe::AdvectionOperator op;
    op.velocity = fe::field_ref(u);
    return run_operator_cases(assembler, op, "advection_csr", 3, ordering, settings);
  }
  fe::MomentumOperator op;  // rho/dt for dt = 10 s, eddy viscosity 15 m^2/s
  op.density_over_dt = 0.12;
  op.viscosity = 15.0;
  op.advecting_velocity = fe::field_ref(u);
  return run_operator_cases(assembler, op, "momentum_bcsr3", 3, ordering, settings);
}

void print_row(const BenchCase& c) {
  char speedup[16] = "-";
  if (c.speedup_vs_baseline)
    std::snprintf(speedup, sizeof speedup, "%.2fx", *c.speedup_vs_baseline);
  std::printf("%-15s %-44s %-9s %9.2f %8.3f %7.2f %8s %9.1e %s\n", c.name.c_str(),
              c.variant.c_str(), c.ordering.c_str(), c.time_ms, c.throughput / 1e6,
              c.achieved_gbs.value_or(0.0), speedup, c.max_rel_error_vs_reference.value_or(NAN),
              c.check_passed ? "ok" : "FAILED");
  std::fflush(stdout);
}

int run(int argc, char** argv, const FeCpuOptions& options) {
  const std::string cpu = host_cpu_model();
  BenchReport report = make_report("fe_cpu", cpu, argc, argv);
  CaseSettings settings{options.warmups, options.repeats, std::nullopt, options.petsc_coo};
  if (options.copy_megabytes > 0) {
    report.copy_bandwidth_gbs =
        measure_host_copy_bandwidth_gbs(static_cast<std::size_t>(options.copy_megabytes) << 20, 5);
    settings.copy_bandwidth_gbs = report.copy_bandwidth_gbs;
  }
  PetscInt major = 0, minor = 0, subminor = 0;
  FOEHN_PETSC_CHECK(PetscGetVersionNumber(&major, &minor, &subminor, nullptr));
  const std::string petsc_version = "PETSc " + std::to_string(major) + "." + std::to_string(minor) +
                                    "." + std::to_string(subminor);

  const MountainMeshOptions mesh_options =
      options.tets > 0 ? mountain_options_for_tets(static_cast<std::size_t>(options.tets))
                       : MountainMeshOptions{};
  const TetMesh natural = generate_mountain_mesh(mesh_options);
  std::printf(
      "bench_fe_cpu on %s, commit %s, %s, one thread (the gather also on all)\nmesh: %zu tets, %zu "
      "nodes; "
      "copy bandwidth %.1f GB/s\n",
      cpu.c_str(), report.commit.c_str(), petsc_version.c_str(), natural.tet_count(),
      natural.node_count(), report.copy_bandwidth_gbs.value_or(0.0));
  report.notes.push_back("one thread; peer: " + petsc_version +
                         ", matrices preallocated exactly from Foehn's pattern (setup untimed), "
                         "timed: MatZeroEntries + MatSetValues(ADD_VALUES) per element + "
                         "MatAssemblyBegin/End");
  report.notes.push_back("time_ms: median of " + std::to_string(options.repeats) + " after " +
                         std::to_string(options.warmups) +
                         " warm-up, the variants of one operator timed round-robin");
  report.notes.push_back(
      "speedup of foehn_cpu_assembler: PETSc (same kernel + MatSetValues) "
      "time / Foehn time; of foehn_scatter_only: PETSc insertion-only time / "
      "Foehn scatter-only time, both from stored element matrices");
  report.notes.push_back(
      "foehn_row_gather_*: the row-block gather (bitwise the serial "
      "assembly, checked); its 1-core speedup is against PETSc MatSetValues, "
      "its all-cores speedup against foehn_cpu_assembler on one core");
  report.notes.push_back(
      "GB/s: the byte model of bench/fe_cpu/byte_model.hpp (bytes touched, "
      "not DRAM traffic)");
  std::printf("\n%-15s %-44s %-9s %9s %8s %7s %8s %9s %s\n", "case", "variant", "ordering", "ms",
              "Mtets/s", "GB/s", "speedup", "rel.err", "check");

  bool all_passed = true;
  for (std::size_t n = 0; n < options.numberings.size(); ++n) {
    const std::string& numbering = options.numberings[n];
    TetMesh mesh = natural;
    // "reordered" starts from the shuffled numbering: the locality reorder_for_locality
    // restores is the point, not that of the generator's column-by-column numbering.
    if (numbering != "natural") shuffle_numbering(mesh, options.seed);
    if (numbering == "reordered") reorder_for_locality(mesh);
    char metrics[160];
    std::snprintf(metrics, sizeof metrics,
                  "numbering %s: node graph bandwidth %lld, mean tet "
                  "node span %.0f",
                  numbering.c_str(), static_cast<long long>(node_graph_bandwidth(mesh)),
                  mean_tet_node_span(mesh));
    report.notes.push_back(metrics);
    const fe::CpuAssembler assembler(mesh);
    const fe::CpuAssembler gather_one(mesh, {.threads = 1, .row_blocks = true});
    const fe::CpuAssembler gather_all(mesh, {.threads = 0});
    settings.row_gather_one_core = &gather_one;
    settings.row_gather_all_cores = &gather_all;
    report.notes.push_back("numbering " + numbering + ": row-block gather of " +
                           std::to_string(gather_all.row_block_layout().rows_per_block) +
                           " rows computes a fraction " +
                           std::to_string(gather_all.row_block_layout().shared_fraction(
                               static_cast<std::int64_t>(mesh.tet_count()))) +
                           " of the elements ahead (shared by blocks); all cores = " +
                           std::to_string(gather_all.threads()) + " OpenMP threads");
    for (const std::string& op : options.operators) {
      // Every operator on the first numbering, only diffusion on the others.
      if (n > 0 && op != "diffusion") continue;
      for (BenchCase& c : run_operator(op, assembler, numbering, settings)) {
        print_row(c);
        all_passed = all_passed && c.check_passed;
        report.cases.push_back(std::move(c));
      }
    }
  }
  std::printf("\n");
  for (const std::string& note : report.notes) std::printf("- %s\n", note.c_str());

  // The FE core's target: CPU assembly of diffusion at least 3x faster than PETSc's.
  for (const BenchCase& c : report.cases) {
    if (c.name != "diffusion_csr" || c.variant != "foehn_cpu_assembler") continue;
    char line[200];
    std::snprintf(line, sizeof line,
                  "target (diffusion, %s numbering): Foehn CPU assembly "
                  "%.2fx as fast as PETSc MatSetValues assembly: %s",
                  c.ordering.c_str(), *c.speedup_vs_baseline,
                  *c.speedup_vs_baseline >= 3.0 ? "meets >= 3x" : "below 3x");
    std::printf("%s\n", line);
    report.notes.push_back(line);
  }
  if (!all_passed) {
    std::fprintf(stderr, "bench_fe_cpu: a correctness check failed; no results written\n");
    return 1;
  }
  if (options.write_files) {
    const std::filesystem::path json =
        options.out.empty()
            ? default_result_path(FOEHN_BENCH_RESULTS_DIR, "fe_cpu", device_short_name(cpu))
            : std::filesystem::path(options.out);
    std::filesystem::path md = options.markdown;
    if (md.empty()) md = std::filesystem::path(json).replace_extension(".md");
    write_report(report, json, md);
    std::printf("wrote %s and %s\n", json.c_str(), md.c_str());
  }
  return 0;
}

}  // namespace
}  // namespace foehn::bench

int main(int argc, char** argv) {
  using namespace foehn;
  bench::FeCpuOptions options;
  try {
    options = bench::parse_fe_cpu_options(argc, argv);
  } catch (const Error& error) {
    std::cerr << "bench_fe_cpu: " << error.what() << "\n";
    return 2;
  }
  if (options.help) {
    std::cout << bench::fe_cpu_usage();
    return 0;
  }
  // PETSc gets the program name only: our options are not PETSc's (the library never
  // initialises PETSc; an application does, and this benchmark is one).
  int petsc_argc = 1;
  char** petsc_argv = argv;
  if (PetscInitialize(&petsc_argc, &petsc_argv, nullptr, nullptr) != 0) {
    std::cerr << "bench_fe_cpu: PETSc could not be initialised\n";
    return 1;
  }
  int status = 0;
  try {
    status = bench::run(argc, argv, options);
  } catch (const Error& error) {
    std::cerr << "bench_fe_cpu: " << to_string(error.category()) << ": " << error.what() << "\n";
    status = exit_code_for(error);
  } catch (const std::exception& error) {
    std::cerr << "bench_fe_cpu: " << error.what() << "\n";
    status = 1;
  }
  if (PetscFinalize() != 0 && status == 0) status = 1;
  return status;
}
