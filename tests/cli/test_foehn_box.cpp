// Runs foehn-box as a user would: Robertson's problem through the driver matches the published
// reference solution at t = 40; a synthetic run writes every cell at every output time with
// finite, non-negative concentrations; bad options, species and files give exit code 2 and a
// message naming the problem; a solver failure gives exit code 1 and leaves no CSV behind;
// -foehn_backend picks the backend (auto: the GPU if there is one), the old -backend is refused.

#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string>
#include <vector>

#include "foehn/runtime/device.hpp"
#include "foehn/runtime/memory_budget.hpp"
#include "support/run_command.hpp"
#include "support/temp_dir.hpp"

namespace fs = std::filesystem;

namespace {

using foehn::testing::RunResult;

const std::string robertson = std::string(FOEHN_MECHANISMS_DIR) + "/robertson.json";

RunResult run_box(const std::string& arguments) {
  return foehn::testing::run_command(std::string(FOEHN_BOX_TOOL) + " " + arguments);
}

// The tool's stderr alone (stdout discarded) and its exit code: where a refusal must be.
RunResult run_box_stderr(const std::string& arguments) {
  return foehn::testing::run_command("{ " + std::string(FOEHN_BOX_TOOL) + " " + arguments +
                                     " 2>&3 >/dev/null; } 3>&1");
}

struct Csv {
  std::vector<std::string> header;
  std::vector<std::vector<double>> rows;
};

std::vector<std::string> split(const std::string& line) {
  std::vector<std::string> fields;
  std::stringstream in(line);
  std::string field;
  while (std::getline(in, field, ',')) fields.push_back(field);
  return fields;
}

Csv read_csv(const fs::path& path) {
  Csv csv;
  std::ifstream in(path);
  std::string line;
  if (!std::getline(in, line)) return csv;
  csv.header = split(line);
  while (std::getline(in, line)) {
    std::vector<double> row;
    for (const std::string& field : split(line)) row.push_back(std::strtod(field.c_str(), nullptr));
    csv.rows.push_back(row);
  }
  return csv;
}

class BoxTool : public ::testing::Test {
 protected:
  std::string path(const std::string& name) const { return (folder_.path() / name).string(); }
  foehn::testing::TempDir folder_;
};

// Hairer & Wanner II, sec. IV.10 (reference solution of the Robertson problem at t = 40).
TEST_F(BoxTool, RobertsonMatchesThePublishedSolution) {
  const RunResult r = run_box("-mechanism " + robertson +
                              " -concentrations A=1 -duration 40 -chem_rtol 1e-8"
                              " -chem_atol 1e-14 -chem_method rodas4 -output " +
                              path("robertson.csv"));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("robertson"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("rodas4"), std::string::npos) << r.output;
  const Csv csv = read_csv(path("robertson.csv"));
  ASSERT_EQ(csv.header, (std::vector<std::string>{"time", "cell", "A", "B", "C"}));
  ASSERT_EQ(csv.rows.size(), 2u);  // t = 0 and t = 40
  EXPECT_EQ(csv.rows.front(), (std::vector<double>{0.0, 0.0, 1.0, 0.0, 0.0}));
  const std::vector<double>& last = csv.rows.back();
  ASSERT_EQ(last.size(), 5u);
  EXPECT_EQ(last[0], 40.0);
  EXPECT_EQ(last[1], 0.0);
  const double reference[3] = {0.7158270687193195, 9.185534764557910e-6, 0.2841637457458498};
  for (int i = 0; i < 3; ++i)
    EXPECT_NEAR(last[2 + i], reference[i], 1e-5 * reference[i]) << "species " << i;
  const auto files =
      std::distance(fs::directory_iterator(folder_.path()), fs::directory_iterator());
  EXPECT_EQ(files, 1) << "a temporary file was left behind";
}

TEST_F(BoxTool, SyntheticCellsAtEveryOutputTime) {
  const RunResult r = run_box(
      "-mechanism synthetic -synthetic_species 80 -synthetic_reactions 190"
      " -synthetic_seed 1 -cells 3 -case synthetic -case_seed 2 -duration 600"
      " -chem_step 100 -output_interval 200 -threads 1 -output " +
      path("synthetic.csv"));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("cells*steps/s"), std::string::npos) << r.output;
  const Csv csv = read_csv(path("synthetic.csv"));
  ASSERT_EQ(csv.header.size(), 2u + 80u);
  EXPECT_EQ(csv.header[0], "time");
  EXPECT_EQ(csv.header[1], "cell");
  ASSERT_EQ(csv.rows.size(), 4u * 3u);  // t = 0, 200, 400, 600; 3 cells each
  for (std::size_t row = 0; row < csv.rows.size(); ++row) {
    const std::vector<double>& values = csv.rows[row];
    ASSERT_EQ(values.size(), 82u) << "row " << row;
    EXPECT_EQ(values[0], 200.0 * static_cast<double>(row / 3)) << "row " << row;
    EXPECT_EQ(values[1], static_cast<double>(row % 3)) << "row " << row;
    for (std::size_t i = 2; i < values.size(); ++i) {
      ASSERT_TRUE(std::isfinite(values[i]) && values[i] >= 0.0) << "row " << row << " column " << i;
    }
  }
  // Chemistry happened: the last time differs from the first in every cell.
  for (std::size_t cell = 0; cell < 3; ++cell)
    EXPECT_NE(csv.rows[cell], csv.rows[9 + cell]) << cell;
}

