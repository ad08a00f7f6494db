// OptionTable: values parsed wide and range-checked, lists counted, choices and extensions
// checked, empty values refused, defaults kept, and every error naming the option, the value
// and what is allowed. The examples are the defects a tester found with PETSc's own getters
// (-cells_x 4294967300 read as 4, an empty value read as the default).
#include <gtest/gtest.h>
#include <petscsys.h>

#include <string>
#include <utility>
#include <vector>

#include "foehn/petsc/option_table.hpp"
#include "foehn/runtime/error.hpp"

namespace foehn::petsc {
namespace {

// The message of the invalid_input error `action` throws ("" if it throws nothing).
template <typename Action>
std::string invalid_input_message(Action&& action) {
  try {
    action();
  } catch (const Error& error) {
    EXPECT_EQ(error.category(), ErrorCategory::invalid_input) << error.what();
    return error.what();
  }
  return "";
}

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

TEST(ParseInteger, ReadsSixtyFourBitsAndChecksTheRange) {
  const IntegerRange cells{1, 100000};
  EXPECT_EQ(parse_integer("-cells_x", "24", cells), 24);
  EXPECT_EQ(parse_integer("-cells_x", "+24", cells), 24);
  EXPECT_EQ(parse_integer("-n", "5e6", {}), 5000000);  // a whole number written as a real
  EXPECT_EQ(parse_integer("-n", "-9223372036854775808", {}), -9223372036854775807LL - 1);
  // 2^32 + 4 once wrapped to 4.
  const std::string wrapped =
      invalid_input_message([&] { parse_integer("-cells_x", "4294967300", cells); });
  EXPECT_TRUE(contains(wrapped, "-cells_x '4294967300': out of range")) << wrapped;
  EXPECT_TRUE(contains(wrapped, "1..100000")) << wrapped;
  for (const char* bad : {"ten", "", "1.5", "12abc", "0x10", "nan", "inf", "1e30",
                          "99999999999999999999", "-1", "0", " 5"})
    EXPECT_TRUE(contains(invalid_input_message([&] { parse_integer("-cells_x", bad, cells); }),
                         "-cells_x '" + std::string(bad) + "'"))
        << bad;
}

TEST(ParseReal, RefusesNonFiniteAndOutOfRangeValues) {
  EXPECT_DOUBLE_EQ(parse_real("-dt", "2.5", RealRange::above(0)), 2.5);
  EXPECT_DOUBLE_EQ(parse_real("-dt", "1e-3", RealRange::above(0)), 1e-3);
  EXPECT_DOUBLE_EQ(parse_real("-x", "-4", RealRange::any()), -4.0);
  for (const char* bad : {"nan", "NaN", "inf", "-inf", "1e999", "abc", "", "1.0.0", "0", "-1"}) {
    const std::string message =
        invalid_input_message([&] { parse_real("-dt", bad, RealRange::above(0)); });
    EXPECT_TRUE(contains(message, "-dt '" + std::string(bad) + "'")) << bad << ": " << message;
    EXPECT_TRUE(contains(message, "> 0")) << message;
  }
  EXPECT_DOUBLE_EQ(parse_real("-g", "1", RealRange::above_up_to(0, 1)), 1.0);
  EXPECT_FALSE(
      invalid_input_message([] { parse_real("-g", "1.5", RealRange::above_up_to(0, 1)); }).empty());
  EXPECT_EQ(RealRange::closed(0.5, 1).describe(), "0.5..1");
  EXPECT_EQ(RealRange::above_up_to(0, 1).describe(), "> 0 and <= 1");
}

TEST(ParseFlag, AcceptsPetscSpellingsAndNothingElse) {
  for (const char* yes : {"", "true", "TRUE", "yes", "on", "1"})
    EXPECT_TRUE(parse_flag("-vtk", yes)) << yes;
  for (const char* no : {"false", "No", "off", "0"}) EXPECT_FALSE(parse_flag("-vtk", no)) << no;
  EXPECT_TRUE(contains(invalid_input_message([] { parse_flag("-vtk", "maybe"); }), "-vtk 'maybe'"));
}

TEST(SplitOptionList, RefusesEmptyItems) {
  EXPECT_EQ(split_option_list("-f", "a.nc,b.nc"), (std::vector<std::string>{"a.nc", "b.nc"}));
  for (const char* bad : {"a.nc,,b.nc", ",a.nc", "a.nc,", ""})
    EXPECT_TRUE(
        contains(invalid_input_message([&] { split_option_list("-f", bad); }), "empty item"))
        << bad;
}

class OptionTableFromDatabase : public ::testing::Test {
 protected:
  void set(const char* name, const char* value) {
    ASSERT_EQ(PetscOptionsSetValue(nullptr, name, value), 0);
    names_.push_back(name);
  }
  void TearDown() override {
    for (const std::string& name : names_) PetscOptionsClearValue(nullptr, name.c_str());
  }

  long long cells = 24;
  int levels = 20;
  double dt = 10.0;
  bool vtk = true;
  std::string output = "out/mesh.vtu", folder = "out", backend = "auto", label;
  std::vector<long long> mesh_cells{24, 24, 20};

  OptionTable table(const char* prefix = "") {
    OptionTable t(PETSC_COMM_SELF, "test options", prefix);
    t.integer("-t_cells", "cells", &cells, {1, 100000})
        .integer("-t_levels", "levels", &levels, {1, 1000})
        .real("-t_dt", "step", &dt, RealRange::above(0))
        .flag("-t_vtk", "write VTK", &vtk)
        .output_file("-t_o", "mesh", &output, {".vtu", ".msh"})
        .output_folder("-t_dir", "folder", &folder)
        .choice("-t_backend", "backend", &backend, {"auto", "cpu", "cuda"})
        .text("-t_label", "label", &label)
        .integer_list("-t_mesh_cells", "cells", &mesh_cells, 3, {1, 100000});
    return t;
  }

