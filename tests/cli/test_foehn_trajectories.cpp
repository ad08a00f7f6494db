// Runs foehn-trajectories as a user would: the default-style run writes snapshots with every
// parcel id; a run sorted every few steps and a never-sorted run give bitwise identical
// parcels (random numbers keyed by id); bad options and bad met files give exit code 2 and a
// message naming the problem; decay follows exp(-t/tau) through the driver.

#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "foehn/particles/io/met_netcdf.hpp"
#include "foehn/particles/io/particle_file.hpp"
#include "foehn/particles/synthetic.hpp"
#include "foehn/runtime/memory_budget.hpp"
#include "support/run_command.hpp"
#include "support/temp_dir.hpp"

namespace fs = std::filesystem;

namespace {

using foehn::testing::RunResult;

// A small, fast configuration: 4-degree turbulent grid, 2000 parcels, 6 hours.
const std::string small_run =
    " -met_nlon 90 -met_nlat 46 -met_nlev 20 -met_interval 3600 -parcels 2000 -end_time 21600"
    " -output_interval 10800 -foehn_backend cpu";

RunResult run_trajectories(const std::string& arguments) {
  return foehn::testing::run_command(std::string(FOEHN_TRAJECTORIES_TOOL) + " " + arguments);
}

// The tool's stderr alone (stdout discarded) and its exit code: where a refusal must be.
RunResult run_trajectories_stderr(const std::string& arguments) {
  return foehn::testing::run_command("{ " + std::string(FOEHN_TRAJECTORIES_TOOL) + " " + arguments +
                                     " 2>&3 >/dev/null; } 3>&1");
}

class TrajectoriesTool : public ::testing::Test {
 protected:
  std::string path(const std::string& name) const { return (folder_.path() / name).string(); }
  foehn::testing::TempDir folder_;
};

TEST_F(TrajectoriesTool, WritesSnapshotsWithEveryParcel) {
  const RunResult r = run_trajectories(small_run + " -output_dir " + path("run"));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("left the domain 0"), std::string::npos) << r.output;
  for (const char* name :
       {"parcels_0000000000.nc", "parcels_0000010800.nc", "parcels_0000021600.nc"}) {
    ASSERT_TRUE(fs::exists(fs::path(path("run")) / name)) << name << "\n" << r.output;
  }
  const auto start = foehn::particles::read_particle_file(path("run/parcels_0000000000.nc"));
  const auto end = foehn::particles::read_particle_file(path("run/parcels_0000021600.nc"));
  ASSERT_EQ(start.size(), 2000u);
  ASSERT_EQ(end.size(), 2000u);
  std::map<std::int64_t, int> ids;
  for (auto id : end.id) ++ids[id];
  EXPECT_EQ(ids.size(), 2000u);
  EXPECT_EQ(end.time.front(), 21600.0);
  EXPECT_TRUE(end.has_quantity("path_horizontal_m"));
  EXPECT_TRUE(end.has_quantity("subgrid_u"));
  // The first snapshot has every array the later ones have (ParaView's .pvd reader shows only
  // the first's), zero before the first step.
  EXPECT_EQ(start.quantity_names(), end.quantity_names());
  for (const auto& value : start.quantity("subgrid_u")) EXPECT_EQ(value, 0.0);
}

TEST_F(TrajectoriesTool, SortedAndUnsortedRunsAgreeBitwise) {
  ASSERT_EQ(
      run_trajectories(small_run + " -sort_interval 7 -output_dir " + path("sorted")).exit_code, 0);
  ASSERT_EQ(
      run_trajectories(small_run + " -sort_interval 0 -output_dir " + path("unsorted")).exit_code,
      0);
  const auto a = foehn::particles::read_particle_file(path("sorted/parcels_0000021600.nc"));
  const auto b = foehn::particles::read_particle_file(path("unsorted/parcels_0000021600.nc"));
  ASSERT_EQ(a.size(), b.size());
  std::map<std::int64_t, std::size_t> slot;
  for (std::size_t i = 0; i < b.size(); ++i) slot[b.id[i]] = i;
  bool reordered = false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    const std::size_t j = slot.at(a.id[i]);
    reordered = reordered || i != j;
    ASSERT_EQ(a.longitude[i], b.longitude[j]) << a.id[i];
    ASSERT_EQ(a.latitude[i], b.latitude[j]) << a.id[i];
    ASSERT_EQ(a.pressure[i], b.pressure[j]) << a.id[i];
  }
  EXPECT_TRUE(reordered);
}

