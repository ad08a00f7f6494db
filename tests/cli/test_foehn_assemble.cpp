// Runs the foehn-assemble executable and checks what it writes against the CPU reference
// assembler run in this process (bitwise: both run the same libfoehn code on the same mesh and
// fields), against SciPy's MatrixMarket reader and against PETSc's MatLoad; that the backend
// options (-foehn_backend, -foehn_assembly) keep the default CPU files byte for byte, fail
// cleanly without a GPU and reject wrong values; and that bad input exits with code 2 and writes
// nothing.

#include <gtest/gtest.h>

#include <petscmat.h>
#include <sys/wait.h>
#include <unistd.h>
#include "support/run_command.hpp"
#include "support/temp_dir.hpp"

#include <array>
#include <bit>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <sstream>
#include <string>
#include <vector>

#include "foehn/fe/builtin_operator_by_name.hpp"
#include "foehn/fe/cpu_assembler.hpp"
#include "foehn/fe/matrix_market.hpp"
#include "foehn/mesh/mesh_files.hpp"
#include "foehn/mesh/mountain.hpp"
#include "foehn/mesh/statistics.hpp"
#include "foehn/petsc/petsc_check.hpp"
#include "foehn/runtime/device.hpp"
#include "foehn/runtime/memory_budget.hpp"

namespace fs = std::filesystem;
using namespace foehn;

