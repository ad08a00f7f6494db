// The options guard (apps/common/options_files.hpp) as a user meets it, in every program: each
// way PETSc takes options in (the command line, an options file's lines, PETSC_OPTIONS,
// PETSC_OPTIONS_YAML, .petscrc and petscrc in the working folder, ~/.petscrc, YAML !include)
// with the option names in other cases (PETSc matches them ignoring case), each naming a file
// PETSc's reader crashed or hung on (itself, a FIFO, NUL bytes, /proc files, a merge key that
// refers to itself, 200,000 nested maps). Each must be one line naming the option, variable or
// file and why, exit 2. Every run is under `timeout`, so that a hang fails (exit 124) instead
// of blocking the suite.
#include <sys/stat.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "support/run_command.hpp"
#include "support/temp_dir.hpp"

namespace {

using foehn::testing::RunResult;

struct Tool {
  std::string name;
  std::string command;  // the executable, with its subcommand
};

const std::vector<Tool>& tools() {
  static const std::vector<Tool> all = {{"foehn-mesh", std::string(FOEHN_MESH_TOOL) + " generate"},
                                        {"foehn-mountainwave", FOEHN_MOUNTAINWAVE_TOOL},
                                        {"foehn-poisson", FOEHN_POISSON_TOOL},
                                        {"foehn-trajectories", FOEHN_TRAJECTORIES_TOOL},
                                        {"foehn-trajectory-deviation", FOEHN_DEVIATION_TOOL},
                                        {"foehn-box", FOEHN_BOX_TOOL},
                                        {"foehn-assemble", FOEHN_ASSEMBLE_TOOL}};
  return all;
}

std::string shell_quoted(const std::string& text) {
  std::string quoted = "'";
  for (char c : text) quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return quoted + "'";
}

struct Case {
  std::string title;
  std::string environment;  // VAR=value words before the program (shell-quoted)
  std::string arguments;    // after the program (shell-quoted)
  std::string expected;     // in the one line
  std::vector<std::pair<std::string, std::string>> files = {};  // written in the folder first
};

class OptionsGuard : public ::testing::Test {
 protected:
  void SetUp() override {
    std::filesystem::create_directories(dir_ / "home");
    std::filesystem::create_directories(dir_ / "ompi");
    write("self.opts", "-options_file self.opts\n");
    write("nul.opts", std::string(64, '\0'));
    write("upper.opts", "-OPTIONS_FILE fifo\n");
    write("self.yaml", "$$include: !include self.yaml\n");
    write("include_fifo.yaml", "a: 1\n$$i: !include fifo\n");
    write("merge.yaml", "base: &base\n  x: 1\n  <<: *base\n");
    {
      // 200,000 nested maps, 1.2 MB: refused by the nesting bound, not the size's.
      std::ofstream deep(dir_ / "deep.yaml");
      deep << "a: ";
      for (int i = 0; i < 200000; ++i) deep << "{a: ";
      deep << "1" << std::string(200000, '}') << "\n";
    }
    {
      std::ofstream bomb(dir_ / "bomb.yaml");
      bomb << "a0: &a0 {x: 1}\n";
      for (int i = 1; i < 10; ++i) {
        bomb << "a" << i << ": &a" << i << " {<<: [";
        for (int k = 0; k < 10; ++k) bomb << (k ? ", " : "") << "*a" << i - 1;
        bomb << "]}\n";
      }
    }
    ASSERT_EQ(::mkfifo((dir_ / "fifo").c_str(), 0600), 0);
  }

  void write(const std::string& name, const std::string& text) {
    std::ofstream(dir_ / name, std::ios::binary) << text;
  }

  // The tool run in the folder, HOME the folder's home/, Open MPI's session files in its ompi/,
  // no options from the caller's environment, at most 120 s. (Open MPI's singletons of tests
  // run at once otherwise share /tmp/ompi.<host>.<uid>, and one's clean-up can fail another's
  // start: "A call to mkdir was unable to create the desired directory ... File exists".)
  RunResult run(const Tool& tool, const std::string& environment, const std::string& arguments,
                const std::string& launcher = "") {
    return foehn::testing::run_command(
        "cd " + shell_quoted(dir_.string()) +
        " && env -u PETSC_OPTIONS -u PETSC_OPTIONS_YAML HOME=" +
        shell_quoted((dir_ / "home").string()) +
        " OMPI_MCA_orte_tmpdir_base=" + shell_quoted((dir_ / "ompi").string()) + " " + environment +
        " timeout 120 " + launcher + " " + tool.command + " " + arguments);
  }

