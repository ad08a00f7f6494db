// foehn-assemble: a mesh (generated Mountainwave3D or read with -i) and an operator with its
// coefficients in, the assembled matrix (and right-hand side) out as MatrixMarket and/or PETSc
// binary, with the assembly time. For inspecting operators and diffing them between runs,
// numberings and backends (-foehn_backend cpu|cuda|auto, -foehn_assembly for the CUDA strategy).

#include <algorithm>
#include <chrono>
#include <cmath>
#include <iomanip>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "assemble_options.hpp"
#include "assembly_run.hpp"
#include "foehn/fe/assembler.hpp"
#include "foehn/fe/matrix_market.hpp"
#include "foehn/mesh/mesh_files.hpp"
#include "foehn/mesh/mountain.hpp"
#include "foehn/mesh/reorder.hpp"
#include "foehn/mesh/validate.hpp"
#include "foehn/runtime/atomic_file.hpp"
#include "foehn/runtime/backend.hpp"
#include "foehn/runtime/error.hpp"
#include "foehn/runtime/stopwatch.hpp"
#include "operator_inputs.hpp"
#include "petsc_application.hpp"
#include "petsc_binary.hpp"

namespace foehn::app {
namespace {

constexpr const char* usage =
    "foehn-assemble: assemble a P1 finite-element operator and write the matrix\n"
    "usage: foehn-assemble [-i mesh.msh|mesh.vtu [-fix_orientation] | -cells_x 48 -cells_y 48 "
    "-cells_z 40 | "
    "-target_tets N]\n"
    "                      -operator NAME [coefficients]  (-help: the operators, what each reads)\n"
    "                      [-o matrix.mtx] [-rhs_o rhs.mtx] [-petsc_binary file] [-repeat N]\n"
    "                      [-foehn_backend cpu|cuda|auto] "
    "[-foehn_assembly auto|STRATEGY]\n"
    "Without -i the Mountainwave3D mesh is generated (default 48 x 48 x 40 cells, 552,960 tets).\n"
    "Prints the mesh size, the backend, the matrix shape, nonzeros and Frobenius norm, the time "
    "to\n"
    "set up the assembler (sparsity pattern) and the median assembly time. The backend is cpu\n"
    "unless -foehn_backend says otherwise (cuda: the GPU; auto: the GPU if there is one).\n"
    "example: foehn-assemble -cells_x 8 -cells_y 8 -cells_z 6 -operator advection_diffusion\n"
    "         -dt 30 -tensor 50,50,5 -source linear -o a.mtx -rhs_o b.mtx -repeat 5\n\n";

// Fails (io) now rather than after the assembly when an output cannot be written.
void check_outputs_writable(const AssembleToolOptions& o) {
  for (const std::string* path : {&o.matrix_output, &o.rhs_output, &o.petsc_binary})
    if (!path->empty()) AtomicOutputFile check(*path);
}

// Validates the mesh; with -fix_orientation repairs its orientation first. A mesh whose only
// defects are orientation ones is refused naming the option that repairs them.
void check_input_mesh(TetMesh& mesh, const AssembleToolOptions& o) {
  const std::string name = o.input.empty() ? "generated mountain mesh" : o.input;
  MeshCheckOptions options;
  options.fix_orientation = o.fix_orientation;
  const MeshCheckResult result = check_mesh(mesh, options);
  if (!result.ok()) {
    const bool only_orientation =
        std::all_of(result.findings.begin(), result.findings.end(), [](const MeshFinding& f) {
          return f.problem == MeshProblem::inverted_element ||
                 f.problem == MeshProblem::inward_boundary_face;
        });
    fail(ErrorCategory::invalid_input, "mesh '", name, "' is not valid: ", result.summary(),
         only_orientation ? " (-fix_orientation repairs the orientation)" : "");
  }
  if (result.flipped_tets + result.flipped_boundary_faces > 0)
    std::cout << "mesh: -fix_orientation flipped " << result.flipped_tets << " tets and "
              << result.flipped_boundary_faces << " boundary triangles\n";
}

TetMesh load_mesh(const AssembleToolOptions& o, std::string& description) {
  Stopwatch clock;
  TetMesh mesh;
  if (o.input.empty()) {
    mesh = generate_mountain_mesh(o.mountain);
    description = "generated Mountainwave3D, " + std::to_string(o.mountain.cells_x) + " x " +
                  std::to_string(o.mountain.cells_y) + " x " + std::to_string(o.mountain.cells_z) +
                  " cells";
  } else {
    mesh = read_mesh_file(o.input);
    description = o.input;
  }
  check_input_mesh(mesh, o);
  if (o.numbering == MeshNumbering::shuffled) {
    shuffle_numbering(mesh, static_cast<std::uint64_t>(o.seed));
    description += ", shuffled numbering";
  } else if (o.numbering == MeshNumbering::reordered) {
    reorder_for_locality(mesh);
    description += ", reordered (RCM) numbering";
  }
  std::cout << "mesh: " << description << ": " << mesh.node_count() << " nodes, "
            << mesh.tet_count() << " tets (" << std::setprecision(3) << clock.seconds() << " s)\n";
  return mesh;
}

void point_out_unused_options(const AssembleToolOptions& o, Backend backend) {
  const std::set<std::string> used = options_used_by(o.op);
  std::string unused;
  for (const std::string& name : o.given)
    if (!used.count(name)) unused += (unused.empty() ? "" : ", ") + name;
  if (!unused.empty())
    std::cout << "note: the " << o.op << " operator does not use " << unused << "\n";
  if (o.strategy_given && backend == Backend::cpu)
    std::cout << "note: the cpu backend does not use -foehn_assembly (a CUDA strategy)\n";
}

// "cpu", or "cuda, fused_map strategy"; and whether -foehn_backend auto chose it.
std::string describe_backend(const fe::Assembler& assembler, const std::string& requested) {
  std::string text(to_string(assembler.backend()));
  if (assembler.backend() == Backend::cuda)
    text += ", " + std::string(fe::to_string(assembler.strategy())) + " strategy";
  if (requested == "auto") text += " (-foehn_backend auto)";
  return text;
}

double frobenius_norm(const std::vector<double>& values) {
  double sum = 0.0;
  for (double v : values) sum += v * v;
  return std::sqrt(sum);
}

double median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  const std::size_t n = values.size();
  return n % 2 ? values[n / 2] : 0.5 * (values[n / 2 - 1] + values[n / 2]);
}

void report(const TetMesh& mesh, const AssemblyRun& run, double pattern_seconds) {
  const fe::BlockCsrMatrix& m = run.matrix;
  std::cout << std::setprecision(16) << std::scientific << "matrix: " << m.point_rows() << " x "
            << m.point_cols() << ", " << m.values.size() << " nonzeros (" << m.pattern->nnz()
            << " blocks of " << m.block_rows << " x " << m.block_cols << ")\n"
            << "Frobenius norm: " << frobenius_norm(m.values) << "\n";
  if (!run.rhs.empty())
    std::cout << "rhs: " << run.rhs.size() << " entries, 2-norm " << frobenius_norm(run.rhs)
              << "\n";
  std::cout.unsetf(std::ios::floatfield);  // back to the default (general) notation
  const double typical = median(run.seconds);
  const double fastest = *std::min_element(run.seconds.begin(), run.seconds.end());
  std::cout << std::setprecision(4) << "pattern: " << pattern_seconds << " s\n"
            << "assembly: median " << typical << " s, min " << fastest << " s over "
            << run.seconds.size() << " run(s), " << std::setprecision(3)
            << static_cast<double>(mesh.tet_count()) / typical << " tets/s (median)\n";
}

void write_outputs(const AssembleToolOptions& o, const AssemblyRun& run,
                   const std::string& mesh_description) {
  if (o.matrix_output.empty() && o.petsc_binary.empty() && o.rhs_output.empty()) return;
  const std::string comment = "foehn-assemble: " + run.summary + "\nmesh: " + mesh_description;
  fe::PointCsr csr;
  if (!o.matrix_output.empty() || !o.petsc_binary.empty()) csr = fe::to_point_csr(run.matrix);
  std::cout << std::setprecision(3);
  if (!o.matrix_output.empty()) {
    Stopwatch clock;
    fe::write_matrix_market(csr, o.matrix_output, comment);
    std::cout << "wrote " << o.matrix_output << " (MatrixMarket, " << clock.seconds() << " s)\n";
  }
  if (!o.rhs_output.empty()) {
    Stopwatch clock;
    fe::write_matrix_market_vector(run.rhs, o.rhs_output, comment);
    std::cout << "wrote " << o.rhs_output << " (MatrixMarket array, " << clock.seconds() << " s)\n";
  }
  if (!o.petsc_binary.empty()) {
    Stopwatch clock;
    write_petsc_binary(csr, run.rhs, o.petsc_binary);
    std::cout << "wrote " << o.petsc_binary << " (PETSc binary: Mat"
              << (run.rhs.empty() ? "" : ", Vec") << ", " << clock.seconds() << " s)\n";
  }
}

void run_tool() {
  AssembleToolOptions options = read_assemble_tool_options();
  if (help_requested()) return;
  reject_unused_options("foehn-assemble");  // before any work, so a typo writes nothing
  // The backend is resolved before any work too: -foehn_backend cuda without a usable GPU fails
  // at once (unavailable, exit code 1) instead of after building the mesh. The assembler is then
  // given the resolved name; auto's reason for the CPU, if any, is printed as a note.
  const std::string requested_backend = options.assembler.backend;
  std::ostringstream auto_notice;
  const Backend backend = select_backend(requested_backend, &auto_notice);
  options.assembler.backend = std::string(to_string(backend));
  check_outputs_writable(options);

  std::string mesh_description;
  const TetMesh mesh = load_mesh(options, mesh_description);
  std::cout << auto_notice.str();
  point_out_unused_options(options, backend);
  Stopwatch pattern_clock;
  // Builds the node-to-node sparsity pattern (CUDA: uploads the mesh and builds it on the GPU).
  fe::Assembler assembler(mesh, options.assembler);
  const double pattern_seconds = pattern_clock.seconds();
  const AssemblyRun run = run_assembly(mesh, assembler, options);
  std::cout << "operator: " << run.summary << "\n"
            << "backend: " << describe_backend(assembler, requested_backend) << "\n";
  report(mesh, run, pattern_seconds);
  write_outputs(options, run, mesh_description);
}

}  // namespace
}  // namespace foehn::app

int main(int argc, char** argv) {
  return foehn::app::run_petsc_application(argc, argv, {"foehn-assemble", foehn::app::usage},
                                           [] { foehn::app::run_tool(); });
}