namespace {

using foehn::testing::run_command;
using foehn::testing::RunResult;

RunResult run_tool(const std::string& arguments) {
  return run_command(std::string(FOEHN_ASSEMBLE_TOOL) + " " + arguments);
}

// The tool's stderr alone (stdout discarded) and its exit code: where a refusal must be.
RunResult run_tool_stderr(const std::string& arguments) {
  return run_command("{ " + std::string(FOEHN_ASSEMBLE_TOOL) + " " + arguments +
                     " 2>&3 >/dev/null; } 3>&1");
}

// The small generated mesh of every test: -cells_x 4 -cells_y 4 -cells_z 3.
const std::string small_mesh = "-cells_x 4 -cells_y 4 -cells_z 3";
TetMesh small_mountain_mesh() {
  MountainMeshOptions options;
  options.cells_x = options.cells_y = 4;
  options.cells_z = 3;
  return generate_mountain_mesh(options);
}

// Nodal fields as the tool builds them from its options.
std::vector<double> constant_vector(const TetMesh& mesh, std::array<double, 3> v) {
  std::vector<double> f;
  for (std::size_t i = 0; i < mesh.node_count(); ++i) f.insert(f.end(), v.begin(), v.end());
  return f;
}
std::vector<double> diagonal_tensor(const TetMesh& mesh, std::array<double, 3> d) {
  std::vector<double> f(mesh.node_count() * 9, 0.0);
  for (std::size_t i = 0; i < mesh.node_count(); ++i)
    for (int k = 0; k < 3; ++k) f[i * 9 + k * 4] = d[k];
  return f;
}
std::vector<double> linear_scalar(const TetMesh& mesh) {
  std::vector<double> f;
  for (const Point3& x : mesh.nodes) f.push_back(x[0] + x[1] + x[2]);
  return f;
}
std::vector<double> linear_vector(const TetMesh& mesh) {
  std::vector<double> f;
  for (const Point3& x : mesh.nodes) f.insert(f.end(), x.begin(), x.end());
  return f;
}

struct Assembled {
  fe::PointCsr matrix;
  std::vector<double> rhs;  // empty when the case has no source
};

template <class Op>
Assembled assemble(const TetMesh& mesh, const Op& op, bool with_rhs) {
  const fe::CpuAssembler assembler(mesh);
  fe::BlockCsrMatrix m = assembler.create_matrix<Op>();
  Assembled out;
  if (with_rhs) out.rhs.resize(mesh.node_count() * Op::block_rows);
  assembler.assemble(op, m, out.rhs);
  out.matrix = fe::to_point_csr(m);
  return out;
}

void expect_bitwise_equal(const std::vector<double>& a, const std::vector<double>& b,
                          const std::string& what) {
  ASSERT_EQ(a.size(), b.size()) << what;
  std::size_t differing = 0;
  for (std::size_t k = 0; k < a.size(); ++k)
    if (std::bit_cast<std::uint64_t>(a[k]) != std::bit_cast<std::uint64_t>(b[k])) ++differing;
  EXPECT_EQ(differing, 0u) << what << ": " << differing << " of " << a.size() << " values differ";
}

void expect_same_matrix(const fe::PointCsr& a, const fe::PointCsr& b, const std::string& what) {
  EXPECT_EQ(a.rows, b.rows) << what;
  EXPECT_EQ(a.cols, b.cols) << what;
  EXPECT_EQ(a.row_offsets, b.row_offsets) << what;
  EXPECT_EQ(a.column_indices, b.column_indices) << what;
  expect_bitwise_equal(a.values, b.values, what);
}

std::string file_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

class AssembleTool : public ::testing::Test {
 protected:
  std::string path(const std::string& name) const { return (folder_ / name).string(); }
  std::size_t files_in_folder() const {
    return static_cast<std::size_t>(std::distance(fs::directory_iterator(folder_.path()), {}));
  }
  foehn::testing::TempDir folder_;
};

struct OperatorCase {
  std::string arguments;  // operator and coefficients
  std::function<Assembled(const TetMesh&)> expected;
};

std::vector<OperatorCase> operator_cases() {
  return {
      {"-operator mass -scale 2.5 -source linear",
       [](const TetMesh& mesh) {
         const auto f = linear_scalar(mesh);
         fe::MassOperator op;
         op.scale = 2.5;
         op.source = fe::field_ref(f);
         return assemble(mesh, op, true);
       }},
      {"-operator advection -source constant",  // default velocity 10,0,0
       [](const TetMesh& mesh) {
         const auto u = constant_vector(mesh, {10, 0, 0});
         const std::vector<double> f(mesh.node_count(), 1.0);
         fe::AdvectionOperator op;
         op.velocity = fe::field_ref(u);
         op.source = fe::field_ref(f);
         return assemble(mesh, op, true);
       }},
      {"-operator diffusion -tensor 50,50,5 -scale 0.5",
       [](const TetMesh& mesh) {
         const auto k = diagonal_tensor(mesh, {50, 50, 5});
         fe::DiffusionOperator op;
         op.scale = 0.5;
         op.tensor = fe::field_ref(k);
         return assemble(mesh, op, false);
       }},
      {"-operator advection_diffusion -dt 30 -theta 0.6 -velocity 3,-2,0.5 -source linear",
       [](const TetMesh& mesh) {
         const auto u = constant_vector(mesh, {3, -2, 0.5});
         const auto f = linear_scalar(mesh);
         fe::AdvectionDiffusionOperator op;
         op.inverse_dt = 1.0 / 30.0;
         op.theta = 0.6;
         op.velocity = fe::field_ref(u);
         op.source = fe::field_ref(f);
         return assemble(mesh, op, true);
       }},
      {"-operator stabilisation -scale 0.25",
       [](const TetMesh& mesh) {
         fe::StabilisationOperator op;
         op.scale = 0.25;
         return assemble(mesh, op, false);
       }},
      {"-operator divergence",
       [](const TetMesh& mesh) { return assemble(mesh, fe::DivergenceOperator{}, false); }},
      {"-operator momentum -dt 10 -density 1.2 -viscosity 0.01 -source linear",
       [](const TetMesh& mesh) {
         const auto w = constant_vector(mesh, {10, 0, 0});
         const auto f = linear_vector(mesh);
         fe::MomentumOperator op;
         op.density_over_dt = 1.2 / 10.0;
         op.viscosity = 0.01;
         op.advecting_velocity = fe::field_ref(w);
         op.body_force = fe::field_ref(f);
         return assemble(mesh, op, true);
       }},
  };
}

TEST_F(AssembleTool, EveryOperatorWritesTheMatrixOfTheCpuAssemblerBitwise) {
  const TetMesh mesh = small_mountain_mesh();
  for (const OperatorCase& c : operator_cases()) {
    SCOPED_TRACE(c.arguments);
    const Assembled expected = c.expected(mesh);
    const bool with_rhs = !expected.rhs.empty();
    const RunResult r = run_tool(small_mesh + " " + c.arguments + " -o " + path("m.mtx") +
                                 (with_rhs ? " -rhs_o " + path("b.mtx") : std::string()));
    ASSERT_EQ(r.exit_code, 0) << r.output;
    expect_same_matrix(fe::read_matrix_market(path("m.mtx")), expected.matrix, c.arguments);
    if (with_rhs)
      expect_bitwise_equal(fe::read_matrix_market_vector(path("b.mtx")), expected.rhs, "rhs");
    EXPECT_EQ(files_in_folder(), with_rhs ? 2u : 1u);  // no temporaries left
    fs::remove(path("m.mtx"));
    fs::remove(path("b.mtx"));
  }
}

TEST_F(AssembleTool, ReadsAMeshAndItsNodeFields) {
  TetMesh mesh = small_mountain_mesh();
  mesh.node_fields.push_back({"wind", 3, linear_vector(mesh)});
  mesh.node_fields.push_back({"kdiag", 3, constant_vector(mesh, {4, 3, 0.5})});
  write_mesh_file(mesh, path("in.vtu"));
  const RunResult r = run_tool("-i " + path("in.vtu") +
                               " -operator advection_diffusion -velocity field:wind "
                               "-tensor field:kdiag -o " +
                               path("m.mtx"));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const TetMesh read = read_mesh_file(path("in.vtu"));
  const auto k = diagonal_tensor(read, {4, 3, 0.5});
  fe::AdvectionDiffusionOperator op;
  op.velocity = fe::field_ref(read.node_fields[0].values);
  op.tensor = fe::field_ref(k);
  expect_same_matrix(fe::read_matrix_market(path("m.mtx")), assemble(read, op, false).matrix,
                     "field coefficients");

  const RunResult missing =
      run_tool("-i " + path("in.vtu") + " -operator advection -velocity field:u");
  EXPECT_EQ(missing.exit_code, 2) << missing.output;
  EXPECT_NE(missing.output.find("wind (3)"), std::string::npos) << missing.output;
}

TEST_F(AssembleTool, PrintsSizesNormAndTiming) {
  const TetMesh mesh = small_mountain_mesh();
  const RunResult r = run_tool(small_mesh + " -operator momentum -repeat 3");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const std::string n = std::to_string(mesh.node_count() * 3);
  for (const std::string& expected : std::vector<std::string>{
           "288 tets", "operator: momentum (3 x 3 blocks)", "matrix: " + n + " x " + n,
           "Frobenius norm: ", "pattern: ", "over 3 run(s)", "tets/s"})
    EXPECT_NE(r.output.find(expected), std::string::npos) << "missing '" << expected << "':\n"
                                                          << r.output;
  fe::MomentumOperator op;
  const auto w = constant_vector(mesh, {10, 0, 0});
  op.advecting_velocity = fe::field_ref(w);
  double sum = 0.0;
  for (double v : assemble(mesh, op, false).matrix.values) sum += v * v;
  const std::size_t at = r.output.find("Frobenius norm: ");
  ASSERT_NE(at, std::string::npos);
  EXPECT_NEAR(std::stod(r.output.substr(at + 16)) / std::sqrt(sum), 1.0, 1e-15);
}

// The default backend is the CPU (EveryOperatorWritesTheMatrixOfTheCpuAssemblerBitwise checks
// its values): naming it changes no byte of any output, and a CUDA strategy given with it is
// pointed out rather than silently ignored.
TEST_F(AssembleTool, ExplicitCpuBackendWritesTheDefaultFilesByteForByte) {
  const std::string arguments = small_mesh + " -operator momentum -dt 10 -source linear";
  const auto outputs = [&](const std::string& tag) {
    return " -o " + path(tag + ".mtx") + " -rhs_o " + path(tag + "_rhs.mtx") + " -petsc_binary " +
           path(tag + ".bin");
  };
  const RunResult by_default = run_tool(arguments + outputs("default"));
  ASSERT_EQ(by_default.exit_code, 0) << by_default.output;
  EXPECT_NE(by_default.output.find("\nbackend: cpu\n"), std::string::npos) << by_default.output;
  const RunResult cpu = run_tool(arguments + " -foehn_backend cpu" + outputs("cpu"));
  ASSERT_EQ(cpu.exit_code, 0) << cpu.output;
  EXPECT_NE(cpu.output.find("\nbackend: cpu\n"), std::string::npos) << cpu.output;
  const RunResult with_strategy =
      run_tool(arguments + " -foehn_backend cpu -foehn_assembly deterministic" + outputs("noted"));
  ASSERT_EQ(with_strategy.exit_code, 0) << with_strategy.output;
  EXPECT_NE(with_strategy.output.find("does not use -foehn_assembly"), std::string::npos)
      << with_strategy.output;
  for (const std::string suffix : {".mtx", "_rhs.mtx", ".bin"}) {
    const std::string expected = file_bytes(path("default" + suffix));
    EXPECT_FALSE(expected.empty()) << suffix;
    EXPECT_EQ(file_bytes(path("cpu" + suffix)), expected) << suffix;
    EXPECT_EQ(file_bytes(path("noted" + suffix)), expected) << suffix;
  }
}

// Without a usable GPU (no device, or a build without CUDA) -foehn_backend cuda is refused
// before the mesh is built: one line saying so, exit code 1 (unavailable, not bad input).
TEST_F(AssembleTool, CudaBackendWithoutAGpuIsUnavailableAndWritesNothing) {
  if (cuda_device_count() > 0) GTEST_SKIP() << "a GPU is usable here";
  const RunResult r = run_tool(small_mesh + " -foehn_backend cuda -o " + path("m.mtx"));
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("foehn-assemble: unavailable: "), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("backend 'cuda' was requested"), std::string::npos) << r.output;
  EXPECT_EQ(r.output.find("mesh:"), std::string::npos) << "the mesh was built first:\n" << r.output;
  EXPECT_EQ(files_in_folder(), 0u);
}

