// bench_library_api: what the library's entry points cost on top of the backend they call, in
// the same run and on the same device arrays: diffusion (CSR, P1 tensor) and momentum (3 x 3
// BCSR) assembled with the CUDA fused_map strategy (a) through CudaAssembler directly, (b)
// through fe::Assembler with device fields and results, (c) through the C ABI
// (foehn_assemble_values, the path the Fortran module takes), each timed to completion (stream
// synchronised), interleaved round robin. Ratios against (a) are the result; the absolute
// times are context. Also the C ABI with host fields and results (uploads and downloads
// included), the case of a Fortran core whose arrays live on the host.
//   bench_library_api [-mesh_tets 554394] [-repeats 20] [-out_dir bench/results]
#include <cstdio>
#include <exception>
#include <functional>
#include <string>

#include "bench_results.hpp"
#include "bench_timing.hpp"
#include "foehn/fe/assembler.hpp"
#include "foehn/foehn.h"
#include "foehn/mesh/mountain.hpp"
#include "foehn/runtime/device.hpp"
#include "foehn/runtime/error.hpp"

namespace {

using namespace foehn;

std::vector<double> field(std::size_t count, double base) {
  std::vector<double> values(count);
  for (std::size_t k = 0; k < count; ++k) values[k] = base + 1e-3 * static_cast<double>(k % 97);
  return values;
}

// C ABI calls must succeed here; a failure is reported with the library's message.
void check(foehn_status status, const char* what) {
  if (status != FOEHN_SUCCESS) fail(ErrorCategory::internal, what, ": ", foehn_last_error());
}

template <class Op>
void run_case(const std::string& name, const TetMesh& mesh, const char* c_name,
              const char* field_name, int components, int repeats, bench::BenchReport& report) {
  const std::size_t nodes = mesh.node_count();
  const std::vector<double> host_field = field(nodes * components, components == 9 ? 1.0 : 0.5);
  Stream stream;
  DeviceArray<double> device_field(host_field.size(), stream);
  device_field.copy_from_host_async(host_field, stream);
  fe::CudaAssembler direct(mesh, stream);
  fe::Assembler facade(mesh, {.backend = "cuda",
                              .strategy = fe::AssemblyStrategy::fused_map,
                              .stream = stream.native_handle()});
  const std::size_t value_count = facade.value_count<Op>();
  DeviceArray<double> values(value_count, stream), rhs(nodes * Op::block_rows, stream);
  std::vector<double> host_values(value_count), host_rhs(nodes * Op::block_rows);

  Op op;  // the field the C ABI sets by name, set here the same way
  op.for_each_field([&](const fe::FieldRef& f, int, const char* n, bool) {
    if (std::string(n) == field_name)
      const_cast<fe::FieldRef&>(f) = fe::field_ref(device_field.data(), device_field.size());
  });
  foehn_mesh c_mesh = nullptr;
  foehn_assembler c_assembler = nullptr;
  foehn_operator c_op = nullptr, c_host_op = nullptr;
  std::vector<std::int32_t> connectivity;
  std::vector<double> xyz;
  for (const Tet& t : mesh.tets) connectivity.insert(connectivity.end(), t.begin(), t.end());
  for (const Point3& p : mesh.nodes) xyz.insert(xyz.end(), p.begin(), p.end());
  check(foehn_mesh_create(static_cast<int64_t>(nodes), xyz.data(),
                          static_cast<int64_t>(mesh.tet_count()), connectivity.data(), 4, 0,
                          FOEHN_ORIENTATION_CHECK, &c_mesh),
        "foehn_mesh_create");
  check(foehn_assembler_create_on_stream(c_mesh, "cuda", "fused_map", stream.native_handle(),
                                         &c_assembler),
        "foehn_assembler_create");
  check(foehn_operator_create(c_name, &c_op), "foehn_operator_create");
  check(foehn_operator_set_field(c_op, field_name, device_field.data(),
                                 static_cast<int64_t>(device_field.size())),
        "set_field");
  check(foehn_operator_create(c_name, &c_host_op), "foehn_operator_create");
  check(foehn_operator_set_field(c_host_op, field_name, host_field.data(),
                                 static_cast<int64_t>(host_field.size())),
        "set_field");

  const std::vector<std::function<void()>> bodies = {
      [&] {
        direct.assemble(op,
                        fe::DeviceAssemblyTarget{Op::block_rows, Op::block_cols, values.data(),
                                                 value_count, rhs.data(), rhs.size()},
                        fe::AssemblyStrategy::fused_map);
        stream.synchronize();
      },
      [&] {
        facade.assemble(
            op, fe::Memory::device,
            {fe::Memory::device, {values.data(), value_count}, {rhs.data(), rhs.size()}});
        stream.synchronize();
      },
      [&] {
        check(foehn_assemble_values(c_assembler, c_op, FOEHN_MEMORY_DEVICE, FOEHN_MEMORY_DEVICE,
                                    values.data(), static_cast<int64_t>(value_count), rhs.data(),
                                    static_cast<int64_t>(rhs.size())),
              "foehn_assemble_values");
        check(foehn_assembler_synchronize(c_assembler), "synchronize");
      },
      [&] {
        check(foehn_assemble_values(c_assembler, c_host_op, FOEHN_MEMORY_HOST, FOEHN_MEMORY_HOST,
                                    host_values.data(), static_cast<int64_t>(value_count),
                                    host_rhs.data(), static_cast<int64_t>(host_rhs.size())),
              "foehn_assemble_values (host)");
      }};
  const std::vector<bench::Timing> timings = bench::time_interleaved(bodies, 3, repeats);
  const char* variants[] = {"cuda_assembler_direct", "fe_assembler_device", "c_abi_device",
                            "c_abi_host_fields_and_results"};
  for (std::size_t k = 0; k < bodies.size(); ++k) {
    bench::BenchCase c;
    c.name = name;
    c.size = static_cast<std::int64_t>(mesh.tet_count());
    c.variant = variants[k];
    c.time_ms = timings[k].median_ms;
    c.repeats = repeats;
    c.throughput = static_cast<double>(mesh.tet_count()) / (c.time_ms * 1e-3);
    if (k > 0) {
      c.baseline = variants[0];
      c.speedup_vs_baseline = timings[0].median_ms / timings[k].median_ms;
    }
    std::printf("%-15s %-30s %9.4f ms  %.3fx the direct call's speed\n", name.c_str(), variants[k],
                c.time_ms, c.speedup_vs_baseline.value_or(1.0));
    report.cases.push_back(c);
  }
  foehn_operator_destroy(&c_op);
  foehn_operator_destroy(&c_host_op);
  foehn_assembler_destroy(&c_assembler);
  foehn_mesh_destroy(&c_mesh);
}

int run(int argc, char** argv) {
  long long tets = 554394;
  int repeats = 20;
  std::string out_dir = FOEHN_BENCH_RESULTS_DIR;
  for (int k = 1; k + 1 < argc; k += 2) {
    const std::string key = argv[k];
    if (key == "-mesh_tets")
      tets = std::stoll(argv[k + 1]);
    else if (key == "-repeats")
      repeats = std::stoi(argv[k + 1]);
    else if (key == "-out_dir")
      out_dir = argv[k + 1];
    else
      fail(ErrorCategory::invalid_input, "unknown option ", key);
  }
  if (tets < 1000 || repeats < 1) fail(ErrorCategory::invalid_input, "bad -mesh_tets or -repeats");
  if (cuda_device_count() == 0) {
    std::printf("bench_library_api: no GPU here, nothing to measure\n");
    return 0;
  }
  const TetMesh mesh =
      generate_mountain_mesh(mountain_options_for_tets(static_cast<std::size_t>(tets)));
  bench::BenchReport report =
      bench::make_report("library_api", device_info(current_device()).name, argc, argv);
  report.notes.push_back(
      "fused_map strategy; every body synchronises its stream; bodies "
      "interleaved round robin, median of the repeats");
  run_case<fe::DiffusionOperator>("diffusion_csr", mesh, "diffusion", "tensor", 9, repeats, report);
  run_case<fe::MomentumOperator>("momentum_bcsr3", mesh, "momentum", "advecting_velocity", 3,
                                 repeats, report);
  bench::write_report(report, bench::default_result_path(out_dir, report.area,
                                                         bench::device_short_name(report.device)));
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return run(argc, argv);
  } catch (const std::exception& error) {
    std::fprintf(stderr, "bench_library_api: %s\n", error.what());
    return 2;
  }
}
