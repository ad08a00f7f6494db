// foehn-mesh: generate the Mountainwave3D mesh, convert between .msh and .vtu, check a mesh
// for defects and print its statistics or its quality (as JSON). The first of Foehn's
// command-line applications.

#include <chrono>
#include <filesystem>
#include <iostream>
#include <ostream>
#include <string>

#include <nlohmann/json.hpp>

#include "foehn/mesh/mesh_files.hpp"
#include "foehn/mesh/mountain.hpp"
#include "foehn/mesh/partition.hpp"
#include "foehn/mesh/quality.hpp"
#include "foehn/mesh/quality_json.hpp"
#include "foehn/mesh/reorder.hpp"
#include "foehn/mesh/statistics.hpp"
#include "foehn/mesh/validate.hpp"
#include "foehn/mesh/vtk_io.hpp"
#include "foehn/runtime/atomic_file.hpp"
#include "foehn/runtime/error.hpp"
#include "foehn/runtime/stopwatch.hpp"
#include "mesh_tool_options.hpp"
#include "petsc_application.hpp"

namespace foehn::app {
namespace {

constexpr const char* usage =
    "foehn-mesh: tetrahedral meshes for Foehn\n"
    "usage: foehn-mesh <command> [options]\n"
    "commands:\n"
    "  generate  build the Mountainwave3D mesh (60 x 60 x 16 km, bell mountain h0 = 400 m,\n"
    "            a = 1000 m), validate it, write it and print its statistics (default)\n"
    "  convert   read -i (.msh or .vtu), validate, write -o (.vtu or .msh)\n"
    "  check     validate -i and list every defect; exit code 2 when invalid\n"
    "  stats     validate -i and print its statistics\n"
    "  quality   validate -i and print its quality as one JSON object (dihedral angles,\n"
    "            aspect ratios, edge lengths against -shortest_edge / -longest_edge)\n"
    "example: foehn-mesh generate -o out/mountain.vtu -boundary_o out/mountain_boundary.vtu\n\n";

MeshCheckOptions check_options(const MeshToolOptions& o) {
  MeshCheckOptions check;
  check.fix_orientation = o.fix_orientation;
  check.allow_unused_nodes = o.allow_unused_nodes;
  return check;
}

void require_input(const MeshToolOptions& o, const std::string& command) {
  if (o.input.empty())
    fail(ErrorCategory::invalid_input, command, " needs an input mesh: -i <file.msh|file.vtu>");
}

void apply_numbering(TetMesh& mesh, const MeshToolOptions& o) {
  if (o.numbering == Numbering::shuffled)
    shuffle_numbering(mesh, static_cast<std::uint64_t>(o.seed));
  if (o.numbering == Numbering::reordered) reorder_for_locality(mesh);
  if (o.numbering != Numbering::natural)
    std::cout << "numbering: " << (o.numbering == Numbering::shuffled ? "shuffled" : "reordered")
              << " (node graph bandwidth " << node_graph_bandwidth(mesh) << ")\n";
}

void add_partition_field(TetMesh& mesh, const MeshToolOptions& o) {
  if (o.partitions <= 0) return;
  const std::vector<std::int32_t> part = partition_elements(mesh, o.partitions);
  const PartitionStats stats = partition_stats(mesh, part);
  MeshField field{"partition", 1, std::vector<double>(part.begin(), part.end())};
  mesh.tet_fields.push_back(std::move(field));
  std::cout << "partition: " << stats.parts << " parts, imbalance " << stats.imbalance
            << ", cut faces " << stats.cut_faces << " of " << stats.interior_faces << "\n";
}

// The folder of an output is made for it (the default -o is out/mountain.vtu).
void make_folder_of(const std::string& file, const char* option) {
  const std::filesystem::path folder = std::filesystem::path(file).parent_path();
  if (!folder.empty()) make_output_folder(folder, option);
}

void write_outputs(const TetMesh& mesh, const MeshToolOptions& o) {
  if (!o.output.empty()) make_folder_of(o.output, "-o");
  if (!o.boundary_output.empty()) make_folder_of(o.boundary_output, "-boundary_o");
  if (!o.output.empty()) {
    Stopwatch clock;
    write_mesh_file(mesh, o.output, o.gmsh_format);
    std::cout << "wrote " << o.output << " (" << clock.seconds() << " s)\n";
  }
  if (!o.boundary_output.empty()) {
    write_boundary_vtu(mesh, o.boundary_output);
    std::cout << "wrote " << o.boundary_output
              << " (boundary triangles, cell field boundary_tag)\n";
  }
}

void run_generate(const MeshToolOptions& o) {
  Stopwatch clock;
  TetMesh mesh = generate_mountain_mesh(o.mountain);
  std::cout << "generated Mountainwave3D mesh: " << o.mountain.cells_x << " x "
            << o.mountain.cells_y << " x " << o.mountain.cells_z << " cells, 6 tets each ("
            << clock.seconds() << " s)\n";
  validate_mesh(mesh, "generated mountain mesh");
  apply_numbering(mesh, o);
  add_partition_field(mesh, o);
  write_outputs(mesh, o);
  print_statistics(std::cout, compute_statistics(mesh));
}

// `log`: where the repairs of -fix_orientation are reported.
TetMesh read_and_validate(const MeshToolOptions& o, std::ostream& log = std::cout) {
  TetMesh mesh = read_mesh_file(o.input);
  const MeshCheckResult result = check_mesh(mesh, check_options(o));
  if (result.flipped_tets || result.flipped_boundary_faces)
    log << "fixed orientation of " << result.flipped_tets << " tets and "
        << result.flipped_boundary_faces << " boundary triangles\n";
  if (!result.ok())
    fail(ErrorCategory::invalid_input, "mesh '", o.input, "' is not valid: ", result.summary());
  return mesh;
}

void run_convert(const MeshToolOptions& o) {
  require_input(o, "convert");
  if (o.output.empty()) fail(ErrorCategory::invalid_input, "convert needs an output: -o <file>");
  TetMesh mesh = read_and_validate(o);
  apply_numbering(mesh, o);
  add_partition_field(mesh, o);
  write_outputs(mesh, o);
}

void run_check(const MeshToolOptions& o) {
  require_input(o, "check");
  TetMesh mesh = read_mesh_file(o.input);
  const MeshCheckResult result = check_mesh(mesh, check_options(o));
  std::cout << o.input << ": " << mesh.node_count() << " nodes, " << mesh.tet_count() << " tets, "
            << mesh.boundary_face_count() << " boundary triangles\n";
  for (const MeshFinding& f : result.findings)
    std::cout << "  " << f.count << " x " << to_string(f.problem) << " (first: " << f.first_detail
              << ")\n";
  if (!result.ok())
    fail(ErrorCategory::invalid_input, "mesh '", o.input, "' has ", result.findings.size(),
         " kind(s) of defect");
  std::cout << "  mesh is valid\n";
}

void run_stats(const MeshToolOptions& o) {
  require_input(o, "stats");
  const TetMesh mesh = read_and_validate(o);
  print_statistics(std::cout, compute_statistics(mesh));
}

// stdout is the JSON object alone (for scripts); the rest goes to stderr.
void run_quality(const MeshToolOptions& o) {
  require_input(o, "quality");
  const TetMesh mesh = read_and_validate(o, std::cerr);
  std::cout << to_json(mesh_quality(mesh, o.quality_bounds)).dump(2) << "\n";
}

void run_command(const std::string& command) {
  const MeshToolOptions options = read_mesh_tool_options(command);
  if (help_requested()) return;
  reject_unused_options("foehn-mesh");  // before any work, so a typo writes nothing
  if (command == "generate") return run_generate(options);
  if (command == "convert") return run_convert(options);
  if (command == "check") return run_check(options);
  if (command == "stats") return run_stats(options);
  if (command == "quality") return run_quality(options);
  fail(ErrorCategory::invalid_input, "unknown command '", command,
       "' (commands: generate, convert, check, stats, quality; -help for options)");
}

}  // namespace
}  // namespace foehn::app

int main(int argc, char** argv) {
  // The command is the first argument that is not an option; PETSc sees only the options.
  std::string command = "generate";
  if (argc > 1 && argv[1][0] != '-') {
    command = argv[1];
    for (int i = 1; i + 1 < argc; ++i) argv[i] = argv[i + 1];
    --argc;
  }
  return foehn::app::run_petsc_application(argc, argv, {"foehn-mesh", foehn::app::usage},
                                           [&] { foehn::app::run_command(command); });
}