// auto takes the GPU where there is one, the CPU (saying why) elsewhere; with the deterministic
// strategy the matrix is the CPU's bit for bit either way, so this holds on every machine.
TEST_F(AssembleTool, AutoBackendWithTheDeterministicStrategyGivesTheCpuMatrix) {
  const TetMesh mesh = small_mountain_mesh();
  const RunResult r = run_tool(small_mesh +
                               " -operator diffusion -tensor 50,50,5 -source linear"
                               " -foehn_backend auto -foehn_assembly deterministic -o " +
                               path("m.mtx") + " -rhs_o " + path("b.mtx"));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  if (cuda_device_count() > 0) {
    EXPECT_NE(r.output.find("backend: cuda, deterministic strategy (-foehn_backend auto)"),
              std::string::npos)
        << r.output;
  } else {
    EXPECT_NE(r.output.find("using the CPU backend"), std::string::npos) << r.output;
    EXPECT_NE(r.output.find("backend: cpu (-foehn_backend auto)"), std::string::npos) << r.output;
  }
  const auto k = diagonal_tensor(mesh, {50, 50, 5});
  const auto f = linear_scalar(mesh);
  fe::DiffusionOperator op;
  op.tensor = fe::field_ref(k);
  op.source = fe::field_ref(f);
  const Assembled expected = assemble(mesh, op, true);
  expect_same_matrix(fe::read_matrix_market(path("m.mtx")), expected.matrix, "auto");
  expect_bitwise_equal(fe::read_matrix_market_vector(path("b.mtx")), expected.rhs, "auto rhs");
}

