// fe::AssemblerOptions from the PETSc options database: prefixed options are read, defaults
// kept for options not given, and a wrong value names the option and the accepted values.
#include <gtest/gtest.h>
#include <petscsys.h>

#include <string>

#include "foehn/petsc/assembler_options.hpp"
#include "foehn/runtime/error.hpp"

namespace foehn::petsc {
namespace {

class AssemblerOptionsFromDatabase : public ::testing::Test {
 protected:
  void TearDown() override {
    for (const char* name : {"-sys_foehn_backend", "-sys_foehn_assembly"})
      PetscOptionsClearValue(nullptr, name);
  }
};

TEST_F(AssemblerOptionsFromDatabase, PrefixedOptionsAreReadAndOthersKeepTheirDefaults) {
  fe::AssemblerOptions defaults;
  defaults.strategy = fe::AssemblyStrategy::staged;
  fe::AssemblerOptions read = assembler_options_from_database(PETSC_COMM_SELF, "sys_", defaults);
  EXPECT_EQ(read.backend, "auto");
  EXPECT_EQ(read.strategy, fe::AssemblyStrategy::staged);

  ASSERT_EQ(PetscOptionsSetValue(nullptr, "-sys_foehn_backend", "cpu"), 0);
  ASSERT_EQ(PetscOptionsSetValue(nullptr, "-sys_foehn_assembly", "deterministic"), 0);
  read = assembler_options_from_database(PETSC_COMM_SELF, "-sys_", defaults);
  EXPECT_EQ(read.backend, "cpu");
  EXPECT_EQ(read.strategy, fe::AssemblyStrategy::deterministic);
  // Without the prefix, the prefixed options are not this assembler's.
  read = assembler_options_from_database(PETSC_COMM_SELF, "", defaults);
  EXPECT_EQ(read.backend, "auto");
}

TEST_F(AssemblerOptionsFromDatabase, AWrongValueNamesTheOptionAndTheChoices) {
  ASSERT_EQ(PetscOptionsSetValue(nullptr, "-sys_foehn_backend", "gpu"), 0);
  try {
    assembler_options_from_database(PETSC_COMM_SELF, "sys_");
    FAIL() << "-sys_foehn_backend gpu was accepted";
  } catch (const Error& error) {
    const std::string message = error.what();
    EXPECT_NE(message.find("-sys_foehn_backend 'gpu'"), std::string::npos) << message;
    EXPECT_NE(message.find("expected one of cpu, cuda, auto"), std::string::npos) << message;
  }
  ASSERT_EQ(PetscOptionsSetValue(nullptr, "-sys_foehn_backend", "cpu"), 0);
  ASSERT_EQ(PetscOptionsSetValue(nullptr, "-sys_foehn_assembly", "fastest"), 0);
  try {
    assembler_options_from_database(PETSC_COMM_SELF, "sys_");
    FAIL() << "-sys_foehn_assembly fastest was accepted";
  } catch (const Error& error) {
    EXPECT_NE(std::string(error.what()).find("-sys_foehn_assembly 'fastest'"), std::string::npos)
        << error.what();
  }
}

}  // namespace
}  // namespace foehn::petsc
