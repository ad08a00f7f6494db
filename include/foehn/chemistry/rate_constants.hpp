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

// Every form below returns +inf when an intermediate is not finite (exp(C/T), A (T/D)^B, k0 M, a
// ratio of limits): an overflow would otherwise pass as a plausible value, k0 / (1 + inf) = 0 for a
// ternary chemical activation with a huge k0_A, or 0 * inf = NaN. check_rate_constants
// (chemistry_batch.hpp) and the solvers' failure report name such a reaction and its conditions;
// a kernel sees it in compute_rate_constants' return value.
FOEHN_HD bool rate_is_finite(double x) {
  return x - x == 0.0;  // false for inf and NaN, without <cmath>'s host/device split
}
FOEHN_HD double overflowed() {
  return HUGE_VAL;
}
FOEHN_HD double finite_or_overflow(double x) {
  return rate_is_finite(x) ? x : overflowed();
}

// A exp(C/T) (T/D)^B, the limit form of every thermal rate; +inf when a factor overflows.
FOEHN_HD double modified_arrhenius(double a, double b, double c, double d, double temperature) {
  const double exponential = exp(c / temperature);
  const double power = pow(temperature / d, b);
  if (!rate_is_finite(exponential) || !rate_is_finite(power)) return overflowed();
  return finite_or_overflow(a * exponential * power);
}

// MICM's Arrhenius form k = A exp(C/T) (T/D)^B (1 + E P).
FOEHN_HD double arrhenius_rate(const double* p, double temperature, double pressure) {
  return finite_or_overflow(modified_arrhenius(p[0], p[1], p[2], p[3], temperature) *
                            (1.0 + p[4] * pressure));
}

// The fall-off broadening factor Fc^(1 / (1 + (log10 ratio)^2 / N)) of the Troe and ternary forms.
FOEHN_HD double falloff_broadening(double fc, double n, double ratio) {
  const double log_ratio = log10(ratio);
  return finite_or_overflow(pow(fc, 1.0 / (1.0 + log_ratio * log_ratio / n)));
}

// k0 M / kinf for the fall-off forms, +inf when k0, kinf, k0 M or the ratio is not finite (a ratio
// of inf would give k0 / (1 + inf) = 0 and a broadening of 1: a silent 0).
FOEHN_HD double falloff_ratio(double k0, double kinf, double air_density) {
  const double k0_m = k0 * air_density;
  if (!rate_is_finite(k0) || !rate_is_finite(kinf) || !rate_is_finite(k0_m)) return overflowed();
  return finite_or_overflow(k0_m / kinf);
}

// Troe fall-off (MICM/JPL form): k0 = k0_A exp(k0_C/T) (T/300)^k0_B, kinf likewise,
// k = k0 M / (1 + k0 M / kinf) * Fc^(1 / (1 + (log10(k0 M / kinf))^2 / N)).
FOEHN_HD double troe_rate(const double* p, double temperature, double air_density) {
  const double k0 = modified_arrhenius(p[0], p[1], p[2], 300.0, temperature);
  const double kinf = modified_arrhenius(p[3], p[4], p[5], 300.0, temperature);
  const double ratio = falloff_ratio(k0, kinf, air_density);
  if (!rate_is_finite(ratio)) return overflowed();  // k0 M / (1 + inf) would be a silent 0
  return finite_or_overflow(k0 * air_density / (1.0 + ratio) *
                            falloff_broadening(p[6], p[7], ratio));
}

// CMAQ rate form 8 (HO2 + HO2 -> H2O2): k = k1 + k2 M with k_i = A_i exp(C_i/T).
FOEHN_HD double cmaq_h2o2_rate(const double* p, double temperature, double air_density) {
  const double k1 = modified_arrhenius(p[0], 0.0, p[1], 1.0, temperature);
  const double k2_m = modified_arrhenius(p[2], 0.0, p[3], 1.0, temperature) * air_density;
  if (!rate_is_finite(k1) || !rate_is_finite(k2_m)) return overflowed();
  return finite_or_overflow(k1 + k2_m);
}

// CMAQ rate form 9 (OH + HNO3): k = k0 + k3 M / (1 + k3 M / k2) with k_i = A_i exp(C_i/T).
FOEHN_HD double cmaq_oh_hno3_rate(const double* p, double temperature, double air_density) {
  const double k0 = modified_arrhenius(p[0], 0.0, p[1], 1.0, temperature);
  const double k2 = modified_arrhenius(p[2], 0.0, p[3], 1.0, temperature);
  const double k3 = modified_arrhenius(p[4], 0.0, p[5], 1.0, temperature);
  const double ratio = falloff_ratio(k3, k2, air_density);
  if (!rate_is_finite(k0) || !rate_is_finite(ratio)) return overflowed();
  return finite_or_overflow(k0 + k3 * air_density / (1.0 + ratio));
}

// MICM's and CAMP's ternary chemical activation: k0, kinf as in troe_rate,
// k = k0 / (1 + k0 M / kinf) * broadening (k0 has the reaction's own unit, not k0 M's).
FOEHN_HD double ternary_chemical_activation_rate(const double* p, double temperature,
                                                 double air_density) {
  const double k0 = modified_arrhenius(p[0], p[1], p[2], 300.0, temperature);
  const double kinf = modified_arrhenius(p[3], p[4], p[5], 300.0, temperature);
  const double ratio = falloff_ratio(k0, kinf, air_density);
  if (!rate_is_finite(ratio)) return overflowed();  // k0 / (1 + inf) would be a silent 0
  return finite_or_overflow(k0 / (1.0 + ratio) * falloff_broadening(p[6], p[7], ratio));
}

// JPL 19-5 chemical activation (MICM's TERNARY_CHEMICAL_ACTIVATION_JPL19): k0, kinf and k_int each
// A exp(C/T) (T/D)^B; the Troe fall-off k_f = k0 M / (1 + k0 M / kinf) * broadening, and the
// activated channel adds k_int (1 - k_f / kinf).
FOEHN_HD double ternary_chemical_activation_jpl19_rate(const double* p, double temperature,
                                                       double air_density) {
  const double k0 = modified_arrhenius(p[0], p[1], p[2], p[3], temperature);
  const double kinf = modified_arrhenius(p[4], p[5], p[6], p[7], temperature);
  const double kint = modified_arrhenius(p[8], p[9], p[10], p[11], temperature);
  const double ratio = falloff_ratio(k0, kinf, air_density);
  if (!rate_is_finite(ratio) || !rate_is_finite(kint)) return overflowed();
  const double k_falloff = finite_or_overflow(k0 * air_density / (1.0 + ratio) *
                                              falloff_broadening(p[12], p[13], ratio));
  return finite_or_overflow(k_falloff + kint * (1.0 - k_falloff / kinf));
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
  const double area = 4.0 * pi * radius * radius * number_concentration;
  const double resistance = radius * speed_times_gamma / p[2];
  if (!rate_is_finite(speed_times_gamma) || !rate_is_finite(area) || !rate_is_finite(resistance))
    return overflowed();
  return finite_or_overflow(area * speed_times_gamma / (resistance + 4.0));
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
      return finite_or_overflow(parameters[0] * external_rates[external_index]);
  }
}

}  // namespace foehn::chemistry