TEST_F(BoxTool, RejectsBadInputWithExitCode2) {
  const std::string base = "-mechanism " + robertson + " -duration 1";
  struct Case {
    std::string arguments, expected;
  };
  {
    std::ofstream fake(path("fake.json"));
    fake << "this is not JSON\n";
    // A reactant coefficient of 1e9 once grew the tool to 10 GB (one entry per unit).
    std::ofstream runaway(path("runaway.json"));
    runaway << R"({"species": [{"name": "A"}, {"name": "B"}], "reactions": [{"type": "ARRHENIUS",)"
            << R"( "A": 1, "reactants": [{"species name": "A", "coefficient": 1e9}],)"
            << R"( "products": [{"species name": "B"}]}]})";
  }
  const std::vector<Case> cases = {
      {base + " -concentrations A=1,Q7=2", "Q7"},
      {base + " -chem_rtoll 1e-3", "chem_rtoll"},
      {"-mechanism " + robertson + " -duration -5", "-duration"},
      {base + " -chem_method ros5", "ros5"},
      {"-mechanism " + path("missing.json") + " -duration 1", "missing.json"},
      {"-mechanism " + path("fake.json") + " -duration 1", "fake.json"},
      {"-mechanism " + path("runaway.json") + " -duration 1", "integer from 1 to 16"},
      {base + " -external_rates j_no2=1e-3", "j_no2"},
      {base + " -concentrations A=-1", "A"},
      {base + " -chem_step 0.3 -output_interval 0.5 -output " + path("x.csv"), "-output_interval"},
      {"-duration 1", "-mechanism"},
      {"-mechanism " + robertson + " -write_mechanism " + path("m.txt"), "-write_mechanism"},
      {"-mechanism " + robertson + " -write_mechanism " + path("m.yaml") +
           " -write_mechanism_schema foehn",
       "-write_mechanism_schema foehn"},
      {base + " -write_mechanism_schema foehn", "-write_mechanism_schema"},
      {"-mechanism " + robertson + " -write_mechanism " + path("m.json") + " -output " +
           path("y.csv"),
       "-output is only read with -duration"},
  };
  for (const Case& c : cases) {
    const RunResult r = run_box(c.arguments);
    EXPECT_EQ(r.exit_code, 2) << c.arguments << "\n" << r.output;
    EXPECT_NE(r.output.find(c.expected), std::string::npos) << c.arguments << "\n" << r.output;
  }
  EXPECT_FALSE(fs::exists(path("x.csv")));
}