  void expect_one_line_refusal(const Tool& tool, const Case& c, const RunResult& r) {
    EXPECT_EQ(r.exit_code, 2) << tool.name << ", " << c.title << ":\n" << r.output;
    EXPECT_EQ(std::count(r.output.begin(), r.output.end(), '\n'), 1)
        << tool.name << ", " << c.title << ":\n"
        << r.output;
    EXPECT_EQ(r.output.rfind(tool.name + ": invalid input: ", 0), 0)
        << tool.name << ", " << c.title << ":\n"
        << r.output;
    EXPECT_NE(r.output.find(c.expected), std::string::npos)
        << tool.name << ", " << c.title << ": should say '" << c.expected << "':\n"
        << r.output;
  }

  const foehn::testing::TempDir temp_;
  const std::filesystem::path dir_ = temp_.path();
};

std::vector<Case> hostile_cases() {
  const std::string pagemap_include = "$$i: !include /proc/self/pagemap";
  return {
      // Option names in other cases, on the command line.
      {"FIFO, upper case", "", "-OPTIONS_FILE fifo", "-OPTIONS_FILE 'fifo': is a FIFO, not a file"},
      {"self-inclusion, mixed case", "", "-Options_File self.opts",
       "-Options_File 'self.opts' line 1: -options_file 'self.opts': includes itself "
       "(self.opts -> self.opts)"},
      {"NUL bytes, upper case", "", "-OPTIONS_FILE nul.opts",
       "-OPTIONS_FILE 'nul.opts': is not text (a NUL byte"},
      {"missing file, upper case", "", "-OPTIONS_FILE nonexistent.opts",
       "-OPTIONS_FILE 'nonexistent.opts': cannot be read (no such file)"},
      // ... in a file's line, in the variables and the default files.
      {"a file's line", "", "-options_file upper.opts",
       "-options_file 'upper.opts' line 1: -OPTIONS_FILE 'fifo': is a FIFO, not a file"},
      {"PETSC_OPTIONS", "PETSC_OPTIONS=" + shell_quoted("-Options_File fifo"), "",
       "PETSC_OPTIONS: -Options_File 'fifo': is a FIFO, not a file"},
      {"PETSC_OPTIONS ending in a reader option",
       "PETSC_OPTIONS=" + shell_quoted("-x 1 -Options_File"), "",
       "PETSC_OPTIONS: -Options_File: needs a file name"},
      {"a file's last line a reader option",
       "",
       "-options_file bare.opts",
       "-options_file 'bare.opts' line 2: -OPTIONS_FILE: needs a file name",
       {{"bare.opts", "-x 1\n-OPTIONS_FILE\n"}}},
      {"PETSC_OPTIONS_YAML", "PETSC_OPTIONS_YAML=" + shell_quoted("$$i: !include fifo"), "",
       "PETSC_OPTIONS_YAML: $$i: !include 'fifo': is a FIFO, not a file"},
      {".petscrc in the working folder",
       "",
       "",
       "PETSc's default options file '.petscrc' line 1: -OPTIONS_FILE 'fifo': is a FIFO",
       {{".petscrc", "-OPTIONS_FILE fifo\n"}}},
      {"petscrc in the working folder",
       "",
       "",
       "PETSc's default options file 'petscrc' line 1: -Options_File 'self.opts' line 1: "
       "-options_file 'self.opts': includes itself",
       {{"petscrc", "-Options_File self.opts\n"}}},
      {"~/.petscrc",
       "",
       "",
       "/home/.petscrc' line 1: -OPTIONS_FILE 'nul.opts': is not text",
       {{"home/.petscrc", "-OPTIONS_FILE nul.opts\n"}}},
      // YAML: !include, merge keys, nesting.
      {"YAML including itself", "", "-options_file_yaml self.yaml",
       "-options_file_yaml 'self.yaml': $$include: !include 'self.yaml': includes itself "
       "(self.yaml -> self.yaml)"},
      {"YAML including a FIFO, upper case", "", "-OPTIONS_FILE_YAML include_fifo.yaml",
       "$$i: !include 'fifo': is a FIFO, not a file"},
      {"-options_file of a .yaml file including itself", "", "-options_file self.yaml",
       "includes itself (self.yaml -> self.yaml)"},
      {"YAML string including /proc", "", "-Options_String_Yaml " + shell_quoted(pagemap_include),
       "$$i: !include '/proc/self/pagemap': is a file of proc"},
      {"merge key referring to its own map", "", "-options_file_yaml merge.yaml",
       "a YAML merge key or alias refers to a map that contains it"},
      {"merge key in a YAML string", "",
       "-options_string_yaml " + shell_quoted("a: &a {x: 1, <<: *a}"),
       "a YAML merge key or alias refers to a map that contains it"},
      {"merge keys expanding 10^9-fold", "", "-options_file_yaml bomb.yaml",
       "expands, with merge keys and aliases followed, to more than 100000 entries"},
      {"200,000 nested maps", "", "-options_file_yaml deep.yaml",
       "-options_file_yaml 'deep.yaml': YAML nested more than 64 levels deep"},
      // Files that are not files.
      {"/proc/self/pagemap", "", "-options_file /proc/self/pagemap",
       "-options_file '/proc/self/pagemap': is a file of proc, a kernel pseudo-file system"},
      {"/proc/kmsg", "", "-options_file_yaml /proc/kmsg", "'/proc/kmsg': is "},
      {"FIFO as YAML", "", "-options_file_yaml fifo", "'fifo': is a FIFO, not a file"},
      {"'${' without '}'", "", "-options_file " + shell_quoted("${HOME/x.opts"),
       "without a closing '}'"},
  };
}

TEST_F(OptionsGuard, EveryWayInIsRefusedInOneLineByEveryProgram) {
  for (const Tool& tool : tools())
    for (const Case& c : hostile_cases()) {
      for (const auto& [name, text] : c.files) write(name, text);
      expect_one_line_refusal(tool, c, run(tool, c.environment, c.arguments));
      for (const auto& [name, text] : c.files) std::filesystem::remove(dir_ / name);
    }
}

// -skip_petscrc on the command line skips the default files, as PETSc does: a hostile .petscrc
// is not read (and -help then lists the options, exit 0); "-skip_petscrc false" reads it.
TEST_F(OptionsGuard, SkipPetscrcSkipsTheDefaultFilesAsPetscDoes) {
  write(".petscrc", "-OPTIONS_FILE fifo\n");
  const Tool& mesh = tools().front();
  const RunResult skipped = run(mesh, "", "-skip_petscrc -help");
  EXPECT_EQ(skipped.exit_code, 0) << skipped.output;
  expect_one_line_refusal(mesh, {"-skip_petscrc false", "", "", "'.petscrc' line 1: -OPTIONS_FILE"},
                          run(mesh, "", "-skip_petscrc false -help"));
}

// A 65,534-character value or file name is shown by its start and its length, not whole.
TEST_F(OptionsGuard, LongValuesAreShownShortened) {
  const std::string long_value(65534, 'x');
  const Tool& mesh = tools().front();
  for (const std::string& arguments :
       {"-options_file " + long_value, "-cells_x " + long_value, "-" + long_value + " 1"}) {
    const RunResult r = run(mesh, "", arguments);
    EXPECT_EQ(r.exit_code, 2) << r.output.substr(0, 400);
    EXPECT_NE(r.output.find("(65534 characters)"), std::string::npos) << r.output.substr(0, 400);
    EXPECT_LT(r.output.size(), 600u) << r.output.substr(0, 400);
  }
}

// Under mpiexec every rank agrees: rank 0 checks, the verdict is shared, one line is printed,
// and no rank waits for another.
TEST_F(OptionsGuard, RanksAgreeOnARefusal) {
  const std::string launcher = std::string(FOEHN_MPIEXEC) + " -n 2 " + FOEHN_MPIEXEC_FLAGS;
  const Tool& mesh = tools().front();
  const RunResult r = run(mesh,
                          "OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 "
                          "OMPI_MCA_rmaps_base_oversubscribe=1",
                          "-OPTIONS_FILE fifo", launcher);
  EXPECT_EQ(r.exit_code, 2) << r.output;
  // One line from the program (mpiexec may add its own note of the exit code).
  std::size_t lines = 0;
  for (std::size_t at = r.output.find("foehn-mesh: "); at != std::string::npos;
       at = r.output.find("foehn-mesh: ", at + 1))
    ++lines;
  EXPECT_EQ(lines, 1u) << r.output;
  EXPECT_NE(r.output.find("foehn-mesh: invalid input: -OPTIONS_FILE 'fifo': is a FIFO, not a file"),
            std::string::npos)
      << r.output;
}

}  // namespace
