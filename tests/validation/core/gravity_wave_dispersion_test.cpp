// The time scheme of the mountain-wave core against the Boussinesq dispersion relation, with no
// mountain and no mean flow: a standing internal gravity wave in a closed box with free-slip
// walls, theta' = A cos(kx (x + Lx/2)) sin(kz z) at rest at t = 0, kx = pi/Lx, kz = pi/H. It
// oscillates at omega = N kx / sqrt(kx^2 + kz^2) without loss (viscosity and diffusivity 0).
// The test measures the modal amplitude of theta' at every step and from it the frequency error
// and the amplitude lost per buoyancy period of the wave, for the default time weighting
// (Crank-Nicolson) and, as a check that the test can see a damping scheme, backward Euler.
#include <gtest/gtest.h>
#include <petscsys.h>

#include <cmath>
#include <numbers>
#include <vector>

#include "mountain_wave_test_support.hpp"

namespace foehn::mountainwave {
namespace {

using testing::distributed_small_mesh;

struct WaveBox {
  MountainMeshOptions domain;
  Physics physics;
  double kx = 0, kz = 0;

  WaveBox() {
    domain.length_x = 20000.0;
    domain.length_y = 5000.0;
    domain.height = 10000.0;
    domain.mountain_height = 0.0;
    domain.mountain_spacing = 0.0;  // uniform
    domain.vertical_grading = 1.0;
    domain.cells_x = 12;
    domain.cells_y = 2;
    domain.cells_z = 8;
    physics.closed_box = true;
    physics.viscosity = 0.0;
    physics.diffusivity = 0.0;
    physics.sponge_top_start = domain.height;  // no absorbing layers
    physics.sponge_lateral_width = 0.0;
    kx = std::numbers::pi / domain.length_x;
    kz = std::numbers::pi / domain.height;
  }
  double frequency() const {
    return physics.buoyancy_frequency * kx / std::sqrt(kx * kx + kz * kz);
  }
  double mode(const Point3& p) const {
    return std::cos(kx * (p[0] + 0.5 * domain.length_x)) * std::sin(kz * p[2]);
  }
};

struct Oscillation {
  double frequency_error = 0;  // omega_model / omega - 1
  double loss_per_period = 0;  // 1 - (amplitude ratio over one period)
  int extrema = 0;
};

// The extremum of a parabola through (t - dt, a), (t, b), (t + dt, c): time and value.
std::pair<double, double> parabola_peak(double t, double dt, double a, double b, double c) {
  const double curvature = a - 2 * b + c;
  const double shift = curvature == 0 ? 0 : 0.5 * (a - c) / curvature;
  return {t + shift * dt, b - 0.25 * (a - c) * shift};
}

Oscillation run_wave(double theta_weight, double periods, Numerics numerics = Numerics{}) {
  const WaveBox box;
  const auto mesh = distributed_small_mesh(box.domain, PETSC_COMM_WORLD);
  numerics.theta = theta_weight;
  MountainWaveModel model(mesh, box.domain, box.physics, numerics);
  ModelState state = model.initial_state();
  const std::size_t nodes = mesh.local.node_count();
  std::vector<double> shape(nodes), shape_squared(nodes), projected(nodes);
  for (std::size_t n = 0; n < nodes; ++n) {
    shape[n] = box.mode(mesh.local.nodes[n]);
    shape_squared[n] = shape[n] * shape[n];
    state.theta[n] = 0.01 * shape[n];  // small: the flow stays linear
  }
  const double norm = model.integral(shape_squared);
  const auto amplitude = [&] {
    for (std::size_t n = 0; n < nodes; ++n) projected[n] = state.theta[n] * shape[n];
    return model.integral(projected) / norm;
  };
  const double omega = box.frequency();
  const double period = 2 * std::numbers::pi / omega;
  const int steps = static_cast<int>(std::ceil(periods * period / numerics.dt)) + 2;
  std::vector<double> series{amplitude()};
  for (int step = 0; step < steps; ++step) {
    model.step(state);
    series.push_back(amplitude());
  }
  // Extrema of the series after t = 0 (t = 0 is one: the wave starts at rest).
  std::vector<std::pair<double, double>> peaks{{0.0, series[0]}};
  for (std::size_t n = 1; n + 1 < series.size(); ++n)
    if (std::abs(series[n]) >= std::abs(series[n - 1]) &&
        std::abs(series[n]) > std::abs(series[n + 1]) && series[n] * peaks.back().second < 0)
      peaks.push_back(
          parabola_peak(n * numerics.dt, numerics.dt, series[n - 1], series[n], series[n + 1]));
  Oscillation result;
  result.extrema = static_cast<int>(peaks.size());
  if (peaks.size() < 3) return result;
  const auto& last = peaks.back();
  const double half_periods = static_cast<double>(peaks.size() - 1);
  const double measured_period = 2 * last.first / half_periods;
  result.frequency_error = period / measured_period - 1;
  const double ratio = std::abs(last.second / peaks.front().second);
  result.loss_per_period = 1 - std::pow(ratio, 2 / half_periods);
  return result;
}

TEST(GravityWaveDispersion, CrankNicolsonKeepsTheAmplitudeAndTheFrequency) {
  const Oscillation wave = run_wave(Numerics{}.theta, 2.0);
  ASSERT_GE(wave.extrema, 5) << "two periods should show four extrema after t = 0";
  // The target: at most 1% of the amplitude lost per buoyancy period at the default dt.
  EXPECT_LE(wave.loss_per_period, 0.01);
  EXPECT_GE(wave.loss_per_period, -0.002) << "the scheme must not amplify the wave";
  // Frequency: P1 on 12 x 8 cells and the time scheme together.
  EXPECT_LE(std::abs(wave.frequency_error), 0.03) << "frequency error " << wave.frequency_error;
  RecordProperty("loss_per_period", std::to_string(wave.loss_per_period));
  RecordProperty("frequency_error", std::to_string(wave.frequency_error));
  std::printf("Crank-Nicolson: %.3f%% amplitude lost per period, frequency error %+.3f%%\n",
              100 * wave.loss_per_period, 100 * wave.frequency_error);
}

TEST(GravityWaveDispersion, BackwardEulerVisiblyDampsTheWave) {
  // Backward Euler damps by 1/sqrt(1 + (omega dt)^2) per step: about 28% per period here.
  const Oscillation wave = run_wave(1.0, 1.0);
  ASSERT_GE(wave.extrema, 3);
  EXPECT_GE(wave.loss_per_period, 0.15);
  std::printf("backward Euler: %.3f%% amplitude lost per period, frequency error %+.3f%%\n",
              100 * wave.loss_per_period, 100 * wave.frequency_error);
}

// The first Picard iteration advecting with 2 u^n - u^(n-1) (-picard_extrapolate). At a long
// step (omega dt = 0.27) and without the pressure stabilisation, so that the time scheme's own
// error shows: two Picard iterations from the extrapolated velocity come closer to the
// trapezoidal step (which keeps the amplitude) than two from u^n, which damp by about
// (omega dt / 2)^4 a period; one iteration from it is Adams-Bashforth 2 in the buoyancy exchange
// and amplifies the wave, by about (pi/4) (omega dt)^3 a period (1.5% here), which
// foehn-mountainwave warns of.
TEST(GravityWaveDispersion, ExtrapolatedPicardStartKeepsTheWaveAndOneIterationAmplifiesIt) {
  Numerics numerics;
  numerics.dt = 60;
  numerics.stabilisation_coefficient = 0;
  numerics.picard_extrapolate = false;
  const Oscillation two = run_wave(0.5, 2.0, numerics);
  numerics.picard_extrapolate = true;
  const Oscillation extrapolated = run_wave(0.5, 2.0, numerics);
  numerics.picard_iterations = 1;
  const Oscillation one = run_wave(0.5, 2.0, numerics);
  for (const Oscillation* wave : {&two, &extrapolated, &one}) ASSERT_GE(wave->extrema, 5);
  std::printf(
      "dt 60 s, no stabilisation: amplitude lost per period %.3f%% (two Picard iterations), "
      "%.3f%% (two, extrapolated start), %.3f%% (one, extrapolated)\n",
      100 * two.loss_per_period, 100 * extrapolated.loss_per_period, 100 * one.loss_per_period);
  EXPECT_LT(std::abs(extrapolated.loss_per_period), std::abs(two.loss_per_period));
  EXPECT_LT(one.loss_per_period, extrapolated.loss_per_period);
  EXPECT_LT(one.loss_per_period, 0.0) << "one extrapolated iteration should amplify the wave";
  EXPECT_LE(std::abs(extrapolated.frequency_error), 0.03);
}

}  // namespace
}  // namespace foehn::mountainwave
