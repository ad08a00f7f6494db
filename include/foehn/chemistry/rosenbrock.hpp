#pragma once
// One cell's adaptive Rosenbrock integration, written once for the CPU reference and the CUDA
// kernels (FOEHN_HD). Every cell has its own step size and error control: a cell with a hard
// sunrise does not make its neighbours take small steps.
//
// Step-size control as in KPP/MICM: the error of an attempt is the RMS over species of
// e_i / (atol_i + rtol max(|y_i|, |y_new_i|)); an attempt is accepted when that is <= 1 and the
// next step is h min(fac_max, max(fac_min, safety / err^(1/p))); after a rejection the step may
// not grow, and after two rejections in a row it shrinks by fac_reject.

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
  too_many_steps = 1,   // more than max_steps attempts
  step_too_small = 2,   // the step fell below min_step (e.g. NaN/Inf in the solution)
  singular_matrix = 3,  // the iteration matrix had a zero or non-finite pivot at min_step
};

// Solver control shared by all cells (plain data: passed to kernels by value).
struct RosenbrockControl {
  double relative_tolerance = 1.0e-4;
  double min_step = 1.0e-10;     // s; an attempt at or below this is accepted or the cell fails
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
};

// Entries of the per-cell workspace: y_new, f0, f (n each), the stages (stages * n) and the
// iteration matrix on the LU pattern (nonzero_count).
FOEHN_HD int rosenbrock_work_width(const CompiledMechanismView& m, int stages) {
  return (3 + stages) * m.species_count + m.nonzero_count;
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

  template <class Rates, class State, class Forcing>
  FOEHN_HD void forcing(Rates k, State y, Forcing f) const {
    compute_forcing(m, k, y, f);
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
FOEHN_HD CellStatistics stop_cell(CellStatistics& stats, CellStatus status, double h) {
  stats.status = static_cast<int>(status);
  stats.next_step = h;
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

// New solution (into y_new) and the scaled RMS of the embedded error estimate, which is not
// finite when the attempt blew up.
template <class Span, class Operations>
FOEHN_HD double new_solution_and_error_norm(int n, const RosenbrockTableau& method,
                                            const RosenbrockControl& control,
                                            const double* absolute_tolerance, Span y, Span y_new,
                                            Span stage, const Operations& ops) {
  double partial = 0.0;
  ops.for_each_species([&](int i) {
    double value = y[i];
    double error = 0.0;
    for (int j = 0; j < method.stages; ++j) {
      value += method.m[j] * stage[j * n + i];
      error += method.e[j] * stage[j * n + i];
    }
    y_new[i] = value;
    const double scale =
        absolute_tolerance[i] +
        control.relative_tolerance * maximum(absolute_value(y[i]), absolute_value(value));
    const double ratio = error / scale;
    partial += ratio * ratio;
  });
  return sqrt(ops.total(partial) / n);
}

// Step-size factor safety / err^(1/p) within [fac_min, fac_max]; fac_min for a non-finite error.
FOEHN_HD double step_size_factor(const RosenbrockTableau& method, const RosenbrockControl& control,
                                 double error_norm, bool finite) {
  return finite ? minimum(control.fac_max,
                          maximum(control.fac_min,
                                  control.safety / pow(error_norm, 1.0 / method.error_order)))
                : control.fac_min;
}

// y = y_new, counting the concentrations that clip_negative sets to 0.
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

}  // namespace detail

// Integrates y' = f(y) over [0, duration] for one cell. `k` holds the cell's rate constants
// (compute_rate_constants), `y` its concentrations in compiled order (overwritten), `work` a
// workspace of rosenbrock_work_width entries, `absolute_tolerance` per compiled species.
// `first_step` > 0 is the step carried over from the previous chemistry step. Every participant
// of `ops` runs this control flow with identical scalars.
template <class Span, class Operations>
FOEHN_HD CellStatistics integrate_cell(const CompiledMechanismView& m,
                                       const RosenbrockTableau& method,
                                       const RosenbrockControl& control,
                                       const double* absolute_tolerance, double duration,
                                       double first_step, Span k, Span y, Span work,
                                       const Operations& ops) {
  using detail::maximum;
  using detail::minimum;
  const int n = m.species_count;
  Span y_new = work;
  Span f0 = work.shifted(n);
  Span f = work.shifted(2 * n);
  Span stage = work.shifted(3 * n);  // stage j, species i at j * n + i
  Span matrix = work.shifted((3 + method.stages) * n);

  CellStatistics stats;
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
    ++stats.function_evaluations;
    bool accepted = false;
    while (!accepted) {
      if (attempts++ >= control.max_steps)
        return detail::stop_cell(stats, CellStatus::too_many_steps, h);
      if (!detail::build_iteration_matrix(method, h, k, y, matrix, stats, ops)) {
        if (h <= control.min_step) return detail::stop_cell(stats, CellStatus::singular_matrix, h);
        h = maximum(0.5 * h, control.min_step);
        ++stats.rejected;
        continue;
      }
      detail::compute_stages(n, method, h, k, y, y_new, f0, f, stage, matrix, stats, ops);
      double error_norm = detail::new_solution_and_error_norm(
          n, method, control, absolute_tolerance, y, y_new, stage, ops);
      const bool finite = detail::is_finite(error_norm);
      error_norm = maximum(error_norm, 1.0e-10);
      const double factor = detail::step_size_factor(method, control, error_norm, finite);
      if (finite && (error_norm <= 1.0 || h <= control.min_step)) {
        detail::accept_solution(control, y, y_new, stats, ops);
        t += h;
        ++stats.accepted;
        h = detail::step_after_acceptance(control, max_step, h, factor, rejected_last,
                                          rejected_twice);
        accepted = true;
      } else {
        if (!finite && h <= control.min_step)
          return detail::stop_cell(stats, CellStatus::step_too_small, h);
        h = detail::step_after_rejection(control, h, factor, rejected_last, rejected_twice);
        ++stats.rejected;
      }
    }
  }
  stats.next_step = last_step_clipped ? maximum(h, unclipped_step) : h;
  return stats;
}

// One thread per cell.
template <class Span>
FOEHN_HD CellStatistics integrate_cell(const CompiledMechanismView& m,
                                       const RosenbrockTableau& method,
                                       const RosenbrockControl& control,
                                       const double* absolute_tolerance, double duration,
                                       double first_step, Span k, Span y, Span work) {
  return integrate_cell(m, method, control, absolute_tolerance, duration, first_step, k, y, work,
                        SerialCellOperations{m});
}

}  // namespace foehn::chemistry
