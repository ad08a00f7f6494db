// foehn-mountainwave as a user runs it, for the checks of issue 17: a time step far beyond
// the CFL limit, an end time that is not a whole number of steps, mesh sizes that are
// negative, short of a value or beyond the machine, an output folder that is a file. Each is
// exit code 2 with one line naming the option, before any step is taken.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "foehn/mesh/mesh_files.hpp"
#include "foehn/mesh/mountain.hpp"
#include "foehn/runtime/device.hpp"
#include "support/run_command.hpp"
#include "support/temp_dir.hpp"

namespace {

using foehn::testing::RunResult;

class MountainWaveTool : public ::testing::Test {
 protected:
  // A 2 x 2 x 2-cell mesh, no VTK or sections: each run takes a fraction of a second.
  RunResult run(const std::string& arguments, const std::string& environment = "") {
    return foehn::testing::run_command("cd " + folder_.path().string() + " && " + environment +
                                       " " + FOEHN_MOUNTAINWAVE_TOOL +
                                       " -vtk 0 -sections 0 -output_dir out " + arguments);
  }
  static void expect_bad_input(const RunResult& r, const std::string& must_mention) {
    EXPECT_EQ(r.exit_code, 2) << r.output;
    EXPECT_NE(r.output.find(must_mention), std::string::npos)
        << "message should mention '" << must_mention << "':\n"
        << r.output;
    EXPECT_EQ(r.output.find(" step "), std::string::npos) << "a step was taken:\n" << r.output;
  }
  foehn::testing::TempDir folder_;
};

TEST_F(MountainWaveTool, ATimeStepBeyondTheCflLimitIsRefused) {
  const RunResult r = run("-mesh_cells 4,4,4 -dt 1e9 -end_time 1e9");
  expect_bad_input(r, "-dt 1e+09 s gives a CFL number");
  EXPECT_NE(r.output.find("-cfl_max 4"), std::string::npos) << r.output;
  expect_bad_input(run("-mesh_cells 4,4,4 -cfl 9"), "-cfl 9 is above -cfl_max 4");
}

TEST_F(MountainWaveTool, AnEndTimeThatIsNotAWholeNumberOfStepsIsRefused) {
  const RunResult r = run("-mesh_cells 2,2,2 -dt 7 -end_time 20");
  expect_bad_input(r, "-end_time 20 s is not a whole number of -dt 7 s steps");
  EXPECT_NE(r.output.find("would end at 21 s"), std::string::npos) << r.output;
}

TEST_F(MountainWaveTool, WithCflTheStepIsShortenedToEndExactlyAtTheEndTime) {
  const RunResult r = run("-mesh_cells 2,2,2 -cfl 0.5 -end_time 100");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  std::ifstream in(folder_.path() / "out" / "run.json");
  const nlohmann::json run_record = nlohmann::json::parse(in);
  const double dt = run_record["dt"], time = run_record["time"];
  const long long steps = run_record["steps"];
  EXPECT_NEAR(time, 100.0, 1e-9) << r.output;
  EXPECT_NEAR(steps * dt, 100.0, 1e-9);
}

// run.json reports every linear system of the core by its own counts (petsc::System's): one
// entry per system in table order, and the same Krylov iterations as the step lines' (counted by
// the step from the solves' results, a separate path). The default case's qc and qr are zero
// and are never solved; the pressure and mass matrices are not re-assembled between
// stabilisation updates (every 10 steps; the timed steps here are 1 to 3).
TEST_F(MountainWaveTool, RunJsonReportsEverySystemWithItsOwnCounts) {
  const RunResult r = run("-mesh_cells 4,4,3 -end_time 80 -timing_warmup 1");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  std::ifstream in(folder_.path() / "out" / "run.json");
  const nlohmann::json timed = nlohmann::json::parse(in)["timed_steps"];
  EXPECT_EQ(timed["steps"], 3);
  const std::vector<std::string> names = {"theta",    "qv",       "qc",        "qr",
                                          "momentum", "pressure", "projection"};
  ASSERT_EQ(timed["systems"].size(), names.size()) << timed.dump(1);
  for (std::size_t k = 0; k < names.size(); ++k) {
    const nlohmann::json& system = timed["systems"][k];
    SCOPED_TRACE(names[k]);
    EXPECT_EQ(system["name"], names[k]);
    EXPECT_EQ(system["prefix"], names[k] + "_");
    const bool zero_tracer = names[k] == "qc" || names[k] == "qr";
    const bool constant_matrix = names[k] == "pressure" || names[k] == "projection";
    if (zero_tracer)
      EXPECT_EQ(system["solves_per_step"].get<double>(), 0.0);
    else
      EXPECT_GE(system["solves_per_step"].get<double>(), 1.0);
    if (zero_tracer || constant_matrix)
      EXPECT_EQ(system["assemblies_per_step"].get<double>(), 0.0);
    else
      EXPECT_GE(system["assemblies_per_step"].get<double>(), 1.0);
    EXPECT_DOUBLE_EQ(system["krylov_iterations_per_step"].get<double>(),
                     timed["krylov_iterations_per_step"][names[k]].get<double>());
    for (const char* part : {"assembly", "handoff", "setup", "solve"})
      EXPECT_GE(system["seconds_per_step"][part].get<double>(), 0.0) << part;
  }
  EXPECT_NE(r.output.find("| projection |"), std::string::npos) << r.output;
}

// -count_cuda_calls adds CUDA call counts per step, for the step and for every system: null
// where counting is unavailable, else counts where the systems' share is at most the step's
// (other work of the step launches too), and none at all on the CPU backend.
TEST_F(MountainWaveTool, CountCudaCallsReportsTheStepAndEverySystem) {
  const RunResult r = run("-mesh_cells 3,3,2 -end_time 60 -timing_warmup 1 -count_cuda_calls");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  std::ifstream in(folder_.path() / "out" / "run.json");
  const nlohmann::json record = nlohmann::json::parse(in);
  const nlohmann::json& timed = record["timed_steps"];
  ASSERT_TRUE(timed.contains("cuda_calls_per_step")) << timed.dump(1);
  const nlohmann::json& step = timed["cuda_calls_per_step"];
  if (step.is_null()) {
    EXPECT_NE(r.output.find("-count_cuda_calls on rank 0: "), std::string::npos) << r.output;
    for (const nlohmann::json& system : timed["systems"])
      EXPECT_TRUE(system["cuda_calls_per_step"].is_null());
    return;
  }
  double system_kernels = 0, system_syncs = 0;
  for (const nlohmann::json& system : timed["systems"]) {
    system_kernels += system["cuda_calls_per_step"]["kernel_launches"].get<double>();
    system_syncs += system["cuda_calls_per_step"]["host_synchronizations"].get<double>();
  }
  EXPECT_LE(system_kernels, step["kernel_launches"].get<double>());
  EXPECT_LE(system_syncs, step["host_synchronizations"].get<double>());
  if (record["backend"] == "cpu") {
    EXPECT_EQ(step["kernel_launches"].get<double>(), 0.0);
    EXPECT_EQ(step["host_synchronizations"].get<double>(), 0.0);
  } else {
    EXPECT_GT(system_kernels, 0.0);
  }
  EXPECT_NE(r.output.find("| Kernels | Host syncs |"), std::string::npos) << r.output;
}

// Halo exchanges, messages and reductions per step, for the step and every system (PETSc's own
// counters, always on): none on one rank, where nothing crosses to another; the route PETSc's
// messages take, in run.json and the log's system table.
TEST_F(MountainWaveTool, CommunicationIsCountedForTheStepAndEverySystem) {
  const RunResult r = run("-mesh_cells 3,3,2 -end_time 60 -timing_warmup 1");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  std::ifstream in(folder_.path() / "out" / "run.json");
  const nlohmann::json record = nlohmann::json::parse(in);
  const nlohmann::json& timed = record["timed_steps"];
  ASSERT_TRUE(timed.contains("communication_per_step")) << timed.dump(1);
  for (const char* count : {"halo_exchanges", "messages", "reductions"}) {
    EXPECT_EQ(timed["communication_per_step"][count].get<double>(), 0.0) << count;
    for (const nlohmann::json& system : timed["systems"])
      EXPECT_EQ(system["communication_per_step"][count].get<double>(), 0.0) << count;
  }
  EXPECT_EQ(record["mpi"], "host-staged");
  EXPECT_NE(r.output.find("| Halo exchanges | Reductions |"), std::string::npos) << r.output;
}

TEST_F(MountainWaveTool, MeshSizesAreCheckedNotIgnoredOrFilledIn) {
  expect_bad_input(run("-mesh_tets -5"), "-mesh_tets '-5': out of range");
  expect_bad_input(run("-mesh_cells 4,4"), "-mesh_cells '4,4': expected 3 comma-separated");
  expect_bad_input(run("-mesh_cells 4294967300,4,4"), "-mesh_cells '4294967300,4,4'");
  expect_bad_input(run("-mesh_cells 4,4,4 -mesh_tets 1000"), "not both");
}

TEST_F(MountainWaveTool, AMeshBeyondTheMemoryNamesTheOptionAndTheBytes) {
  const RunResult r = run("-mesh_tets 100000", "FOEHN_MAX_MEMORY=100M");
  expect_bad_input(r, "-mesh_tets 100000 (");
  EXPECT_NE(r.output.find("of host memory, more than the 100.0 MiB available"), std::string::npos)
      << r.output;
  expect_bad_input(run("-mesh_cells 2,2,2 -tracer_columns 100000 -tracer_levels 100000",
                       "FOEHN_MAX_MEMORY=100M"),
                   "-tracer_columns 100000 x -tracer_levels 100000");
}

TEST_F(MountainWaveTool, AnOutputFolderThatIsAFileIsNamed) {
  { std::ofstream(folder_.path() / "taken") << "x"; }
  expect_bad_input(run("-mesh_cells 2,2,2 -output_dir taken"),
                   "-output_dir 'taken': 'taken' exists and is not a folder");
}

TEST_F(MountainWaveTool, NegativeOrNonFiniteCoefficientsAreRefused) {
  expect_bad_input(run("-diffusivity -1"), "-diffusivity '-1': out of range");
  expect_bad_input(run("-viscosity nan"), "-viscosity 'nan'");
  expect_bad_input(run("-U ''"), "-U: needs a value");
}

// Values that passed a ">= 0" or "> 0" check but not their meaning: runs that kept stepping
// (-end_time 1e15, -dt 1e-300), or ended minutes later in non-finite or meaningless solves.
TEST_F(MountainWaveTool, ValuesThatPassTheirSignButNotTheirMeaningAreRefused) {
  expect_bad_input(run("-mesh_cells 2,2,2 -end_time 1e15"),
                   "-end_time 1e+15 s at -dt 20 s is 5e+13 steps, more than the 1e+08");
  expect_bad_input(run("-mesh_cells 2,2,2 -dt 1e-300"), "more than the 1e+08 a run may take");
  expect_bad_input(run("-mesh_cells 2,2,2 -cfl 1e-300"), "more than the 1e+08 a run may take");
  for (const char* option :
       {"-N", "-viscosity", "-diffusivity", "-sponge_rate", "-U", "-stabilisation_coefficient"})
    expect_bad_input(run(std::string(option) + " 1e300"),
                     std::string(option) + " '1e300': out of range");
}

// A checkpoint with a flipped byte is refused in one line, exit 2. HDF5 1.10 leaks internal
// blocks on some of them (a byte in an object header, as at 641 here) and its clean-up at exit
// once printed "HDF5: infinite loop closing library" and a line of 100 codes after the error.
TEST_F(MountainWaveTool, ACorruptCheckpointIsRefusedTidily) {
  const RunResult written = run("-mesh_cells 6,6,4 -max_steps 1 -checkpoint_interval 1");
  ASSERT_EQ(written.exit_code, 0) << written.output;
  const std::filesystem::path good = folder_ / "out" / "checkpoint_000001.h5";
  std::ifstream in(good, std::ios::binary);
  const std::string bytes{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  ASSERT_GT(bytes.size(), 2600u);
  for (const std::size_t at : {641u, 1282u, 1923u, 2564u}) {
    std::string flipped = bytes;
    flipped[at] = static_cast<char>(flipped[at] ^ 0x5a);
    std::ofstream(folder_ / "bad.h5", std::ios::binary | std::ios::trunc) << flipped;
    const RunResult r = run("-mesh_cells 6,6,4 -max_steps 1 -restart bad.h5");
    EXPECT_EQ(r.exit_code, 2) << "byte " << at << ":\n" << r.output;
    EXPECT_NE(r.output.find("'bad.h5'"), std::string::npos) << r.output;
    EXPECT_EQ(r.output.find("infinite loop"), std::string::npos) << "byte " << at << ":\n"
                                                                 << r.output;
  }
}

// A restart continues only the case that wrote the checkpoint: every option that changes what is
// computed is in the checkpoint's fingerprint (from the option table, so a new option cannot be
// forgotten), while outputs and run length may change.
TEST_F(MountainWaveTool, ARestartUnderOtherPhysicsOrNumericsIsRefusedNamingTheOption) {
  const RunResult written = run("-mesh_cells 4,4,3 -max_steps 1 -checkpoint_interval 1");
  ASSERT_EQ(written.exit_code, 0) << written.output;
  ASSERT_TRUE(std::filesystem::exists(folder_ / "out" / "checkpoint_000001.h5"));
  const std::string restart = "-mesh_cells 4,4,3 -max_steps 1 -restart out/checkpoint_000001.h5 ";
  for (const auto& [changed, key] :
       {std::pair{"-viscosity 3.5", "viscosity: "},
        {"-picard 3", "picard: "},
        {"-theta 0.75", "theta: "},
        {"-stabilisation_coefficient 0.0035", "stabilisation_coefficient: "},
        {"-sponge_rate 0.0123", "sponge_rate: "},
        {"-skew_symmetric_transport false", "skew_symmetric_transport: "}}) {
    const RunResult r = run(restart + changed + " -output_dir other");
    EXPECT_EQ(r.exit_code, 2) << changed << ":\n" << r.output;
    EXPECT_NE(r.output.find(key), std::string::npos) << changed << ":\n" << r.output;
  }
  const RunResult same_case = run(restart + "-output_dir elsewhere -vtk 1 -timing_warmup 0");
  EXPECT_EQ(same_case.exit_code, 0) << same_case.output;
}

// A misspelt solver type is the user's input: one line naming the option, exit 2 (it was a
// PETSc error, exit 1). An inner solver's type is read when the solver is set up.
TEST_F(MountainWaveTool, AnUnknownSolverTypeNamesTheOption) {
  expect_bad_input(run("-mesh_cells 2,2,2 -pressure_ksp_type foo"),
                   "linear solver 'pressure_': -pressure_ksp_type foo: ");
  expect_bad_input(run("-mesh_cells 2,2,2 -theta_pc_type bar"),
                   "linear solver 'theta_': -theta_pc_type bar: ");
  const RunResult inner = run("-mesh_cells 2,2,2 -max_steps 1 -pressure_mg_levels_pc_type baz");
  EXPECT_EQ(inner.exit_code, 2) << inner.output;
  EXPECT_NE(inner.output.find("an inner solver's type in the options: "), std::string::npos)
      << inner.output;
  EXPECT_NE(inner.output.find("PC type baz"), std::string::npos) << inner.output;
}

// -foehn_devices sets PETSc's -device_select, which a PETSc without CUDA never reads: the run
// once ended with "unknown option -device_select" and exit code 2.
TEST_F(MountainWaveTool, DevicesListedWithFoehnDevicesRunToTheEnd) {
  if (foehn::cuda_device_count() == 0) GTEST_SKIP() << "no CUDA device";
  const RunResult r = run("-mesh_cells 2,2,2 -max_steps 2 -foehn_backend cuda -foehn_devices 0");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  expect_bad_input(run("-mesh_cells 2,2,2 -foehn_backend cuda -foehn_devices 0,x"),
                   "-foehn_devices 'x'");
}

}  // namespace

// -mesh FILE: the generated mesh written as .msh (tags from the file), as .vtu, and as .msh
// without boundary triangles (tags from the geometry) runs bitwise like the generated mesh
// (same sections file); a mesh of another domain or terrain is refused naming the file.
class MountainWaveExternalMesh : public MountainWaveTool {
 protected:
  std::string sections_after_three_steps(const std::string& mesh_arguments) {
    const std::string out = "out" + std::to_string(runs_++);
    const RunResult r = run(mesh_arguments +
                            " -dt 30 -max_steps 3 -output_interval 90 -sections 1 "
                            "-foehn_backend cpu -output_dir " +
                            out);
    EXPECT_EQ(r.exit_code, 0) << mesh_arguments << "\n" << r.output;
    std::ifstream in(folder_.path() / out / "sections_000003.h5", std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  }
  std::string write(foehn::TetMesh mesh, const std::string& name, bool with_boundary = true) {
    if (!with_boundary) {
      mesh.boundary_faces.clear();
      mesh.boundary_tags.clear();
    }
    foehn::write_mesh_file(mesh, folder_.path() / name);
    return (folder_.path() / name).string();
  }
  int runs_ = 0;
};

TEST_F(MountainWaveExternalMesh, AFileOfTheGeneratedMeshRunsBitwiseLikeIt) {
  foehn::MountainMeshOptions cells;
  cells.cells_x = cells.cells_y = 6;
  cells.cells_z = 4;
  cells.horizontal_growth = 1.15;  // the library's grading; the program's default is gentler
  const foehn::TetMesh mesh = foehn::generate_mountain_mesh(cells);
  const std::string generated =
      sections_after_three_steps("-mesh_cells 6,6,4 -horizontal_growth 1.15");
  ASSERT_GT(generated.size(), 1000u);
  EXPECT_EQ(sections_after_three_steps("-mesh " + write(mesh, "m.msh")), generated);
  EXPECT_EQ(sections_after_three_steps("-mesh " + write(mesh, "m.vtu")), generated);
  EXPECT_EQ(sections_after_three_steps("-mesh " + write(mesh, "bare.msh", false)), generated);
  const RunResult r = run("-mesh " + write(mesh, "bare2.msh", false) + " -max_steps 1");
  EXPECT_NE(r.output.find("boundary tags from the geometry"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("dihedral angles"), std::string::npos) << r.output;
}

TEST_F(MountainWaveExternalMesh, AMeshOfAnotherDomainOrTerrainIsRefused) {
  foehn::MountainMeshOptions other;
  other.cells_x = other.cells_y = other.cells_z = 2;
  other.length_x = 50000.0;
  expect_bad_input(run("-mesh " + write(foehn::generate_mountain_mesh(other), "short.msh")),
                   "short.msh': spans (-25000");
  foehn::MountainMeshOptions higher;
  higher.cells_x = higher.cells_y = higher.cells_z = 2;
  higher.mountain_height = 600.0;  // the run's terrain is the default 400 m
  expect_bad_input(run("-mesh " + write(foehn::generate_mountain_mesh(higher), "hill.msh", false)),
                   "lies on no side of the domain");
  expect_bad_input(run("-mesh missing.msh"), "missing.msh");
  expect_bad_input(
      run("-mesh " + write(foehn::generate_mountain_mesh(higher), "m.msh") + " -mesh_cells 2,2,2"),
      "exclude each other");
  std::ofstream(folder_.path() / "mesh.txt") << "not a mesh\n";
  expect_bad_input(run("-mesh mesh.txt"), "expected a .msh (Gmsh 2.2 or 4.1) or .vtu file");
}

// The file's tags decide the boundary conditions: terrain and top swapped once ran.
TEST_F(MountainWaveExternalMesh, TagsThatContradictTheGeometryAreRefused) {
  foehn::MountainMeshOptions cells;
  cells.cells_x = cells.cells_y = cells.cells_z = 2;
  foehn::TetMesh swapped = foehn::generate_mountain_mesh(cells);
  for (std::int32_t& tag : swapped.boundary_tags)
    if (tag == foehn::boundary_terrain)
      tag = foehn::boundary_top;
    else if (tag == foehn::boundary_top)
      tag = foehn::boundary_terrain;
  expect_bad_input(run("-mesh " + write(swapped, "swapped.msh")),
                   "has tag 2 (top, z = height) but lies on the terrain");
  foehn::TetMesh inflow_as_outflow = foehn::generate_mountain_mesh(cells);
  for (std::int32_t& tag : inflow_as_outflow.boundary_tags)
    if (tag == foehn::boundary_inflow) tag = foehn::boundary_outflow;
  expect_bad_input(run("-mesh " + write(inflow_as_outflow, "sides.msh")),
                   "has tag 4 (outflow, x = +length_x/2) but lies on the inflow");
}
