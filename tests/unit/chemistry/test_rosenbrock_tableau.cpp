// The Rosenbrock tableaus, checked independently of the solver: the classical order conditions
// (Hairer & Wanner II, Table IV.7.1) after converting the KPP form back, the observed local
// order of one step on a nonlinear system with a known solution, stiff decay, and the names.

#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <complex>
#include <string>
#include <utility>

#include "foehn/chemistry/rosenbrock_tableau.hpp"
#include "foehn/runtime/error.hpp"

namespace fc = foehn::chemistry;

namespace {

constexpr int max_s = fc::max_rosenbrock_stages;
using Matrix = std::array<std::array<double, max_s>, max_s>;
using Weights = std::array<double, max_s>;

struct Case {
  fc::RosenbrockMethod method;
  int stages;
  int order;  // of the solution; the embedded one has error_order - 1
};
constexpr Case cases[] = {{fc::RosenbrockMethod::ros2, 2, 2},
                          {fc::RosenbrockMethod::ros3, 3, 3},
                          {fc::RosenbrockMethod::rodas3, 4, 3},
                          {fc::RosenbrockMethod::rodas4, 6, 4}};

// The classical form: (I - h gamma J) k_i = h f(y0 + sum alpha_ij k_j) + h J sum gamma_ij k_j.
// KPP's K is Gamma k with Gamma the lower triangle of gamma_ij (diagonal gamma), so
// Gamma^-1 = diag(1/gamma) - c, alpha = a Gamma and b = m Gamma.
struct Classical {
  int s = 0;
  double gamma = 0.0;
  Matrix alpha{}, beta{};  // beta = alpha + Gamma, strictly lower part
  Weights b{}, embedded_b{};
};

Classical to_classical(const fc::RosenbrockTableau& t) {
  const int s = t.stages;
  Matrix gamma_matrix{};  // invert the lower triangular diag(1/gamma) - c by forward substitution
  for (int col = 0; col < s; ++col) {
    gamma_matrix[col][col] = t.gamma;
    for (int i = col + 1; i < s; ++i) {
      double sum = 0.0;
      for (int j = col; j < i; ++j) sum += t.c[i][j] * gamma_matrix[j][col];
      gamma_matrix[i][col] = sum * t.gamma;
    }
  }
  Classical k;
  k.s = s;
  k.gamma = t.gamma;
  for (int i = 0; i < s; ++i) {
    for (int j = 0; j < i; ++j) {
      for (int l = j; l < i; ++l) k.alpha[i][j] += t.a[i][l] * gamma_matrix[l][j];
      k.beta[i][j] = k.alpha[i][j] + gamma_matrix[i][j];
    }
    for (int l = i; l < s; ++l) {
      k.b[i] += t.m[l] * gamma_matrix[l][i];
      k.embedded_b[i] += (t.m[l] - t.e[l]) * gamma_matrix[l][i];
    }
  }
  return k;
}

// Residuals of the order conditions of orders 1..4 for the weights b; returns the highest order
// whose conditions (and all lower ones) hold to `tolerance`.
int satisfied_order(const Classical& k, const Weights& b, double tolerance) {
  const int s = k.s;
  const double g = k.gamma;
  Weights a{}, bp{};  // alpha_i = sum_j alpha_ij, beta'_i = sum_j beta_ij
  for (int i = 0; i < s; ++i) {
    for (int j = 0; j < i; ++j) a[i] += k.alpha[i][j], bp[i] += k.beta[i][j];
  }
  auto sum = [s](auto term) {
    double total = 0.0;
    for (int i = 0; i < s; ++i) total += term(i);
    return total;
  };
  auto row_times = [](const Matrix& matrix, int i, const Weights& v) {
    double total = 0.0;
    for (int j = 0; j < i; ++j) total += matrix[i][j] * v[j];
    return total;
  };
  auto beta_times = [&](int i, const Weights& v) { return row_times(k.beta, i, v); };
  auto alpha_times = [&](int i, const Weights& v) { return row_times(k.alpha, i, v); };
  Weights a2{}, bbp{};
  for (int i = 0; i < s; ++i) a2[i] = a[i] * a[i], bbp[i] = beta_times(i, bp);
  const double residual[4][4] = {
      {sum([&](int i) { return b[i]; }) - 1.0},
      {sum([&](int i) { return b[i] * bp[i]; }) - (0.5 - g)},
      {sum([&](int i) { return b[i] * a2[i]; }) - 1.0 / 3.0,
       sum([&](int i) { return b[i] * bbp[i]; }) - (1.0 / 6.0 - g + g * g)},
      {sum([&](int i) { return b[i] * a2[i] * a[i]; }) - 0.25,
       sum([&](int i) { return b[i] * a[i] * alpha_times(i, bp); }) - (1.0 / 8.0 - g / 3.0),
       sum([&](int i) { return b[i] * beta_times(i, a2); }) - (1.0 / 12.0 - g / 3.0),
       sum([&](int i) { return b[i] * beta_times(i, bbp); }) -
           (1.0 / 24.0 - 0.5 * g + 1.5 * g * g - g * g * g)}};
  int order = 0;
  for (const auto& conditions : residual) {
    for (double r : conditions) {
      if (std::abs(r) > tolerance) return order;
    }
    ++order;
  }
  return order;
}

// A nonlinear, non-stiff test system made autonomous (z = t), with
//   u' = -u^2,  v' = -(1 + u)(v - sin z) + cos z,  z' = 1,
// whose solution from (u0, v0, t0) is u = 1/(1+t), v = sin t + w0 e^{t0-t} (1+t0)/(1+t).
using State = std::array<double, 3>;
constexpr double t0 = 0.3;
constexpr double w0 = 0.5;

State exact(double t) {
  return {1.0 / (1.0 + t), std::sin(t) + w0 * std::exp(t0 - t) * (1.0 + t0) / (1.0 + t), t};
}
State rhs(const State& y) {
  return {-y[0] * y[0], -(1.0 + y[0]) * (y[1] - std::sin(y[2])) + std::cos(y[2]), 1.0};
}
std::array<State, 3> jacobian(const State& y) {
  const double w = y[1] - std::sin(y[2]);
  return {{{-2.0 * y[0], 0.0, 0.0},
           {-w, -(1.0 + y[0]), (1.0 + y[0]) * std::cos(y[2]) - std::sin(y[2])},
           {0.0, 0.0, 0.0}}};
}

// Solves M x = r by Cramer's rule (3x3, well conditioned here).
double determinant(const std::array<State, 3>& m) {
  return m[0][0] * (m[1][1] * m[2][2] - m[1][2] * m[2][1]) -
         m[0][1] * (m[1][0] * m[2][2] - m[1][2] * m[2][0]) +
         m[0][2] * (m[1][0] * m[2][1] - m[1][1] * m[2][0]);
}
State solve(const std::array<State, 3>& m, const State& r) {
  State x{};
  for (int col = 0; col < 3; ++col) {
    std::array<State, 3> replaced = m;
    for (int i = 0; i < 3; ++i) replaced[i][col] = r[i];
    x[col] = determinant(replaced) / determinant(m);
  }
  return x;
}

// One step in the header's KPP form; returns the new solution and the error estimate.
std::pair<State, State> step(const fc::RosenbrockTableau& t, const State& y0, double h) {
  std::array<State, 3> g = jacobian(y0);
  for (int i = 0; i < 3; ++i) {
    for (int j = 0; j < 3; ++j) g[i][j] = (i == j ? 1.0 / (h * t.gamma) : 0.0) - g[i][j];
  }
  std::array<State, max_s> stage{};
  State f = rhs(y0);
  for (int s = 0; s < t.stages; ++s) {
    if (s > 0 && t.new_evaluation[s]) {
      State y = y0;
      for (int j = 0; j < s; ++j) {
        for (int i = 0; i < 3; ++i) y[i] += t.a[s][j] * stage[j][i];
      }
      f = rhs(y);
    }
    State r = f;
    for (int j = 0; j < s; ++j) {
      for (int i = 0; i < 3; ++i) r[i] += t.c[s][j] / h * stage[j][i];
    }
    stage[s] = solve(g, r);
  }
  State y1 = y0, error{};
  for (int j = 0; j < t.stages; ++j) {
    for (int i = 0; i < 3; ++i) y1[i] += t.m[j] * stage[j][i], error[i] += t.e[j] * stage[j][i];
  }
  return {y1, error};
}

double norm(const State& v) { return std::sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]); }

