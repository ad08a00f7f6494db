// foehn-mountainwave's adaptive run (-adapt_interval, issue 37) as a user runs it: the mesh is
// adapted at every multiple of the interval, each adapted mesh is written and reusable as a fixed
// mesh with -mesh, run.json reports every cycle and its cost, no PETSc memory is left behind by
// the replaced models, a restart across an adaptation is bitwise, and options that cannot work
// are refused with exit code 2 naming them before any step: bounds that cannot work on the
// domain, the node budget or the step, and a step above -cfl_max on an adapted mesh. Skipped in
// builds without Mmg.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "foehn/adapt/remesh.hpp"
#include "foehn/mesh/mesh_files.hpp"
#include "foehn/mesh/validate.hpp"
#include "support/run_command.hpp"
#include "support/temp_dir.hpp"

namespace {

using foehn::testing::RunResult;

class AdaptiveMountainWave : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!foehn::adapt::remeshing_available()) GTEST_SKIP() << "this build has no Mmg";
  }
  RunResult run(const std::string& arguments) {
    return foehn::testing::run_command("cd " + folder_.path().string() + " && " +
                                       FOEHN_MOUNTAINWAVE_TOOL + " " + arguments);
  }
  // The bytes of `folder`'s sections file of `step`: equal files, the same final state.
  std::string sections_at(const std::string& folder, long long step) {
    char name[64];
    std::snprintf(name, sizeof name, "sections_%06lld.h5", step);
    std::ifstream in(folder_.path() / folder / name, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), {});
  }
  nlohmann::json run_json(const std::string& folder) {
    std::ifstream in(folder_.path() / folder / "run.json");
    return nlohmann::json::parse(in);
  }
  foehn::testing::TempDir folder_;
};

TEST_F(AdaptiveMountainWave, AdaptsAtEveryIntervalWritesEachMeshAndReportsTheCycles) {
  // PETSc's -malloc_dump lists every block still allocated at the end: the solvers, matrices
  // and vectors of the replaced models included. None may be left.
  const RunResult r =
      run("-mesh_cells 6,6,4 -end_time 120 -adapt_interval 2 -adapt_hmin 500 "
          "-output_interval 40 -sections 0 -output_dir out -malloc_debug "
          "-malloc_dump");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(r.output.find(" bytes "), std::string::npos) << "unfreed PETSc memory:\n" << r.output;
  EXPECT_NE(r.output.find("adapted at step 2:"), std::string::npos) << r.output;
  const nlohmann::json record = run_json("out");
  EXPECT_EQ(record["steps"], 6);
  const nlohmann::json& cycles = record["adaptations"];
  ASSERT_EQ(cycles.size(), 2u) << record.dump(1);
  EXPECT_EQ(cycles[0]["step"], 2);
  EXPECT_EQ(cycles[1]["step"], 4);
  EXPECT_EQ(cycles[1]["nodes_before"], cycles[0]["nodes_after"]);
  EXPECT_EQ(record["nodes"], cycles[1]["nodes_after"]);
  EXPECT_EQ(record["tets"], cycles[1]["tets_after"]);
  EXPECT_GT(record["adapt_seconds"].get<double>(), 0.0);
  EXPECT_LT(record["adapt_seconds"].get<double>(), record["run_seconds"].get<double>());
  for (const auto& cycle : cycles) {
    EXPECT_FALSE(cycle["incomplete"].get<bool>());
    // The rescaling that restores the tracers' integrals: the interpolation's change, large on
    // a mesh this coarse (the unit tests check the conservation itself).
    EXPECT_GE(cycle["tracer_correction"].get<double>(), 0.0);
    EXPECT_LT(cycle["tracer_correction"].get<double>(), 1.0);
  }
  // Each adapted mesh is a valid mesh of the domain with its boundary tags, and a snapshot of
  // the series on it was written after the adaptation.
  for (const char* name : {"adapted_mesh_000002.vtu", "adapted_mesh_000004.vtu"}) {
    foehn::TetMesh mesh = foehn::read_mesh_file(folder_.path() / "out" / name);
    EXPECT_TRUE(foehn::check_mesh(mesh).ok()) << name;
    EXPECT_FALSE(mesh.boundary_tags.empty()) << name;
  }
  EXPECT_TRUE(std::filesystem::exists(folder_.path() / "out" / "mountainwave_mesh_000004.h5"));
  std::ifstream pvd(folder_.path() / "out" / "mountainwave.pvd");
  const std::string series((std::istreambuf_iterator<char>(pvd)), {});
  for (const char* snapshot : {"mountainwave_0000.pvtu", "mountainwave_0003.pvtu"})
    EXPECT_NE(series.find(snapshot), std::string::npos) << series;

  // The paper's fixed-mesh validation starts from such a mesh, read with -mesh.
  const RunResult fixed =
      run("-mesh out/adapted_mesh_000004.vtu -max_steps 2 -vtk 0 -sections 0 -output_dir fixed");
  ASSERT_EQ(fixed.exit_code, 0) << fixed.output;
  EXPECT_EQ(run_json("fixed")["nodes"], cycles[1]["nodes_after"]);
}