// A mechanism in molecule cm^-3 converted to OpenAtmos v1 YAML (MICM's mol m^-3), then run
// from that file with the state in mol m^-3 and from the original: the same concentrations
// once converted. A mechanism v1 cannot express is refused, naming why, with no file written.
TEST_F(BoxTool, ConvertsAMechanismAndRunsTheConvertedFile) {
  const std::string chapman = std::string(FOEHN_MECHANISMS_DIR) + "/chapman.json";
  const RunResult convert =
      run_box("-mechanism " + chapman + " -write_mechanism " + path("chapman.yaml"));
  ASSERT_EQ(convert.exit_code, 0) << convert.output;
  EXPECT_NE(convert.output.find("written to"), std::string::npos) << convert.output;
  const double f = 6.02214076e23 * 1e-6;                        // molecule cm^-3 in one mol m^-3
  const double cgs[] = {3.8e17, 8.0e16, 1.0e7, 1.0e1, 3.0e12};  // M, O2, O, O1D, O3
  const auto state = [&](double scale) {
    std::ostringstream text;
    text.precision(17);
    text << " -concentrations M=" << cgs[0] / scale << ",O2=" << cgs[1] / scale
         << ",O=" << cgs[2] / scale << ",O1D=" << cgs[3] / scale << ",O3=" << cgs[4] / scale;
    return " -duration 600 -temperature 230 -pressure 1200"
           " -external_rates jO2=1.2e-11,jO3_O1D=7e-5,jO3_O=5e-4 -chem_rtol 1e-8" +
           text.str() + " -output ";
  };
  const RunResult from_yaml =
      run_box("-mechanism " + path("chapman.yaml") + state(f) + path("a.csv"));
  const RunResult from_json = run_box("-mechanism " + chapman + state(1.0) + path("b.csv"));
  ASSERT_EQ(from_yaml.exit_code, 0) << from_yaml.output;
  ASSERT_EQ(from_json.exit_code, 0) << from_json.output;
  const Csv a = read_csv(path("a.csv"));
  const Csv b = read_csv(path("b.csv"));
  ASSERT_EQ(a.rows.size(), 2u);
  EXPECT_EQ(a.header, b.header);
  for (std::size_t column = 2; column < b.rows[1].size(); ++column)
    EXPECT_NEAR(a.rows[1][column] * f, b.rows[1][column], 1e-8 * std::abs(b.rows[1][column]))
        << b.header[column];
  EXPECT_NE(b.rows[1].back(), cgs[4]);  // O3 changed

  // KPP's small mechanism holds O2 constant with no value: v1 cannot say so.
  const std::string kpp =
      std::string(FOEHN_TEST_DATA_DIR) + "/mechanisms/same_in_four_formats/small.def";
  const RunResult refused = run_box("-mechanism " + kpp + " -write_mechanism " + path("s.yaml"));
  EXPECT_EQ(refused.exit_code, 2) << refused.output;
  EXPECT_NE(refused.output.find("species 'O2' is held constant"), std::string::npos)
      << refused.output;
  EXPECT_FALSE(fs::exists(path("s.yaml")));
}

TEST_F(BoxTool, SolverFailureExits1WithoutOutput) {
  const RunResult r = run_box("-mechanism " + robertson +
                              " -concentrations A=1 -duration 40 -chem_max_steps 3"
                              " -output " +
                              path("fail.csv"));
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("numerical"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("too many steps"), std::string::npos) << r.output;
  EXPECT_TRUE(fs::is_empty(folder_.path())) << "a failed run left a file behind";
}

// Finite parameters whose rate constant overflows at the run's temperature (A e^(C/T) with
// C/T = 1000): the reader cannot know the temperature, the solver fails in every cell; that is
// the mechanism's fault, so exit 2 naming the reaction and the cell, not a solver failure.
TEST_F(BoxTool, RateConstantThatOverflowsExits2NamingTheReaction) {
  {
    std::ofstream out(path("overflow.json"));
    out << R"({"name": "overflow", "species": [{"name": "A"}, {"name": "B"}],
 "reactions": [{"type": "ARRHENIUS", "name": "slow", "reactants": [{"species name": "A"}],
                "products": [{"species name": "B"}], "A": 1e-12},
               {"type": "ARRHENIUS", "name": "R_hot", "reactants": [{"species name": "A"}],
                "products": [{"species name": "B"}], "A": 1e300, "C": 300000}]})";
  }
  const RunResult r = run_box_stderr("-mechanism " + path("overflow.json") +
                                     " -cells 3 -concentrations A=1e10 -temperature 300"
                                     " -duration 10 -output " +
                                     path("overflow.csv"));
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("rate constant of reaction 1 ('R_hot') [A -> B] is inf in cell 0 (T "
                          "300 K"),
            std::string::npos)
      << r.output;
  EXPECT_FALSE(fs::exists(path("overflow.csv")));
}