TEST_F(AssembleTool, SciPyReadsTheMassMatrixAndItSumsToTheVolume) {
  const std::string python = FOEHN_SCIPY_PYTHON;
  if (python.empty()) GTEST_SKIP() << "no python3 with SciPy was found at configure time";
  const TetMesh mesh = small_mountain_mesh();
  ASSERT_EQ(run_tool(small_mesh + " -operator mass -o " + path("m.mtx")).exit_code, 0);
  std::ofstream(path("check.py")) << "import sys, scipy.io\n"
                                     "m = scipy.io.mmread(sys.argv[1]).tocsr()\n"
                                     "print(m.shape[0], m.shape[1], m.nnz, repr(float(m.sum())))\n";
  const RunResult r = run_command(python + " " + path("check.py") + " " + path("m.mtx"));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  std::istringstream in(r.output);
  long long rows = 0, cols = 0, nnz = 0;
  double sum = 0.0;
  in >> rows >> cols >> nnz >> sum;
  ASSERT_FALSE(in.fail()) << r.output;
  const fe::PointCsr ours = fe::read_matrix_market(path("m.mtx"));
  EXPECT_EQ(rows, static_cast<long long>(mesh.node_count()));
  EXPECT_EQ(cols, rows);
  EXPECT_EQ(nnz, static_cast<long long>(ours.values.size()));
  EXPECT_NEAR(sum / compute_statistics(mesh).total_volume, 1.0, 1e-12);
}

