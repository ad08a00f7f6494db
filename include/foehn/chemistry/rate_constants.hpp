#pragma once
// Rate constants from the compact plain-data form (type + parameter array per reaction), written
// once for CPU and GPU. Units: T in K, P in Pa, time in s; concentrations and M in molecule cm^-3
// or, for mechanisms in mol m^-3, M scaled by `air_density_scale` (air_density_scale_of).
// External rates (photolysis, first-order loss, emission) are the per-cell value times the
// reaction's scaling factor, kept in parameter slot 0 of the compiled form.

#include <cmath>

#include "foehn/chemistry/mechanism.hpp"
#include "foehn/runtime/host_device.hpp"

namespace foehn::chemistry {

// Air number density [molecule cm^-3] from the ideal gas law: P / (k_B T), m^-3 -> cm^-3.
FOEHN_HD double air_number_density(double temperature, double pressure) {
  constexpr double boltzmann = 1.380649e-23;  // J/K (exact, SI 2019)
  return pressure / (boltzmann * temperature) * 1.0e-6;
}

// M in the mechanism's unit = air_number_density * this (exactly 1 for molecule cm^-3, so those
// mechanisms compute what they did before the unit existed).
FOEHN_HD double air_density_scale_of(int concentration_unit) {
  constexpr double avogadro = 6.02214076e23;  // mol^-1 (exact, SI 2019)
  return concentration_unit == static_cast<int>(ConcentrationUnit::mol_per_m3) ? 1.0e6 / avogadro
                                                                               : 1.0;
}

// MICM's Arrhenius form k = A exp(C/T) (T/D)^B (1 + E P).
FOEHN_HD double arrhenius_rate(const double* p, double temperature, double pressure) {
  return p[0] * exp(p[2] / temperature) * pow(temperature / p[3], p[1]) * (1.0 + p[4] * pressure);
}

// Troe fall-off (MICM/JPL form): k0 = k0_A exp(k0_C/T) (T/300)^k0_B, kinf likewise,
// k = k0 M / (1 + k0 M / kinf) * Fc^(1 / (1 + (log10(k0 M / kinf))^2 / N)).
FOEHN_HD double troe_rate(const double* p, double temperature, double air_density) {
  const double k0 = p[0] * exp(p[2] / temperature) * pow(temperature / 300.0, p[1]);
  const double kinf = p[3] * exp(p[5] / temperature) * pow(temperature / 300.0, p[4]);
  const double ratio = k0 * air_density / kinf;
  const double log_ratio = log10(ratio);
  return k0 * air_density / (1.0 + ratio) * pow(p[6], 1.0 / (1.0 + log_ratio * log_ratio / p[7]));
}

// CMAQ rate form 8 (HO2 + HO2 -> H2O2): k = k1 + k2 M with k_i = A_i exp(C_i/T).
FOEHN_HD double cmaq_h2o2_rate(const double* p, double temperature, double air_density) {
  return p[0] * exp(p[1] / temperature) + p[2] * exp(p[3] / temperature) * air_density;
}

// CMAQ rate form 9 (OH + HNO3): k = k0 + k3 M / (1 + k3 M / k2) with k_i = A_i exp(C_i/T).
FOEHN_HD double cmaq_oh_hno3_rate(const double* p, double temperature, double air_density) {
  const double k0 = p[0] * exp(p[1] / temperature);
  const double k2 = p[2] * exp(p[3] / temperature);
  const double k3m = p[4] * exp(p[5] / temperature) * air_density;
  return k0 + k3m / (1.0 + k3m / k2);
}

// One reaction's rate constant. `external_rates` holds the per-cell values named by
// Mechanism::external_rate_names (a pointer or a strided cell span); `external_index` is the
// reaction's slot in it (or -1).
template <class ExternalRates>
FOEHN_HD double rate_constant(int type, const double* parameters, int external_index,
                              double temperature, double pressure, ExternalRates external_rates,
                              double air_density_scale = 1.0) {
  switch (type) {
    case static_cast<int>(ReactionType::arrhenius):
      return arrhenius_rate(parameters, temperature, pressure);
    case static_cast<int>(ReactionType::troe):
      return troe_rate(parameters, temperature,
                       air_number_density(temperature, pressure) * air_density_scale);
    case static_cast<int>(ReactionType::cmaq_h2o2):
      return cmaq_h2o2_rate(parameters, temperature,
                            air_number_density(temperature, pressure) * air_density_scale);
    case static_cast<int>(ReactionType::cmaq_oh_hno3):
      return cmaq_oh_hno3_rate(parameters, temperature,
                               air_number_density(temperature, pressure) * air_density_scale);
    default:  // photolysis, first-order loss, emission: set from outside per cell, scaled
      return parameters[0] * external_rates[external_index];
  }
}

}  // namespace foehn::chemistry
