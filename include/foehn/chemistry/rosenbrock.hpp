#pragma once
// One cell's adaptive Rosenbrock integration, written once for the CPU reference and the CUDA
// kernels (FOEHN_HD). Every cell has its own step size and error control: a cell with a hard
// sunrise does not make its neighbours take small steps.
//
// Step-size control as in KPP/MICM: the error of an attempt is the RMS over species of
// e_i / (atol_i + rtol max(|y_i|, |y_new_i|)); an attempt is accepted when that is <= 1 and the
// next step is h min(fac_max, max(fac_min, safety / err^(1/p))); after a rejection the step may
// not grow, and after two rejections in a row it shrinks by fac_reject.
//
// Right or refused (docs/chemistry_solver.md): an attempt is never accepted with an error above
// 1 (at min_step the cell fails instead), nor with a non-finite value or a concentration below
// -(atol + rtol |y|). The error of a species also counts the rounding error its stage solve
// cannot avoid (eps x the sum of the absolute rates that change it, divided by its pivot): a
// rate so large that h k exhausts double precision then forces small steps instead of
// returning whatever the cancellation left. At the end of every chemistry step the state must be
// finite, not negative beyond tolerance, and keep every conserved total (CellChecks) to the
// tolerance; otherwise the cell fails naming the species or the total.

#include <cstdint>

#include "foehn/chemistry/cell_layout.hpp"
#include "foehn/chemistry/compiled_mechanism.hpp"
#include "foehn/chemistry/rosenbrock_tableau.hpp"
#include "foehn/runtime/host_device.hpp"

#if !FOEHN_DEVICE_COMPILE
#include <cmath>
#endif

namespace foehn::chemistry {

// Outcome of one cell's integration over the chemistry step.
enum class CellStatus : int {
  success = 0,
  too_many_steps = 1,         // more than max_steps attempts
  step_too_small = 2,         // the step fell below min_step (e.g. NaN/Inf in the solution)
  singular_matrix = 3,        // the iteration matrix had a zero or non-finite pivot at min_step
  non_finite_state = 4,       // a concentration is NaN or infinite at the end (culprit: species)
  negative_state = 5,         // a concentration below -(atol + rtol |y|) (culprit: species)
  conservation_violated = 6,  // a conserved total drifted beyond tolerance (culprit: total)
  rounding_limited = 7,  // rates so large that no step >= min_step resolves them (culprit: species)
};

// Solver control shared by all cells (plain data: passed to kernels by value).
struct RosenbrockControl {
  double relative_tolerance = 1.0e-4;
  // s; a cell whose error is still above 1 at this step fails (no attempt is ever accepted with
  // an error above 1). Tiny by default: a stiff start (Robertson in mol m^-3) needs 1e-13 s.
  double min_step = 1.0e-30;
  double max_step = 0.0;         // s; 0 = the whole chemistry step
  double initial_step = 1.0e-3;  // s; first step of a cell without a carried-over step
  int max_steps = 100000;        // attempts (accepted + rejected) per cell and chemistry step
  double fac_min = 0.2;
  double fac_max = 6.0;
  double safety = 0.9;
  double fac_reject = 0.1;
  bool clip_negative = true;  // accepted concentrations below 0 are set to 0 (positivity)
};

// Per-cell statistics of one chemistry step (plain data, written by the kernels).
struct CellStatistics {
  int status = 0;  // CellStatus
  int accepted = 0;
  int rejected = 0;
  int function_evaluations = 0;
  int jacobian_evaluations = 0;
  int decompositions = 0;
  int solves = 0;
  int clipped = 0;         // concentrations set to 0 after accepted steps
  double next_step = 0.0;  // suggested first step of the next chemistry step
  // A failure's culprit: a species (compiled order) or a conserved total (CellChecks index),
  // -1 when none; `before`/`after`: its value at the start of the step and where it stopped.
  int culprit = -1;
  double culprit_before = 0.0;
  double culprit_after = 0.0;
};

// Per-species tolerances and the mechanism's conserved totals (sum_j weight_j y_species_j,
// compiled species order), for the acceptance and end-of-step checks. Plain pointers (host or
// device), passed to kernels by value.
struct CellChecks {
  const double* absolute_tolerance = nullptr;  // [species_count]
  int conserved_count = 0;
  const int* conserved_start = nullptr;  // [conserved_count + 1] into species/weight
  const int* conserved_species = nullptr;
  const double* conserved_weight = nullptr;
};

// Entries of the per-cell workspace: y_new, f0, f, the absolute rate sums (n each), the stages
// (stages * n), the iteration matrix on the LU pattern (nonzero_count) and three per conserved
// total (its value and its absolute size at the start of the step, its rounding budget).
FOEHN_HD int rosenbrock_work_width(const CompiledMechanismView& m, int stages,
                                   int conserved_count = 0) {
  return (4 + stages) * m.species_count + m.nonzero_count + 3 * conserved_count;
}

namespace detail {

FOEHN_HD double absolute_value(double x) {
  return x < 0.0 ? -x : x;
}
FOEHN_HD double maximum(double a, double b) {
  return a > b ? a : b;
}
FOEHN_HD double minimum(double a, double b) {
  return a < b ? a : b;
}
// False for NaN and +-Inf.
FOEHN_HD bool is_finite(double x) {
  return x - x == 0.0;
}
inline constexpr double double_epsilon = 2.220446049250313e-16;
// Rounding of a stage solve in units of eps x (sum of absolute rates) / pivot: a few stages add
// up, so a margin of 4.
inline constexpr double rounding_margin = 4.0;

}  // namespace detail

// The linear algebra and vector loops of one cell, done by one thread. The CUDA block-per-cell
// strategy supplies the same operations spread over a warp (cuda/chemistry), so the step-size
// control below exists once.
struct SerialCellOperations {
  const CompiledMechanismView& m;

