// Coefficients of the Rosenbrock methods, in the KPP form of the header. The values are those of
// KPP's Rosenbrock integrator (Sandu et al. 1997) and, for RODAS4, of Hairer & Wanner's RODAS;
// tests/unit/chemistry/test_rosenbrock_tableau.cpp checks the order conditions independently.

#include "foehn/chemistry/rosenbrock_tableau.hpp"

#include <cmath>

#include "foehn/runtime/error.hpp"

namespace foehn::chemistry {
namespace {

constexpr RosenbrockMethod all_methods[] = {RosenbrockMethod::ros2, RosenbrockMethod::ros3,
                                            RosenbrockMethod::rodas3, RosenbrockMethod::rodas4};

// ROS2: L-stable, 2 stages, order 2 with an order-1 embedded solution.
RosenbrockTableau ros2() {
  const double g = 1.0 + 1.0 / std::sqrt(2.0);
  RosenbrockTableau t;
  t.stages = 2;
  t.error_order = 2;
  t.gamma = g;
  t.a[1][0] = 1.0 / g;
  t.c[1][0] = -2.0 / g;
  t.m[0] = 3.0 / (2.0 * g);
  t.m[1] = 1.0 / (2.0 * g);
  t.e[0] = 1.0 / (2.0 * g);
  t.e[1] = 1.0 / (2.0 * g);
  t.new_evaluation[0] = true;
  t.new_evaluation[1] = true;
  return t;
}

// ROS3: L-stable, 3 stages, order 3 (embedded order 2). Stage 3 sits at the same point as stage
// 2 (a31 = a21, a32 = 0), so it reuses that f: 2 evaluations per step.
RosenbrockTableau ros3() {
  RosenbrockTableau t;
  t.stages = 3;
  t.error_order = 3;
  t.gamma = 0.43586652150845899941601945119356;
  t.a[1][0] = 1.0;
  t.a[2][0] = 1.0;
  t.a[2][1] = 0.0;
  t.c[1][0] = -1.0156171083877702091975600115545;
  t.c[2][0] = 4.0759956452537699824805835358067;
  t.c[2][1] = 9.2076794298330791242156818474003;
  t.m[0] = 1.0;
  t.m[1] = 6.1697947043828245592553615689730;
  t.m[2] = -0.42772256543218573326238373806514;
  t.e[0] = 0.5;
  t.e[1] = -2.9079558716805469821718236208017;
  t.e[2] = 0.22354069897811569627360909276199;
  t.new_evaluation[0] = true;
  t.new_evaluation[1] = true;
  t.new_evaluation[2] = false;
  return t;
}

// RODAS3: stiffly accurate, 4 stages, order 3 (embedded order 2). Stage 2 is evaluated at y0
// (a21 = 0) and reuses f(y0); the error estimate is the last stage alone.
RosenbrockTableau rodas3() {
  RosenbrockTableau t;
  t.stages = 4;
  t.error_order = 3;
  t.gamma = 0.5;
  t.a[1][0] = 0.0;
  t.a[2][0] = 2.0;
  t.a[2][1] = 0.0;
  t.a[3][0] = 2.0;
  t.a[3][1] = 0.0;
  t.a[3][2] = 1.0;
  t.c[1][0] = 4.0;
  t.c[2][0] = 1.0;
  t.c[2][1] = -1.0;
  t.c[3][0] = 1.0;
  t.c[3][1] = -1.0;
  t.c[3][2] = -8.0 / 3.0;
  t.m[0] = 2.0;
  t.m[1] = 0.0;
  t.m[2] = 1.0;
  t.m[3] = 1.0;
  t.e[3] = 1.0;
  t.new_evaluation[0] = true;
  t.new_evaluation[1] = false;
  t.new_evaluation[2] = true;
  t.new_evaluation[3] = true;
  return t;
}

// RODAS4 (Hairer & Wanner): stiffly accurate, 6 stages, order 4 (embedded order 3). The last
// two stages evaluate f at the embedded and at the final solution, so row 5 of a repeats the
// first four m and the error estimate is the last stage alone.
RosenbrockTableau rodas4() {
  RosenbrockTableau t;
  t.stages = 6;
  t.error_order = 4;
  t.gamma = 0.25;

  t.a[1][0] = 1.544;
  t.a[2][0] = 0.9466785280815826;
  t.a[2][1] = 0.2557011698983284;
  t.a[3][0] = 3.314825187068521;
  t.a[3][1] = 2.896124015972201;
  t.a[3][2] = 0.9986419139977817;
  t.a[4][0] = 1.221224509226641;
  t.a[4][1] = 6.019134481288629;
  t.a[4][2] = 12.53708332932087;
  t.a[4][3] = -0.6878860361058950;
  for (int j = 0; j < 4; ++j) t.a[5][j] = t.a[4][j];
  t.a[5][4] = 1.0;

  t.c[1][0] = -5.6688;
  t.c[2][0] = -2.430093356833875;
  t.c[2][1] = -0.2063599157091915;
  t.c[3][0] = -0.1073529058151375;
  t.c[3][1] = -9.594562251023355;
  t.c[3][2] = -20.47028614809616;
  t.c[4][0] = 7.496443313967647;
  t.c[4][1] = -10.24680431464352;
  t.c[4][2] = -33.99990352819905;
  t.c[4][3] = 11.70890893206160;
  t.c[5][0] = 8.083246795921522;
  t.c[5][1] = -7.981132988064893;
  t.c[5][2] = -31.52159432874371;
  t.c[5][3] = 16.31930543123136;
  t.c[5][4] = -6.058818238834054;

  for (int j = 0; j < 4; ++j) t.m[j] = t.a[4][j];
  t.m[4] = 1.0;
  t.m[5] = 1.0;
  t.e[5] = 1.0;
  for (int s = 0; s < 6; ++s) t.new_evaluation[s] = true;
  return t;
}

}  // namespace

RosenbrockTableau rosenbrock_tableau(RosenbrockMethod method) {
  switch (method) {
    case RosenbrockMethod::ros2: return ros2();
    case RosenbrockMethod::ros3: return ros3();
    case RosenbrockMethod::rodas3: return rodas3();
    case RosenbrockMethod::rodas4: return rodas4();
  }
  fail(ErrorCategory::internal, "chemistry: unknown Rosenbrock method ", static_cast<int>(method));
}

std::string_view rosenbrock_method_name(RosenbrockMethod method) {
  switch (method) {
    case RosenbrockMethod::ros2: return "ros2";
    case RosenbrockMethod::ros3: return "ros3";
    case RosenbrockMethod::rodas3: return "rodas3";
    case RosenbrockMethod::rodas4: return "rodas4";
  }
  return "unknown";
}

RosenbrockMethod parse_rosenbrock_method(std::string_view name) {
  for (RosenbrockMethod method : all_methods) {
    if (name == rosenbrock_method_name(method)) return method;
  }
  fail(ErrorCategory::invalid_input, "unknown Rosenbrock method '", name,
       "' (valid: ros2, ros3, rodas3, rodas4)");
}

}  // namespace foehn::chemistry
