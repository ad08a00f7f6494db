// A mechanism moved from one concentration unit to the other with the same rates: what the
// OpenAtmos v1 writer does, since MICM reads every file in mol m^-3 and ignores a unit key.
#include <cmath>

#include "foehn/chemistry/mechanism.hpp"
#include "foehn/runtime/error.hpp"

namespace foehn::chemistry {

namespace {

constexpr double avogadro = 6.02214076e23;  // mol^-1 (exact, SI 2019)

// molecule cm^-3 per mol m^-3.
constexpr double molecules_per_cm3_per_mol_per_m3 = avogadro * 1.0e-6;

double reactant_order(const Reaction& reaction) {
  double order = 0.0;
  for (const SpeciesAmount& reactant : reaction.reactants) order += reactant.amount;
  return order;
}

}  // namespace

Mechanism in_concentration_unit(const Mechanism& mechanism, ConcentrationUnit unit) {
  if (mechanism.concentration_unit == unit) return mechanism;
  // f: the factor from the mechanism's unit to `unit` for a concentration is 1/f.
  const double f = unit == ConcentrationUnit::mol_per_m3 ? molecules_per_cm3_per_mol_per_m3
                                                         : 1.0 / molecules_per_cm3_per_mol_per_m3;
  Mechanism out = mechanism;
  out.concentration_unit = unit;
  for (Species& species : out.species) {
    const double old_tolerance = species.absolute_tolerance;
    species.absolute_tolerance /= f;
    if (!(species.absolute_tolerance > 0.0) || !std::isfinite(species.absolute_tolerance))
      fail(ErrorCategory::invalid_input, "mechanism '", mechanism.name, "': species '",
           species.name, "': absolute tolerance ", old_tolerance, " has no value in ",
           concentration_unit_name(unit));
  }
  for (std::size_t r = 0; r < out.reactions.size(); ++r) {
    Reaction& reaction = out.reactions[r];
    // A rate (concentration per second) of reactant order n: k c^n in the old unit equals
    // k f^(n-1) c'^n in the new one. [M] inside a fall-off form counts one order more.
    const double n = reactant_order(reaction);
    const double per_order = std::pow(f, n - 1.0), with_air = std::pow(f, n);
    double* p = reaction.parameters.data();
    const auto before = reaction.parameters;
    switch (reaction.type) {
      case ReactionType::arrhenius:
        p[0] *= per_order;  // A
        break;
      case ReactionType::troe:
        p[0] *= with_air;   // k0_A
        p[3] *= per_order;  // kinf_A
        break;
      case ReactionType::cmaq_h2o2:
        p[0] *= per_order;  // k1_A
        p[2] *= with_air;   // k2_A (k2 M)
        break;
      case ReactionType::cmaq_oh_hno3:
        p[0] *= per_order;  // k0_A
        p[2] *= per_order;  // k2_A
        p[4] *= with_air;   // k3_A (k3 M)
        break;
      case ReactionType::ternary_chemical_activation:
        p[0] *= per_order;      // k0_A: k0 has the unit of k
        p[3] *= per_order / f;  // kinf_A: k0 M / kinf has none
        break;
      case ReactionType::ternary_chemical_activation_jpl19:
        p[0] *= with_air;   // k0_A (k0 M)
        p[4] *= per_order;  // kinf_A
        p[8] *= per_order;  // kint_A
        break;
      case ReactionType::photolysis:
      case ReactionType::first_order_loss:
      case ReactionType::surface:
        break;  // s^-1 either way
      case ReactionType::emission:
      case ReactionType::user_defined:
        break;  // the per-cell rate is given in the unit of the run; the factor has none
    }
    for (int slot = 0; slot < max_rate_parameters; ++slot)
      if (!std::isfinite(p[slot]) ||
          (p[slot] == 0.0 && before[static_cast<std::size_t>(slot)] != 0.0))
        fail(ErrorCategory::invalid_input, "mechanism '", mechanism.name, "': reaction ", r, " (",
             mechanism.equation(mechanism.reactions[r]), ") overflows or underflows in ",
             concentration_unit_name(unit), " (parameter ", slot, ")");
  }
  return out;
}

}  // namespace foehn::chemistry
