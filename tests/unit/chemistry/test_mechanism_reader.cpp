// Mechanism reader: shipped files load, write/parse round trips, every bad-file case fails with
// a message naming the source, the reaction and the field.

#include <gtest/gtest.h>

#include <chrono>
#include <fstream>
#include <iterator>
#include <string>

#include "foehn/chemistry/mechanism.hpp"
#include "foehn/runtime/error.hpp"

namespace fc = foehn::chemistry;

namespace {

std::string mechanism_path(const char* name) {
  return std::string(FOEHN_MECHANISM_DIR) + "/" + name;
}

// A valid two-reaction mechanism with `reaction` appended as the third (index 2).
std::string with_reaction(const std::string& reaction) {
  return R"({"species": [{"name": "A"}, {"name": "B"}], "reactions": [
    {"type": "ARRHENIUS", "reactants": [{"species name": "A"}], "products": [{"species name": "B"}], "A": 1.0},
    {"type": "PHOTOLYSIS", "name": "jB", "reactants": [{"species name": "B"}], "products": [{"species name": "A"}]},
    )" + reaction +
         "]}";
}

// Expects invalid_input with every fragment in the message.
void expect_rejected(const std::string& text, std::initializer_list<const char*> fragments) {
  try {
    (void)fc::parse_mechanism(text, "bad.json");
    FAIL() << "accepted: " << text;
  } catch (const foehn::Error& error) {
    EXPECT_EQ(error.category(), foehn::ErrorCategory::invalid_input);
    const std::string message = error.what();
    EXPECT_NE(message.find("bad.json"), std::string::npos) << message;
    for (const char* fragment : fragments)
      EXPECT_NE(message.find(fragment), std::string::npos) << message;
  }
}

}  // namespace

TEST(MechanismReader, ShippedMechanismsLoad) {
  struct Expected {
    const char* file;
    std::size_t species, reactions;
  };
  for (const Expected& e :
       {Expected{"chapman.json", 5, 6}, Expected{"nox_stratosphere.json", 13, 14},
        Expected{"robertson.json", 3, 3}, Expected{"pollu.json", 20, 25},
        Expected{"hires.json", 8, 15}, Expected{"orego.json", 3, 9}}) {
    const fc::Mechanism m = fc::read_mechanism(mechanism_path(e.file));
    EXPECT_EQ(m.species.size(), e.species) << e.file;
    EXPECT_EQ(m.reactions.size(), e.reactions) << e.file;
  }
  const fc::Mechanism nox = fc::read_mechanism(mechanism_path("nox_stratosphere.json"));
  EXPECT_TRUE(nox.species[static_cast<std::size_t>(nox.species_index("M"))].constant);
  EXPECT_EQ(nox.external_rate_names.size(), 6u);  // 4 photolysis + loss + emission
  EXPECT_EQ(nox.equation(nox.reactions[10]), "2 HO2 -> H2O2 + O2");
}

TEST(MechanismReader, RoundTripKeepsEverything) {
  for (const char* file : {"nox_stratosphere.json", "pollu.json", "hires.json"}) {
    const fc::Mechanism a = fc::read_mechanism(mechanism_path(file));
    const fc::Mechanism b = fc::parse_mechanism(fc::mechanism_to_json(a), "round trip");
    ASSERT_EQ(a.species.size(), b.species.size());
    for (std::size_t i = 0; i < a.species.size(); ++i) {
      EXPECT_EQ(a.species[i].name, b.species[i].name);
      EXPECT_EQ(a.species[i].absolute_tolerance, b.species[i].absolute_tolerance);
      EXPECT_EQ(a.species[i].constant, b.species[i].constant);
    }
    ASSERT_EQ(a.reactions.size(), b.reactions.size());
    for (std::size_t r = 0; r < a.reactions.size(); ++r) {
      EXPECT_EQ(a.reactions[r].type, b.reactions[r].type);
      EXPECT_EQ(a.reactions[r].parameters, b.reactions[r].parameters);
      EXPECT_EQ(a.reactions[r].external_rate, b.reactions[r].external_rate);
      EXPECT_EQ(a.equation(a.reactions[r]), b.equation(b.reactions[r]));
    }
  }
}

TEST(MechanismReader, DefaultsFollowMicm) {
  const fc::Mechanism m = fc::parse_mechanism(
      with_reaction(
          R"({"type": "TROE", "reactants": [{"species name": "A"}], "products": [], "k0_A": 1e-30, "kinf_A": 1e-11})"),
      "t");
  const auto& p = m.reactions[2].parameters;
  EXPECT_EQ(p[6], 0.6);                            // Fc
  EXPECT_EQ(p[7], 1.0);                            // N
  EXPECT_EQ(m.reactions[0].parameters[3], 300.0);  // Arrhenius D
}