// On the GPU, a batch whose per-cell device memory (here the rate constants of 100 000
// reactions, 0.8 MB a cell: 200 GB for 250 000 cells, more than an H200's 141 GB; 120 000 cells
// fitted there) exceeds the free device memory is refused before any allocation, exit 2, naming
// the cells and the bytes; the host side (2 species a cell) fits.
TEST_F(BoxTool, MoreCellsThanTheGpuHoldsAreRefusedNamingTheBytes) {
  if (foehn::cuda_device_count() == 0) GTEST_SKIP() << "no usable GPU";
  {
    std::ofstream out(path("many.json"));
    out << R"({"name": "many", "species": [{"name": "A"}, {"name": "B"}], "reactions": [)";
    for (int r = 0; r < 100000; ++r)
      out << (r > 0 ? "," : "") << R"({"type": "ARRHENIUS", "reactants": [{"species name": "A"}], )"
          << R"("products": [{"species name": "B"}], "A": 1e-9})";
    out << "]}";
  }
  const RunResult r = run_box_stderr("-mechanism " + path("many.json") +
                                     " -cells 250000 -concentrations A=1 -duration 1"
                                     " -foehn_backend cuda -output " +
                                     path("x.csv"));
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("chemistry on the GPU: 250000 cells ("), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("of GPU memory, more than the"), std::string::npos) << r.output;
  EXPECT_FALSE(fs::exists(path("x.csv")));
}

// No device, or a build without CUDA: cuda and split are refused before any work, exit code 1.
TEST_F(BoxTool, GpuBackendsWithoutAGpuAreUnavailable) {
  if (foehn::cuda_device_count() > 0) GTEST_SKIP() << "a GPU is usable here";
  for (const std::string backend : {"cuda", "split"}) {
    const RunResult r =
        run_box("-mechanism " + robertson + " -concentrations A=1 -duration 1 -foehn_backend " +
                backend + " -output " + path("x.csv"));
    EXPECT_EQ(r.exit_code, 1) << backend << "\n" << r.output;
    EXPECT_NE(r.output.find("foehn-box: unavailable: "), std::string::npos) << backend << "\n"
                                                                            << r.output;
    EXPECT_NE(r.output.find("backend 'cuda' was requested"), std::string::npos) << backend << "\n"
                                                                                << r.output;
  }
  EXPECT_TRUE(fs::is_empty(folder_.path()));
}

// auto is cuda where a GPU is usable and cpu elsewhere (saying why); Robertson comes out right
// either way, and -threads (a CPU setting) is accepted since it may apply.
TEST_F(BoxTool, AutoBackendUsesTheGpuIfThereIsOne) {
  const RunResult r =
      run_box("-mechanism " + robertson +
              " -concentrations A=1 -duration 40 -chem_rtol 1e-8"
              " -chem_atol 1e-14 -chem_method rodas4 -threads 1 -foehn_backend auto -output " +
              path("robertson.csv"));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  if (foehn::cuda_device_count() > 0) {
    EXPECT_NE(r.output.find("backend: cuda"), std::string::npos) << r.output;
  } else {
    EXPECT_NE(r.output.find("backend: cpu, 1 OpenMP threads (-foehn_backend auto)"),
              std::string::npos)
        << r.output;
    EXPECT_NE(r.output.find("using the CPU backend"), std::string::npos) << r.output;
  }
  const Csv csv = read_csv(path("robertson.csv"));
  ASSERT_EQ(csv.rows.size(), 2u);
  const double reference[3] = {0.7158270687193195, 9.185534764557910e-6, 0.2841637457458498};
  for (int i = 0; i < 3; ++i)
    EXPECT_NEAR(csv.rows.back()[2 + i], reference[i], 1e-5 * reference[i]) << i;
}

// -backend was foehn-box's own name for -foehn_backend: a script still passing it must fail
// loudly, not run on a backend it did not ask for. A wrong -foehn_backend value lists the valid
// ones.
TEST_F(BoxTool, OldBackendOptionAndWrongValuesAreRefused) {
  const std::string base = "-mechanism " + robertson + " -concentrations A=1 -duration 1";
  for (const std::string value : {"cpu", "cuda", "split"}) {
    const RunResult r = run_box(base + " -backend " + value);
    EXPECT_EQ(r.exit_code, 2) << value << "\n" << r.output;
    EXPECT_NE(r.output.find("-backend was renamed to -foehn_backend"), std::string::npos)
        << r.output;
  }
  const RunResult wrong = run_box(base + " -foehn_backend gpu");
  EXPECT_EQ(wrong.exit_code, 2) << wrong.output;
  EXPECT_EQ(wrong.output,
            "foehn-box: invalid input: -foehn_backend 'gpu': expected one of cpu, cuda, split, "
            "auto\n");
  const RunResult threads = run_box(base + " -foehn_backend cuda -threads 2");
  EXPECT_EQ(threads.exit_code, 2) << threads.output;
  EXPECT_NE(threads.output.find("-threads is only read with -foehn_backend cpu, split or auto"),
            std::string::npos)
      << threads.output;
}

