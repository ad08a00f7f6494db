// Where foehn-mountainwave forms GAMG's Galerkin products (validation/mountain_wave/app/
// gpu_memory.cpp), against the measurements that set the rule (docs/scaling.md): one H200
// (139 GiB free) runs 20 M tets with them on the GPU and needs them on the host at 40 M; one
// H100 (78.66 GiB free) needs them on the host at 20 M; several ranks move them past 8 M tets
// per rank, and only PtAP on two ranks.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "gpu_memory.hpp"

namespace {

using foehn::mountainwave::galerkin_product_placement;
using foehn::mountainwave::gpu_memory_model;

constexpr double gib = 1024.0 * 1024.0 * 1024.0;
constexpr double h200_free = 139.0 * gib, h100_free = 78.66 * gib;

std::vector<std::string> options_of(int ranks, double tets_per_rank, double free_bytes) {
  const auto placement =
      galerkin_product_placement(gpu_memory_model(true, ranks), ranks, tets_per_rank, free_bytes);
  return {placement.host_options.begin(), placement.host_options.end()};
}

const std::vector<std::string> both{"-matptap_backend_cpu", "-matmatmult_backend_cpu"};

TEST(GalerkinProductPlacement, OneRankKeepsThemOnTheGpuWhereTheirPeakFits) {
  EXPECT_TRUE(options_of(1, 20.9e6, h200_free).empty());  // 20 M tets, measured peak 79.3 GB
  EXPECT_TRUE(options_of(1, 5.2e6, h100_free).empty());
}

TEST(GalerkinProductPlacement, OneRankMovesBothProductsToTheHostWhereTheirPeakDoesNot) {
  EXPECT_EQ(options_of(1, 42.0e6, h200_free), both);  // 40 M tets: out of memory on the GPU
  EXPECT_EQ(options_of(1, 20.9e6, h100_free), both);  // 20 M tets on an H100
  const auto placement =
      galerkin_product_placement(gpu_memory_model(true, 1), 1, 19.92e6 * 1.05, h100_free);
  EXPECT_TRUE(placement.peak_too_large);
  EXPECT_FALSE(placement.past_cusparse_limit);
  EXPECT_NEAR(placement.device_peak_bytes / gib, 84.69, 0.01);  // as the H100 run log said
}

TEST(GalerkinProductPlacement, SeveralRanksFollowCusparsesPerRankLimitNotTheFreeMemory) {
  EXPECT_TRUE(options_of(2, 5.25e6, h200_free).empty());
  EXPECT_TRUE(options_of(4, 5.25e6, 1.0 * gib).empty());  // no peak model on several ranks
  EXPECT_EQ(options_of(2, 10.5e6, h200_free), std::vector<std::string>{"-matptap_backend_cpu"});
  EXPECT_EQ(options_of(4, 21.0e6, h200_free), both);
  EXPECT_TRUE(galerkin_product_placement(gpu_memory_model(true, 4), 4, 21.0e6, h200_free)
                  .past_cusparse_limit);
}

TEST(GalerkinProductPlacement, HostSolvesNeedNoDecision) {
  EXPECT_TRUE(
      galerkin_product_placement(gpu_memory_model(false, 1), 1, 1.0e9, 0.0).host_options.empty());
}

}  // namespace
