// Every CUDA diffusion kernel against the CPU reference, bitwise, after 1024 iterations: sizes
// that are multiples of the fused tile (64 x 32) and sizes that are not, the smallest legal
// grid, float and double, periodic and Dirichlet, data exact in powers of two and general data
// with a non-dyadic α (where only identical rounding, no FMA contraction, gives equality).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <string>
#include <vector>

#include "foehn/runtime/error.hpp"
#include "foehn/runtime/stream.hpp"
#include "foehn/stencils/cuda_diffusion.hpp"
#include "foehn/stencils/horizontal_diffusion.hpp"
#include "support/gpu_test.hpp"
#include "unit/stencils/stencil_test_fields.hpp"

namespace foehn::stencils {
namespace {

using testing::bitwise_differences;
using testing::pseudo_random_field;

// FOEHN_STENCIL_TEST_ITERATIONS overrides the 1024 iterations (run_on_device.sh uses a few under
// compute-sanitizer, where every launch is slow; the full count runs without it).
int test_iterations() {
  const char* text = std::getenv("FOEHN_STENCIL_TEST_ITERATIONS");
  return text != nullptr ? std::atoi(text) : 1024;
}

struct KernelChoice {
  CudaDiffusionKernel kernel;
  bool graph;
};

const std::vector<KernelChoice> all_kernels = {
    {CudaDiffusionKernel::baseline, false},       {CudaDiffusionKernel::baseline, true},
    {CudaDiffusionKernel::fused, false},          {CudaDiffusionKernel::fused, true},
    {CudaDiffusionKernel::fused_wrap, false},     {CudaDiffusionKernel::fused_wrap, true},
    {CudaDiffusionKernel::level_resident, false}, {CudaDiffusionKernel::automatic, false}};

const std::vector<StencilGrid> grids = {
    {2, 2, 1},      // the smallest legal grid
    {3, 5, 2},      // smaller than one tile, odd
    {64, 32, 2},    // exactly one fused tile
    {37, 29, 3},    // not a multiple of anything
    {130, 67, 2},   // several tiles, ragged edges
    {128, 128, 4},  // the reference domain's level
    {1100, 2, 1},   // rows wider than a level_resident block's 1024 threads
    {2, 300, 1}     // tall and narrow
};

std::string describe(const StencilGrid& g, const KernelChoice& choice, bool general,
                     Boundary boundary) {
  return std::to_string(g.nx) + "x" + std::to_string(g.ny) + "x" + std::to_string(g.nz) + " " +
         std::string(to_string(choice.kernel)) + (choice.graph ? "+graph" : "") +
         (general ? " general data" : " dyadic data") +
         (boundary == Boundary::periodic ? " periodic" : " dirichlet");
}

template <typename T>
void expect_all_kernels_match_reference(Boundary boundary, int iterations) {
  for (const StencilGrid& grid : grids) {
    for (const bool general : {false, true}) {
      HorizontalDiffusion options;
      options.iterations = iterations;
      options.boundary = boundary;
      if (general) options.alpha = 0.0297;
      const std::vector<T> initial = pseudo_random_field<T>(grid, general);
      std::vector<T> reference = initial;
      if (grid.nx * grid.ny <= 64 * 64) {
        diffuse_reference<T>(reference, grid, options);
      } else {
        diffuse_openmp<T>(reference, grid, options);  // bitwise equal (CPU tests)
      }
      Stream stream;
      for (const KernelChoice& choice : all_kernels) {
        if (choice.kernel == CudaDiffusionKernel::level_resident &&
            !level_resident_fits(grid, sizeof(T)))
          continue;
        CudaHorizontalDiffusionSettings settings;
        settings.kernel = choice.kernel;
        settings.use_graph = choice.graph;
        // 50 does not divide 1024: graph replays plus a remainder; with the few iterations of a
        // sanitizer run, still at least one replay.
        settings.graph_steps = std::max(2, std::min(50, iterations / 3));
        CudaHorizontalDiffusion<T> diffusion(grid, options, settings, stream);
        std::vector<T> result(grid.size());
        diffusion.upload(initial, stream);
        diffusion.run(stream);
        diffusion.download(result, stream);
        stream.synchronize();
        EXPECT_EQ(bitwise_differences(result, reference), 0u)
            << describe(grid, choice, general, boundary);
        // A second run continues from the result, through the other ping-pong parity.
        std::vector<T> twice_reference = reference;
        HorizontalDiffusion few = options;
        few.iterations = 3;
        diffuse_reference<T>(twice_reference, grid, few);
        CudaHorizontalDiffusion<T> again(grid, few, settings, stream);
        again.upload(result, stream);
        again.run(stream);
        again.download(result, stream);
        stream.synchronize();
        EXPECT_EQ(bitwise_differences(result, twice_reference), 0u)
            << describe(grid, choice, general, boundary) << " (3 more steps)";
      }
    }
  }
}

TEST(CudaDiffusion, EveryKernelIsBitwiseEqualToTheReferenceFloatPeriodic) {
  FOEHN_SKIP_WITHOUT_GPU();
  expect_all_kernels_match_reference<float>(Boundary::periodic, test_iterations());
}

TEST(CudaDiffusion, EveryKernelIsBitwiseEqualToTheReferenceDoublePeriodic) {
  FOEHN_SKIP_WITHOUT_GPU();
  expect_all_kernels_match_reference<double>(Boundary::periodic, test_iterations());
}

TEST(CudaDiffusion, EveryKernelIsBitwiseEqualToTheReferenceFloatDirichlet) {
  FOEHN_SKIP_WITHOUT_GPU();
  expect_all_kernels_match_reference<float>(Boundary::dirichlet_band, test_iterations());
}

TEST(CudaDiffusion, EveryKernelIsBitwiseEqualToTheReferenceDoubleDirichlet) {
  FOEHN_SKIP_WITHOUT_GPU();
  expect_all_kernels_match_reference<double>(Boundary::dirichlet_band, test_iterations());
}

TEST(CudaDiffusion, RepeatedRunsReuseTheCapturedGraphs) {
  FOEHN_SKIP_WITHOUT_GPU();
  const StencilGrid grid{40, 24, 3};
  HorizontalDiffusion options;
  options.iterations = 7;  // odd: the runs alternate the starting buffer
  std::vector<float> reference = pseudo_random_field<float>(grid, true);
  const std::vector<float> initial = reference;
  Stream stream;
  CudaHorizontalDiffusionSettings settings{CudaDiffusionKernel::fused_wrap, true, 2};
  CudaHorizontalDiffusion<float> diffusion(grid, options, settings, stream);
  EXPECT_TRUE(diffusion.uses_graph());
  diffusion.upload(initial, stream);
  for (int run = 0; run < 5; ++run) {
    diffusion.run(stream);
    diffuse_reference<float>(reference, grid, options);
  }
  std::vector<float> result(grid.size());
  diffusion.download(result, stream);
  stream.synchronize();
  EXPECT_EQ(bitwise_differences(result, reference), 0u);
}

TEST(CudaDiffusion, AutomaticPicksTheMeasuredFastestKernel) {
  FOEHN_SKIP_WITHOUT_GPU();
  Stream stream;
  CudaHorizontalDiffusion<float> small({64, 64, 2}, HorizontalDiffusion{}, {}, stream);
  EXPECT_EQ(small.kernel(), CudaDiffusionKernel::fused_wrap);
  HorizontalDiffusion dirichlet;
  dirichlet.boundary = Boundary::dirichlet_band;
  CudaHorizontalDiffusion<float> banded({64, 64, 2}, dirichlet, {}, stream);
  EXPECT_EQ(banded.kernel(), CudaDiffusionKernel::level_resident);
  CudaHorizontalDiffusion<float> large({1024, 600, 1}, HorizontalDiffusion{}, {}, stream);
  EXPECT_EQ(large.kernel(), CudaDiffusionKernel::fused_wrap);
  EXPECT_FALSE(level_resident_fits({1024, 600, 1}, sizeof(float)));
}

TEST(CudaDiffusion, ConvenienceFunctionAndBadArguments) {
  FOEHN_SKIP_WITHOUT_GPU();
  const StencilGrid grid{20, 12, 2};
  HorizontalDiffusion options;
  options.iterations = 64;
  std::vector<double> field = pseudo_random_field<double>(grid);
  std::vector<double> reference = field;
  diffuse_reference<double>(reference, grid, options);
  diffuse_cuda<double>(field, grid, options);
  EXPECT_EQ(bitwise_differences(field, reference), 0u);
  Stream stream;
  EXPECT_THROW(CudaHorizontalDiffusion<float>({1, 12, 2}, options, {}, stream), Error);
  CudaHorizontalDiffusion<float> diffusion(grid, options, {}, stream);
  std::vector<float> wrong_size(grid.size() - 1);
  try {
    diffusion.upload(wrong_size, stream);
    ADD_FAILURE() << "a field of the wrong size was accepted";
  } catch (const Error& error) {
    EXPECT_EQ(error.category(), ErrorCategory::invalid_input);
  }
  EXPECT_THROW(
      CudaHorizontalDiffusion<float>({4000, 4000, 1}, options,
                                     {CudaDiffusionKernel::level_resident, false, 64}, stream),
      Error);
}

}  // namespace
}  // namespace foehn::stencils
