// The scheme against its theory. The 5-point Laplacian (no 1/Δx²) has the discrete Fourier symbol
//   λ(kx, ky) = 2 cos kx + 2 cos ky − 4      (Δx e^{ikx x} = (e^{ikx} + e^{−ikx} − 2) e^{ikx x}),
// so on a periodic grid sin(kx x)·sin(ky y) with kx = 2π mx / nx, ky = 2π my / ny is an exact
// eigenmode of Δh, of Δh(Δh ·) with eigenvalue λ², and one step multiplies it by
//   g = 1 − α λ².
// The checkerboard (−1)^(x+y) has λ = −8, so g = 1 − 64 α: exactly −1 at α = 1/32 (the
// stability limit), |g| > 1 above it. The periodic Laplacian sums to zero, so the interior sum
// (mass) is conserved up to round-off.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numbers>
#include <utility>
#include <vector>

#include "foehn/stencils/horizontal_diffusion.hpp"
#include "unit/stencils/stencil_test_fields.hpp"

namespace foehn::stencils {
namespace {

constexpr int h = halo_width;

std::vector<double> sine_mode(const StencilGrid& g, int mx, int my) {
  std::vector<double> field(g.size(), 0.0);
  const double kx = 2.0 * std::numbers::pi * mx / g.nx, ky = 2.0 * std::numbers::pi * my / g.ny;
  for (int k = 0; k < g.nz; ++k)
    for (int y = 0; y < g.ny; ++y)
      for (int x = 0; x < g.nx; ++x)
        field[g.index(x + h, y + h, k)] = std::sin(kx * x) * std::sin(ky * y);
  return field;
}

double amplification_per_step(const StencilGrid& g, int mx, int my, double alpha) {
  const double kx = 2.0 * std::numbers::pi * mx / g.nx, ky = 2.0 * std::numbers::pi * my / g.ny;
  const double lambda = 2.0 * std::cos(kx) + 2.0 * std::cos(ky) - 4.0;
  return 1.0 - alpha * lambda * lambda;
}

// Largest |a - factor * b| over the interior.
double max_interior_deviation(const StencilGrid& g, const std::vector<double>& a,
                              const std::vector<double>& b, double factor) {
  double worst = 0.0;
  for (int k = 0; k < g.nz; ++k)
    for (int y = 0; y < g.ny; ++y)
      for (int x = 0; x < g.nx; ++x) {
        const std::size_t p = g.index(x + h, y + h, k);
        worst = std::max(worst, std::abs(a[p] - factor * b[p]));
      }
  return worst;
}

TEST(DiffusionTheory, FourierModesDecayAtTheDiscreteTheoreticalRate) {
  const StencilGrid g{64, 48, 2};
  struct Mode {
    int mx, my;
  };
  for (const Mode mode : {Mode{3, 2}, Mode{1, 1}, Mode{16, 12}, Mode{7, 20}}) {
    const std::vector<double> initial = sine_mode(g, mode.mx, mode.my);
    const double gain = amplification_per_step(g, mode.mx, mode.my, 1.0 / 32.0);
    for (const int steps : {1, 10, 100}) {
      HorizontalDiffusion options;
      options.iterations = steps;
      std::vector<double> field = initial;
      diffuse_reference<double>(field, g, options);
      const double expected = std::pow(gain, steps);
      // Relative to the mode's amplitude after `steps` steps; where that has decayed below 1 %
      // of the initial amplitude (1), relative to 1 % (the initial field's own rounding is
      // ~1e-16 and is not an eigenmode).
      const double scale = std::max(std::abs(expected), 1e-2);
      EXPECT_LE(max_interior_deviation(g, field, initial, expected), 1e-12 * scale)
          << "mode (" << mode.mx << ", " << mode.my << "), g = " << gain << ", steps " << steps;
      std::vector<double> parallel = initial;
      diffuse_openmp<double>(parallel, g, options);
      EXPECT_EQ(testing::bitwise_differences(field, parallel), 0u);
    }
  }
}

TEST(DiffusionTheory, MassIsConservedOnThePeriodicInterior) {
  const StencilGrid g{40, 33, 3};
  HorizontalDiffusion options;
  options.iterations = 512;
  auto interior_sum = [&g](const auto& field) {
    double sum = 0.0, magnitude = 0.0;
    for (int k = 0; k < g.nz; ++k)
      for (int y = 0; y < g.ny; ++y)
        for (int x = 0; x < g.nx; ++x) {
          sum += static_cast<double>(field[g.index(x + h, y + h, k)]);
          magnitude += std::abs(static_cast<double>(field[g.index(x + h, y + h, k)]));
        }
    return std::pair{sum, magnitude};
  };
  std::vector<double> field = testing::pseudo_random_field<double>(g, true);
  const auto [mass, magnitude] = interior_sum(field);
  diffuse_openmp<double>(field, g, options);
  EXPECT_NEAR(interior_sum(field).first, mass, 1e-12 * magnitude);
  std::vector<float> single = testing::pseudo_random_field<float>(g, true);
  const auto [mass_single, magnitude_single] = interior_sum(single);
  diffuse_openmp<float>(single, g, options);
  EXPECT_NEAR(interior_sum(single).first, mass_single, 1e-5 * magnitude_single);
}

template <typename T>
std::vector<T> checkerboard(const StencilGrid& g) {
  std::vector<T> field(g.size(), T(0));
  for (int k = 0; k < g.nz; ++k)
    for (int y = 0; y < g.ny; ++y)
      for (int x = 0; x < g.nx; ++x) field[g.index(x + h, y + h, k)] = (x + y) % 2 == 0 ? 1 : -1;
  return field;
}

template <typename T>
void expect_checkerboard_flips_exactly() {
  const StencilGrid g{16, 10, 2};  // even: the checkerboard is periodic
  const std::vector<T> initial = checkerboard<T>(g);
  for (const int steps : {1, 2, 1001}) {
    HorizontalDiffusion options;
    options.iterations = steps;
    std::vector<T> field = initial;
    diffuse_reference<T>(field, g, options);
    std::vector<T> expected = initial;
    diffuse_reference<T>(expected, g, HorizontalDiffusion{.alpha = 1.0 / 32.0, .iterations = 0});
    if (steps % 2 == 1)
      for (T& value : expected) value = -value;
    // g = −1 exactly: a sign flip per step, bitwise, with no growth (|g| = 1).
    EXPECT_EQ(testing::bitwise_differences(field, expected), 0u) << "steps " << steps;
  }
}

TEST(DiffusionTheory, CheckerboardAtTheStabilityLimitFlipsSignExactly) {
  expect_checkerboard_flips_exactly<float>();
  expect_checkerboard_flips_exactly<double>();
}

TEST(DiffusionTheory, CheckerboardGrowsJustAboveTheStabilityLimit) {
  const StencilGrid g{8, 8, 1};
  HorizontalDiffusion options;
  options.alpha = (1.0 / 32.0) * (1.0 + 1.0 / 128.0);  // g = 1 − 64α = −(1 + 1/64)
  options.iterations = 100;
  std::vector<double> field = checkerboard<double>(g);
  diffuse_reference<double>(field, g, options);
  const double expected = std::pow(1.0 + 1.0 / 64.0, 100);  // even step count: positive
  EXPECT_NEAR(field[g.index(h, h, 0)], expected, 1e-12 * expected);
  EXPECT_GT(expected, 4.0);
}

}  // namespace
}  // namespace foehn::stencils