TEST_F(AssembleTool, RejectsBadInputAndWritesNothing) {
  const std::string out = " -o " + path("m.mtx") + " -petsc_binary " + path("m.bin");
  const auto expect_bad_input = [&](const std::string& arguments, const std::string& mention) {
    const RunResult r = run_tool(small_mesh + " " + arguments + out);
    EXPECT_EQ(r.exit_code, 2) << arguments << "\n" << r.output;
    EXPECT_NE(r.output.find(mention), std::string::npos)
        << arguments << ": message should mention '" << mention << "':\n"
        << r.output;
    EXPECT_EQ(files_in_folder(), 0u) << arguments;
  };
  expect_bad_input("-operator laplace", "-operator 'laplace': expected one of mass, advection");
  expect_bad_input("-operator advection -velocity 1,2", "-velocity expects three");
  expect_bad_input("-operator advection -velocity 1,x,3", "'x' is not a finite number");
  expect_bad_input("-operator advection -velocity none", "needs a velocity");
  expect_bad_input("-operator diffusion -tensor 1,1", "-tensor expects three");
  // A negative diffusivity (issue 17: accepted while a negative viscosity was refused).
  expect_bad_input("-operator diffusion -cells_x 2 -cells_y 2 -cells_z 2 -tensor -1,1,1",
                   "-tensor -1,1,1: diagonal entry 0 is -1 at node 0");
  expect_bad_input("-source quadratic", "-source expects");
  expect_bad_input("-rhs_o " + path("b.mtx"), "-rhs_o needs a right-hand side");
  expect_bad_input("-theta 2 -operator advection_diffusion", "-theta");
  expect_bad_input("-dt 0", "-dt");
  expect_bad_input("-repeat 0", "-repeat");
  expect_bad_input("-colour red", "-colour");
  expect_bad_input("-foehn_backend gpu", "-foehn_backend 'gpu': expected one of cpu, cuda, auto");
  expect_bad_input("-foehn_assembly fastest",
                   "-foehn_assembly 'fastest': expected one of auto, staged, fused_atomic, "
                   "fused_map, deterministic, row_gather");
  // A wrong backend value is one line naming the option, nothing else.
  const RunResult gpu = run_tool(small_mesh + " -foehn_backend gpu");
  EXPECT_EQ(gpu.output,
            "foehn-assemble: invalid input: -foehn_backend 'gpu': expected one of cpu, cuda, "
            "auto\n");
  expect_bad_input("-operator mass -rhs_o " + path("no/such/folder/b.mtx") + " -source constant",
                   "no/such/folder");
  const RunResult missing_folder = run_tool(small_mesh + " -o " + path("no/such/folder/m.mtx"));
  EXPECT_EQ(missing_folder.exit_code, 2) << missing_folder.output;
  EXPECT_NE(missing_folder.output.find("no/such/folder"), std::string::npos)
      << missing_folder.output;
  const RunResult inverted =
      run_tool("-i " + std::string(FOEHN_TEST_DATA_DIR) + "/cli/inverted_tet.msh" + out);
  EXPECT_EQ(inverted.exit_code, 2) << inverted.output;
  EXPECT_NE(inverted.output.find("inverted"), std::string::npos) << inverted.output;
  EXPECT_EQ(files_in_folder(), 0u);
}