  template <class Function>
  FOEHN_HD void for_each_species(Function&& function) const {
    for (int i = 0; i < m.species_count; ++i) function(i);
  }
  // A sum of per-species terms (for_each_species order) seen identically by every participant.
  FOEHN_HD double total(double partial) const { return partial; }
  // The smallest of the participants' candidates (species indices as doubles, `none` for no
  // candidate), -1 when none has one; seen identically by every participant.
  FOEHN_HD int lowest(double candidate, int none) const {
    return candidate < none ? static_cast<int>(candidate) : -1;
  }
  // Stores a value every participant computed into the cell's shared arrays: one writer, after
  // every participant has read what the value was computed from.
  template <class Span>
  FOEHN_HD void store_once(Span into, int index, double value) const {
    into[index] = value;
  }

  template <class Rates, class State, class Forcing>
  FOEHN_HD void forcing(Rates k, State y, Forcing f) const {
    compute_forcing(m, k, y, f);
  }
  // a_i = sum over reactions of |net change of i| x |rate|: the size of the terms whose
  // cancellation f_i is, hence of its rounding error.
  template <class Rates, class State, class Sums>
  FOEHN_HD void absolute_forcing(Rates k, State y, Sums a) const {
    for (int i = 0; i < m.species_count; ++i) a[i] = 0.0;
    for (int r = 0; r < m.reaction_count; ++r) {
      double rate = k[r];
      for (int l = m.reactant_start[r]; l < m.reactant_start[r + 1]; ++l)
        rate *= y[m.reactant_species[l]];
      rate = detail::absolute_value(rate);
      for (int c = m.change_start[r]; c < m.change_start[r + 1]; ++c)
        a[m.change_species[c]] += detail::absolute_value(m.change_amount[c]) * rate;
    }
  }
  // matrix = 1/(gamma h) I - J(y), factored in place. False on a zero or non-finite pivot.
  template <class Rates, class State, class Matrix>
  FOEHN_HD bool build_and_factor(Rates k, State y, double inverse_gamma_h, Matrix matrix) const {
    compute_jacobian(m, k, y, matrix, -1.0);
    for (int i = 0; i < m.species_count; ++i) matrix[m.diagonal[i]] += inverse_gamma_h;
    factor_in_place(m, matrix);
    for (int i = 0; i < m.species_count; ++i) {
      // The factor holds reciprocal pivots: a zero pivot is infinite here, an infinite one 0.
      const double inverse_pivot = matrix[m.diagonal[i]];
      if (inverse_pivot == 0.0 || !detail::is_finite(inverse_pivot)) return false;
    }
    return true;
  }
  template <class Matrix, class Vector>
  FOEHN_HD void solve(Matrix lu, Vector b) const {
    foehn::chemistry::solve(m, lu, b);
  }
};

namespace detail {

// Ends a cell's integration early; the step it stopped at is the suggestion for the next call.
FOEHN_HD CellStatistics stop_cell(CellStatistics& stats, CellStatus status, double h,
                                  int culprit = -1, double before = 0.0, double after = 0.0) {
  stats.status = static_cast<int>(status);
  stats.next_step = h;
  stats.culprit = culprit;
  stats.culprit_before = before;
  stats.culprit_after = after;
  return stats;
}

// matrix = 1/(gamma h) I - J(y), factored in place. False on a zero or non-finite pivot.
template <class Span, class Operations>
FOEHN_HD bool build_iteration_matrix(const RosenbrockTableau& method, double h, Span k, Span y,
                                     Span matrix, CellStatistics& stats, const Operations& ops) {
  const double inverse_gamma_h = 1.0 / (method.gamma * h);
  ++stats.jacobian_evaluations;
  ++stats.decompositions;
  return ops.build_and_factor(k, y, inverse_gamma_h, matrix);
}

// The stages of one attempt (n species), solved with the factored iteration matrix.
template <class Span, class Operations>
FOEHN_HD void compute_stages(int n, const RosenbrockTableau& method, double h, Span k, Span y,
                             Span y_new, Span f0, Span f, Span stage, Span matrix,
                             CellStatistics& stats, const Operations& ops) {
  // Stages. A stage without a new evaluation reuses the latest f (f0 for stage 1).
  bool latest_is_f0 = true;
  for (int s = 0; s < method.stages; ++s) {
    Span stage_s = stage.shifted(s * n);
    if (s > 0 && method.new_evaluation[s]) {
      ops.for_each_species([&](int i) {
        double value = y[i];
        for (int j = 0; j < s; ++j) value += method.a[s][j] * stage[j * n + i];
        y_new[i] = value;
      });
      ops.forcing(k, y_new, f);
      ++stats.function_evaluations;
      latest_is_f0 = false;
    }
    const double inverse_h = 1.0 / h;
    ops.for_each_species([&](int i) {
      double value = latest_is_f0 ? f0[i] : f[i];
      for (int j = 0; j < s; ++j) value += (method.c[s][j] * inverse_h) * stage[j * n + i];
      stage_s[i] = value;
    });
    ops.solve(matrix, stage_s);
    ++stats.solves;
  }
}

// What one attempt's new solution looks like, beyond its error norm.
struct AttemptCheck {
  double error_norm = 0.0;    // not finite when the attempt blew up
  int negative_species = -1;  // the lowest species below -(atol + rtol |y|), or -1
  int rounding_species = -1;  // the lowest species whose rounding alone exceeds its tolerance
};

FOEHN_HD double tolerance_scale(const double* absolute_tolerance, const RosenbrockControl& control,
                                int i, double y_old, double y_new) {
  return absolute_tolerance[i] +
         control.relative_tolerance * maximum(absolute_value(y_old), absolute_value(y_new));
}

// New solution (into y_new) and the scaled RMS of the embedded error estimate plus the rounding
// of each species' stage solve (absolute_rates[i] eps / pivot_i). The norm is not finite when a
// value or the error is not.
template <class Span, class Operations>
FOEHN_HD AttemptCheck new_solution_and_error_norm(int n, const CompiledMechanismView& m,
                                                  const RosenbrockTableau& method,
                                                  const RosenbrockControl& control,
                                                  const double* absolute_tolerance, Span y,
                                                  Span y_new, Span absolute_rates, Span stage,
                                                  Span matrix, const Operations& ops) {
  double partial = 0.0;
  double negative = n;
  double rounding = n;
  ops.for_each_species([&](int i) {
    double value = y[i];
    double error = 0.0;
    for (int j = 0; j < method.stages; ++j) {
      value += method.m[j] * stage[j * n + i];
      error += method.e[j] * stage[j * n + i];
    }
    y_new[i] = value;
    const double scale = tolerance_scale(absolute_tolerance, control, i, y[i], value);
    const double round_off = rounding_margin * double_epsilon * absolute_rates[i] *
                             absolute_value(matrix[m.diagonal[i]]);  // reciprocal pivot
    // value - value is NaN for an infinite value: the attempt is then not finite.
    const double ratio = (absolute_value(error) + round_off) / scale + (value - value);
    partial += ratio * ratio;
    if (value < -scale) negative = minimum(negative, i);
    if (round_off > scale) rounding = minimum(rounding, i);
  });
  AttemptCheck check;
  check.error_norm = sqrt(ops.total(partial) / n);
  check.negative_species = ops.lowest(negative, n);
  check.rounding_species = ops.lowest(rounding, n);
  return check;
}

// Step-size factor safety / err^(1/p) within [fac_min, fac_max]; fac_min for a non-finite error.
FOEHN_HD double step_size_factor(const RosenbrockTableau& method, const RosenbrockControl& control,
                                 double error_norm, bool finite) {
  return finite ? minimum(control.fac_max,
                          maximum(control.fac_min,
                                  control.safety / pow(error_norm, 1.0 / method.error_order)))
                : control.fac_min;
}

// y = y_new, counting the concentrations that clip_negative sets to 0 (all of them within
// tolerance: an attempt with a larger negative value is rejected).
template <class Span, class Operations>
FOEHN_HD void accept_solution(const RosenbrockControl& control, Span y, Span y_new,
                              CellStatistics& stats, const Operations& ops) {
  int clipped = 0;
  ops.for_each_species([&](int i) {
    double value = y_new[i];
    if (control.clip_negative && value < 0.0) {
      value = 0.0;
      ++clipped;
    }
    y[i] = value;
  });
  stats.clipped += static_cast<int>(ops.total(clipped));
}

// The step after an accepted attempt: it may not grow right after a rejection.
FOEHN_HD double step_after_acceptance(const RosenbrockControl& control, double max_step, double h,
                                      double factor, bool& rejected_last, bool& rejected_twice) {
  if (rejected_last) factor = minimum(factor, 1.0);
  rejected_last = false;
  rejected_twice = false;
  return minimum(maximum(h * factor, control.min_step), max_step);
}

// The step after a rejected attempt: at the third rejection in a row the controller's factor is
// no longer trusted and the step shrinks by fac_reject.
FOEHN_HD double step_after_rejection(const RosenbrockControl& control, double h, double factor,
                                     bool& rejected_last, bool& rejected_twice) {
  if (rejected_twice) factor = control.fac_reject;
  rejected_twice = rejected_last;
  rejected_last = true;
  return maximum(h * factor, control.min_step);
}

// Conserved total c of state y: sum_j w_j y_j, and its absolute size sum_j |w_j y_j|.
template <class Span>
FOEHN_HD void conserved_total(const CellChecks& checks, int c, Span y, double& total,
                              double& size) {
  total = 0.0;
  size = 0.0;
  for (int e = checks.conserved_start[c]; e < checks.conserved_start[c + 1]; ++e) {
    const double term = checks.conserved_weight[e] * y[checks.conserved_species[e]];
    total += term;
    size += absolute_value(term);
  }
}

// Every participant computes the totals itself (the same sums in the same order) and writes the
// same values; `totals` holds value, size and rounding budget per total.
template <class Span, class Operations>
FOEHN_HD void record_conserved_totals(const CellChecks& checks, Span y, Span totals,
                                      const Operations& ops) {
  for (int c = 0; c < checks.conserved_count; ++c) {
    double total = 0.0, size = 0.0;
    conserved_total(checks, c, y, total, size);
    ops.store_once(totals, 3 * c, total);
    ops.store_once(totals, 3 * c + 1, size);
    ops.store_once(totals, 3 * c + 2, 0.0);
  }
}

// What an accepted step may change a total by without being wrong: the rounding of its new
// values and of their stage solves (4 eps (|y_new_i| + a_i / |pivot_i|), as in the error norm)
// and what clipping adds. In exact arithmetic every stage keeps the total (w^T J = 0), so
// nothing else may; a drift beyond this (rounding in the elimination of stiffly coupled species,
// where h k approaches 1/eps) is refused.
template <class Span, class Operations>
FOEHN_HD void add_rounding_budget(const CompiledMechanismView& m, const RosenbrockControl& control,
                                  const CellChecks& checks, Span y_new, Span absolute_rates,
                                  Span matrix, Span totals, const Operations& ops) {
  for (int c = 0; c < checks.conserved_count; ++c) {
    double budget = 0.0;
    for (int e = checks.conserved_start[c]; e < checks.conserved_start[c + 1]; ++e) {
      const int i = checks.conserved_species[e];
      const double clipped = control.clip_negative && y_new[i] < 0.0 ? -y_new[i] : 0.0;
      const double rounding =
          rounding_margin * double_epsilon *
          (absolute_value(y_new[i]) + absolute_rates[i] * absolute_value(matrix[m.diagonal[i]]));
      budget += absolute_value(checks.conserved_weight[e]) * (rounding + clipped);
    }
    // A read-modify-write of shared memory: every lane of a warp computes the same sum, one
    // stores it (store_once), so the budget is added once.
    ops.store_once(totals, 3 * c + 2, totals[3 * c + 2] + budget);
  }
}

// The end-of-step checks of a cell that integrated to the end: finite, and every conserved
// total kept (negative values beyond tolerance were already refused when the attempts were). The
// allowed drift of a total is 10 (rtol x its size + sum_j |w_j| atol_j) plus twice the rounding
// budget of the accepted steps (add_rounding_budget).
template <class Span>
FOEHN_HD bool check_final_state(int n, const RosenbrockControl& control, const CellChecks& checks,
                                Span y, Span totals, double h, CellStatistics& stats) {
  for (int i = 0; i < n; ++i) {
    if (!is_finite(y[i])) {
      stop_cell(stats, CellStatus::non_finite_state, h, i, 0.0, y[i]);
      return false;
    }
  }
  for (int c = 0; c < checks.conserved_count; ++c) {
    double total = 0.0, size = 0.0, absolute = 0.0;
    conserved_total(checks, c, y, total, size);
    for (int e = checks.conserved_start[c]; e < checks.conserved_start[c + 1]; ++e) {
      absolute += absolute_value(checks.conserved_weight[e]) *
                  checks.absolute_tolerance[checks.conserved_species[e]];
    }
    const double before = totals[3 * c];
    const double largest = maximum(size, totals[3 * c + 1]);
    const double allowed =
        10.0 * (control.relative_tolerance * largest + absolute) + 2.0 * totals[3 * c + 2];
    if (!(absolute_value(total - before) <= allowed)) {
      stop_cell(stats, CellStatus::conservation_violated, h, c, before, total);
      return false;
    }
  }
  return true;
}

}  // namespace detail

// Integrates y' = f(y) over [0, duration] for one cell. `k` holds the cell's rate constants
// (compute_rate_constants), `y` its concentrations in compiled order (overwritten), `work` a
// workspace of rosenbrock_work_width entries, `checks` the tolerances and conserved totals.
// `first_step` > 0 is the step carried over from the previous chemistry step. Every participant
// of `ops` runs this control flow with identical scalars.
template <class Span, class Operations>
FOEHN_HD CellStatistics integrate_cell(const CompiledMechanismView& m,
                                       const RosenbrockTableau& method,
                                       const RosenbrockControl& control, const CellChecks& checks,
                                       double duration, double first_step, Span k, Span y,
                                       Span work, const Operations& ops) {
  using detail::maximum;
  using detail::minimum;
  const int n = m.species_count;
  const double* absolute_tolerance = checks.absolute_tolerance;
  Span y_new = work;
  Span f0 = work.shifted(n);
  Span f = work.shifted(2 * n);
  Span absolute_rates = work.shifted(3 * n);
  Span stage = work.shifted(4 * n);  // stage j, species i at j * n + i
  Span matrix = work.shifted((4 + method.stages) * n);
  Span totals = work.shifted((4 + method.stages) * n + m.nonzero_count);

  CellStatistics stats;
  detail::record_conserved_totals(checks, y, totals, ops);
  const double max_step = control.max_step > 0.0 ? minimum(control.max_step, duration) : duration;
  double h = first_step > 0.0 ? first_step : control.initial_step;
  h = minimum(maximum(h, control.min_step), max_step);
  double t = 0.0;
  bool rejected_last = false;
  bool rejected_twice = false;
  double unclipped_step = h;
  bool last_step_clipped = false;
  int attempts = 0;

  while (duration - t > 1.0e-12 * duration) {
    // The last step lands exactly on the end; the controller's own choice is kept for next time.
    unclipped_step = h;
    last_step_clipped = h > duration - t;
    h = minimum(h, duration - t);
    ops.forcing(k, y, f0);
    ops.absolute_forcing(k, y, absolute_rates);
    ++stats.function_evaluations;
    bool accepted = false;
    while (!accepted) {
      if (attempts++ >= control.max_steps)
        return detail::stop_cell(stats, CellStatus::too_many_steps, h);
      // A step that no longer moves t (h below the spacing of doubles at t) cannot succeed.
      if (t + h == t) return detail::stop_cell(stats, CellStatus::step_too_small, h);
      if (!detail::build_iteration_matrix(method, h, k, y, matrix, stats, ops)) {
        if (h <= control.min_step) return detail::stop_cell(stats, CellStatus::singular_matrix, h);
        h = maximum(0.5 * h, control.min_step);
        ++stats.rejected;
        continue;
      }
      detail::compute_stages(n, method, h, k, y, y_new, f0, f, stage, matrix, stats, ops);
      const detail::AttemptCheck check = detail::new_solution_and_error_norm(
          n, m, method, control, absolute_tolerance, y, y_new, absolute_rates, stage, matrix, ops);
      const bool finite = detail::is_finite(check.error_norm);
      const bool negative = check.negative_species >= 0;
      const double error_norm = maximum(check.error_norm, 1.0e-10);
      const double factor =
          detail::step_size_factor(method, control, error_norm, finite && !negative);
      if (finite && !negative && error_norm <= 1.0) {
        detail::add_rounding_budget(m, control, checks, y_new, absolute_rates, matrix, totals, ops);
        detail::accept_solution(control, y, y_new, stats, ops);
        t += h;
        ++stats.accepted;
        h = detail::step_after_acceptance(control, max_step, h, factor, rejected_last,
                                          rejected_twice);
        accepted = true;
      } else if (h <= control.min_step) {
        // Never accepted with an error above 1: the cell fails, naming what stopped it.
        if (check.rounding_species >= 0)
          return detail::stop_cell(stats, CellStatus::rounding_limited, h, check.rounding_species,
                                   y[check.rounding_species], y_new[check.rounding_species]);
        if (finite && negative)
          return detail::stop_cell(stats, CellStatus::negative_state, h, check.negative_species,
                                   y[check.negative_species], y_new[check.negative_species]);
        return detail::stop_cell(stats, CellStatus::step_too_small, h);
      } else {
        h = detail::step_after_rejection(control, h, factor, rejected_last, rejected_twice);
        ++stats.rejected;
      }
    }
  }
  stats.next_step = last_step_clipped ? maximum(h, unclipped_step) : h;
  detail::check_final_state(n, control, checks, y, totals, stats.next_step, stats);
  return stats;
}

// One thread per cell.
template <class Span>
FOEHN_HD CellStatistics integrate_cell(const CompiledMechanismView& m,
                                       const RosenbrockTableau& method,
                                       const RosenbrockControl& control, const CellChecks& checks,
                                       double duration, double first_step, Span k, Span y,
                                       Span work) {
  return integrate_cell(m, method, control, checks, duration, first_step, k, y, work,
                        SerialCellOperations{m});
}

}  // namespace foehn::chemistry
