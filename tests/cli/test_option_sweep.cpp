// Every option of every command-line tool, set to a bad value of each kind, exits with code 2
// and a message naming the option. The options are not listed here: they are read from the
// tool's own -help, where each Foehn option ends with its kind in brackets ("[integer 1..64]",
// "[real > 0]", "[flag]", "[one of a|b]", "[output file .vtu]", ...), so an option added
// later is swept too. An option whose help line lacks the bracket (read outside OptionTable)
// is not swept: the test also asserts that each tool lists at least the options it must.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <filesystem>
#include <future>
#include <regex>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "support/run_command.hpp"
#include "support/temp_dir.hpp"

namespace {

struct SweptTool {
  std::string name;        // for the test name
  std::string executable;  // with its subcommand, e.g. "foehn-mesh generate"
  // Arguments that make the run cheap should a bad value be accepted; one naming the option
  // under test is left out.
  std::vector<std::pair<std::string, std::string>> cheap_arguments;
  std::vector<std::string> must_list;  // options -help must show with a kind
};

// gtest prints a parameter with this rather than as bytes.
void PrintTo(const SweptTool& tool, std::ostream* out) {
  *out << tool.executable;
}

struct ListedOption {
  std::string name;  // with its dash and prefix
  std::string kind;  // the text in brackets
};

std::vector<ListedOption> options_in_help(const std::string& help) {
  // PETSc 3.18: "  -name <now v : formerly v>: text [kind] (man)"; 3.26 adds a colon after
  // the name.
  static const std::regex line(
      R"(^\s+(-[A-Za-z0-9_]+):? <now .*>: .*\[([^\[\]]+)\] \([^()]*\)\s*$)");
  static const std::regex kinds(
      R"(^(integer|real|flag|one of|output file|output folder|input file|input files|text|\d+ integers).*)");
  std::vector<ListedOption> found;
  std::istringstream in(help);
  std::string text;
  while (std::getline(in, text)) {
    std::smatch match;
    if (std::regex_match(text, match, line) && std::regex_match(match[2].str(), kinds) &&
        std::none_of(found.begin(), found.end(),
                     [&](const ListedOption& o) { return o.name == match[1].str(); }))
      found.push_back({match[1].str(), match[2].str()});
  }
  return found;
}

// "integer 1..64" -> "0"; "integer >= 0" -> "-1"; "real > 0" -> "0"; "" when unbounded below.
std::string below_the_range(const std::string& kind) {
  static const std::regex closed(R"(^(integer|real) (-?[0-9.e+]+)\.\..*)");
  static const std::regex at_least(R"(^(integer|real) >= (-?[0-9.e+]+).*)");
  static const std::regex above(R"(^(integer|real) > (-?[0-9.e+]+).*)");
  std::smatch m;
  if (std::regex_match(kind, m, closed) || std::regex_match(kind, m, at_least)) {
    const double bound = std::stod(m[2].str());
    if (bound < -1e15) return "";
    return m[1] == "integer" ? std::to_string(static_cast<long long>(bound) - 1)
                             : std::to_string(bound - 1.0);
  }
  if (std::regex_match(kind, m, above)) return m[2].str();
  return "";
}

// Above the range: its upper bound + 1, or past 64 bits when it has none. Where the range
// ends below 2^32, 2^32 + 4 too: PETSc's own getter wrapped it to 4.
std::vector<std::string> above_the_range(const std::string& kind) {
  static const std::regex upper(R"(^integer (.*\.\.|<= )(-?[0-9]+).*)");
  std::smatch m;
  if (!std::regex_match(kind, m, upper)) return {"99999999999999999999"};
  const long long bound = std::stoll(m[2].str());
  std::vector<std::string> values{std::to_string(bound + 1)};
  if (bound < 4294967300LL) values.push_back("4294967300");
  return values;
}

// The bad values of each kind; "" is an empty value (-name "").
std::vector<std::string> bad_values(const ListedOption& option) {
  const std::string& kind = option.kind;
  std::vector<std::string> values;
  if (kind.rfind("integer", 0) == 0) {
    values = {"ten", "2.5", ""};
    for (const std::string& above : above_the_range(kind)) values.push_back(above);
  } else if (kind.rfind("real", 0) == 0) {
    values = {"nan", "inf", "abc", ""};
  } else if (kind == "flag") {
    values = {"maybe"};
  } else if (kind.rfind("one of", 0) == 0) {
    values = {"no_such_choice", ""};
  } else if (kind.rfind("output file", 0) == 0) {
    values = {"wrong.extension", ""};
  } else if (kind.rfind("input files", 0) == 0) {
    values = {"a.nc,,b.nc", ""};
  } else if (std::isdigit(static_cast<unsigned char>(kind[0]))) {
    values = {"1", "1,x,1", "1,,1", ""};
  } else {
    values = {""};  // text, input file, output folder
  }
  const std::string below = below_the_range(kind);
  if (!below.empty()) values.push_back(below);
  return values;
}

std::string shell_quoted(const std::string& text) {
  std::string quoted = "'";
  for (char c : text) quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return quoted + "'";
}

// Each case is one process on its own. Open MPI's singleton start-up otherwise launches a
// helper daemon and probes every transport, 0.6 s a case against 0.24 s (Open MPI 4.1), which
// over a few thousand cases was most of the suite's time on two cores. Isolated singletons all
// take job family 0, so each case gets its own session folder (they would remove each other's).
std::string single_process_mpi(const std::filesystem::path& session) {
  return "mkdir -p " + session.string() + " && OMPI_MCA_orte_tmpdir_base=" + session.string() +
         " OMPI_MCA_ess_singleton_isolated=1 OMPI_MCA_pml=ob1 OMPI_MCA_btl=self ";
}

class OptionSweep : public ::testing::TestWithParam<SweptTool> {};

TEST_P(OptionSweep, EveryOptionWithABadValueExitsTwoNamingIt) {
  const SweptTool& tool = GetParam();
  foehn::testing::TempDir folder;
  const std::string in_folder = "cd " + folder.path().string() + " && ";
  const auto help = foehn::testing::run_command(in_folder + tool.executable + " -help");
  ASSERT_EQ(help.exit_code, 0) << help.output;
  const std::vector<ListedOption> options = options_in_help(help.output);
  for (const std::string& name : tool.must_list)
    EXPECT_TRUE(std::any_of(options.begin(), options.end(),
                            [&](const ListedOption& o) { return o.name == name; }))
        << name << " is not listed with its kind by " << tool.executable << " -help";

  struct Case {
    std::string option, value, command;
  };
  std::vector<Case> cases;
  for (const ListedOption& option : options) {
    std::string cheap;
    for (const auto& [name, value] : tool.cheap_arguments)
      if (name != option.name) cheap += " " + name + (value.empty() ? "" : " " + value);
    for (const std::string& value : bad_values(option))
      cases.push_back(
          {option.name, value,
           in_folder +
               single_process_mpi(folder.path() / ("mpi_session_" + std::to_string(cases.size()))) +
               "timeout 120 " + tool.executable + cheap + " " + option.name + " " +
               shell_quoted(value)});
  }

  // Two at a time: each run is a short MPI + PETSc start-up.
  std::vector<std::string> failures(cases.size());
  std::atomic<std::size_t> next{0};
  auto worker = [&] {
    for (std::size_t i = next++; i < cases.size(); i = next++) {
      const auto result = foehn::testing::run_command(cases[i].command);
      const bool names_option = result.output.find(cases[i].option) != std::string::npos;
      if (result.exit_code != 2 || !names_option)
        failures[i] = cases[i].option + " '" + cases[i].value + "': exit " +
                      std::to_string(result.exit_code) +
                      (names_option ? "" : ", option not named") + ": " +
                      result.output.substr(0, 300);
    }
  };
  std::thread helper(worker);
  worker();
  helper.join();
  std::size_t failed = 0;
  for (const std::string& failure : failures)
    if (!failure.empty()) {
      ++failed;
      ADD_FAILURE() << failure;
    }
  std::cout << tool.executable << ": " << options.size() << " options, " << cases.size()
            << " bad values, " << failed << " not refused as expected\n";
}

std::string tool(const char* path, const std::string& subcommand = "") {
  return std::string(path) + (subcommand.empty() ? "" : " " + subcommand);
}

INSTANTIATE_TEST_SUITE_P(
    Tools, OptionSweep,
    ::testing::Values(
        SweptTool{"mesh_generate",
                  tool(FOEHN_MESH_TOOL, "generate"),
                  {{"-cells_x", "2"}, {"-cells_y", "2"}, {"-cells_z", "2"}, {"-o", "m.vtu"}},
                  {"-cells_x", "-o", "-boundary_o", "-target_tets", "-h0", "-numbering",
                   "-msh_binary", "-partition"}},
        SweptTool{"mountainwave",
                  tool(FOEHN_MOUNTAINWAVE_TOOL),
                  {{"-mesh_cells", "2,2,2"},
                   {"-max_steps", "0"},
                   {"-vtk", "0"},
                   {"-sections", "0"},
                   {"-output_dir", "out"}},
                  {"-mesh_cells", "-mesh_tets", "-dt", "-cfl_max", "-end_time", "-output_dir",
                   "-foehn_backend", "-foehn_solves", "-theta_foehn_pc_rebuild_interval",
                   "-pressure_foehn_mat_format"}},
        SweptTool{"poisson",
                  tool(FOEHN_POISSON_TOOL),
                  {{"-cells", "2"}, {"-levels", "1"}},
                  {"-cells", "-levels", "-output", "-foehn_backend", "-poisson_foehn_handoff"}},
        SweptTool{"trajectories",
                  tool(FOEHN_TRAJECTORIES_TOOL),
                  {{"-parcels", "10"}, {"-end_time", "600"}, {"-output_dir", "out"}},
                  {"-parcels", "-met", "-met_files", "-dt", "-output_dir", "-foehn_backend"}},
        SweptTool{"trajectory_deviation", tool(FOEHN_DEVIATION_TOOL), {}, {}},
        SweptTool{"box", tool(FOEHN_BOX_TOOL), {}, {"-foehn_backend"}},
        SweptTool{"assemble", tool(FOEHN_ASSEMBLE_TOOL), {}, {"-foehn_backend"}}),
    [](const ::testing::TestParamInfo<SweptTool>& info) { return info.param.name; });

}  // namespace
