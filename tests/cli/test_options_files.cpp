// The options-file check every Foehn program runs before PETSc reads its options
// (apps/common/options_files.cpp) against PETSc's own reader: each line below is written to a
// file, and the check must accept it exactly when PetscOptionsInsertFile does. What PETSc refuses
// with a 15-line trace (exit 1), the check refuses first in one line naming the file and line.

#include <gtest/gtest.h>
#include <petscsys.h>

#include <fstream>
#include <string>
#include <vector>

#include "options_files.hpp"
#include "support/temp_dir.hpp"

namespace {

// Whether PETSc's reader takes the file (its error trace silenced).
bool petsc_accepts(const std::string& path) {
  PetscOptions options = nullptr;
  EXPECT_EQ(PetscOptionsCreate(&options), 0);
  EXPECT_EQ(PetscPushErrorHandler(PetscReturnErrorHandler, nullptr), 0);
  const PetscErrorCode status =
      PetscOptionsInsertFile(PETSC_COMM_SELF, options, path.c_str(), PETSC_TRUE);
  EXPECT_EQ(PetscPopErrorHandler(), 0);
  EXPECT_EQ(PetscOptionsDestroy(&options), 0);
  return status == 0;  // PETSC_SUCCESS (PETSc 3.19 on); Debian's 3.18 has only 0
}

std::string foehn_check(const std::string& path) {
  std::string program = "tool", option = "-options_file", name = path, skip = "-skip_petscrc";
  char* argv[] = {program.data(), option.data(), name.data(), skip.data(), nullptr};
  return foehn::app::check_options_files(4, argv);
}

}  // namespace

TEST(OptionsFiles, TheCheckAcceptsExactlyWhatPetscReads) {
  const foehn::testing::TempDir dir;
  const std::vector<std::string> lines = {
      "-duration 600",
      "  -duration\t600  ",
      "-monitor",
      "--long_form 3",
      "-name \"a value with blanks\"",
      "-name \"unclosed quote",
      "-duration 600 # a comment -chem_method rodas4",
      "# only a comment",
      "alias -d -duration",
      "ALIAS -d -duration",
      "-duration 600 -chem_method rodas4",  // what a user wrote (and PETSc refused, exit 1)
      "-duration 600 rodas4",
      "-duration -chem_method",
      "-duration -1e5",
      "-x -inf",
      "alias -d",
      "alias -d -duration -extra",
      "alias -d 5",
      "duration 600",
      "-5 600",
      "- 600",
      "\"-duration\" 600",
      "\"\"",  // an empty first token: PETSc takes the next one instead
      "\"\" -duration 600",
      "\"\" \"\" -duration 600",
  };
  int index = 0;
  for (const std::string& line : lines) {
    const std::string path = (dir / ("case" + std::to_string(index++) + ".opts")).string();
    std::ofstream(path) << "-first 1\n" << line << "\n";
    const bool petsc = petsc_accepts(path);
    const std::string problem = foehn_check(path);
    EXPECT_EQ(problem.empty(), petsc)
        << "line '" << line << "': PETSc " << (petsc ? "accepts" : "refuses")
        << ", the check says '" << problem << "'";
    if (!problem.empty()) {
      EXPECT_EQ(problem.find('\n'), std::string::npos) << problem;
      EXPECT_NE(problem.find(path + "' line 2: "), std::string::npos) << problem;
    }
  }
}

// A reader option without its file, last in a file: PETSc (optimised) opens a null name and
// crashes, so there is no PETSc answer to compare with; the guard refuses it.
TEST(OptionsFiles, AReaderOptionWithoutItsFileIsRefused) {
  const foehn::testing::TempDir dir;
  const std::string path = (dir / "bare.opts").string();
  for (const char* line : {"-OPTIONS_FILE", "-options_file_YAML", "-Options_String_Yaml"}) {
    std::ofstream(path) << "-x 1\n" << line << "\n";
    const std::string problem = foehn_check(path);
    EXPECT_NE(problem.find(path + "' line 2: " + line + ": needs a"), std::string::npos) << problem;
  }
}

TEST(OptionsFiles, RefusalsSayWhatPetscWants) {
  const foehn::testing::TempDir dir;
  const std::string path = (dir / "two.opts").string();
  std::ofstream(path) << "-duration 600 -chem_method rodas4\n";
  EXPECT_NE(foehn_check(path).find("two options on one line ('-duration' and '-chem_method'"),
            std::string::npos)
      << foehn_check(path);
  std::ofstream(path) << "-concentrations A=1, B=2\n";
  EXPECT_NE(foehn_check(path).find("'B=2' after '-concentrations A=1,' (PETSc takes one option "
                                   "and one value per line; quote a value with blanks)"),
            std::string::npos)
      << foehn_check(path);
}

// The readers an options file's line can name, in any case (PETSc compares the names ignoring
// case), including YAML files and strings with `$$name: !include file`: the guard must follow
// each exactly where PETSc follows it, refusing a missing file where PETSc does.
TEST(OptionsFiles, IncludesInAnyCaseAreFollowedAsPetscFollowsThem) {
  const foehn::testing::TempDir dir;
  const std::string good = (dir / "good.opts").string(), good_yaml = (dir / "good.yaml").string(),
                    missing = (dir / "missing.opts").string(),
                    missing_yaml = (dir / "missing.yaml").string();
  std::ofstream(good) << "-x 1\n";
  std::ofstream(good_yaml) << "x: 1\n";
  std::ofstream(dir / "include_good.yaml") << "$$i: !include " << good_yaml << "\n";
  std::ofstream(dir / "include_missing.yaml") << "$$i: !include " << missing_yaml << "\n";
  const std::vector<std::string> lines = {
      "-OPTIONS_FILE " + good,
      "-Options_File " + missing,
      "-options_FILE_yaml " + good_yaml,
      "-OPTIONS_FILE_YAML " + missing_yaml,
      "-options_file_yaml " + (dir / "include_good.yaml").string(),
      "-Options_File_Yaml " + (dir / "include_missing.yaml").string(),
      "-OPTIONS_STRING_YAML \"$$i: !include " + good_yaml + "\"",
      "-options_string_YAML \"$$i: !include " + missing_yaml + "\"",
      "-options_file " + good_yaml,            // YAML by its extension
      "-OPTIONS_FILE " + good_yaml + ":yaml",  // a ":yaml" suffix
      "-options_file " + missing_yaml + ":yaml",
  };
  int index = 0;
  for (const std::string& line : lines) {
    const std::string path = (dir / ("case" + std::to_string(index++) + ".opts")).string();
    std::ofstream(path) << "-first 1\n" << line << "\n";
    const bool petsc = petsc_accepts(path);
    const std::string problem = foehn_check(path);
    EXPECT_EQ(problem.empty(), petsc)
        << "line '" << line << "': PETSc " << (petsc ? "accepts" : "refuses")
        << ", the check says '" << problem << "'";
    if (!problem.empty()) {
      EXPECT_EQ(problem.find('\n'), std::string::npos) << problem;
    }
  }
}