// A restart continues on the mesh its checkpoint lies on (the adaptation it came from is
// recorded in the checkpoint), with the run's node budget, calibration and time step (-cfl chose
// it on the starting mesh, not on the adapted one the restart reads): from between two
// adaptations and from the step of one (which is then done first), the final state is bitwise
// the uninterrupted run's.
TEST_F(AdaptiveMountainWave, ARestartAcrossAnAdaptationContinuesBitwise) {
  const std::string options =
      "-mesh_cells 6,6,4 -cfl 0.15 -end_time 120 -adapt_interval 2 -adapt_hmin 500 -vtk 0 "
      "-output_interval 120 -foehn_backend cpu ";
  const RunResult whole = run(options + "-checkpoint_interval 1 -output_dir whole");
  ASSERT_EQ(whole.exit_code, 0) << whole.output;
  const long long steps = run_json("whole")["steps"];
  ASSERT_GT(steps, 4);
  const auto sections = [&](const std::string& folder) { return sections_at(folder, steps); };
  const std::string expected = sections("whole");
  ASSERT_GT(expected.size(), 1000u);
  for (const char* step : {"3", "4"}) {
    SCOPED_TRACE(step);
    const std::string folder = std::string("from") + step;
    const RunResult r =
        run(options + "-restart whole/checkpoint_00000" + step + ".h5 -output_dir " + folder);
    ASSERT_EQ(r.exit_code, 0) << r.output;
    EXPECT_NE(r.output.find("restarting on the mesh adapted at step 2"), std::string::npos)
        << r.output;
    EXPECT_NE(r.output.find("adapted at step 4:"), std::string::npos) << r.output;
    EXPECT_EQ(sections(folder), expected);
  }
  // A checkpoint whose adapted mesh is gone is refused naming the file.
  std::filesystem::remove(folder_.path() / "whole" / "adapted_mesh_000002.vtu");
  const RunResult missing = run(options + "-restart whole/checkpoint_000003.h5 -output_dir gone");
  EXPECT_EQ(missing.exit_code, 2) << missing.output;
  EXPECT_NE(missing.output.find("adapted_mesh_000002.vtu"), std::string::npos) << missing.output;
}