// Least-squares slope of log(error) against log(h).
template <typename Error>
double observed_slope(Error error_of) {
  double sx = 0.0, sy = 0.0, sxx = 0.0, sxy = 0.0;
  constexpr int points = 4;
  for (int k = 0; k < points; ++k) {
    const double x = std::log(0.05 / (1 << k)), y = std::log(error_of(std::exp(x)));
    sx += x, sy += y, sxx += x * x, sxy += x * y;
  }
  return (points * sxy - sx * sy) / (points * sxx - sx * sx);
}

// R(z) of one step on y' = lambda y, z = h lambda, computed from the KPP form with h = 1.
std::complex<double> stability_function(const fc::RosenbrockTableau& t, std::complex<double> z) {
  std::array<std::complex<double>, max_s> stage{};
  std::complex<double> f = z, y1 = 1.0;
  for (int s = 0; s < t.stages; ++s) {
    if (s > 0 && t.new_evaluation[s]) {
      std::complex<double> y = 1.0;
      for (int j = 0; j < s; ++j) y += t.a[s][j] * stage[j];
      f = z * y;
    }
    std::complex<double> r = f;
    for (int j = 0; j < s; ++j) r += t.c[s][j] * stage[j];
    stage[s] = r / (1.0 / t.gamma - z);
    y1 += t.m[s] * stage[s];
  }
  return y1;
}

}  // namespace

