#pragma once
// Rate constants from the compact plain-data form (type + parameter array per reaction), written
// once for CPU and GPU. Units: T in K, P in Pa, time in s; concentrations and M in molecule cm^-3
// or, for mechanisms in mol m^-3, M scaled by `air_density_scale` (air_density_scale_of).
// External rates (photolysis, first-order loss, emission, user-defined) are the per-cell value
// times the reaction's scaling factor, kept in parameter slot 0 of the compiled form; a SURFACE
// rate reads two per-cell values (aerosol radius and number concentration).

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

// The fall-off broadening factor Fc^(1 / (1 + (log10 ratio)^2 / N)) of the Troe and ternary forms.
FOEHN_HD double falloff_broadening(double fc, double n, double ratio) {
  const double log_ratio = log10(ratio);
  return pow(fc, 1.0 / (1.0 + log_ratio * log_ratio / n));
}

// Troe fall-off (MICM/JPL form): k0 = k0_A exp(k0_C/T) (T/300)^k0_B, kinf likewise,
// k = k0 M / (1 + k0 M / kinf) * Fc^(1 / (1 + (log10(k0 M / kinf))^2 / N)).
FOEHN_HD double troe_rate(const double* p, double temperature, double air_density) {
  const double k0 = p[0] * exp(p[2] / temperature) * pow(temperature / 300.0, p[1]);
  const double kinf = p[3] * exp(p[5] / temperature) * pow(temperature / 300.0, p[4]);
  const double ratio = k0 * air_density / kinf;
  return k0 * air_density / (1.0 + ratio) * falloff_broadening(p[6], p[7], ratio);
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

// MICM's and CAMP's ternary chemical activation: k0, kinf as in troe_rate,
// k = k0 / (1 + k0 M / kinf) * broadening (k0 has the reaction's own unit, not k0 M's).
FOEHN_HD double ternary_chemical_activation_rate(const double* p, double temperature,
                                                 double air_density) {
  const double k0 = p[0] * exp(p[2] / temperature) * pow(temperature / 300.0, p[1]);
  const double kinf = p[3] * exp(p[5] / temperature) * pow(temperature / 300.0, p[4]);
  const double ratio = k0 * air_density / kinf;
  return k0 / (1.0 + ratio) * falloff_broadening(p[6], p[7], ratio);
}

// JPL 19-5 chemical activation (MICM's TERNARY_CHEMICAL_ACTIVATION_JPL19): k0, kinf and k_int each
// A exp(C/T) (T/D)^B; the Troe fall-off k_f = k0 M / (1 + k0 M / kinf) * broadening, and the
// activated channel adds k_int (1 - k_f / kinf).
FOEHN_HD double ternary_chemical_activation_jpl19_rate(const double* p, double temperature,
                                                       double air_density) {
  const double k0 = p[0] * exp(p[2] / temperature) * pow(temperature / p[3], p[1]);
  const double kinf = p[4] * exp(p[6] / temperature) * pow(temperature / p[7], p[5]);
  const double kint = p[8] * exp(p[10] / temperature) * pow(temperature / p[11], p[9]);
  const double ratio = k0 * air_density / kinf;
  const double k_falloff =
      k0 * air_density / (1.0 + ratio) * falloff_broadening(p[12], p[13], ratio);
  return k_falloff + kint * (1.0 - k_falloff / kinf);
}

// Uptake of a gas on aerosol in the continuum regime (MICM's SURFACE, CAMP's surface reaction):
// k = 4 pi r^2 N / (r / D_g + 4 / (v gamma)) [s^-1] with the mean molecular speed
// v = sqrt(8 R T / (pi M_w)), written without dividing by gamma so that gamma = 0 (a channel
// switched off, as MUSICA's T1S2 has) gives k = 0. p: [1] reaction probability gamma, [2] D_g
// [m2 s-1], [3] M_w [kg mol-1]; radius r [m] and number concentration N [m^-3] are per cell.
FOEHN_HD double surface_rate(const double* p, double temperature, double radius,
                             double number_concentration) {
  constexpr double pi = 3.14159265358979323846;
  constexpr double gas_constant = 1.380649e-23 * 6.02214076e23;  // J K^-1 mol^-1 = k_B N_A
  const double speed_times_gamma = sqrt(8.0 * gas_constant * temperature / (pi * p[3])) * p[1];
  return 4.0 * pi * radius * radius * number_concentration * speed_times_gamma /
         (radius * speed_times_gamma / p[2] + 4.0);
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
    case static_cast<int>(ReactionType::ternary_chemical_activation):
      return ternary_chemical_activation_rate(
          parameters, temperature, air_number_density(temperature, pressure) * air_density_scale);
    case static_cast<int>(ReactionType::ternary_chemical_activation_jpl19):
      return ternary_chemical_activation_jpl19_rate(
          parameters, temperature, air_number_density(temperature, pressure) * air_density_scale);
    case static_cast<int>(ReactionType::surface):  // radius and number: two consecutive slots
      return surface_rate(parameters, temperature, external_rates[external_index],
                          external_rates[external_index + 1]);
    default:  // photolysis, first-order loss, emission, user-defined: set per cell, scaled
      return parameters[0] * external_rates[external_index];
  }
}

}  // namespace foehn::chemistry
