// MICM's reaction types beyond mass-action Arrhenius/Troe, which MUSICA's TS1 and T1S2 use:
// USER_DEFINED (a per-cell rate, any reactants), SURFACE (uptake on aerosol, two per-cell values),
// TERNARY_CHEMICAL_ACTIVATION and TERNARY_CHEMICAL_ACTIVATION_JPL19. Rates against hand values
// (a separate Python evaluation of the formulas as MICM documents them, digits pasted below);
// the v1 reader's and writer's meaning of each; units; refusals naming the field.

#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "expect_rejected.hpp"
#include "foehn/chemistry/compiled_mechanism.hpp"
#include "foehn/chemistry/mechanism.hpp"
#include "foehn/runtime/error.hpp"

namespace fc = foehn::chemistry;

namespace {

struct Point {
  double temperature, pressure, ternary, jpl19, surface;
};
// TERNARY_CHEMICAL_ACTIVATION: k0 1.2e-12 e^(302.3/T) (T/300)^2.3, kinf 2.6e-11 e^(402.1/T)
// (T/300)^-3.1, Fc 0.9, N 1.2 (molecule cm^-3). JPL19, CO + OH (JPL 19-5): k0 6.9e-33
// (T/298)^-2.1, kinf 1.1e-12 (T/298)^1.3, kint 1.85e-13 e^(-65/T), Fc 0.6, N 1. SURFACE: gamma
// 0.02, D_g 1e-5 m2 s-1, M_w 0.108 kg mol-1, r 2.820947917738780e-8 m, N 1e11 m^-3 (MUSICA's
// TS1 box), evaluated as 4 N pi r^2 / (r / D_g + 4 / (v gamma)).
constexpr Point points[] = {
    {250.0, 5000.0, 1.5768852396517065e-28, 1.5317635449711742e-13, 0.0011034719152158382},
    {298.15, 101325.0, 4.146133094117422e-30, 2.422131347555848e-13, 0.0012047148028973113},
};
constexpr double radius = 2.820947917738780e-08, number = 1e11;

void expect_relative(double actual, double expected, double tolerance = 1e-13) {
  EXPECT_LE(std::abs(actual - expected), tolerance * std::abs(expected))
      << actual << " vs " << expected;
}

using foehn::testing::expect_rejected;

fc::Mechanism v1(const std::string& text) {
  return fc::parse_mechanism(text, "v1.json");
}

// N2O5 with a molecular weight (species) and a diffusion coefficient (its gas-phase entry, as
// MUSICA's TS1 gives it), HNO3, CO, OH, CO2, HO2; `reactions` as the reaction list.
std::string v1_aerosol(
    const std::string& reactions,
    const std::string& n2o5_extra = R"(, "molecular weight [kg mol-1]": 0.108)") {
  return R"({"version": "1.4.0", "name": "aerosol",
    "species": [{"name": "N2O5")" +
         n2o5_extra + R"(}, {"name": "HNO3"}, {"name": "CO"}, {"name": "OH"},
                {"name": "CO2"}, {"name": "HO2"}],
    "phases": [{"name": "gas", "species": [{"name": "N2O5", "diffusion coefficient [m2 s-1]": 1e-5},
                                           "HNO3", "CO", "OH", "CO2", "HO2"]}],
    "reactions": [)" +
         reactions + "]}";
}

const std::string n2o5_uptake =
    R"({"type": "SURFACE", "name": "usr_N2O5_aer", "gas phase": "gas", "reaction probability": 0.02,
        "gas-phase species": "N2O5", "gas-phase products": [{"species name": "HNO3", "coefficient": 2}]})";
// JPL 19-5's CO + OH in mol m^-3 (k0 times (N_A 1e-6)^2, kinf and kint times N_A 1e-6).
const std::string co_oh_jpl19 = [] {
  const double f = 6.02214076e23 * 1e-6;
  return R"({"type": "TERNARY_CHEMICAL_ACTIVATION_JPL19", "gas phase": "gas", "name": "usr_CO_OH",
        "k0_A": )" +
         std::to_string(6.9e-33 * f * f) + R"(, "k0_B": -2.1, "kinf_A": )" +
         std::to_string(1.1e-12 * f) + R"(, "kinf_B": 1.3, "kint_A": )" +
         std::to_string(1.85e-13 * f) + R"(, "kint_C": -65, "Fc": 0.6, "N": 1,
        "reactants": [{"species name": "CO"}, {"species name": "OH"}],
        "products": [{"species name": "CO2"}, {"species name": "HO2"}]})";
}();
const std::string dms_user =
    R"({"type": "USER_DEFINED", "gas phase": "gas", "name": "usr_DMS_OH", "scaling factor": 0.5,
        "reactants": [{"species name": "CO"}, {"species name": "OH"}],
        "products": [{"species name": "HO2"}]})";

}  // namespace