// A mesh whose only defects are its orientation (Gmsh orients a boundary surface by its curve
// loop) is refused naming -fix_orientation, and assembled with it: the same matrix as the mesh
// written the right way round.
TEST_F(AssembleTool, OrientationDefectsNameTheFixAndTheFixAssemblesTheMesh) {
  for (const char* file : {"inverted_tet.msh", "inward_boundary_triangle.msh"}) {
    SCOPED_TRACE(file);
    const std::string mesh = std::string(FOEHN_TEST_DATA_DIR) + "/cli/" + file;
    const RunResult refused = run_tool_stderr("-i " + mesh + " -o " + path("refused.mtx"));
    EXPECT_EQ(refused.exit_code, 2) << refused.output;
    EXPECT_NE(refused.output.find("-fix_orientation repairs"), std::string::npos) << refused.output;
    const RunResult fixed =
        run_tool("-i " + mesh + " -fix_orientation -operator mass -o " + path("fixed.mtx"));
    ASSERT_EQ(fixed.exit_code, 0) << fixed.output;
    EXPECT_NE(fixed.output.find("-fix_orientation flipped"), std::string::npos) << fixed.output;
  }
  // The fixed single tet's mass matrix: V/20 (1 + delta_ij), V = 1/6.
  const RunResult fixed =
      run_tool("-i " + std::string(FOEHN_TEST_DATA_DIR) +
               "/cli/inward_boundary_triangle.msh -fix_orientation -operator mass"
               " -o " +
               path("tet.mtx"));
  ASSERT_EQ(fixed.exit_code, 0) << fixed.output;
  const fe::PointCsr mass = fe::read_matrix_market(path("tet.mtx"));
  ASSERT_EQ(mass.rows, 4);
  ASSERT_EQ(mass.values.size(), 16u);
  for (std::int64_t row = 0; row < 4; ++row)
    for (std::int64_t k = mass.row_offsets[row]; k < mass.row_offsets[row + 1]; ++k)
      EXPECT_NEAR(mass.values[k], (mass.column_indices[k] == row ? 2.0 : 1.0) / 120.0, 1e-15);
}