// The tester's examples of issue 17: values PETSc once wrapped modulo 2^32, an empty value,
// NaN, a wrong output extension, a list with a missing item, an output that is a folder: each
// refused with exit code 2 and a message on stderr naming the option, with no file written.
TEST_F(BoxTool, RefusesBadValuesNamingTheOption) {
  fs::create_directory(path("folder.csv"));
  const std::string base = "-mechanism " + robertson + " -concentrations A=1 -duration 1";
  struct Case {
    std::string arguments, expected;
  };
  const std::vector<Case> cases = {
      {base + " -cells 4294967300", "-cells '4294967300': out of range"},
      {base + " -chem_max_steps 4294967297", "-chem_max_steps '4294967297': out of range"},
      {"-mechanism synthetic -synthetic_species 4294967300 -duration 1",
       "-synthetic_species '4294967300'"},
      {base + " -cells ''", "-cells: needs a value"},
      {"-mechanism " + robertson + " -duration ''", "-duration: needs a value"},
      {"-mechanism '' -duration 1", "-mechanism: needs a value"},
      {base + " -chem_rtol nan", "-chem_rtol 'nan': not finite"},
      {base + " -temperature NaN", "-temperature 'NaN'"},
      {base + " -concentrations A=nan", "-concentrations A 'nan'"},
      {base + " -pressure 0", "-pressure '0': out of range"},
      {base + " -split_damping 0", "-split_damping '0'"},
      {base + " -output " + path("out.txt"), "-output '" + path("out.txt") + "'"},
      {base + " -output " + path("folder.csv"),
       "-output '" + path("folder.csv") + "': is a folder"},
      {base + " -concentrations A=1,,C=2", "-concentrations 'A=1,,C=2': empty item"},
      {base + " -concentrations A=1,", "-concentrations 'A=1,': empty item"},
      {base + " -case cloudy", "-case 'cloudy'"},
      {base + " -chem_no_clip maybe", "-chem_no_clip 'maybe'"},
      {"-mechanism " + robertson + " -duration 1e300 -chem_step 1e-9", "-duration"},
      {base + " -output_cells 5 -output " + path("out.csv"), "-output_cells 5 is more than -cells"},
  };
  for (const Case& c : cases) {
    const RunResult r = run_box_stderr(c.arguments);
    EXPECT_EQ(r.exit_code, 2) << c.arguments << "\n" << r.output;
    EXPECT_NE(r.output.find(c.expected), std::string::npos) << c.arguments << "\n" << r.output;
  }
  EXPECT_FALSE(fs::exists(path("out.csv")));
  EXPECT_FALSE(fs::exists(path("out.txt")));
}

// A cell count the machine cannot hold is refused before the batch is allocated, naming the
// option, the bytes needed and the bytes available.
TEST_F(BoxTool, RefusesMoreCellsThanTheMemoryHolds) {
  const double needed = 2147483647.0 * 700.0;  // 80 species and their statistics: > 700 B a cell
  if (foehn::available_host_memory_bytes() > needed) GTEST_SKIP() << "this machine could run it";
  const RunResult r =
      run_box_stderr("-mechanism synthetic -case synthetic -duration 1 -cells 2147483647 -output " +
                     path("cells.csv"));
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("-cells 2147483647 ("), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("of host memory, more than the"), std::string::npos) << r.output;
  EXPECT_TRUE(fs::is_empty(folder_.path()));
}

TEST_F(BoxTool, HelpListsTheOptions) {
  const RunResult r = run_box("-help");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  for (const char* option :
       {"-mechanism", "-chem_method", "-concentrations", "-foehn_backend", "-output_interval"}) {
    EXPECT_NE(r.output.find(option), std::string::npos) << option << "\n" << r.output;
  }
}

}  // namespace

