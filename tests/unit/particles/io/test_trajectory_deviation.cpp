// Trajectory deviations against values computed by hand: parcels matched by id although B is
// shuffled, parcels missing from either run listed, AHTD/AVTD/RHTD/RVTD per parcel and
// summarised, quantity deviations, path lengths from quantities or given explicitly.

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <cmath>

#include "foehn/particles/io/trajectory_deviation.hpp"
#include "io_test_support.hpp"

namespace {

using namespace foehn::particles;
using namespace foehn::particles::io_test;
using foehn::ErrorCategory;

constexpr double a_radius = 6.37122e6;  // documented radius
constexpr double h0 = 7000.0;

// Run A: ids 1..5 on the equator at 1000 hPa... (id 5 only in A). Run B (shuffled): id 1
// unchanged, id 2 moved 90 degrees east, id 3 lifted by 700 m (p * exp(-0.1)), id 4 moved to
// the pole and lifted by 1400 m, id 6 only in B.
struct TwoRuns {
  ParticleSet a, b;
  TwoRuns() {
    a.add(0.0, 0.0, 1e5, 3600.0, 1);
    a.add(0.0, 0.0, 1e5, 3600.0, 2);
    a.add(1.0, 0.5, 5e4, 3600.0, 3);
    a.add(-2.0, 0.0, 2e4, 3600.0, 4);
    a.add(0.0, 0.0, 1e5, 3600.0, 5);
    b.add(-2.0, 0.5 * pi, 2e4 * std::exp(-0.2), 3600.0, 4);
    b.add(0.0, 0.0, 1e5, 3600.0, 6);
    b.add(0.5 * pi, 0.0, 1e5, 3600.0, 2);
    b.add(1.0, 0.5, 5e4 * std::exp(-0.1), 3600.0, 3);
    b.add(0.0, 0.0, 1e5, 3600.0, 1);
    for (ParticleSet* set : {&a, &b}) {
      set->add_quantity("mass", 1.0);
      set->add_quantity(path_horizontal_quantity, 1000.0);
      set->add_quantity(path_vertical_quantity, 100.0);
    }
    b.quantity("mass")[3] = 0.5;  // id 3
  }
};

const ParcelDeviation& parcel(const TrajectoryDeviation& d, std::int64_t id) {
  for (const ParcelDeviation& p : d.parcels)
    if (p.id == id) return p;
  throw std::runtime_error("no parcel " + std::to_string(id));
}

TEST(TrajectoryDeviation, MatchesByIdAndComputesEveryMeasure) {
  const TwoRuns runs;
  const TrajectoryDeviation d = compare_trajectories(runs.a, runs.b);
  ASSERT_EQ(d.parcels.size(), 4u);
  EXPECT_EQ(d.only_in_a, std::vector<std::int64_t>{5});
  EXPECT_EQ(d.only_in_b, std::vector<std::int64_t>{6});
  EXPECT_EQ(d.time_mismatches, 0u);
  EXPECT_TRUE(d.relative_available);
  for (std::size_t i = 0; i < 4; ++i) EXPECT_EQ(d.parcels[i].id, static_cast<std::int64_t>(i + 1));

  EXPECT_EQ(parcel(d, 1).ahtd_m, 0.0);
  EXPECT_EQ(parcel(d, 1).avtd_m, 0.0);
  // 90 degrees along the equator: chord a sqrt(2).
  EXPECT_NEAR(parcel(d, 2).ahtd_m, a_radius * std::sqrt(2.0), 1e-6);
  EXPECT_EQ(parcel(d, 2).index_b, 2u);
  EXPECT_NEAR(parcel(d, 3).ahtd_m, 0.0, 1e-9);
  EXPECT_NEAR(parcel(d, 3).avtd_m, 0.1 * h0, 1e-9);
  EXPECT_NEAR(parcel(d, 3).vertical_offset_m, -0.1 * h0, 1e-9);  // A lies below B
  // From (lon -2, lat 0) to the pole: a quarter great circle, chord a sqrt(2).
  EXPECT_NEAR(parcel(d, 4).ahtd_m, a_radius * std::sqrt(2.0), 1e-6);
  EXPECT_NEAR(parcel(d, 4).avtd_m, 0.2 * h0, 1e-9);
  // RHTD = 200 AHTD / (1000 + 1000) m, RVTD = 200 AVTD / (100 + 100) m.
  EXPECT_NEAR(*parcel(d, 2).rhtd_percent, 0.1 * a_radius * std::sqrt(2.0), 1e-6);
  EXPECT_NEAR(*parcel(d, 3).rvtd_percent, 0.1 * h0, 1e-9);

  const double chord = a_radius * std::sqrt(2.0);
  EXPECT_EQ(d.ahtd_m.count, 4u);
  EXPECT_NEAR(d.ahtd_m.mean, 0.5 * chord, 1e-6);
  EXPECT_NEAR(d.ahtd_m.standard_deviation, std::sqrt(4.0 * 0.25 * chord * chord / 3.0), 1e-6);
  EXPECT_NEAR(d.ahtd_m.min, 0.0, 1e-9);
  EXPECT_NEAR(d.ahtd_m.max, chord, 1e-6);
  EXPECT_NEAR(d.ahtd_m.median, 0.5 * chord, 1e-6);  // mean of the middle pair 0, chord
  EXPECT_NEAR(d.avtd_m.mean, 0.3 * h0 / 4.0, 1e-9);
  EXPECT_NEAR(d.avtd_m.median, 0.05 * h0, 1e-9);  // middle pair 0, 700 m
  EXPECT_NEAR(d.rvtd_percent.max, 0.2 * h0, 1e-9);

  ASSERT_EQ(d.quantities.size(), 3u);
  EXPECT_EQ(d.quantities[0].name, "mass");
  EXPECT_EQ(d.quantities[0].absolute.max, 0.5);
  EXPECT_NEAR(d.quantities[0].relative_percent.max, 200.0 * 0.5 / 1.5, 1e-12);
  EXPECT_EQ(d.quantities[0].absolute.median, 0.0);
  EXPECT_NEAR(d.quantities[0].absolute.mean, 0.125, 1e-15);
}

TEST(TrajectoryDeviation, WithoutPathLengthsOnlyAbsoluteMeasures) {
  TwoRuns runs;
  ParticleSet a;
  for (std::size_t i = 0; i < runs.a.size(); ++i)
    a.add(runs.a.longitude[i], runs.a.latitude[i], runs.a.pressure[i], runs.a.time[i],
          runs.a.id[i]);
  a.time[0] = 7200.0;  // one parcel at another time: reported
  const TrajectoryDeviation d = compare_trajectories(a, runs.b);
  EXPECT_FALSE(d.relative_available);
  EXPECT_FALSE(parcel(d, 2).rhtd_percent.has_value());
  EXPECT_EQ(d.rhtd_percent.count, 0u);
  EXPECT_TRUE(d.quantities.empty());
  EXPECT_EQ(d.quantities_only_in_b.size(), 3u);
  EXPECT_EQ(d.time_mismatches, 1u);
  EXPECT_EQ(d.max_time_difference_s, 3600.0);
  EXPECT_EQ(nlohmann::json::parse(deviation_json(d))["relative_available"], false);
}

TEST(TrajectoryDeviation, ExplicitPathLengthsAndZeroLengths) {
  const TwoRuns runs;
  AccumulatedPaths paths_a{std::vector<double>(5, 0.0), std::vector<double>(5, 0.0)};
  AccumulatedPaths paths_b{std::vector<double>(5, 0.0), std::vector<double>(5, 50.0)};
  paths_a.horizontal_m[1] = 3000.0;  // id 2 in A (slot 1); B's id 2 sits in slot 2
  paths_b.horizontal_m[2] = 1000.0;
  const TrajectoryDeviation d = compare_trajectories(runs.a, runs.b, &paths_a, &paths_b);
  EXPECT_NEAR(*parcel(d, 2).rhtd_percent, 200.0 * a_radius * std::sqrt(2.0) / 4000.0, 1e-6);
  EXPECT_FALSE(parcel(d, 1).rhtd_percent.has_value());  // no path at all: undefined, skipped
  EXPECT_EQ(d.rhtd_percent.count, 1u);
  EXPECT_NEAR(*parcel(d, 4).rvtd_percent, 200.0 * 0.2 * h0 / 50.0, 1e-9);
  paths_a.vertical_m[3] = -1.0;  // a distance: a negative one would make a wrong percentage
  expect_error([&] { compare_trajectories(runs.a, runs.b, &paths_a, &paths_b); },
               ErrorCategory::invalid_input,
               {"run A has the vertical path length -1 m for parcel id", "finite and >= 0"});
  paths_a.vertical_m[3] = 0.0;
  paths_b.vertical_m.pop_back();
  expect_error([&] { compare_trajectories(runs.a, runs.b, &paths_a, &paths_b); },
               ErrorCategory::invalid_input, {"run B has 5 parcels"});
}

TEST(TrajectoryDeviation, RepeatedIdsAndNoCommonIds) {
  TwoRuns runs;
  runs.b.id[1] = 4;
  expect_error([&] { compare_trajectories(runs.a, runs.b); }, ErrorCategory::invalid_input,
               {"parcel id 4 occurs more than once in run B"});
  ParticleSet other;
  other.add(0.0, 0.0, 1e5, 0.0, 99);
  const TrajectoryDeviation d = compare_trajectories(runs.a, other);
  EXPECT_TRUE(d.parcels.empty());
  EXPECT_EQ(d.only_in_a.size(), 5u);
  EXPECT_TRUE(std::isnan(d.ahtd_m.mean));
  EXPECT_TRUE(nlohmann::json::parse(deviation_json(d))["ahtd_m"]["mean"].is_null());
}

TEST(TrajectoryDeviation, SummaryStatistics) {
  const DeviationSummary even = summarise({4.0, 1.0, 3.0, 2.0});
  EXPECT_EQ(even.count, 4u);
  EXPECT_EQ(even.mean, 2.5);
  EXPECT_NEAR(even.standard_deviation, std::sqrt(5.0 / 3.0), 1e-15);
  EXPECT_EQ(even.min, 1.0);
  EXPECT_EQ(even.max, 4.0);
  EXPECT_EQ(even.median, 2.5);
  const DeviationSummary odd = summarise({5.0, -1.0, 2.0});
  EXPECT_EQ(odd.median, 2.0);
  EXPECT_EQ(summarise({7.0}).standard_deviation, 0.0);
}

TEST(TrajectoryDeviation, PathLengthAccumulatesChordsAndHeights) {
  PathLength length;
  length.add_step({0.0, 0.0, 101325.0}, {0.5 * pi, 0.0, 101325.0 * std::exp(-1.0)});
  EXPECT_NEAR(length.horizontal_m, a_radius * std::sqrt(2.0), 1e-6);
  EXPECT_NEAR(length.vertical_m, h0, 1e-9);
  length.add_step({0.5 * pi, 0.0, 101325.0 * std::exp(-1.0)}, {0.5 * pi, 0.0, 101325.0});
  EXPECT_NEAR(length.vertical_m, 2.0 * h0, 1e-9);  // down again: |dz| adds up
  EXPECT_NEAR(horizontal_chord_distance(0.3, 0.2, 0.3 + 2.0 * pi, 0.2), 0.0, 1e-6);
}

// Read back with a JSON parser: what a script reading the file sees.
TEST(TrajectoryDeviation, JsonSummary) {
  const TwoRuns runs;
  const auto json = nlohmann::json::parse(deviation_json(compare_trajectories(runs.a, runs.b)));
  EXPECT_EQ(json["matched"], 4);
  EXPECT_EQ(json["only_in_a"], nlohmann::json::array({5}));
  EXPECT_EQ(json["only_in_b"], nlohmann::json::array({6}));
  EXPECT_EQ(json["rhtd_percent"]["count"], 4);
  EXPECT_EQ(json["quantities"][0]["name"], "mass");
}

}  // namespace