// The tester's examples of issue 17: values PETSc once wrapped modulo 2^32, an empty value,
// NaN, wrong output extensions, a list with a missing item, an output that is a folder: each
// refused with exit code 2 and a message on stderr naming the option, with no file written.
TEST_F(AssembleTool, RefusesBadValuesNamingTheOption) {
  fs::create_directory(path("folder.mtx"));
  const std::string out = " -o " + path("m.mtx");
  struct Case {
    std::string arguments, expected;
  };
  const std::vector<Case> cases = {
      {"-cells_x 4294967300", "-cells_x '4294967300': out of range"},
      {"-repeat 4294967297", "-repeat '4294967297': out of range"},
      {"-target_tets 4294967302", "-target_tets '4294967302'"},
      {"-seed -1 -numbering shuffled", "-seed '-1'"},
      {"-repeat ''", "-repeat: needs a value"},
      {"-velocity '' -operator advection", "-velocity: needs a value"},
      {"-dt nan -operator momentum", "-dt 'nan': not finite"},
      {"-scale inf", "-scale 'inf'"},
      // Finite, but the matrix overflows: refused, not written as inf (issue 33).
      {"-scale 1e308", "non-finite value (inf"},
      {"-operator mass -source constant -scale 1e308", "overflow double precision"},
      {"-viscosity -1 -operator momentum", "-viscosity '-1'"},
      {"-isotropic perhaps -operator diffusion", "-isotropic 'perhaps'"},
      {"-numbering random", "-numbering 'random'"},
      {"-o " + path("m.txt"), "-o '" + path("m.txt") + "': expected a file name ending in .mtx"},
      {"-petsc_binary " + path("m.mtx"), "-petsc_binary '" + path("m.mtx") + "'"},
      {"-o " + path("folder.mtx"), "-o '" + path("folder.mtx") + "': is a folder"},
      {"-operator advection -velocity 1,,3", "-velocity expects three"},
      {"-operator diffusion -tensor 1,2,", "-tensor expects three"},
      {"-i " + path("absent.msh"), "-cells_x/-cells_y/-cells_z/-target_tets describe"},
      {"-rhs_o " + path("m.mtx") + " -source constant", "-o and -rhs_o name the same file"},
  };
  for (const Case& c : cases) {
    const RunResult r = run_tool_stderr(small_mesh + out + " " + c.arguments);
    EXPECT_EQ(r.exit_code, 2) << c.arguments << "\n" << r.output;
    EXPECT_NE(r.output.find(c.expected), std::string::npos) << c.arguments << "\n" << r.output;
  }
  const RunResult absent = run_tool_stderr("-i " + path("absent.msh") + out);
  EXPECT_EQ(absent.exit_code, 2) << absent.output;
  EXPECT_NE(absent.output.find("-i '" + path("absent.msh") + "': no such file"), std::string::npos)
      << absent.output;
  EXPECT_EQ(files_in_folder(), 1u) << "only folder.mtx: nothing was written";
}

// A generated mesh the machine cannot hold is refused before it is generated, naming the
// options, the bytes needed and the bytes available. 710^3 cells are the most 32-bit indices
// allow (6 tets a cell); with the momentum operator's 3 x 3 blocks that is over 1 TiB.
TEST_F(AssembleTool, RefusesAMeshLargerThanTheMemory) {
  const double needed = 711.0 * 711.0 * 711.0 * 3000.0;
  if (available_host_memory_bytes() > needed) GTEST_SKIP() << "this machine could run it";
  const RunResult cells =
      run_tool_stderr("-cells_x 710 -cells_y 710 -cells_z 710 -operator momentum");
  EXPECT_EQ(cells.exit_code, 2) << cells.output;
  EXPECT_NE(cells.output.find("-cells_x x -cells_y x -cells_z 710 x 710 x 710 ("),
            std::string::npos)
      << cells.output;
  EXPECT_NE(cells.output.find("of host memory, more than the"), std::string::npos) << cells.output;
  const RunResult target = run_tool_stderr("-target_tets 2147483647 -operator momentum");
  EXPECT_EQ(target.exit_code, 2) << target.output;
  EXPECT_NE(target.output.find("-target_tets 2147483647"), std::string::npos) << target.output;
  EXPECT_EQ(files_in_folder(), 0u);
}

TEST_F(AssembleTool, HelpListsTheOptions) {
  const RunResult r = run_tool("-help");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  for (const char* option :
       {"usage: foehn-assemble", "-operator", "-velocity", "-tensor", "-isotropic", "-source",
        "-dt", "-theta", "-density", "-viscosity", "-rhs_o", "-petsc_binary", "-repeat",
        "-target_tets", "-foehn_backend", "-foehn_assembly"})
    EXPECT_NE(r.output.find(option), std::string::npos) << option << "\n" << r.output;
  // -operator offers every built-in operator, and each coefficient names the operators that
  // read it (both from the operators' own declarations).
  for (const std::string& name : fe::builtin_operator_names())
    EXPECT_NE(r.output.find(name), std::string::npos) << name << "\n" << r.output;
  EXPECT_NE(r.output.find("(advection, advection_diffusion, momentum)"), std::string::npos)
      << r.output;
}

