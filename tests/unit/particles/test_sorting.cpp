// Sorting by met box: the order is by key and stable, every attribute moves with its parcel,
// and runs with the stochastic physics on are identical parcel by parcel whether or not (and
// how often) the set was sorted: the random numbers are keyed by id, not by array slot.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <numbers>
#include <random>

#include "foehn/particles/random.hpp"
#include "foehn/particles/sorting.hpp"
#include "foehn/particles/synthetic.hpp"
#include "foehn/particles/transport.hpp"

namespace foehn::particles {
namespace {

using std::numbers::pi;

MetGrid small_turbulent_grid() {
  TurbulentWind wind;
  wind.modes = 12;
  wind.largest_wavenumber = 16;
  return make_turbulent_grid(
      make_global_geometry(72, 37, log_pressure_levels(12, 0.0, 40000.0), 0.0, 3600.0), wind);
}

ParticleSet random_parcels(std::size_t n, unsigned seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  ParticleSet set;
  set.add_quantity("mass", 1.0);
  set.add_quantity("tracer", 0.0);
  for (std::size_t i = 0; i < n; ++i) {
    const double z = 35000.0 * unit(rng);
    set.add(2.0 * pi * unit(rng) - pi, std::asin(2.0 * unit(rng) - 1.0),
            reference_pressure * std::exp(-z / scale_height), 0.0,
            static_cast<std::int64_t>(1000 + 7 * i));
    set.quantity("tracer").back() = static_cast<double>(i);
  }
  return set;
}

TransportSettings full_physics() {
  TransportSettings settings;
  settings.physics.diffusion = true;
  settings.physics.subgrid_wind = true;
  settings.physics.decay_time_troposphere = 259200.0;
  settings.physics.decay_time_stratosphere = 86400.0;
  settings.physics.seed = 42;
  return settings;
}

TEST(Sorting, OrdersByMetBoxAndMovesEveryAttribute) {
  const MetGrid grid = small_turbulent_grid();
  ParticleSet set = random_parcels(3000, 1);
  std::map<std::int64_t, std::tuple<double, double, double, double>> before;
  for (std::size_t i = 0; i < set.size(); ++i)
    before[set.id[i]] = {set.longitude[i], set.latitude[i], set.pressure[i],
                         set.quantity("tracer")[i]};
  sort_by_met_box(set, grid);
  ASSERT_EQ(set.size(), 3000u);
  const MetGridView view = grid.view();
  for (std::size_t i = 0; i < set.size(); ++i) {
    const auto& [lon, lat, p, tracer] = before.at(set.id[i]);
    EXPECT_EQ(set.longitude[i], lon);
    EXPECT_EQ(set.latitude[i], lat);
    EXPECT_EQ(set.pressure[i], p);
    EXPECT_EQ(set.quantity("tracer")[i], tracer);
    if (i > 0) {
      const auto previous = met_box_key(view, set.longitude[i - 1], set.latitude[i - 1],
                                        set.pressure[i - 1]);
      const auto key = met_box_key(view, set.longitude[i], set.latitude[i], set.pressure[i]);
      ASSERT_LE(previous, key) << i;
      // Stable: equal keys keep the input order, which was by increasing id.
      if (previous == key) {
        ASSERT_LT(set.id[i - 1], set.id[i]) << i;
      }
    }
  }
}

TEST(Sorting, SortedAndUnsortedRunsAreBitwiseIdenticalPerParcel) {
  const MetGrid grid = small_turbulent_grid();
  const TransportSettings settings = full_physics();
  ParticleSet unsorted = random_parcels(4000, 2);
  ParticleSet sorted = unsorted;
  std::mt19937_64 rng(3);
  const double dt = 180.0;
  for (int call = 0; call < 4; ++call) {
    const TransportClock clock{call * 5 * dt, dt, 5, call * 5};
    transport(unsorted, grid, clock, settings);
    transport(sorted, grid, clock, settings);
    sort_by_met_box(sorted, grid);
  }
  std::map<std::int64_t, std::size_t> slot;
  for (std::size_t i = 0; i < sorted.size(); ++i) slot[sorted.id[i]] = i;
  bool moved = false;
  for (std::size_t i = 0; i < unsorted.size(); ++i) {
    const std::size_t j = slot.at(unsorted.id[i]);
    moved = moved || (j != i);
    ASSERT_EQ(unsorted.longitude[i], sorted.longitude[j]) << unsorted.id[i];
    ASSERT_EQ(unsorted.latitude[i], sorted.latitude[j]);
    ASSERT_EQ(unsorted.pressure[i], sorted.pressure[j]);
    ASSERT_EQ(unsorted.time[i], sorted.time[j]);
    for (const auto& name : unsorted.quantity_names())
      ASSERT_EQ(unsorted.quantity(name)[i], sorted.quantity(name)[j]) << name;
  }
  EXPECT_TRUE(moved) << "sorting should have changed the order";
}

TEST(ParcelRandom, NormalsAreStandardAndKeyedByIdAndStep) {
  double sum = 0.0, sum_sq = 0.0;
  const int n = 200000;
  for (int i = 0; i < n; ++i) {
    const NumberPair pair = parcel_normals(i, 5, 0, 1);
    sum += pair.first + pair.second;
    sum_sq += pair.first * pair.first + pair.second * pair.second;
  }
  const double mean = sum / (2.0 * n), variance = sum_sq / (2.0 * n) - mean * mean;
  EXPECT_NEAR(mean, 0.0, 5.0 / std::sqrt(2.0 * n));
  EXPECT_NEAR(variance, 1.0, 5.0 * std::sqrt(2.0 / (2.0 * n)));
  // The same key and counter give the same numbers; any change gives different ones.
  EXPECT_EQ(parcel_normals(11, 3, 0, 1).first, parcel_normals(11, 3, 0, 1).first);
  EXPECT_NE(parcel_normals(11, 3, 0, 1).first, parcel_normals(12, 3, 0, 1).first);
  EXPECT_NE(parcel_normals(11, 3, 0, 1).first, parcel_normals(11, 4, 0, 1).first);
  EXPECT_NE(parcel_normals(11, 3, 0, 1).first, parcel_normals(11, 3, 1, 1).first);
  EXPECT_NE(parcel_normals(11, 3, 0, 1).first, parcel_normals(11, 3, 0, 2).first);
}

}  // namespace
}  // namespace foehn::particles