TEST(RosenbrockTableau, StagesAndEvaluations) {
  for (const Case& c : cases) {
    const fc::RosenbrockTableau t = fc::rosenbrock_tableau(c.method);
    EXPECT_EQ(t.stages, c.stages);
    EXPECT_EQ(t.error_order, c.order);
    EXPECT_TRUE(t.new_evaluation[0]);
    EXPECT_GT(t.gamma, 0.0);
    // A stage that reuses the previous f must sit where the previous stage sits.
    for (int s = 1; s < t.stages; ++s) {
      if (t.new_evaluation[s]) continue;
      for (int j = 0; j < s - 1; ++j) EXPECT_EQ(t.a[s][j], t.a[s - 1][j]) << "stage " << s;
      EXPECT_EQ(t.a[s][s - 1], 0.0) << "stage " << s;
    }
  }
}

TEST(RosenbrockTableau, ClassicalOrderConditions) {
  for (const Case& c : cases) {
    const fc::RosenbrockTableau t = fc::rosenbrock_tableau(c.method);
    const Classical k = to_classical(t);
    const std::string name(fc::rosenbrock_method_name(c.method));
    EXPECT_EQ(satisfied_order(k, k.b, 1e-13), c.order) << name;
    EXPECT_EQ(satisfied_order(k, k.embedded_b, 1e-13), t.error_order - 1) << name << " embedded";
  }
}

TEST(RosenbrockTableau, ObservedLocalOrder) {
  for (const Case& c : cases) {
    const fc::RosenbrockTableau t = fc::rosenbrock_tableau(c.method);
    const State y0 = exact(t0);
    const double solution = observed_slope([&](double h) {
      const State y1 = step(t, y0, h).first, reference = exact(t0 + h);
      return norm({y1[0] - reference[0], y1[1] - reference[1], y1[2] - reference[2]});
    });
    const double estimate = observed_slope([&](double h) { return norm(step(t, y0, h).second); });
    const std::string name(fc::rosenbrock_method_name(c.method));
    EXPECT_NEAR(solution, c.order + 1, 0.3) << name;
    EXPECT_NEAR(estimate, t.error_order, 0.3) << name << " error estimate";
  }
}

TEST(RosenbrockTableau, StiffDecayAndAStability) {
  for (const Case& c : cases) {
    const fc::RosenbrockTableau t = fc::rosenbrock_tableau(c.method);
    const std::string name(fc::rosenbrock_method_name(c.method));
    // L-stability: a very stiff mode is damped in one step, R(-inf) = 0.
    EXPECT_LT(std::abs(stability_function(t, -1e8)), 1e-6) << name;
    // A-stability, sampled on the imaginary axis and the negative real axis.
    for (double x = 1e-2; x < 1e4; x *= 1.5) {
      EXPECT_LE(std::abs(stability_function(t, {0.0, x})), 1.0 + 1e-12)
          << name << " z = " << x << "i";
      EXPECT_LE(std::abs(stability_function(t, -x)), 1.0) << name << " z = " << -x;
    }
  }
}

TEST(RosenbrockTableau, NamesRoundTrip) {
  for (const Case& c : cases) {
    EXPECT_EQ(fc::parse_rosenbrock_method(fc::rosenbrock_method_name(c.method)), c.method);
  }
  try {
    (void)fc::parse_rosenbrock_method("ros5");
    FAIL() << "ros5 was accepted";
  } catch (const foehn::Error& error) {
    EXPECT_EQ(error.category(), foehn::ErrorCategory::invalid_input);
    const std::string message = error.what();
    EXPECT_NE(message.find("ros5"), std::string::npos) << message;
    EXPECT_NE(message.find("ros2"), std::string::npos) << message;
    EXPECT_NE(message.find("rodas4"), std::string::npos) << message;
  }
}