TEST(MechanismReader, BadFilesNameReactionAndField) {
  const char* arr =
      R"("type": "ARRHENIUS", "name": "R9", "reactants": [{"species name": "A"}], "products": [{"species name": "B"}])";
  expect_rejected(with_reaction(std::string("{") + arr + "}"),
                  {"reaction 2", "R9", "A -> B", "'A' is missing"});
  expect_rejected(with_reaction(std::string("{") + arr + R"(, "A": -1})"),
                  {"reaction 2", "R9", "'A' is negative"});
  expect_rejected(with_reaction(std::string("{") + arr + R"(, "A": 1e999})"),
                  {"not valid JSON", "overflow"});
  expect_rejected(with_reaction(std::string("{") + arr + R"(, "A": "fast"})"),
                  {"reaction 2", "'A' must be a number"});
  expect_rejected(with_reaction(std::string("{") + arr + R"(, "A": 1, "Q": 2})"),
                  {"reaction 2", "field 'Q'"});
  expect_rejected(with_reaction(R"({"type": "SPEEDY", "reactants": [{"species name": "A"}]})"),
                  {"reaction 2", "'type'", "SPEEDY"});
  expect_rejected(with_reaction(R"({"reactants": [{"species name": "A"}]})"),
                  {"reaction 2", "'type' is missing"});
  expect_rejected(
      with_reaction(
          R"({"type": "ARRHENIUS", "name": "R7", "A": 1, "reactants": [{"species name": "Z"}]})"),
      {"reaction 2", "R7", "reactants[0]", "unknown species 'Z'"});
  expect_rejected(
      with_reaction(
          R"({"type": "ARRHENIUS", "A": 1, "reactants": [{"species name": "A"}], "products": [{"species name": "B", "yield": -0.5}]})"),
      {"reaction 2", "products[0].yield"});
  expect_rejected(
      with_reaction(
          R"({"type": "ARRHENIUS", "A": 1, "reactants": [{"species name": "A", "coefficient": 1.5}]})"),
      {"reaction 2", "reactants[0].coefficient"});
  // Huge or wrapped coefficients: refused before they size anything (no runaway, no cast).
  expect_rejected(
      with_reaction(
          R"({"type": "ARRHENIUS", "A": 1, "reactants": [{"species name": "A", "coefficient": 1e9}]})"),
      {"reaction 2", "reactants[0].coefficient' is 1000000000", "integer from 1 to 16"});
  expect_rejected(
      with_reaction(
          R"({"type": "ARRHENIUS", "A": 1, "reactants": [{"species name": "A", "coefficient": 4294967297}]})"),
      {"reaction 2", "reactants[0].coefficient' is 4294967297"});
  expect_rejected(
      with_reaction(
          R"({"type": "ARRHENIUS", "A": 1, "reactants": [{"species name": "A", "coefficient": 17}]})"),
      {"reaction 2", "integer from 1 to 16"});
  expect_rejected(with_reaction(R"({"type": "PHOTOLYSIS", "reactants": [{"species name": "A"}]})"),
                  {"reaction 2", "'name' is required"});
  expect_rejected(
      with_reaction(R"({"type": "EMISSION", "name": "e", "reactants": [{"species name": "A"}]})"),
      {"reaction 2", "'reactants'"});
  expect_rejected(
      with_reaction(
          R"({"type": "TROE", "name": "T", "reactants": [{"species name": "A"}], "k0_A": 1e-30})"),
      {"reaction 2", "'kinf_A' is missing"});
  expect_rejected(
      with_reaction(
          R"({"type": "CMAQ_OH_HNO3", "reactants": [{"species name": "A"}], "k0_A": 1, "k2_A": 1})"),
      {"reaction 2", "'k3_A' is missing"});
  expect_rejected(
      with_reaction(
          R"({"type": "CMAQ_H2O2", "reactants": [{"species name": "A"}], "k1_A": 1, "k2_A": 1, "k2_C": null})"),
      {"reaction 2", "'k2_C' must be a number"});
  expect_rejected(R"({"species": [{"name": "A"}], "reactions": [ {"type": )", {"not valid JSON"});
  expect_rejected(R"({"species": [{"name": "A"}, {"name": "A"}], "reactions": []})",
                  {"species 1", "duplicate"});
  expect_rejected(R"({"species": [{"name": "A", "absolute tolerance": 0}], "reactions": []})",
                  {"species 0", "absolute tolerance"});
  expect_rejected(R"({"species": [{"name": "A"}]})", {"'reactions'"});
  expect_rejected(R"([1, 2])", {"top level"});
}