 private:
  std::vector<std::string> names_;
};

// The values a restart fingerprint takes: every option not marked otherwise, in declaration
// order, read from the variables when asked (a value derived after read() counts).
TEST(OptionTableResults, ResultDefiningValuesFollowTheVariablesAndSkipMarkedOptions) {
  enum class Shape { ball, box };
  long long steps = 10;
  double dt = 0.5;
  bool closed = false;
  Shape shape = Shape::box;
  std::string folder = "out", method = "cg";
  std::vector<long long> cells{2, 3, 4};
  OptionTable table(PETSC_COMM_SELF, "test");
  table.integer("-steps", "", &steps, {0, 100})
      .without_effect_on_results()
      .real("-dt", "", &dt, RealRange::above(0))
      .flag("-closed", "", &closed)
      .choice("-shape", "", &shape, {{"ball", Shape::ball}, {"box", Shape::box}})
      .choice("-method", "", &method, {"cg", "gmres"})
      .output_folder("-folder", "", &folder)
      .without_effect_on_results()
      .integer_list("-cells", "", &cells, 3, {1, 10});
  dt = 0.1;  // derived after reading, as dt from -cfl is
  shape = Shape::ball;
  using Values = std::vector<std::pair<std::string, std::string>>;
  EXPECT_EQ(table.result_defining_values(), (Values{{"-dt", "0.1"},
                                                    {"-closed", "false"},
                                                    {"-shape", "ball"},
                                                    {"-method", "cg"},
                                                    {"-cells", "2,3,4"}}));
  EXPECT_THROW(OptionTable(PETSC_COMM_SELF, "empty").without_effect_on_results(), Error);
}

TEST_F(OptionTableFromDatabase, DefaultsStayWhenNothingIsGiven) {
  OptionTable t = table();
  t.read();
  EXPECT_EQ(cells, 24);
  EXPECT_EQ(output, "out/mesh.vtu");
  EXPECT_EQ(folder, "out");  // a string default is used, not only displayed
  EXPECT_FALSE(t.was_set("-t_cells"));
}

TEST_F(OptionTableFromDatabase, GivenValuesAreParsedAndStored) {
  set("-p_t_cells", "5e4");
  set("-p_t_levels", "7");
  set("-p_t_dt", "0.5");
  set("-p_t_vtk", "false");
  set("-p_t_o", "b.MSH");
  set("-p_t_backend", "cpu");
  set("-p_t_mesh_cells", "4,5,6");
  OptionTable t = table("p_");
  t.read();
  EXPECT_EQ(cells, 50000);
  EXPECT_EQ(levels, 7);
  EXPECT_EQ(dt, 0.5);
  EXPECT_FALSE(vtk);
  EXPECT_EQ(output, "b.MSH");
  EXPECT_EQ(backend, "cpu");
  EXPECT_EQ(mesh_cells, (std::vector<long long>{4, 5, 6}));
  EXPECT_TRUE(t.was_set("-t_o"));
  EXPECT_EQ(t.spelled("-t_o"), "-p_t_o");
}

TEST_F(OptionTableFromDatabase, AFlagAloneIsTrue) {
  vtk = false;
  set("-t_vtk", nullptr);
  table().read();
  EXPECT_TRUE(vtk);
}

TEST_F(OptionTableFromDatabase, EveryBadValueNamesTheOption) {
  const std::vector<std::pair<const char*, const char*>> cases = {
      {"-t_cells", "4294967300"}, {"-t_levels", "2147483648"}, {"-t_dt", "nan"},
      {"-t_vtk", "maybe"},        {"-t_o", "b.txt"},           {"-t_o", "vtu"},
      {"-t_backend", "gpu"},      {"-t_mesh_cells", "4,4"},    {"-t_mesh_cells", "4,4,4,4"},
      {"-t_mesh_cells", "4,x,4"}, {"-t_cells", nullptr},       {"-t_dir", nullptr},
      {"-t_label", nullptr},      {"-t_mesh_cells", "4,,4"}};
  for (const auto& [name, value] : cases) {
    set(name, value);
    const std::string message = invalid_input_message([&] { table().read(); });
    EXPECT_TRUE(contains(message, name))
        << name << " " << (value ? value : "(none)") << ": " << message;
    PetscOptionsClearValue(nullptr, name);
  }
}

TEST_F(OptionTableFromDatabase, AnEmptyValueIsRefusedNotReplacedByTheDefault) {
  set("-t_o", "");
  const std::string message = invalid_input_message([&] { table().read(); });
  EXPECT_TRUE(contains(message, "-t_o: needs a value")) << message;
  EXPECT_TRUE(contains(message, "output file .vtu|.msh")) << message;
}

TEST_F(OptionTableFromDatabase, ARangeThatDoesNotFitTheVariableIsABug) {
  int narrow = 0;
  OptionTable t(PETSC_COMM_SELF, "test");
  try {
    t.integer("-t_narrow", "n", &narrow, {0, 1LL << 40});
    FAIL() << "a range wider than int was accepted";
  } catch (const Error& error) {
    EXPECT_EQ(error.category(), ErrorCategory::internal);
  }
}

}  // namespace
}  // namespace foehn::petsc