TEST(MicmReactionTypes, FormulasMatchHandValues) {
  const double ternary[fc::max_rate_parameters] = {1.2e-12, 2.3,   302.3, 2.6e-11,
                                                   -3.1,    402.1, 0.9,   1.2};
  const double jpl19[fc::max_rate_parameters] = {6.9e-33, -2.1,     0.0, 298.0, 1.1e-12, 1.3, 0.0,
                                                 298.0,   1.85e-13, 0.0, -65.0, 298.0,   0.6, 1.0};
  const double surface[fc::max_rate_parameters] = {1.0, 0.02, 1e-5, 0.108};
  const double per_cell[] = {radius, number};
  for (const Point& p : points) {
    const auto rate = [&](fc::ReactionType type, const double* parameters) {
      return fc::rate_constant(static_cast<int>(type), parameters, 0, p.temperature, p.pressure,
                               per_cell);
    };
    expect_relative(rate(fc::ReactionType::ternary_chemical_activation, ternary), p.ternary);
    expect_relative(rate(fc::ReactionType::ternary_chemical_activation_jpl19, jpl19), p.jpl19);
    expect_relative(rate(fc::ReactionType::surface, surface), p.surface);
  }
  // A reaction probability of 0 switches the uptake off (MUSICA's T1S2 has such placeholders):
  // 0, not the NaN or infinity a division by it would give.
  const double off[fc::max_rate_parameters] = {1.0, 0.0, 1e-5, 0.108};
  EXPECT_EQ(fc::rate_constant(static_cast<int>(fc::ReactionType::surface), off, 0, 250.0, 5000.0,
                              per_cell),
            0.0);
}

TEST(MicmReactionTypes, V1SurfaceReadsItsSpeciesPropertiesAndTwoPerCellValues) {
  const fc::Mechanism m = v1(v1_aerosol(n2o5_uptake + "," + dms_user));
  const fc::Reaction& uptake = m.reactions[0];
  EXPECT_EQ(uptake.type, fc::ReactionType::surface);
  EXPECT_EQ(m.equation(uptake), "N2O5 -> 2 HNO3");
  EXPECT_EQ(uptake.parameters[1], 0.02);
  EXPECT_EQ(uptake.parameters[2], 1e-5);   // from the gas phase's entry
  EXPECT_EQ(uptake.parameters[3], 0.108);  // from the species
  // Two per-cell values next to each other, then the user-defined rate.
  EXPECT_EQ(m.external_rate_names,
            (std::vector<std::string>{"usr_N2O5_aer.effective_radius",
                                      "usr_N2O5_aer.particle_number_concentration", "usr_DMS_OH"}));
  const fc::CompiledMechanism c = fc::compile(m);
  std::vector<double> k(m.reactions.size());
  const double per_cell[] = {radius, number, 3.0};
  for (const Point& p : points) {
    fc::compute_rate_constants(c.view(), p.temperature, p.pressure, per_cell, k.data());
    expect_relative(k[0], p.surface);
    EXPECT_EQ(k[1], 1.5);  // USER_DEFINED: scaling factor times the per-cell rate
  }
}

TEST(MicmReactionTypes, V1RefusesWhatTheRatesCannotUse) {
  expect_rejected([] { return v1(v1_aerosol(n2o5_uptake, "")); },
                  {"reaction 0 ('usr_N2O5_aer')", "'molecular weight [kg mol-1]'", "'N2O5'"});
  expect_rejected(
      [] {
        std::string text = n2o5_uptake;
        text.replace(text.find("0.02"), 4, "1.5");
        return v1(v1_aerosol(text));
      },
      {"'reaction probability' is 1.5", "at most 1"});
  expect_rejected(
      [] {
        std::string text = n2o5_uptake;
        text.insert(text.size() - 1, R"(, "reactants": [])");
        return v1(v1_aerosol(text));
      },
      {"field 'reactants'", "not a parameter of SURFACE"});
  expect_rejected(
      [] {
        return v1(v1_aerosol(
            R"({"type": "SURFACE", "gas phase": "gas", "name": "s", "gas-phase species": "X",
                "gas-phase products": []})"));
      },
      {"unknown species 'X'"});
  // A per-cell name one reaction's rate already holds.
  expect_rejected(
      [] {
        return v1(v1_aerosol(
            R"({"type": "USER_DEFINED", "gas phase": "gas", "name": "usr_N2O5_aer.effective_radius",
                "reactants": [{"species name": "CO"}], "products": []},)" +
            n2o5_uptake));
      },
      {"reaction 1", "'usr_N2O5_aer.effective_radius'"});
  expect_rejected(
      [] {
        std::string text = co_oh_jpl19;
        text.replace(text.find("\"N\": 1"), 6, "\"N\": 0");
        return v1(v1_aerosol(text));
      },
      {"field 'N' is 0"});
}