// Parameters the rate formula divides by: zero made an infinite or NaN rate constant, which
// the solver then reported as a singular matrix (exit 1), or, for N, silently no fall-off.
TEST(MechanismReader, ParametersTheRateDividesByMustBePositive) {
  const std::string reactants = R"("reactants": [{"species name": "A"}])";
  expect_rejected(with_reaction(R"({"type": "ARRHENIUS", "A": 1, "D": 0, )" + reactants + "}"),
                  {"reaction 2", "field 'D' is 0; it must be positive"});
  expect_rejected(with_reaction(R"({"type": "TROE", "k0_A": 1e-30, "kinf_A": 1e-11, "N": 0, )" +
                                reactants + "}"),
                  {"reaction 2", "field 'N' is 0; the rate constant divides by it"});
  expect_rejected(with_reaction(R"({"type": "TROE", "k0_A": 0, "kinf_A": 0, )" + reactants + "}"),
                  {"reaction 2", "field 'kinf_A' is 0"});
  expect_rejected(with_reaction(R"({"type": "CMAQ_OH_HNO3", "k0_A": 1, "k2_A": 0, "k3_A": 0, )" +
                                reactants + "}"),
                  {"reaction 2", "field 'k2_A' is 0"});
  // Zero is still fine where nothing divides by it (a channel switched off).
  EXPECT_NO_THROW(fc::parse_mechanism(
      with_reaction(R"({"type": "TROE", "k0_A": 0, "kinf_A": 1e-11, )" + reactants + "}"), "ok"));
}

// A shipped mechanism cut short at every few bytes: "truncated", naming the file; never a
// mechanism with reactions missing.
TEST(MechanismReader, TruncatedFileSaysSo) {
  std::ifstream in(mechanism_path("nox_stratosphere.json"), std::ios::binary);
  const std::string text{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  const std::size_t end = text.find_last_not_of(" \n\r\t") + 1;  // the closing brace
  for (std::size_t keep = 1; keep < end; keep += 7) {
    try {
      (void)fc::parse_mechanism(text.substr(0, keep), "cut.json");
      ADD_FAILURE() << keep << " bytes accepted";
    } catch (const foehn::Error& error) {
      EXPECT_EQ(error.category(), foehn::ErrorCategory::invalid_input);
      EXPECT_NE(std::string(error.what()).find("cut.json: not valid JSON (truncated"),
                std::string::npos)
          << keep << " bytes: " << error.what();
    }
  }
}

// Species names are looked up in a map: 60 000 species took 4.4 s with linear scans.
TEST(MechanismReader, ManySpeciesReadQuickly) {
  std::string text = R"({"species": [)";
  const int count = 100000;
  for (int i = 0; i < count; ++i)
    text += (i ? ",{\"name\": \"S" : "{\"name\": \"S") + std::to_string(i) + "\"}";
  text += R"(], "reactions": [{"type": "ARRHENIUS", "A": 1, "reactants": [{"species name": "S0"}],
    "products": [{"species name": "S99999"}]}]})";
  const auto start = std::chrono::steady_clock::now();
  const fc::Mechanism m = fc::parse_mechanism(text, "many.json");
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_EQ(m.species.size(), static_cast<std::size_t>(count));
  EXPECT_EQ(m.reactions[0].products[0].species, count - 1);
  EXPECT_LT(seconds, 2.0);  // about 0.1 s; the quadratic scans took about 12 s
  expect_rejected(R"({"species": [{"name": "A"}, {"name": "B"}, {"name": "A"}], "reactions": []})",
                  {"species 2", "duplicate species 'A'"});
}

TEST(MechanismReader, MissingFileIsIoError) {
  try {
    (void)fc::read_mechanism(mechanism_path("no_such_mechanism.json"));
    FAIL();
  } catch (const foehn::Error& error) {
    EXPECT_EQ(error.category(), foehn::ErrorCategory::io);
    EXPECT_NE(std::string(error.what()).find("no_such_mechanism.json"), std::string::npos);
  }
}

TEST(MechanismReader, NonJsonFileIsRejected) {
  try {
    (void)fc::parse_mechanism("cmake_minimum_required(VERSION 3.25)\n", "CMakeLists.json");
    FAIL();
  } catch (const foehn::Error& error) {
    EXPECT_EQ(error.category(), foehn::ErrorCategory::invalid_input);
    EXPECT_NE(std::string(error.what()).find("CMakeLists.json: not valid JSON"), std::string::npos);
  }
  // A file whose extension names no mechanism format is refused before it is read.
  try {
    (void)fc::read_mechanism(std::string(FOEHN_MECHANISM_DIR) + "/../../CMakeLists.txt");
    FAIL();
  } catch (const foehn::Error& error) {
    EXPECT_EQ(error.category(), foehn::ErrorCategory::invalid_input);
    EXPECT_NE(std::string(error.what()).find("unknown mechanism format"), std::string::npos);
  }
}
