// foehn-trajectory-deviation as a user runs it: exit code 0 and the table for two snapshots
// (RHTD/RVTD only when both carry path lengths), --json, and exit code 2 with a message naming
// the problem for no common ids, a file that is not netCDF, a missing file, bad arguments;
// -json as every Foehn tool reads options (a wrong extension, an empty value or a folder
// refused naming it), in the --json and --json=FILE spellings the tool has always taken.

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "foehn/particles/io/particle_file.hpp"
#include "foehn/particles/io/trajectory_deviation.hpp"
#include "support/run_command.hpp"
#include "support/temp_dir.hpp"

namespace {

using namespace foehn::particles;
using foehn::testing::RunResult;

RunResult run_tool(const std::string& arguments) {
  return foehn::testing::run_command(std::string(FOEHN_DEVIATION_TOOL) + " " + arguments);
}

// The tool's stderr alone (stdout discarded) and its exit code: where a refusal must be.
RunResult run_tool_stderr(const std::string& arguments) {
  return foehn::testing::run_command("{ " + std::string(FOEHN_DEVIATION_TOOL) + " " + arguments +
                                     " 2>&3 >/dev/null; } 3>&1");
}

class DeviationTool : public ::testing::Test {
 protected:
  std::string path(const std::string& name) const { return (folder_ / name).string(); }
  // Parcels ids first_id.. on the equator, every 10 degrees, shifted east by `shift` rad.
  void write_parcels(const std::string& name, std::int64_t first_id, double shift, bool with_paths,
                     bool reversed = false) const {
    ParticleSet set;
    for (int i = 0; i < 10; ++i) {
      const int slot = reversed ? 9 - i : i;
      set.add(0.1745 * slot + shift, 0.0, 50000.0, 3600.0, first_id + slot);
    }
    set.add_quantity("mass", 1.0);
    if (with_paths) {
      set.add_quantity(path_horizontal_quantity, 1e6);
      set.add_quantity(path_vertical_quantity, 500.0);
    }
    write_particle_file(set, path(name));
  }
  foehn::testing::TempDir folder_;
};

TEST_F(DeviationTool, PrintsTheTableForMatchingRuns) {
  write_parcels("a.nc", 1, 0.0, true);
  write_parcels("b.nc", 1, 1e-4, true, true);
  const RunResult r = run_tool(path("a.nc") + " " + path("b.nc"));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  for (const char* fragment : {"matched by id: 10", "AHTD [m]", "AVTD [m]", "RHTD [%]", "RVTD [%]",
                               "mass |dq|", "637.122"}) {
    EXPECT_NE(r.output.find(fragment), std::string::npos) << fragment << "\n" << r.output;
  }
}

TEST_F(DeviationTool, WithoutPathLengthsOnlyAbsoluteDeviations) {
  write_parcels("a.nc", 1, 0.0, false);
  write_parcels("b.nc", 3, 0.0, true);
  const RunResult r = run_tool(path("a.nc") + " " + path("b.nc") + " --json " + path("out.json"));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("matched by id: 8; only in A: 2 (ids 1, 2); only in B: 2 (ids 11, 12)"),
            std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("RHTD, RVTD: not computed"), std::string::npos) << r.output;
  std::ifstream json_file(path("out.json"));
  std::stringstream json;
  json << json_file.rdbuf();
  EXPECT_NE(json.str().find("\"matched\": 8"), std::string::npos) << json.str();
  EXPECT_NE(json.str().find("\"relative_available\": false"), std::string::npos) << json.str();
}

TEST_F(DeviationTool, NoCommonIdsIsAnError) {
  write_parcels("a.nc", 1, 0.0, false);
  write_parcels("b.nc", 100, 0.0, false);
  const RunResult r = run_tool(path("a.nc") + " " + path("b.nc"));
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("no parcel ids in common"), std::string::npos) << r.output;
}

TEST_F(DeviationTool, BadFilesAndArguments) {
  write_parcels("a.nc", 1, 0.0, false);
  std::ofstream(path("fake.nc")) << "not netCDF\n";
  const RunResult fake = run_tool(path("a.nc") + " " + path("fake.nc"));
  EXPECT_EQ(fake.exit_code, 2) << fake.output;
  EXPECT_NE(fake.output.find("fake.nc"), std::string::npos) << fake.output;
  const RunResult missing = run_tool(path("absent.nc") + " " + path("a.nc"));
  EXPECT_EQ(missing.exit_code, 2) << missing.output;
  EXPECT_NE(missing.output.find("absent.nc"), std::string::npos) << missing.output;
  const RunResult one = run_tool(path("a.nc"));
  EXPECT_EQ(one.exit_code, 2) << one.output;
  EXPECT_NE(one.output.find("expected two particle files"), std::string::npos) << one.output;
  const RunResult option = run_tool(path("a.nc") + " " + path("a.nc") + " --jsn x");
  EXPECT_EQ(option.exit_code, 2) << option.output;
  EXPECT_NE(option.output.find("unknown option(s) -jsn"), std::string::npos) << option.output;
  const RunResult help = run_tool("--help");
  EXPECT_EQ(help.exit_code, 0) << help.output;
}

TEST_F(DeviationTool, JsonOptionInEverySpellingAndItsBadValues) {
  write_parcels("a.nc", 1, 0.0, true);
  write_parcels("b.nc", 1, 1e-4, true);
  const std::string files = path("a.nc") + " " + path("b.nc");
  for (const std::string spelling : {"-json ", "--json ", "--json=", "-json="}) {
    const std::string json = path("summary" + std::to_string(spelling.size()) + ".json");
    const RunResult r = run_tool(files + " " + spelling + json);
    EXPECT_EQ(r.exit_code, 0) << spelling << "\n" << r.output;
    EXPECT_TRUE(std::ifstream(json).good()) << spelling << "\n" << r.output;
  }
  const RunResult before = run_tool("-json " + path("first.json") + " " + files);
  EXPECT_EQ(before.exit_code, 0) << before.output;
  EXPECT_NE(before.output.find("matched by id: 10"), std::string::npos) << before.output;

  std::filesystem::create_directory(path("folder.json"));
  struct Case {
    std::string arguments, expected;
  };
  const std::vector<Case> cases = {
      {"-json " + path("summary.txt"), "-json '" + path("summary.txt") + "': expected a file"},
      {"-json ''", "-json: needs a value"},
      {"--json=", "-json: needs a value"},
      {"-json " + path("folder.json"), "-json '" + path("folder.json") + "': is a folder"},
  };
  for (const Case& c : cases) {
    const RunResult r = run_tool_stderr(files + " " + c.arguments);
    EXPECT_EQ(r.exit_code, 2) << c.arguments << "\n" << r.output;
    EXPECT_NE(r.output.find(c.expected), std::string::npos) << c.arguments << "\n" << r.output;
  }
  EXPECT_FALSE(std::ifstream(path("summary.txt")).good());

  const RunResult help = run_tool("-help");
  EXPECT_EQ(help.exit_code, 0) << help.output;
  EXPECT_NE(help.output.find("usage: foehn-trajectory-deviation"), std::string::npos);
  EXPECT_NE(help.output.find("[output file .json]"), std::string::npos) << help.output;
}

}  // namespace