TEST(MicmReactionTypes, V1WriterGivesMicmItsKeysAndRoundTrips) {
  const fc::Mechanism m = v1(v1_aerosol(n2o5_uptake + "," + co_oh_jpl19 + "," + dms_user));
  const std::string written = fc::mechanism_to_openatmos_v1_json(m);
  for (const char* fragment :
       {R"("version": "1.4.0")", R"("gas-phase species": "N2O5")", R"("gas-phase products")",
        R"("diffusion coefficient [m2 s-1]": 1e-05)", R"("molecular weight [kg mol-1]": 0.108)",
        R"("kint_A")"})
    EXPECT_NE(written.find(fragment), std::string::npos) << fragment << " not in " << written;
  EXPECT_EQ(written.find(R"("reactants": [{"coefficient": 1.0, "species name": "N2O5")"),
            std::string::npos);
  for (const std::string& text : {written, fc::mechanism_to_openatmos_v1_yaml(m)}) {
    const fc::Mechanism back = text[0] == '{' ? v1(text) : fc::parse_mechanism_yaml(text, "w.yaml");
    const fc::CompiledMechanism a = fc::compile(m), b = fc::compile(back);
    EXPECT_EQ(a.rate_type, b.rate_type);
    EXPECT_EQ(a.rate_parameters, b.rate_parameters);
    EXPECT_EQ(a.external_index, b.external_index);
    EXPECT_EQ(m.external_rate_names, back.external_rate_names);
  }
  // Foehn's own schema keeps SURFACE's properties on the reaction.
  const fc::Mechanism own = fc::parse_mechanism(fc::mechanism_to_json(m), "own.json");
  EXPECT_EQ(fc::compile(own).rate_parameters, fc::compile(m).rate_parameters);
}

TEST(MicmReactionTypes, ChemicalActivationConvertsBetweenUnitsKeepingTheRate) {
  // JPL19's CO + OH and the ternary form in molecule cm^-3 (Foehn's schema), then in mol m^-3:
  // each bimolecular k scales by N_A 1e-6 and the solve sees the same chemistry.
  const std::string cgs = R"({"name": "cgs", "species": [{"name": "CO"}, {"name": "OH"}],
    "reactions": [
      {"type": "TERNARY_CHEMICAL_ACTIVATION_JPL19", "k0_A": 6.9e-33, "k0_B": -2.1, "kinf_A": 1.1e-12,
       "kinf_B": 1.3, "kint_A": 1.85e-13, "kint_C": -65, "reactants": [{"species name": "CO"},
       {"species name": "OH"}]},
      {"type": "TERNARY_CHEMICAL_ACTIVATION", "k0_A": 1.2e-12, "k0_B": 2.3, "k0_C": 302.3,
       "kinf_A": 2.6e-11, "kinf_B": -3.1, "kinf_C": 402.1, "Fc": 0.9, "N": 1.2,
       "reactants": [{"species name": "CO"}, {"species name": "OH"}]}]})";
  const fc::Mechanism m = fc::parse_mechanism(cgs, "cgs.json");
  const fc::Mechanism si = fc::in_concentration_unit(m, fc::ConcentrationUnit::mol_per_m3);
  const fc::CompiledMechanism a = fc::compile(m), b = fc::compile(si);
  const double f = 6.02214076e23 * 1e-6;
  std::vector<double> ka(2), kb(2);
  for (const Point& p : points) {
    fc::compute_rate_constants(a.view(), p.temperature, p.pressure,
                               static_cast<const double*>(nullptr), ka.data());
    fc::compute_rate_constants(b.view(), p.temperature, p.pressure,
                               static_cast<const double*>(nullptr), kb.data());
    expect_relative(ka[0], p.jpl19);
    expect_relative(ka[1], p.ternary);
    expect_relative(kb[0], ka[0] * f, 1e-12);
    expect_relative(kb[1], ka[1] * f, 1e-12);
  }
}

TEST(MicmReactionTypes, V1EmissionsBlockIsKeptAndCondensedPhaseChemistryRefused) {
  // v1.3's emission inventories configure the host model's input: kept, written back (under a
  // version that has them), not used by the kinetics.
  std::string text = v1_aerosol(dms_user);
  text.insert(text.rfind('}'),
              R"(, "emissions": {"inventories": [{"name": "cams", "directory": "cams/v6.2"}]})");
  const fc::Mechanism m = v1(text);
  const std::string written = fc::mechanism_to_openatmos_v1_json(m);
  for (const char* fragment : {R"("version": "1.3.0")", R"("inventories")", R"("cams/v6.2")"})
    EXPECT_NE(written.find(fragment), std::string::npos) << fragment << " not in " << written;
  EXPECT_EQ(fc::mechanism_to_openatmos_v1_json(v1(written)), written);
  std::string aqueous = v1_aerosol(dms_user);
  aqueous.insert(aqueous.rfind('}'), R"(, "aerosol processes": [])");
  expect_rejected([&] { return v1(aqueous); },
                  {"v1.json", "'aerosol processes'", "condensed-phase", "not part of Foehn's"});
  std::string emissions_array = v1_aerosol(dms_user);
  emissions_array.insert(emissions_array.rfind('}'), R"(, "emissions": [])");
  expect_rejected([&] { return v1(emissions_array); }, {"'emissions' must be an object"});
}