// -adapt_overlap 1: Mmg runs on rank 0's host threads while the steps go on; each new mesh
// takes over one interval after the state it was made from, and every cycle says so. Two
// remesh parts exercise the parallel remesh inside the run. A checkpoint written while a remesh
// runs waits for it and records it, so that a restart from there (between two adaptation points,
// and at one, where the take-over comes first) ends bitwise where the uninterrupted run ends.
TEST_F(AdaptiveMountainWave, AnOverlappedAdaptationTakesOverOneIntervalLaterAndRestartsBitwise) {
  const std::string options =
      "-mesh_cells 8,8,4 -dt 12 -end_time 120 -adapt_interval 2 -adapt_hmin 500 -vtk 0 "
      "-output_interval 120 -foehn_backend cpu -adapt_overlap 1 -adapt_remesh_parts 2 ";
  const RunResult whole = run(options + "-checkpoint_interval 1 -output_dir whole");
  ASSERT_EQ(whole.exit_code, 0) << whole.output;
  const nlohmann::json record = run_json("whole");
  const long long steps = record["steps"];
  ASSERT_GT(steps, 6);
  EXPECT_TRUE(record["adapt_overlap"].get<bool>());
  const nlohmann::json& cycles = record["adaptations"];
  ASSERT_GE(cycles.size(), 2u) << record.dump(1);
  for (std::size_t k = 0; k < cycles.size(); ++k) {
    SCOPED_TRACE(k);
    EXPECT_EQ(cycles[k]["step"], 2 * (k + 1));
    EXPECT_EQ(cycles[k]["step_taken_over"], 2 * (k + 2));
    EXPECT_TRUE(cycles[k]["overlapped"].get<bool>());
    EXPECT_EQ(cycles[k]["remesh"]["parts"], 2);
    EXPECT_GE(cycles[k]["remesh"]["passes"], 2);
    const nlohmann::json& quality = cycles[k]["quality"];
    EXPECT_GT(quality["min_dihedral_degrees"].get<double>(), 0.0);
    EXPECT_GE(quality["dihedral_percentile_1_degrees"].get<double>(),
              quality["min_dihedral_degrees"].get<double>());
    EXPECT_GE(quality["worst_aspect_ratio"].get<double>(), 1.0);
    EXPECT_GT(quality["shortest_edge"].get<double>(), 0.0);
  }
  EXPECT_NE(whole.output.find("taken over at step 4"), std::string::npos) << whole.output;
  const auto sections = [&](const std::string& folder) { return sections_at(folder, steps); };
  const std::string expected = sections("whole");
  ASSERT_GT(expected.size(), 1000u);
  for (const char* step : {"5", "6"}) {
    SCOPED_TRACE(step);
    const std::string folder = std::string("from") + step;
    const RunResult r =
        run(options + "-restart whole/checkpoint_00000" + step + ".h5 -output_dir " + folder);
    ASSERT_EQ(r.exit_code, 0) << r.output;
    EXPECT_NE(r.output.find("the remesh made at step 4 takes over"), std::string::npos) << r.output;
    EXPECT_NE(r.output.find("taken over at step 6"), std::string::npos) << r.output;
    EXPECT_EQ(sections(folder), expected);
  }
}

TEST_F(AdaptiveMountainWave, OptionsThatCannotWorkAreRefused) {
  const auto refused = [&](const std::string& arguments, const std::string& mention) {
    const RunResult r = run("-vtk 0 -sections 0 -output_dir out -mesh_cells 4,4,2 " + arguments);
    EXPECT_EQ(r.exit_code, 2) << r.output;
    EXPECT_NE(r.output.find(mention), std::string::npos) << r.output;
    EXPECT_EQ(r.output.find("adapted at"), std::string::npos) << r.output;
  };
  refused("-adapt_interval 2 -adapt_hmin 2000 -adapt_hmax 1000", "-adapt_hmin 2000 m");
  refused("-adapt_interval 2 -mesh_partition slabs", "-mesh_partition metis");
  refused("-adapt_interval 2 -tracer_columns 2 -tracer_levels 2", "-tracer_columns");
  refused("-adapt_interval -3", "-adapt_interval");
  refused("-adapt_interval 2 -adapt_overlap 2", "-adapt_overlap");
  refused("-adapt_interval 2 -adapt_remesh_parts -1", "-adapt_remesh_parts");
  refused("-adapt_interval 2 -adapt_gradation 0.5", "-adapt_gradation 0.5");
}