TEST_F(TrajectoriesTool, DecayThroughTheDriverFollowsTheExponential) {
  const RunResult r = run_trajectories(small_run +
                                       " -diffusion 0 -subgrid_wind 0"
                                       " -decay_time_trop 43200 -decay_time_strat 43200"
                                       " -output_dir " +
                                       path("decay"));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const auto end = foehn::particles::read_particle_file(path("decay/parcels_0000021600.nc"));
  for (double m : end.quantity("mass")) ASSERT_NEAR(m, std::exp(-0.5), 1e-13);
}

// The same solid-body field (tilted over the poles, rising) from two netCDF files and from the
// built-in generator gives the same trajectories: the files' degrees cost only round-off.
TEST_F(TrajectoriesTool, NetcdfMetFilesGiveTheSyntheticRun) {
  using namespace foehn::particles;
  const MetGridGeometry geometry =
      make_global_geometry(36, 19, log_pressure_levels(10, 0.0, 30000.0), 0.0, 21600.0);
  const SolidBodyWind wind{0.5 * 3.14159265358979323846, 0.002};
  write_met_file(path("a.nc"), geometry, {0.0, 21600.0},
                 {sample_on_grid(geometry, wind, 0.0), sample_on_grid(geometry, wind, 21600.0)});
  write_met_file(path("b.nc"), geometry, {43200.0}, {sample_on_grid(geometry, wind, 43200.0)});
  const std::string common =
      " -parcels 500 -parcels_z_top 20000 -end_time 43200 -output_interval 21600"
      " -diffusion 0 -subgrid_wind 0 -foehn_backend cpu";
  const RunResult from_files =
      run_trajectories("-met netcdf -met_files " + path("a.nc") + "," + path("b.nc") + common +
                       " -output_dir " + path("files"));
  ASSERT_EQ(from_files.exit_code, 0) << from_files.output;
  const RunResult built_in = run_trajectories(
      "-met solid_body -alpha_deg 90 -vertical_velocity 0.002 -met_nlon 36 -met_nlat 19 -met_nlev "
      "10"
      " -met_z_top 30000 -met_interval 21600" +
      common + " -output_dir " + path("synthetic"));
  ASSERT_EQ(built_in.exit_code, 0) << built_in.output;
  const auto a = read_particle_file(path("files/parcels_0000043200.nc"));
  const auto b = read_particle_file(path("synthetic/parcels_0000043200.nc"));
  ASSERT_EQ(a.size(), 500u);
  ASSERT_EQ(a.id, b.id);  // both sorted by the same keys
  for (std::size_t i = 0; i < a.size(); ++i) {
    EXPECT_NEAR(a.longitude[i], b.longitude[i], 1e-9) << a.id[i];
    EXPECT_NEAR(a.latitude[i], b.latitude[i], 1e-9) << a.id[i];
    EXPECT_NEAR(a.pressure[i], b.pressure[i], 1e-9 * b.pressure[i]) << a.id[i];
  }
  // Asking for more time than the files hold is an error, not a silent extrapolation.
  const RunResult too_long = run_trajectories("-met netcdf -met_files " + path("a.nc") +
                                              " -parcels 10 -end_time 43200 -foehn_backend cpu"
                                              " -output_dir " +
                                              path("long"));
  EXPECT_EQ(too_long.exit_code, 2) << too_long.output;
  EXPECT_NE(too_long.output.find("met fields end"), std::string::npos) << too_long.output;
}

