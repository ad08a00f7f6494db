// The time step of a run (time_step.hpp): chosen from -cfl or checked against -cfl_max, and a
// whole number of steps to -end_time.
#include "time_step.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <numbers>

#include "foehn/runtime/error.hpp"
#include "io/checkpoint.hpp"

namespace foehn::mountainwave {

namespace {

// True when `span` is a whole number of `dt` (to 1e-9 of a step).
bool whole_steps(double span, double dt) {
  const double steps = span / dt;
  return std::fabs(steps - std::round(steps)) <= 1e-9 * std::max(1.0, std::fabs(steps));
}

}  // namespace

double shortest_edge(const TetMesh& local, MPI_Comm comm) {
  double shortest = std::numeric_limits<double>::infinity();
  for (const Tet& tet : local.tets)
    for (int a = 0; a < 4; ++a)
      for (int b = a + 1; b < 4; ++b) {
        double l2 = 0;
        for (int k = 0; k < 3; ++k) {
          const double e = local.nodes[tet[a]][k] - local.nodes[tet[b]][k];
          l2 += e * e;
        }
        shortest = std::min(shortest, std::sqrt(l2));
      }
  double result = 0;
  MPI_Allreduce(&shortest, &result, 1, MPI_DOUBLE, MPI_MIN, comm);
  return result;
}

// Six significant digits: enough to act on, unlike the 17 of an exact double.
namespace {

std::string brief(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%.6g", value);
  return text;
}

}  // namespace

void choose_time_step(RunOptions& o, double shortest) {
  const double speed = o.physics.closed_box ? 0.0 : o.physics.inflow_speed;
  if (o.cfl > 0) {
    if (o.cfl > o.cfl_max)
      fail(ErrorCategory::invalid_input, "-cfl ", o.cfl, " is above -cfl_max ", o.cfl_max);
    if (!(speed > 0))
      fail(ErrorCategory::invalid_input, "-cfl needs a flow: -U is 0",
           o.physics.closed_box ? " (-closed_box)" : "");
    const double longest_dt = o.cfl * shortest / speed;
    o.numerics.dt = o.end_time / std::ceil(o.end_time / longest_dt * (1 - 1e-12));
  }
  const double cfl = speed * o.numerics.dt / shortest;
  if (cfl > o.cfl_max)
    fail(ErrorCategory::invalid_input, "-dt ", brief(o.numerics.dt),
         " s gives a CFL number U dt / h of ", brief(cfl), " (U ", brief(speed),
         " m/s, shortest edge h ", brief(shortest), " m), above -cfl_max ", brief(o.cfl_max),
         "; use -dt <= ", brief(o.cfl_max * shortest / speed), " or raise -cfl_max");
  // A run that cannot end in any reasonable time (-end_time 1e15, -dt 1e-300) is refused here,
  // not stepped through for days.
  constexpr double most_steps = static_cast<double>(max_run_steps);
  if (!(o.end_time / o.numerics.dt <= most_steps))
    fail(ErrorCategory::invalid_input, "-end_time ", brief(o.end_time), " s at -dt ",
         brief(o.numerics.dt), " s is ", brief(o.end_time / o.numerics.dt),
         " steps, more than the ", brief(most_steps), " a run may take");
  if (!whole_steps(o.end_time, o.numerics.dt)) {
    const double steps = std::ceil(o.end_time / o.numerics.dt);
    fail(ErrorCategory::invalid_input, "-end_time ", o.end_time, " s is not a whole number of -dt ",
         brief(o.numerics.dt), " s steps: the run would end at ", brief(steps * o.numerics.dt),
         " s. Use -end_time ", brief(steps * o.numerics.dt), " or -dt ", brief(o.end_time / steps));
  }
}

double state_cfl(const TetMesh& local, std::span<const double> velocity, double speed_floor,
                 double dt, MPI_Comm comm) {
  if (velocity.size() != 3 * local.node_count())
    fail(ErrorCategory::internal, "state_cfl: ", velocity.size(), " velocity values for ",
         local.node_count(), " nodes");
  double largest = 0;
  for (const Tet& tet : local.tets) {
    double speed = speed_floor, shortest = std::numeric_limits<double>::infinity();
    for (int a = 0; a < 4; ++a) {
      const double* u = velocity.data() + 3 * static_cast<std::size_t>(tet[a]);
      speed = std::max(speed, std::sqrt(u[0] * u[0] + u[1] * u[1] + u[2] * u[2]));
      for (int b = a + 1; b < 4; ++b) {
        const Point3& p = local.nodes[static_cast<std::size_t>(tet[a])];
        const Point3& q = local.nodes[static_cast<std::size_t>(tet[b])];
        shortest = std::min(shortest, std::hypot(p[0] - q[0], p[1] - q[1], p[2] - q[2]));
      }
    }
    largest = std::max(largest, speed * dt / shortest);
  }
  double result = 0;
  MPI_Allreduce(&largest, &result, 1, MPI_DOUBLE, MPI_MAX, comm);
  return result;
}

void check_time_step_after_adaptation(const RunOptions& o, std::int64_t step, double cfl,
                                      double shortest) {
  if (!(cfl <= o.cfl_max))
    fail(ErrorCategory::invalid_input, "the mesh adapted at step ", step, " has edges of ",
         brief(shortest), " m (-adapt_hmin ", brief(o.adapt.h_min),
         " m; Mmg keeps edges down to about 0.6 of the metric's size): the step dt ",
         brief(o.numerics.dt), " s gives CFL ", brief(cfl), " on it, above -cfl_max ",
         brief(o.cfl_max), ". The step is not shortened during a run; use -adapt_hmin >= ",
         brief(o.adapt.h_min * cfl / o.cfl_max), " m, a shorter -dt or -cfl, or a larger -cfl_max");
}

std::string time_scheme_warning(const RunOptions& o) {
  if (!(o.numerics.picard_extrapolate && o.numerics.picard_iterations == 1)) return {};
  const double n_dt = o.physics.buoyancy_frequency * o.numerics.dt;
  const double per_period = 0.25 * std::numbers::pi * n_dt * n_dt * n_dt;
  char text[400];
  std::snprintf(text, sizeof text,
                "-picard 1 -picard_extrapolate amplifies free gravity waves by about %.2g%% a "
                "buoyancy period (N dt = %.3g; (pi/4) (N dt)^3); with -picard 2 the scheme does "
                "not amplify them",
                100 * per_period, n_dt);
  return text;
}

void check_whole_steps_to_end(const RunOptions& o, double start) {
  if (start > o.end_time + 1e-9 * o.numerics.dt)
    fail(ErrorCategory::invalid_input, "-restart starts at t = ", start, " s, after -end_time ",
         o.end_time, " s");
  if (!whole_steps(o.end_time - start, o.numerics.dt))
    fail(ErrorCategory::invalid_input, "-end_time ", o.end_time, " s is not a whole number of -dt ",
         o.numerics.dt, " s steps after the restart time ", start, " s");
}

}  // namespace foehn::mountainwave