// The tool keeps no operator list of its own: each built-in one must have a case above, so
// that an operator added to operator_list.hpp is assembled through the tool and compared.
TEST(AssembleToolOperators, EveryBuiltinOperatorHasAWrittenMatrixCase) {
  for (const std::string& name : fe::builtin_operator_names()) {
    bool covered = false;
    for (const OperatorCase& c : operator_cases())
      covered = covered || c.arguments.rfind("-operator " + name + " ", 0) == 0 ||
                c.arguments == "-operator " + name;
    EXPECT_TRUE(covered) << name << " has no case in operator_cases()";
  }
}

// PETSc (and with it MPI) is initialised only here, after this test has run the tool: a child
// started after MPI_Init would inherit the parent's MPI environment. Declared last so that a
// run of the whole executable starts no tool after it.
TEST_F(AssembleTool, PetscLoadsTheBinaryMatrixAndRightHandSide) {
  const TetMesh mesh = small_mountain_mesh();
  const RunResult r =
      run_tool(small_mesh + " -operator momentum -source linear -petsc_binary " + path("m.bin"));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(files_in_folder(), 1u) << "no .info file, no temporary";
  fe::MomentumOperator op;
  const auto w = constant_vector(mesh, {10, 0, 0});
  const auto f = linear_vector(mesh);
  op.advecting_velocity = fe::field_ref(w);
  op.body_force = fe::field_ref(f);
  const Assembled expected = assemble(mesh, op, true);

  PetscBool initialised = PETSC_FALSE;
  ASSERT_EQ(PetscInitialized(&initialised), 0);
  if (!initialised) FOEHN_PETSC_CHECK(PetscInitializeNoArguments());
  PetscViewer viewer;
  Mat mat;
  Vec vec;
  FOEHN_PETSC_CHECK(
      PetscViewerBinaryOpen(PETSC_COMM_SELF, path("m.bin").c_str(), FILE_MODE_READ, &viewer));
  FOEHN_PETSC_CHECK(MatCreate(PETSC_COMM_SELF, &mat));
  FOEHN_PETSC_CHECK(MatSetType(mat, MATSEQAIJ));
  FOEHN_PETSC_CHECK(MatLoad(mat, viewer));
  FOEHN_PETSC_CHECK(VecCreate(PETSC_COMM_SELF, &vec));
  FOEHN_PETSC_CHECK(VecLoad(vec, viewer));
  FOEHN_PETSC_CHECK(PetscViewerDestroy(&viewer));

  fe::PointCsr loaded;
  PetscInt rows = 0, cols = 0;
  FOEHN_PETSC_CHECK(MatGetSize(mat, &rows, &cols));
  loaded.rows = rows;
  loaded.cols = cols;
  loaded.row_offsets.push_back(0);
  for (PetscInt i = 0; i < rows; ++i) {
    PetscInt count = 0;
    const PetscInt* columns = nullptr;
    const PetscScalar* values = nullptr;
    FOEHN_PETSC_CHECK(MatGetRow(mat, i, &count, &columns, &values));
    loaded.column_indices.insert(loaded.column_indices.end(), columns, columns + count);
    loaded.values.insert(loaded.values.end(), values, values + count);
    loaded.row_offsets.push_back(static_cast<std::int64_t>(loaded.values.size()));
    FOEHN_PETSC_CHECK(MatRestoreRow(mat, i, &count, &columns, &values));
  }
  expect_same_matrix(loaded, expected.matrix, "MatLoad");
  PetscInt size = 0;
  const PetscScalar* rhs = nullptr;
  FOEHN_PETSC_CHECK(VecGetLocalSize(vec, &size));
  FOEHN_PETSC_CHECK(VecGetArrayRead(vec, &rhs));
  expect_bitwise_equal(std::vector<double>(rhs, rhs + size), expected.rhs, "VecLoad");
  FOEHN_PETSC_CHECK(VecRestoreArrayRead(vec, &rhs));
  FOEHN_PETSC_CHECK(VecDestroy(&vec));
  FOEHN_PETSC_CHECK(MatDestroy(&mat));
  FOEHN_PETSC_CHECK(PetscFinalize());
}

}  // namespace