TEST_F(TrajectoriesTool, RejectsBadOptionsWithExitCode2) {
  const RunResult dt = run_trajectories(small_run + " -dt 1000 -output_dir " + path("x"));
  EXPECT_EQ(dt.exit_code, 2) << dt.output;
  EXPECT_NE(dt.output.find("whole number of steps"), std::string::npos) << dt.output;
  const RunResult typo = run_trajectories(small_run + " -difusion 0 -output_dir " + path("x"));
  EXPECT_EQ(typo.exit_code, 2) << typo.output;
  EXPECT_NE(typo.output.find("difusion"), std::string::npos) << typo.output;
  const RunResult negative =
      run_trajectories(small_run + " -diffusivity_h_trop -5 -output_dir " + path("x"));
  EXPECT_EQ(negative.exit_code, 2) << negative.output;
  const RunResult missing =
      run_trajectories("-met netcdf -foehn_backend cpu -output_dir " + path("x"));
  EXPECT_EQ(missing.exit_code, 2) << missing.output;
  EXPECT_NE(missing.output.find("-met_files"), std::string::npos) << missing.output;
}

TEST_F(TrajectoriesTool, RejectsAMetFileThatIsNotNetcdf) {
  {
    std::ofstream fake(path("fake.nc"));
    fake << "this is not a netCDF file\n";
  }
  const RunResult r = run_trajectories("-met netcdf -met_files " + path("fake.nc") +
                                       " -parcels 10 -foehn_backend cpu -output_dir " + path("x"));
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("fake.nc"), std::string::npos) << r.output;
}

// An initial parcel file on another clock than the met fields would be read with its times
// shifted by the difference: refused, naming both dates. On the same clock it runs, and the
// snapshots count from the same date.
TEST_F(TrajectoriesTool, RefusesInitialParcelsOnAnotherClock) {
  using namespace foehn::particles;
  ParticleSet parcels;
  parcels.add(0.5, 0.2, 50000.0, 0.0, 1);
  parcels.add(1.5, -0.2, 30000.0, 0.0, 2);
  write_particle_file(parcels, path("dated.nc"), {"seconds since 2000-01-01 00:00:00"});
  const std::string run_from =
      " -met_nlon 90 -met_nlat 46 -met_nlev 20 -met_interval 3600 -end_time 21600"
      " -output_interval 10800 -foehn_backend cpu -parcels_file ";
  const RunResult other =
      run_trajectories(run_from + path("dated.nc") + " -output_dir " + path("x"));
  EXPECT_EQ(other.exit_code, 2) << other.output;
  EXPECT_NE(other.output.find("its times count from 2000-01-01 00:00:00"), std::string::npos)
      << other.output;
  write_particle_file(parcels, path("epoch.nc"), {"seconds since 1970-01-01T00:00:00Z"});
  const RunResult same =
      run_trajectories(run_from + path("epoch.nc") + " -output_dir " + path("y"));
  ASSERT_EQ(same.exit_code, 0) << same.output;
  ParticleFileTime clock;
  (void)read_particle_file(path("y/parcels_0000021600.nc"), &clock);
  EXPECT_EQ(clock.reference_instant, 0.0);
}

