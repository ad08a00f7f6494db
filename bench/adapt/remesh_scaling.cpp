// bench_remesh_scaling: serial Mmg against the parallel remesh (issue 56) on one metric, the one
// an adaptive run gave Mmg (foehn-mountainwave -adapt_write_metric writes it as
// adapt_metric_<step>.vtu: the mesh with the metric as the 3 x 3 node field "metric"). Per case:
// wall seconds, tets made per second, the result's size and quality (foehn::mesh_quality, edges
// against --hmin / --hmax), and per pass of the parallel remesh its parts and seconds.
//
//   bench_remesh_scaling --input adapt_metric_000020.vtu [--threads 1,8,16,32] [--hmin 125]
//                        [--hmax 10000] [--gradation 1.3] [--band-layers 3,0] --out scaling.json
//
// --balance-work 0|1, --max-passes N, --short-edge M (default 0.6 x --hmin, as foehn-mountainwave;
// 0: the fraction), --short-edge-fraction F and --frozen-gradation G (0: Mmg's default 2.3, -1
// none) set ParallelRemeshOptions' own.
// --band-layers: each thread count once per value (ParallelRemeshOptions::band_layers; 0 remeshes
// the whole mesh in every pass, the first version's way).
#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "foehn/adapt/parallel_remesh.hpp"
#include "foehn/adapt/remesh.hpp"
#include "foehn/mesh/quality.hpp"
#include "foehn/mesh/quality_json.hpp"
#include "foehn/mesh/vtk_io.hpp"
#include "foehn/runtime/error.hpp"
#include "foehn/runtime/stopwatch.hpp"