// Species a MICM file holds constant take the file's value, as MICM computes it, with no
// -concentrations for them: M = P/(R T) (third body), O2 = 0.21 M (mixing ratio), X = 2.5
// mol m-3 (concentration). -concentrations still overrides. (They were held at 0 before.)
TEST_F(BoxTool, FileConstantSpeciesTakeTheFileValuesAsMicmDoes) {
  {
    std::ofstream out(path("constants.yaml"));
    out << R"(version: 1.0.0
name: constants
species:
  - {name: M, is third body: true}
  - name: O2
    constant mixing ratio [mol mol-1]: 0.21
  - name: X
    constant concentration [mol m-3]: 2.5
  - {name: A}
  - {name: B}
phases: [{name: gas, species: [M, O2, X, A, B]}]
reactions:
  - {type: ARRHENIUS, gas phase: gas, A: 1.0e-3, reactants: [{species name: A}, {species name: M}],
     products: [{species name: B}, {species name: M}]}
)";
  }
  const std::string common = "-mechanism " + path("constants.yaml") +
                             " -temperature 250 -pressure 80000 -duration 1 -output ";
  const RunResult r = run_box(common + path("c.csv") + " -concentrations A=1");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("note: constant species at their file's values"), std::string::npos)
      << r.output;
  EXPECT_EQ(r.output.find("held at 0"), std::string::npos) << r.output;
  const Csv csv = read_csv(path("c.csv"));
  ASSERT_EQ(csv.header, (std::vector<std::string>{"time", "cell", "M", "O2", "X", "A", "B"}));
  const double air = 80000.0 / (8.314462618 * 250.0);  // mol m-3
  for (const std::vector<double>& row : csv.rows) {
    EXPECT_NEAR(row[2], air, 1e-9 * air);
    EXPECT_NEAR(row[3], 0.21 * air, 1e-9 * air);
    EXPECT_EQ(row[4], 2.5);
  }
  const RunResult given = run_box(common + path("d.csv") + " -concentrations A=1,M=10");
  ASSERT_EQ(given.exit_code, 0) << given.output;
  for (const std::vector<double>& row : read_csv(path("d.csv")).rows) EXPECT_EQ(row[2], 10.0);
}

// MICM's TERNARY_CHEMICAL_ACTIVATION with k0_A 1e308: k0 M overflows, which once gave a rate of
// 0 and exit 0. Now exit 2 before any step, naming the reaction and the conditions.
TEST_F(BoxTool, TernaryChemicalActivationThatOverflowsExits2) {
  {
    std::ofstream out(path("ternary.yaml"));
    out << R"(version: 1.0.0
species: [{name: A}, {name: B}]
phases: [{name: gas, species: [A, B]}]
reactions:
  - {type: ARRHENIUS, gas phase: gas, name: fine, A: 1.0e-3, reactants: [{species name: A}],
     products: [{species name: B}]}
  - {type: TERNARY_CHEMICAL_ACTIVATION, gas phase: gas, name: huge k0, k0_A: 1e308,
     kinf_A: 1.0e-11, reactants: [{species name: A}, {species name: B}],
     products: [{species name: B}]}
)";
  }
  const RunResult r = run_box_stderr("-mechanism " + path("ternary.yaml") +
                                     " -temperature 250 -pressure 5000 -concentrations A=1"
                                     " -duration 10 -output " +
                                     path("t.csv"));
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("the rate constant of reaction 1 ('huge k0') [A + B -> B] is inf in "
                          "cell 0 (T 250 K, P 5000 Pa)"),
            std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("TERNARY_CHEMICAL_ACTIVATION parameters overflow"), std::string::npos)
      << r.output;
  EXPECT_FALSE(fs::exists(path("t.csv")));
}

// A MICM-ordered YAML file (version first) cut short inside its last reaction, before its
// products: refused naming the file, the reaction and the key (it ran without products).
TEST_F(BoxTool, YamlCutInsideAReactionIsRefused) {
  {
    std::ofstream out(path("cut.yaml"));
    out << R"(version: 1.0.0
species: [{name: A}, {name: B}]
phases: [{name: gas, species: [A, B]}]
reactions:
  - type: ARRHENIUS
    gas phase: gas
    A: 1.0e-3
    reactants: [{species name: A}]
    products: [{species name: B}]
  - type: ARRHENIUS
    gas phase: gas
    A: 2.0e-3
    reactants: [{species name: B}]
)";
  }
  const RunResult r =
      run_box_stderr("-mechanism " + path("cut.yaml") + " -concentrations A=1 -duration 1");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("cut.yaml: reaction 1"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("field 'products' is missing"), std::string::npos) << r.output;
}
