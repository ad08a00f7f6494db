// The CPU backends: OpenMP bitwise equal to the reference, the halo order, the Dirichlet band,
// and the argument checks.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "foehn/runtime/device.hpp"
#include "foehn/runtime/error.hpp"
#include "foehn/stencils/cuda_diffusion.hpp"
#include "foehn/stencils/horizontal_diffusion.hpp"
#include "unit/stencils/stencil_test_fields.hpp"

namespace foehn::stencils {
namespace {

using testing::bitwise_differences;
using testing::pseudo_random_field;

template <typename T>
class CpuDiffusion : public ::testing::Test {};
using ValueTypes = ::testing::Types<float, double>;
TYPED_TEST_SUITE(CpuDiffusion, ValueTypes);

TYPED_TEST(CpuDiffusion, OpenMpIsBitwiseEqualToTheReferenceAfter1024Iterations) {
  using T = TypeParam;
  for (const bool general : {false, true}) {
    const StencilGrid grid{37, 29, 5};
    HorizontalDiffusion options;
    options.iterations = 1024;
    if (general) options.alpha = 0.0297;  // not a power of two: every product rounds
    std::vector<T> reference = pseudo_random_field<T>(grid, general);
    std::vector<T> parallel = reference;
    const std::vector<T> initial = reference;
    diffuse_reference<T>(reference, grid, options);
    diffuse_openmp<T>(parallel, grid, options);
    EXPECT_EQ(bitwise_differences(reference, parallel), 0u) << "general data: " << general;
    EXPECT_GT(bitwise_differences(reference, initial), grid.size() / 2) << "nothing happened";
  }
}

TYPED_TEST(CpuDiffusion, OpenMpMatchesTheReferenceOnTheSmallestGridAndWithDirichlet) {
  using T = TypeParam;
  for (const Boundary boundary : {Boundary::periodic, Boundary::dirichlet_band}) {
    for (const StencilGrid grid :
         {StencilGrid{2, 2, 1}, StencilGrid{3, 2, 2}, StencilGrid{9, 13, 3}}) {
      HorizontalDiffusion options;
      options.iterations = 33;
      options.boundary = boundary;
      std::vector<T> reference = pseudo_random_field<T>(grid, true);
      std::vector<T> parallel = reference;
      diffuse_reference<T>(reference, grid, options);
      diffuse_openmp<T>(parallel, grid, options);
      EXPECT_EQ(bitwise_differences(reference, parallel), 0u)
          << grid.nx << "x" << grid.ny << "x" << grid.nz;
    }
  }
}

// Zero iterations is the final halo update alone: every halo cell, corners included, holds its
// periodic image (corners: the diagonally opposite interior value, as the published y-then-x
// order gives).
TEST(CpuDiffusionHalo, PeriodicHaloHoldsThePeriodicImagesCornersIncluded) {
  const StencilGrid g{5, 4, 2};
  HorizontalDiffusion options;
  options.iterations = 0;
  std::vector<double> field = pseudo_random_field<double>(g);
  const std::vector<double> initial = field;
  diffuse_reference<double>(field, g, options);
  std::vector<double> parallel = initial;
  diffuse_openmp<double>(parallel, g, options);
  EXPECT_EQ(bitwise_differences(field, parallel), 0u);
  auto image = [](int c, int n) { return ((c - 2) % n + n) % n + 2; };
  for (int k = 0; k < g.nz; ++k)
    for (int j = 0; j < g.ny + 4; ++j)
      for (int i = 0; i < g.nx + 4; ++i)
        EXPECT_EQ(field[g.index(i, j, k)], initial[g.index(image(i, g.nx), image(j, g.ny), k)])
            << i << "," << j << "," << k;
}

TEST(CpuDiffusionDirichlet, TheBandKeepsItsValuesAndTheInteriorMoves) {
  const StencilGrid g{12, 9, 3};
  HorizontalDiffusion options;
  options.iterations = 200;
  options.boundary = Boundary::dirichlet_band;
  std::vector<double> field = pseudo_random_field<double>(g);
  const std::vector<double> initial = field;
  diffuse_openmp<double>(field, g, options);
  std::vector<double> reference = initial;
  diffuse_reference<double>(reference, g, options);
  EXPECT_EQ(bitwise_differences(field, reference), 0u);
  int moved = 0;
  for (int k = 0; k < g.nz; ++k)
    for (int j = 0; j < g.ny + 4; ++j)
      for (int i = 0; i < g.nx + 4; ++i) {
        const std::size_t p = g.index(i, j, k);
        const bool band = i < 2 || j < 2 || i >= g.nx + 2 || j >= g.ny + 2;
        if (band) {
          EXPECT_EQ(field[p], initial[p]) << "band point " << i << "," << j << "," << k;
        } else {
          moved += field[p] != initial[p] ? 1 : 0;
        }
      }
  EXPECT_GT(moved, g.nx * g.ny * g.nz / 2);
}

// The constant field is a steady state with any boundary.
TEST(CpuDiffusionDirichlet, AConstantFieldStaysConstant) {
  const StencilGrid g{6, 7, 2};
  HorizontalDiffusion options;
  options.iterations = 50;
  options.boundary = Boundary::dirichlet_band;
  std::vector<float> field(g.size(), 3.25f);
  diffuse_reference<float>(field, g, options);
  for (const float value : field) ASSERT_EQ(value, 3.25f);
}

void expect_invalid(const StencilGrid& grid, const HorizontalDiffusion& options,
                    std::size_t field_size, const std::string& words) {
  std::vector<double> field(field_size, 0.0);
  for (int backend = 0; backend < 2; ++backend) {
    try {
      if (backend == 0) {
        diffuse_reference<double>(field, grid, options);
      } else {
        diffuse_openmp<double>(field, grid, options);
      }
      ADD_FAILURE() << "accepted: " << words;
    } catch (const Error& error) {
      EXPECT_EQ(error.category(), ErrorCategory::invalid_input);
      EXPECT_NE(std::string(error.what()).find(words), std::string::npos) << error.what();
    }
  }
}

TEST(CpuDiffusionArguments, BadSizesAndOptionsAreRejectedWithWhatAndWhich) {
  const HorizontalDiffusion ok;
  expect_invalid({1, 8, 4}, ok, 5 * 12 * 4, "nx x ny = 1 x 8 is smaller than the halo");
  expect_invalid({8, 1, 4}, ok, 12 * 5 * 4, "nx x ny = 8 x 1 is smaller than the halo");
  expect_invalid({0, 0, 1}, ok, 16, "must be >= 2");
  expect_invalid({8, 8, 0}, ok, 0, "nz = 0");
  HorizontalDiffusion nan_alpha;
  nan_alpha.alpha = std::numeric_limits<double>::quiet_NaN();
  expect_invalid({8, 8, 1}, nan_alpha, 144, "alpha = nan is not finite");
  HorizontalDiffusion infinite_alpha;
  infinite_alpha.alpha = std::numeric_limits<double>::infinity();
  expect_invalid({8, 8, 1}, infinite_alpha, 144, "is not finite");
  HorizontalDiffusion negative;
  negative.iterations = -1;
  expect_invalid({8, 8, 1}, negative, 144, "iterations = -1 is negative");
  expect_invalid({8, 8, 1}, ok, 143, "field has 143 values but the grid 8 x 8 x 1");
}

TEST(CpuDiffusionArguments, TheSmallestLegalGridIsAccepted) {
  const StencilGrid g{min_horizontal_extent, min_horizontal_extent, 1};
  std::vector<double> field(g.size(), 1.0);
  EXPECT_NO_THROW(diffuse_reference<double>(field, g, HorizontalDiffusion{}));
  EXPECT_EQ(g.size(), 36u);  // (2 + 4) x (2 + 4) x 1
}

// Without a GPU (or in a build without CUDA) the GPU entry points exist and say why they cannot
// run.
TEST(CpuDiffusionArguments, TheGpuPathIsUnavailableWithoutADevice) {
  if (cuda_device_count() > 0) GTEST_SKIP() << "a CUDA device is present";
  const StencilGrid g{8, 8, 1};
  std::vector<float> field(g.size(), 0.0f);
  try {
    diffuse_cuda<float>(field, g, HorizontalDiffusion{});
    ADD_FAILURE() << "diffuse_cuda ran without a device";
  } catch (const Error& error) {
    EXPECT_EQ(error.category(), ErrorCategory::unavailable) << error.what();
  }
}

}  // namespace
}  // namespace foehn::stencils