// The tester's examples of issue 17: a value PETSc once wrapped modulo 2^32, an empty value, NaN,
// a list with a missing item, an output folder that is a file: each refused with exit code 2
// and a message on stderr naming the option, before anything is written.
TEST_F(TrajectoriesTool, RefusesBadValuesNamingTheOption) {
  { std::ofstream(path("a_file")) << "not a folder\n"; }
  struct Case {
    std::string arguments, expected;
  };
  const std::vector<Case> cases = {
      {"-parcels 4294967300", "-parcels '4294967300': out of range"},
      {"-met_nlon 4294967300", "-met_nlon '4294967300': out of range"},
      {"-met_seed 4294967296", "-met_seed '4294967296': out of range"},
      {"-parcels ''", "-parcels: needs a value"},
      {"-dt ''", "-dt: needs a value"},
      {"-dt nan", "-dt 'nan': not finite"},
      {"-diffusivity_h_trop NaN", "-diffusivity_h_trop 'NaN'"},
      {"-end_time inf", "-end_time 'inf'"},
      {"-sort_interval -1", "-sort_interval '-1'"},
      {"-integrator rk5", "-integrator 'rk5'"},
      {"-foehn_backend gpu", "-foehn_backend 'gpu'"},
      {"-path_length maybe", "-path_length 'maybe'"},
      {"-end_time 1e300", "-end_time - -start_time"},
      {"-met_seed 7 -met solid_body", "-met_seed is only read with -met turbulent"},
      {"-parcels_file " + path("a_file"), "-parcels is only read with random parcels"},
      {"-output_dir " + path("a_file"),
       "-output_dir '" + path("a_file") + "': '" + path("a_file") + "' exists and is not a folder"},
      {"-output_dir " + path("a_file/run"), "-output_dir '" + path("a_file/run") + "'"},
  };
  for (const Case& c : cases) {
    const RunResult r =
        run_trajectories_stderr(small_run + " -output_dir " + path("x") + " " + c.arguments);
    EXPECT_EQ(r.exit_code, 2) << c.arguments << "\n" << r.output;
    EXPECT_NE(r.output.find(c.expected), std::string::npos) << c.arguments << "\n" << r.output;
  }
  const RunResult missing_item = run_trajectories_stderr(
      "-met netcdf -met_files a.nc,,b.nc -foehn_backend cpu -output_dir " + path("x"));
  EXPECT_EQ(missing_item.exit_code, 2) << missing_item.output;
  EXPECT_NE(missing_item.output.find("-met_files 'a.nc,,b.nc': empty item"), std::string::npos)
      << missing_item.output;
  const RunResult absent = run_trajectories_stderr("-met netcdf -met_files " + path("absent.nc") +
                                                   " -foehn_backend cpu -output_dir " + path("x"));
  EXPECT_EQ(absent.exit_code, 2) << absent.output;
  EXPECT_NE(absent.output.find("-met_files '" + path("absent.nc") + "': no such file"),
            std::string::npos)
      << absent.output;
  EXPECT_FALSE(fs::exists(path("x"))) << "a refused run made its output folder";
}

// A parcel count the machine cannot hold is refused before anything is allocated, naming the
// option, the bytes needed and the bytes available.
TEST_F(TrajectoriesTool, RefusesMoreParcelsThanTheMemoryHolds) {
  const double needed = 4294967295.0 * 200.0;  // at least 200 B per parcel with all physics on
  if (foehn::available_host_memory_bytes() > needed) GTEST_SKIP() << "this machine could run it";
  const RunResult r =
      run_trajectories_stderr(small_run + " -parcels 4294967295 -output_dir " + path("x"));
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("-parcels 4294967295 ("), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("of host memory, more than the"), std::string::npos) << r.output;
  EXPECT_FALSE(fs::exists(path("x")));
}

// A string option's default is used, not only displayed: without -output_dir the snapshots go
// to out/trajectories under the working folder.
TEST_F(TrajectoriesTool, WritesToTheDefaultOutputDirWithoutTheOption) {
  const RunResult r = foehn::testing::run_command("cd " + folder_.path().string() + " && " +
                                                  FOEHN_TRAJECTORIES_TOOL + small_run);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_TRUE(fs::exists(path("out/trajectories/parcels_0000021600.nc"))) << r.output;
  EXPECT_NE(r.output.find("parcels.pvd in out/trajectories"), std::string::npos) << r.output;
}

}  // namespace