// Bounds that cannot work on this domain, budget and step are refused before the model steps
// (exit 2, one line naming the option and the numbers): each class once, and the instances the
// issue measured (they ran for minutes inside Mmg, or made 135,863 nodes of a 245-node budget).
TEST_F(AdaptiveMountainWave, BoundsThatCannotWorkAreRefusedBeforeAnyStep) {
  const auto refused = [&](const std::string& arguments, const std::string& mention) {
    SCOPED_TRACE(arguments);
    const RunResult r =
        run("-vtk 0 -sections 0 -output_dir out -mesh_cells 6,6,4 "
            "-adapt_interval 1 " +
            arguments);
    EXPECT_EQ(r.exit_code, 2) << r.output;
    EXPECT_NE(r.output.find(mention), std::string::npos) << r.output;
    EXPECT_EQ(r.output.find("adapted at"), std::string::npos) << r.output;
    EXPECT_EQ(r.output.find("max div"), std::string::npos) << "a step ran:\n" << r.output;
  };
  // Below 1e-5 of the domain's longest side (60 km).
  refused("-adapt_hmin 1e-3 -adapt_hmax 1e-2", "-adapt_hmin 0.001 m is below 1e-05");
  refused("-adapt_hmin 0.1 -adapt_hmax 1", "-adapt_hmin 0.1 m is below 1e-05");
  // Longer than the domain.
  refused("-adapt_hmax 1e6", "-adapt_hmax 1e+06 m is longer than the domain's longest side");
  // Too short for the node budget: volume / hmax^3 alone is far above it.
  refused("-adapt_hmin 1 -adapt_hmax 10", "-adapt_hmax 10 m: the domain");
  refused("-adapt_hmin 1 -adapt_hmax 10", "more than 2 x -adapt_nodes 245");
  refused("-adapt_hmax 5000 -adapt_nodes 200", "use -adapt_hmax >= ");
  // Too short for the step: U dt / (0.6 hmin) = 10 m/s x 20 s / 0.6 m (Mmg keeps edges down to
  // 0.6 of the metric's length).
  refused("-adapt_hmin 1 -adapt_hmax 10000",
          "-adapt_hmin 1 m: the step of 20 s at U 10 m/s gives CFL 333.3");
  refused("-adapt_hmin 60 -cfl_max 4", "use -adapt_hmin >= 83.3");
}

// Mmg leaves edges shorter than -adapt_hmin (682 m for 1000 m here, at the third adaptation):
// run.json records each mesh's shortest edge and CFL. A -cfl_max that those edges would break
// (U dt / (0.6 hmin) = 0.33 above 0.25) is refused before the first step, where it used to stop
// the run at an adaptation (and before that, step on at CFL 70.8 with a warning and exit 0);
// an edge below 0.6 hmin after all still stops the run there (check_time_step_after_adaptation).
TEST_F(AdaptiveMountainWave, AStepAboveCflMaxAfterAnAdaptationIsAnError) {
  const std::string options =
      "-mesh_cells 6,6,4 -end_time 80 -adapt_interval 1 -adapt_nodes 3000 -adapt_hmin 1000 "
      "-vtk 0 -sections 0 -foehn_backend cpu ";
  const RunResult fits = run(options + "-output_dir fits");
  ASSERT_EQ(fits.exit_code, 0) << fits.output;
  const nlohmann::json record = run_json("fits");
  ASSERT_EQ(record["adaptations"].size(), 3u) << record.dump(1);
  double largest = 0;
  for (const auto& cycle : record["adaptations"]) {
    const double shortest = cycle["shortest_edge"], cfl = cycle["cfl"];
    EXPECT_GT(shortest, 0.0);
    // The tet with the shortest edge moves at least U = 10 m/s: CFL >= U dt / shortest.
    EXPECT_GE(cfl, (1 - 1e-12) * 10.0 * 20 / shortest);
    EXPECT_LE(cfl, 4.0);
    largest = std::max(largest, cfl);
  }
  ASSERT_GT(largest, 0.25) << "the case no longer makes edges shorter than -adapt_hmin";
  const RunResult r = run(options + "-cfl_max 0.25 -output_dir tight");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_EQ(r.output.find("adapted at step 1:"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("above -cfl_max 0.25"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("use -adapt_hmin >= 1333.3"), std::string::npos) << r.output;
  EXPECT_EQ(r.output.find("warning: step"), std::string::npos) << r.output;
  EXPECT_FALSE(std::filesystem::exists(folder_.path() / "tight" / "run.json"));
}

}  // namespace
