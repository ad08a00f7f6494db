// Placement, PlacedArray, for_each / max_of / count_where and fe::Constraints: one test source
// for both placements. The host cases check against plain loops and hand values; the device
// cases (skipped without a GPU) must equal the host bitwise.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "foehn/fe/constraints.hpp"
#include "foehn/fe/cpu_assembler.hpp"
#include "foehn/fe/operators.hpp"
#include "foehn/mesh/mountain.hpp"
#include "foehn/runtime/device.hpp"
#include "foehn/runtime/error.hpp"
#include "foehn/runtime/for_each.hpp"
#include "foehn/runtime/placed_array.hpp"
#include "placement_test_functors.hpp"
#include "support/momentum_matrix.hpp"
#include "support/random_values.hpp"
#include "support/small_mountain.hpp"

namespace foehn {
namespace {

using testing::random_values;

// The placements a test runs on: the host always, the device where one exists.
class PlacementTest : public ::testing::TestWithParam<bool> {
 protected:
  void SetUp() override {
    if (!GetParam()) return;
    if (cuda_device_count() == 0) GTEST_SKIP() << "no CUDA device on this machine";
    stream_ = std::make_unique<Stream>();
  }
  Placement placement() const {
    return GetParam() ? Placement::device(*stream_) : Placement::host();
  }
  std::unique_ptr<Stream> stream_;
};

TEST_P(PlacementTest, ForEachRunsTheFunctorOnEveryIndexAsTheHostLoopDoes) {
  const Placement where = placement();
  const std::vector<double> x = random_values(100'003, 1), y0 = random_values(100'003, 2);
  std::vector<double> expected = y0;
  for (std::size_t i = 0; i < x.size(); ++i) expected[i] = 0.1 * x[i] + (1.0 / 3.0) * y0[i];

  const PlacedArray<double> px(x, where);
  PlacedArray<double> py(y0, where);
  EXPECT_EQ(px.placement(), where);
  for_each(where, x.size(), testing::ScaleAndAdd{px.data(), py.data(), 0.1, 1.0 / 3.0});
  std::vector<double> result(x.size());
  py.copy_to_host(result);
  EXPECT_EQ(result, expected);  // bitwise: the device rounds as the host does
  for_each(where, 0, testing::ScaleAndAdd{nullptr, nullptr, 1, 1});  // nothing to do
}

TEST_P(PlacementTest, MaxOfAndCountWhereReduceOverTheRange) {
  const Placement where = placement();
  std::vector<double> x = random_values(65'537, 3);
  x[40'000] = -5.0e3;  // the largest magnitude
  const PlacedArray<double> px(x, where);
  EXPECT_EQ(max_of(where, x.size(), testing::ScaledMagnitude{px.data(), 2.0}), 1.0e4);
  EXPECT_EQ(max_of(where, 0, testing::ScaledMagnitude{px.data(), 2.0}), 0.0);
  EXPECT_EQ(count_where(where, x.size(), testing::NotFinite{px.data()}), 0u);

  x[7] = std::numeric_limits<double>::quiet_NaN();
  x[8] = std::numeric_limits<double>::infinity();
  x[65'536] = -std::numeric_limits<double>::infinity();
  const PlacedArray<double> bad(x, where);
  EXPECT_EQ(count_where(where, x.size(), testing::NotFinite{bad.data()}), 3u);
}

TEST_P(PlacementTest, PlacedArraysSwapTheirPlacementsAndCheckSizes) {
  const Placement where = placement();
  PlacedArray<double> a(std::vector<double>{1, 2, 3}, where);
  PlacedArray<double> b(std::vector<double>{4, 5}, Placement::host());
  a.swap(b);
  EXPECT_EQ(a.placement(), Placement::host());
  EXPECT_EQ(b.placement(), where);
  std::vector<double> three(3);
  b.copy_to_host(three);
  EXPECT_EQ(three, (std::vector<double>{1, 2, 3}));
  EXPECT_THROW(b.assign(std::vector<double>{1, 2}), Error);
  EXPECT_THROW(a.copy_to_host(three), Error);
  const PlacedArray<double> zeros(4, where);
  std::vector<double> four(4, 9.0);
  zeros.copy_to_host(four);
  EXPECT_EQ(four, std::vector<double>(4, 0.0));
}

// Dirichlet rows and lumped terms on a momentum matrix: the host result against the
// definition (constrained rows zero but their owned diagonal, lumped terms added to the other
// diagonals), the device result bitwise equal to it.
TEST_P(PlacementTest, ConstraintsEditRowsAndRightHandSidesWhereTheValuesLive) {
  const Placement where = placement();
  const TetMesh mesh = testing::small_mountain(6, 6, 5);
  const fe::BlockCsrMatrix momentum = testing::assembled_momentum(mesh);
  const std::size_t points = 3 * mesh.node_count();
  const auto owned_nodes = static_cast<std::int32_t>(mesh.node_count() - 4);  // 4 "ghosts"
  const std::size_t owned_points = 3 * static_cast<std::size_t>(owned_nodes);
  std::vector<std::uint8_t> constrained(points, 0);
  for (std::size_t p = 0; p < points; p += 5) constrained[p] = 1;
  const std::vector<double> lumped = random_values(owned_points, 4);
  const std::vector<double> g = random_values(owned_points, 5);

  fe::Constraints constraints(momentum.pattern, 3, owned_nodes, where);
  constraints.constrain(constrained, fe::ConstraintSymmetry::rows_only, 7.5);
  PlacedArray<double> values(momentum.values, where), rhs(random_values(owned_points, 6), where);
  const PlacedArray<double> placed_lumped(lumped, where), placed_g(g, where);
  constraints.add_diagonal(values.data(), placed_lumped.data());
  constraints.apply(values.data());
  constraints.constrain_rhs(where, rhs.data(), placed_g.data());
  std::vector<double> edited(values.size()), b(owned_points);
  values.copy_to_host(edited);
  rhs.copy_to_host(b);

  const fe::CsrPattern& pattern = *momentum.pattern;
  const auto rows = static_cast<std::int32_t>(pattern.row_offsets.size() - 1);
  for (std::int32_t node = 0; node < rows; ++node)
    for (int r = 0; r < 3; ++r) {
      const std::size_t point = 3 * static_cast<std::size_t>(node) + r;
      for (std::int32_t k = pattern.row_offsets[node]; k < pattern.row_offsets[node + 1]; ++k)
        for (int c = 0; c < 3; ++c) {
          const std::size_t at = static_cast<std::size_t>(9 * k + 3 * r + c);
          const bool diagonal = pattern.column_indices[k] == node && r == c;
          const bool owned = node < owned_nodes;
          double expected = momentum.values[at];
          if (constrained[point])
            expected = diagonal && owned ? 7.5 : 0.0;
          else if (diagonal && owned)
            expected = momentum.values[at] + lumped[point];
          ASSERT_EQ(edited[at], expected) << "point " << point << " entry " << at;
        }
    }
  for (std::size_t p = 0; p < owned_points; ++p) {
    if (constrained[p]) {
      EXPECT_EQ(b[p], 7.5 * g[p]);
    }
  }
}

INSTANTIATE_TEST_SUITE_P(HostAndDevice, PlacementTest, ::testing::Values(false, true),
                         [](const auto& info) { return info.param ? "device" : "host"; });

TEST(Placement, HostPlacementsHaveNoStreamAndTheCudaBackendNeedsOne) {
  const Placement host = Placement::host();
  EXPECT_FALSE(host.on_device());
  EXPECT_EQ(host.backend(), Backend::cpu);
  EXPECT_EQ(host.stream_or_null(), nullptr);
  EXPECT_THROW((void)host.stream(), Error);
  EXPECT_EQ(Placement::for_backend(Backend::cpu, nullptr), host);
  try {
    (void)Placement::for_backend(Backend::cuda, nullptr);
    FAIL() << "the CUDA backend without a stream was accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("needs a stream"), std::string::npos) << e.what();
  }
}

// Device work in a build without CUDA, or on a machine without a GPU, is an Error saying so.
TEST(Placement, DeviceWorkWithoutCudaIsAnErrorNotACrash) {
  if (cuda_device_count() > 0) GTEST_SKIP() << "a GPU exists: the device cases ran above";
  EXPECT_THROW(Stream{}, Error);
}

}  // namespace
}  // namespace foehn
