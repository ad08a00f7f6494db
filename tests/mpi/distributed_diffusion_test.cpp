// Horizontal diffusion over 1, 2, 3 and 4 ranks (issue 21): after the run every rank's block,
// halo included, is bitwise the cut of the one-rank reference field (diffuse_reference on the
// whole grid), for both boundaries, float and double, general data, several process grids, and
// on the CPU and (where a GPU exists) the GPU backend; gather_field gives the whole field back.

#include <cmath>
#include <string>
#include <tuple>
#include <vector>

#include <gtest/gtest.h>

#include "foehn/petsc/device_binding.hpp"
#include "foehn/runtime/device.hpp"
#include "foehn/stencils/distributed_diffusion.hpp"
#include "mpi/support/mpi_test_support.hpp"
#include "unit/stencils/stencil_test_fields.hpp"

namespace foehn::stencils {
namespace {

using foehn::testing::error_of;
using foehn::testing::world;
using foehn::testing::world_rank;
using foehn::testing::world_size;

// Odd sizes so that blocks differ in width; ny = 10 still splits over 4 ranks in y.
constexpr StencilGrid test_grid{13, 10, 3};
constexpr int test_iterations = 25;

HorizontalDiffusion test_options(Boundary boundary, int iterations = test_iterations) {
  HorizontalDiffusion options;
  options.alpha = 0.0297;  // not dyadic: only identical rounding gives equality
  options.iterations = iterations;
  options.boundary = boundary;
  return options;
}

bool gpu_available() {
  return cuda_device_count() > 0;
}

// Runs the distributed diffusion from the whole field `initial` and checks every rank's block
// against the cut of the reference result, and the gathered field against the whole of it.
template <typename T>
void expect_matches_reference(const std::vector<T>& initial, const StencilGrid& grid,
                              const HorizontalDiffusion& options,
                              DistributedDiffusionSettings settings) {
  std::vector<T> reference = initial;
  diffuse_reference<T>(reference, grid, options);

  DistributedHorizontalDiffusion<T> diffusion(world(), grid, options, settings);
  const StencilBlock& block = diffusion.block();
  diffusion.set_field(local_field_of<T>(initial, block));
  diffusion.run();
  std::vector<T> local(block.local.size());
  diffusion.get_field(local);

  const std::vector<T> expected_local = local_field_of<T>(reference, block);
  EXPECT_EQ(bitwise_differences<T>(local, expected_local), 0u)
      << "block (" << block.rank_x << ", " << block.rank_y << ") of " << block.ranks_x << " x "
      << block.ranks_y << ", halo included";
  EXPECT_EQ(diffusion.timing().steps, options.iterations);

  const std::vector<T> gathered = gather_field<T>(diffusion, local);
  if (world_rank() == 0) {
    // The whole halo of a periodic field is refilled; the Dirichlet band is kept: both equal.
    EXPECT_EQ(bitwise_differences<T>(gathered, reference), 0u);
  } else {
    EXPECT_TRUE(gathered.empty());
  }
}

class DistributedDiffusionTest
    : public ::testing::TestWithParam<std::tuple<Backend, Boundary, bool>> {
 protected:
  void SetUp() override {
    if (backend() == Backend::cuda) {
      if (!gpu_available()) GTEST_SKIP() << "no CUDA device";
      petsc::select_device_for_rank(world());
    }
  }
  Backend backend() const { return std::get<0>(GetParam()); }
  Boundary boundary() const { return std::get<1>(GetParam()); }
  bool use_double() const { return std::get<2>(GetParam()); }

  template <typename T>
  void check(DistributedDiffusionSettings settings) {
    settings.backend = backend();
    const std::vector<T> initial = testing::pseudo_random_field<T>(test_grid, true);
    expect_matches_reference<T>(initial, test_grid, test_options(boundary()), settings);
  }
  void check_both_types(DistributedDiffusionSettings settings) {
    if (use_double())
      check<double>(settings);
    else
      check<float>(settings);
  }
};

TEST_P(DistributedDiffusionTest, DefaultProcessGridMatchesOneRankReferenceBitwise) {
  check_both_types({});
}

TEST_P(DistributedDiffusionTest, SlabsInXAndInYMatchOneRankReferenceBitwise) {
  const int size = world_size();
  if (test_grid.ny / size >= min_horizontal_extent)
    check_both_types({.ranks_x = 1, .ranks_y = size});
  if (test_grid.nx / size >= min_horizontal_extent)
    check_both_types({.ranks_x = size, .ranks_y = 1});
}

// On the GPU the halos of ranks on one host go GPU to GPU by default; through the host they must
// give the same bits.
TEST_P(DistributedDiffusionTest, HostStagedHalosMatchOneRankReferenceBitwise) {
  check_both_types({.gpu_to_gpu_halos = false});
}

INSTANTIATE_TEST_SUITE_P(BackendsBoundariesTypes, DistributedDiffusionTest,
                         ::testing::Combine(::testing::Values(Backend::cpu, Backend::cuda),
                                            ::testing::Values(Boundary::periodic,
                                                              Boundary::dirichlet_band),
                                            ::testing::Bool()),
                         [](const auto& info) {
                           return std::string(to_string(std::get<0>(info.param))) +
                                  (std::get<1>(info.param) == Boundary::periodic ? "Periodic"
                                                                                 : "Dirichlet") +
                                  (std::get<2>(info.param) ? "Double" : "Float");
                         });

// Each GPU kernel takes the single steps of the blocks: all of them must agree with the CPU.
TEST(DistributedDiffusion, EveryGpuKernelMatchesReferenceBitwise) {
  if (!gpu_available()) GTEST_SKIP() << "no CUDA device";
  petsc::select_device_for_rank(world());
  const std::vector<float> initial = testing::pseudo_random_field<float>(test_grid, true);
  for (const auto kernel : {CudaDiffusionKernel::baseline, CudaDiffusionKernel::fused,
                            CudaDiffusionKernel::level_resident}) {
    SCOPED_TRACE(std::string(to_string(kernel)));
    DistributedDiffusionSettings settings{.backend = Backend::cuda};
    settings.cuda.kernel = kernel;
    expect_matches_reference<float>(initial, test_grid, test_options(Boundary::periodic), settings);
  }
}

// Every rank of a test runs on one host: with GPUs its neighbours are GPU to GPU (another rank)
// or on its own GPU (itself, periodic); asked not to, or on the CPU, through host memory.
TEST(DistributedDiffusion, HaloRoutesSayHowHalosTravel) {
  const StencilGrid grid{16, 16, 2};
  const HorizontalDiffusion periodic = test_options(Boundary::periodic);
  const std::string cpu =
      DistributedHorizontalDiffusion<float>(world(), grid, periodic, {}).halo_routes();
  EXPECT_EQ(cpu.find("GPU"), std::string::npos) << cpu;
  EXPECT_NE(cpu.find("host memory and MPI"), std::string::npos) << cpu;
  if (!gpu_available()) return;
  petsc::select_device_for_rank(world());
  const std::string gpu =
      DistributedHorizontalDiffusion<float>(world(), grid, periodic, {.backend = Backend::cuda})
          .halo_routes();
  EXPECT_EQ(gpu.find("host memory"), std::string::npos) << gpu;
  EXPECT_EQ(gpu.find("not possible"), std::string::npos) << gpu;
  EXPECT_NE(gpu.find(world_size() > 1 ? "GPU to GPU (CUDA IPC)" : "on this GPU"), std::string::npos)
      << gpu;
  const std::string staged =
      DistributedHorizontalDiffusion<float>(world(), grid, periodic,
                                            {.backend = Backend::cuda, .gpu_to_gpu_halos = false})
          .halo_routes();
  EXPECT_EQ(staged.find("GPU"), std::string::npos) << staged;
}

// iterations = 0 is the halo update alone: a periodic halo full of garbage comes back refilled.
TEST(DistributedDiffusion, ZeroIterationsRefillsThePeriodicHalo) {
  std::vector<double> initial = testing::pseudo_random_field<double>(test_grid, true);
  for (int k = 0; k < test_grid.nz; ++k)
    for (int j = 0; j < test_grid.rows_per_plane(); ++j)
      for (int i = 0; i < test_grid.row_length(); ++i)
        if (i < 2 || j < 2 || i >= test_grid.nx + 2 || j >= test_grid.ny + 2)
          initial[test_grid.index(i, j, k)] = std::nan("");
  expect_matches_reference<double>(initial, test_grid, test_options(Boundary::periodic, 0), {});
}

TEST(StencilBlock, BlocksTileTheInteriorOnceWithWidthsWithinOne) {
  const StencilGrid grid{23, 17, 2};
  for (int ranks_x = 1; ranks_x <= 5; ++ranks_x)
    for (int ranks_y = 1; ranks_y <= 5; ++ranks_y) {
      std::vector<int> owner(static_cast<std::size_t>(grid.nx) * grid.ny, 0);
      int narrowest = grid.nx, widest = 0;
      for (int rx = 0; rx < ranks_x; ++rx)
        for (int ry = 0; ry < ranks_y; ++ry) {
          const StencilBlock b = stencil_block(grid, ranks_x, ranks_y, rx, ry);
          EXPECT_EQ(b.local.nz, grid.nz);
          narrowest = std::min(narrowest, b.local.nx);
          widest = std::max(widest, b.local.nx);
          for (int y = b.y0; y < b.y0 + b.local.ny; ++y)
            for (int x = b.x0; x < b.x0 + b.local.nx; ++x) ++owner[y * grid.nx + x];
        }
      for (const int count : owner) ASSERT_EQ(count, 1) << ranks_x << " x " << ranks_y;
      EXPECT_LE(widest - narrowest, 1);
    }
}

TEST(StencilBlock, RefusesBlocksNarrowerThanTheHaloAndPlacesOutsideTheGrid) {
  const StencilGrid grid{7, 9, 1};
  const auto narrow = error_of([&] { (void)stencil_block(grid, 4, 1, 0, 0); });
  EXPECT_EQ(narrow.category, ErrorCategory::invalid_input);
  EXPECT_NE(narrow.message.find("narrower than the halo"), std::string::npos) << narrow.message;
  EXPECT_EQ(error_of([&] { (void)stencil_block(grid, 2, 2, 2, 0); }).category,
            ErrorCategory::invalid_input);
  EXPECT_EQ(error_of([&] { (void)stencil_block(grid, 0, 1, 0, 0); }).category,
            ErrorCategory::invalid_input);
}

// Refusals are collective: every rank throws the same error, none waits for the others.
TEST(DistributedDiffusion, BadSetUpsAreRefusedOnEveryRank) {
  const int size = world_size();
  const HorizontalDiffusion options = test_options(Boundary::periodic);

  const auto wrong_grid = error_of([&] {
    DistributedHorizontalDiffusion<float> d(world(), test_grid, options,
                                            {.ranks_x = size + 1, .ranks_y = 1});
  });
  EXPECT_EQ(wrong_grid.category, ErrorCategory::invalid_input);
  EXPECT_NE(wrong_grid.message.find("process grid"), std::string::npos) << wrong_grid.message;

  const StencilGrid tiny{2, 2, 1};
  if (size > 1) {
    const auto narrow =
        error_of([&] { DistributedHorizontalDiffusion<float> d(world(), tiny, options); });
    EXPECT_EQ(narrow.category, ErrorCategory::invalid_input);
    EXPECT_NE(narrow.message.find("narrower than the halo"), std::string::npos) << narrow.message;

    StencilGrid mine = test_grid;
    if (world_rank() == size - 1) mine.nz += 1;
    const auto other_process_grid = error_of([&] {
      DistributedHorizontalDiffusion<float> d(
          world(), test_grid, options,
          world_rank() == 0 ? DistributedDiffusionSettings{.ranks_x = 1, .ranks_y = size}
                            : DistributedDiffusionSettings{});
    });
    EXPECT_EQ(other_process_grid.category, ErrorCategory::invalid_input);
    EXPECT_NE(other_process_grid.message.find("different grids"), std::string::npos)
        << other_process_grid.message;

    const auto disagree =
        error_of([&] { DistributedHorizontalDiffusion<float> d(world(), mine, options); });
    EXPECT_EQ(disagree.category, ErrorCategory::invalid_input);
    EXPECT_NE(disagree.message.find("different grids"), std::string::npos) << disagree.message;
  }

  HorizontalDiffusion bad_alpha = options;
  bad_alpha.alpha = std::nan("");
  EXPECT_EQ(error_of([&] {
              DistributedHorizontalDiffusion<float> d(world(), test_grid, bad_alpha);
            }).category,
            ErrorCategory::invalid_input);

  DistributedHorizontalDiffusion<float> d(world(), test_grid, options);
  std::vector<float> short_field(d.block().local.size() - 1);
  EXPECT_EQ(error_of([&] { d.set_field(short_field); }).category, ErrorCategory::invalid_input);
  const auto short_gather = error_of([&] { (void)gather_field<float>(d, short_field); });
  EXPECT_EQ(short_gather.category, ErrorCategory::invalid_input);
}

TEST(DistributedDiffusion, GpuBackendWithoutDeviceIsUnavailableOnEveryRank) {
  if (gpu_available()) GTEST_SKIP() << "a CUDA device exists";
  const auto error = error_of([&] {
    DistributedHorizontalDiffusion<float> d(world(), test_grid, test_options(Boundary::periodic),
                                            {.backend = Backend::cuda});
  });
  EXPECT_EQ(error.category, ErrorCategory::unavailable) << error.message;
}

}  // namespace
}  // namespace foehn::stencils