namespace foehn::adapt {
namespace {

struct Options {
  std::string input, out;
  std::vector<int> threads = {1, 8, 16, 32};
  std::vector<int> band_layers = {ParallelRemeshOptions{}.band_layers};
  int max_passes = ParallelRemeshOptions{}.max_passes;
  bool balance_work = ParallelRemeshOptions{}.balance_work;
  double short_edge_fraction = ParallelRemeshOptions{}.short_edge_fraction;
  double short_edge = -1;  // m; -1: mmg_shortest_edge_fraction x --hmin, as the mountain wave
  double hmin = 125, hmax = 10000, gradation = 1.3;
  int parts = 0;                  // 0: one per thread
  int verbosity = -1;             // Mmg's
  bool serial = true;             // the serial Mmg baseline first
  bool both_memory_caps = false;  // each thread count also with Mmg's default memory per part
  double frozen_gradation = ParallelRemeshOptions{}.frozen_gradation;
};

std::vector<int> parse_list(const std::string& text) {
  std::vector<int> values;
  std::size_t start = 0;
  while (start <= text.size()) {
    const std::size_t comma = text.find(',', start);
    values.push_back(std::stoi(text.substr(start, comma - start)));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return values;
}

Options parse(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (i + 1 >= argc) fail(ErrorCategory::invalid_input, arg, " needs a value");
    const std::string value = argv[++i];
    if (arg == "--input")
      o.input = value;
    else if (arg == "--out")
      o.out = value;
    else if (arg == "--threads")
      o.threads = parse_list(value);
    else if (arg == "--band-layers")
      o.band_layers = parse_list(value);
    else if (arg == "--balance-work")
      o.balance_work = value != "0";
    else if (arg == "--max-passes")
      o.max_passes = std::stoi(value);
    else if (arg == "--short-edge-fraction")
      o.short_edge_fraction = std::stod(value);
    else if (arg == "--short-edge")
      o.short_edge = std::stod(value);
    else if (arg == "--hmin")
      o.hmin = std::stod(value);
    else if (arg == "--hmax")
      o.hmax = std::stod(value);
    else if (arg == "--gradation")
      o.gradation = std::stod(value);
    else if (arg == "--parts")
      o.parts = std::stoi(value);
    else if (arg == "--verbosity")
      o.verbosity = std::stoi(value);
    else if (arg == "--serial")
      o.serial = value != "0";
    else if (arg == "--frozen-gradation")
      o.frozen_gradation = std::stod(value);
    else if (arg == "--both-memory-caps")
      o.both_memory_caps = value != "0";
    else
      fail(ErrorCategory::invalid_input, "bench_remesh_scaling: unknown argument ", arg);
  }
  if (o.short_edge < 0) o.short_edge = mmg_shortest_edge_fraction * o.hmin;
  if (o.input.empty() || o.out.empty())
    fail(ErrorCategory::invalid_input, "bench_remesh_scaling: --input and --out are needed");
  return o;
}

std::vector<Sym3<double>> metric_of(const TetMesh& mesh, const std::string& file) {
  for (const MeshField& field : mesh.node_fields)
    if (field.name == "metric" && field.components == 9) {
      std::vector<Sym3<double>> metric(mesh.node_count());
      for (std::size_t n = 0; n < metric.size(); ++n) {
        const double* m = field.values.data() + 9 * n;
        metric[n] = Sym3<double>{m[0], m[4], m[8], m[1], m[2], m[5]};
      }
      return metric;
    }
  fail(ErrorCategory::invalid_input, file, " has no 9-component node field \"metric\"");
}

nlohmann::json measured(const std::string& name, int threads, const TetMesh& adapted,
                        double seconds, const Options& o) {
  const MeshQuality quality = mesh_quality(adapted, EdgeBounds{o.hmin, o.hmax});
  std::printf("%-10s %3d threads: %8.2f s, %9zu tets (%8.0f tets/s); %s\n", name.c_str(), threads,
              seconds, adapted.tet_count(), static_cast<double>(adapted.tet_count()) / seconds,
              describe(quality, EdgeBounds{o.hmin, o.hmax}).c_str());
  return {{"name", name},
          {"threads", threads},
          {"seconds", seconds},
          {"nodes", adapted.node_count()},
          {"tets", adapted.tet_count()},
          {"tets_per_second", static_cast<double>(adapted.tet_count()) / seconds},
          {"quality", to_json(quality)}};
}

int run(int argc, char** argv) {
  const Options o = parse(argc, argv);
  TetMesh mesh = read_vtu(o.input);
  const std::vector<Sym3<double>> metric = metric_of(mesh, o.input);
  mesh.node_fields.clear();
  mesh.tet_fields.clear();
  RemeshOptions options;
  options.gradation = o.gradation;
  options.verbosity = o.verbosity;
  std::printf("%s: %zu nodes, %zu tets, %zu boundary triangles\n", o.input.c_str(),
              mesh.node_count(), mesh.tet_count(), mesh.boundary_face_count());
  nlohmann::json cases = nlohmann::json::array();
  if (o.serial) {
    const Stopwatch watch;
    const TetMesh serial = remesh(mesh, metric, options);
    cases.push_back(measured("serial_mmg", 1, serial, watch.seconds(), o));
  }
  for (const int threads : o.threads)
    for (const int band_layers : o.band_layers)
      for (const bool capped :
           o.both_memory_caps ? std::vector<bool>{true, false} : std::vector<bool>{true}) {
        ParallelRemeshOptions parallel;
        parallel.threads = threads;
        parallel.band_layers = band_layers;
        parallel.max_passes = o.max_passes;
        parallel.balance_work = o.balance_work;
        parallel.short_edge_fraction = o.short_edge_fraction;
        parallel.short_edge = o.short_edge;
        parallel.parts = o.parts;
        parallel.cap_part_memory = capped;
        parallel.frozen_gradation = o.frozen_gradation;
        ParallelRemeshReport report;
        const Stopwatch watch;
        const TetMesh adapted = remesh_in_parallel(mesh, metric, options, parallel, &report);
        nlohmann::json record = measured(capped ? "parallel" : "parallel_mmg_default_memory",
                                         threads, adapted, watch.seconds(), o);
        record["band_layers"] = band_layers;
        record["short_edge_fraction"] = o.short_edge_fraction;
        record["short_edge"] = o.short_edge;
        record["balance_work"] = o.balance_work;
        record["frozen_gradation"] = o.frozen_gradation;
        record["short_edge_nodes_left"] = report.short_edge_nodes_left;
        record["partition_seconds"] = report.partition;
        record["tets_never_free"] = report.tets_never_free;
        record["nodes_never_free"] = report.nodes_never_free;
        nlohmann::json passes = nlohmann::json::array();
        for (const ParallelRemeshPass& pass : report.passes)
          passes.push_back({{"parts", pass.parts},
                            {"remeshed_tets", pass.remeshed_tets},
                            {"interface_faces", pass.interface_faces},
                            {"nodes", pass.nodes},
                            {"tets", pass.tets},
                            {"nodes_frozen_throughout", pass.nodes_frozen_throughout},
                            {"short_edge_nodes", pass.short_edge_nodes},
                            {"split_seconds", pass.split},
                            {"mmg_seconds", pass.mmg},
                            {"merge_seconds", pass.merge},
                            {"slowest_part_seconds", pass.slowest_part},
                            {"mmg_cpu_seconds", pass.mmg_cpu}});
        record["passes"] = passes;
        std::printf("  band of %d layers, METIS and bands %.2f s\n", band_layers, report.partition);
        for (const ParallelRemeshPass& pass : report.passes)
          std::printf(
              "  pass: %d parts of %zu tets, %zu interface faces, %zu tets after, split %.2f s, "
              "Mmg %.2f s (slowest part %.2f s, all parts %.2f s), merge %.2f s, %zu nodes frozen "
              "throughout, %zu at short edges\n",
              pass.parts, pass.remeshed_tets, pass.interface_faces, pass.tets, pass.split, pass.mmg,
              pass.slowest_part, pass.mmg_cpu, pass.merge, pass.nodes_frozen_throughout,
              pass.short_edge_nodes);
        cases.push_back(record);
      }
  const nlohmann::json all = {{"input", o.input},
                              {"input_nodes", mesh.node_count()},
                              {"input_tets", mesh.tet_count()},
                              {"cases", cases}};
  std::ofstream(o.out) << all.dump(1) << "\n";
  return 0;
}

}  // namespace
}  // namespace foehn::adapt

int main(int argc, char** argv) {
  try {
    return foehn::adapt::run(argc, argv);
  } catch (const foehn::Error& e) {
    std::fprintf(stderr, "bench_remesh_scaling: %s\n", e.what());
    return foehn::exit_code_for(e);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bench_remesh_scaling: %s\n", e.what());
    return 2;
  }
}
