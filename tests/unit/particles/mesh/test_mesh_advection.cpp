// Advection through P1 fields on the tetrahedral mesh, against exact trajectories: uniform
// flow with outflow, solid-body rotation (convergence orders) and time interpolation.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <numbers>
#include <random>
#include <vector>

#include "foehn/particles/mesh_transport.hpp"
#include "unit/particles/mesh/mesh_test_support.hpp"

namespace foehn::particles {
namespace {

using std::numbers::pi;

// ---- uniform flow and the outflow boundary ----------------------------------------------

void check_uniform_flow_with_outflow(const TetMesh& mesh, double z_low, Integrator scheme) {
  const double speed = 10.0, dt = 6.0;
  const int steps = 100;  // 6 km
  const MeshVelocityField field(mesh, test::uniform_velocity(mesh, {speed, 0.0, 0.0}));
  MeshParcels parcels;
  std::vector<int> exit_step;  // the step after which the parcel is past x = +L/2, or -1
  std::size_t expected_leaving = 0;
  for (int i = 0; i < 59; ++i) {
    // Starting points 123.4 m off the step grid, so no end point lies on the boundary.
    const double x0 = -29000.0 + 1000.0 * i + 123.4;
    const double y0 = -20000.0 + 700.0 * (i % 57);
    const double z0 = z_low + 250.0 * (i % 50);
    parcels.add(x0, y0, z0, 0.0, i);
    const int step = static_cast<int>(std::floor((test::half_length - x0) / (speed * dt))) + 1;
    exit_step.push_back(step <= steps ? step : -1);
    expected_leaving += step <= steps;
  }
  ASSERT_GT(expected_leaving, 0u);
  ASSERT_EQ(locate(parcels, field), 0u);
  const MeshParcels start = parcels;
  const MeshTransportReport report = advect(parcels, field, 0.0, dt, steps, scheme);
  EXPECT_EQ(report.left_domain, expected_leaving);
  EXPECT_EQ(report.lost, 0u);
  for (std::size_t i = 0; i < parcels.size(); ++i) {
    const int n = exit_step[i] < 0 ? steps : exit_step[i];
    EXPECT_NEAR(parcels.x[i], start.x[i] + speed * n * dt, 1e-9) << i;
    EXPECT_NEAR(parcels.y[i], start.y[i], 1e-9) << i;
    EXPECT_NEAR(parcels.z[i], start.z[i], 1e-9) << i;
    EXPECT_EQ(parcels.time[i], n * dt) << i;
    EXPECT_EQ(parcels.status[i], exit_step[i] < 0 ? MeshParcelStatus::inside
                                                  : MeshParcelStatus::left_domain)
        << i;
    if (exit_step[i] < 0) {
      const auto tets = test::containing_tets(mesh, {parcels.x[i], parcels.y[i], parcels.z[i]});
      EXPECT_NE(std::find(tets.begin(), tets.end(), parcels.tet[i]), tets.end()) << i;
    }
  }
  // A second call leaves the frozen parcels exactly where and when they left.
  const MeshParcels after_first = parcels;
  const MeshTransportReport second = advect(parcels, field, steps * dt, dt, 20, scheme);
  std::size_t newly_leaving = 0;
  for (std::size_t i = 0; i < parcels.size(); ++i) {
    if (after_first.status[i] == MeshParcelStatus::left_domain) {
      EXPECT_EQ(parcels.x[i], after_first.x[i]);
      EXPECT_EQ(parcels.time[i], after_first.time[i]);
      EXPECT_EQ(parcels.tet[i], after_first.tet[i]);
      EXPECT_EQ(parcels.status[i], MeshParcelStatus::left_domain);
    } else {
      newly_leaving += parcels.status[i] == MeshParcelStatus::left_domain;
    }
  }
  EXPECT_EQ(second.left_domain, newly_leaving);
  EXPECT_GT(newly_leaving, 0u);
}

TEST(MeshAdvection, UniformFlowMovesParcelsByUTAndFreezesThoseThatLeave) {
  for (Integrator scheme : {Integrator::euler, Integrator::midpoint, Integrator::rk4}) {
    SCOPED_TRACE(static_cast<int>(scheme));
    check_uniform_flow_with_outflow(test::make_box_mesh(10, 8, 6), 100.0, scheme);
    // Above the mountain top (400 m), so no parcel meets the terrain.
    check_uniform_flow_with_outflow(test::make_small_mountain_mesh(12, 12, 8), 600.0, scheme);
  }
}

TEST(MeshAdvection, FlowIntoTheGroundLeavesThroughTheTerrain) {
  const TetMesh mesh = test::make_small_mountain_mesh(8, 8, 6);
  const MeshVelocityField field(mesh, test::uniform_velocity(mesh, {0.0, 0.0, -1.0}));
  MeshParcels parcels;
  parcels.add(-10000.0, 5000.0, 150.0, 0.0, 0);  // far from the mountain: ground at ~0 m
  parcels.add(-10000.0, 5000.0, 5000.0, 0.0, 1);
  ASSERT_EQ(locate(parcels, field), 0u);
  const MeshTransportReport report = advect(parcels, field, 0.0, 20.0, 10, Integrator::midpoint);
  EXPECT_EQ(report.left_domain, 1u);
  EXPECT_EQ(parcels.status[0], MeshParcelStatus::left_domain);
  EXPECT_LT(parcels.z[0], 0.0);
  EXPECT_EQ(parcels.status[1], MeshParcelStatus::inside);
  EXPECT_NEAR(parcels.z[1], 4800.0, 1e-9);
}

// ---- walks that run out of steps ---------------------------------------------------------

TEST(MeshAdvection, ExhaustedWalksFallBackToTheScanOnTheCpuAndGetLostWithoutIt) {
  const TetMesh mesh = test::make_box_mesh(8, 8, 6);
  const std::vector<double> wind = test::uniform_velocity(mesh, {10.0, -4.0, 0.2});
  const MeshVelocityField roomy(mesh, wind);
  MeshVelocityField tight(mesh, wind);
  tight.set_max_walk_steps(1);  // at most two tets per walk
  MeshParcels unlocated;
  std::mt19937_64 rng(23);
  for (int i = 0; i < 200; ++i) {
    const Point3 p = test::random_point_in_mesh(mesh, rng);
    unlocated.add(0.8 * p[0], 0.8 * p[1], 0.1 * test::model_top + 0.8 * p[2], 0.0, i);
  }
  MeshParcels located = unlocated;
  ASSERT_EQ(locate(located, roomy), 0u);

  // CPU: every walk from tet 0 (tet -1) exhausts its budget for most parcels; the scan takes
  // over and the result equals the run from located parcels with the default budget.
  MeshParcels scanned = unlocated;
  const MeshTransportReport scan_report = advect(scanned, tight, 0.0, 30.0, 5, Integrator::rk4);
  const MeshTransportReport walk_report = advect(located, roomy, 0.0, 30.0, 5, Integrator::rk4);
  EXPECT_EQ(scan_report.lost, 0u);
  EXPECT_EQ(scan_report.left_domain, walk_report.left_domain);
  for (std::size_t i = 0; i < located.size(); ++i) {
    EXPECT_EQ(scanned.x[i], located.x[i]) << i;
    EXPECT_EQ(scanned.y[i], located.y[i]) << i;
    EXPECT_EQ(scanned.z[i], located.z[i]) << i;
    EXPECT_EQ(scanned.tet[i], located.tet[i]) << i;
    EXPECT_EQ(scanned.status[i], MeshParcelStatus::inside) << i;
  }

  // The device's semantics (the plain walk, no scan), run here through the same FOEHN_HD
  // code: a parcel whose walk is exhausted is lost where its step began, at the step's time.
  const MeshFieldView view = tight.view();
  std::size_t lost = 0;
  for (std::size_t i = 0; i < unlocated.size(); ++i) {
    const MeshPoint p{unlocated.x[i], unlocated.y[i], unlocated.z[i]};
    const bool reachable = walk_to_point(view, p, 0).outcome == WalkOutcome::found;
    double reached = -1.0;
    const MeshParcelState end =
        mesh_integrate(view, WalkingLocator{}, MeshParcelState{p, -1, MeshParcelStatus::inside},
                       100.0, 30.0, 5, Integrator::midpoint, reached);
    if (reachable) continue;
    ++lost;
    EXPECT_EQ(end.status, MeshParcelStatus::lost) << i;
    EXPECT_EQ(end.position.x, p.x);
    EXPECT_EQ(end.position.y, p.y);
    EXPECT_EQ(end.position.z, p.z);
    EXPECT_EQ(reached, 100.0);
  }
  EXPECT_GT(lost, 150u);
}

// ---- solid-body rotation: convergence orders -----------------------------------------------

constexpr double rotation_rate = 2.0 * pi / 3600.0;  // one revolution per hour

// u = -Omega y, v = Omega x, w = 0: linear, so P1 represents it exactly and the error after one
// revolution is the integrator's alone.
double rotation_error(const TetMesh& mesh, double z_low, int steps, Integrator scheme) {
  const std::array<test::Vec3, 3> a{{{0.0, -rotation_rate, 0.0}, {rotation_rate, 0.0, 0.0},
                                     {0.0, 0.0, 0.0}}};
  const MeshVelocityField field(mesh, test::sample_linear(mesh, a, {0.0, 0.0, 0.0}));
  MeshParcels parcels;
  for (int i = 0; i < 24; ++i) {
    const double radius = 4000.0 + 450.0 * i, angle = 0.7 * i;
    parcels.add(radius * std::cos(angle), radius * std::sin(angle), z_low + 400.0 * i, 0.0, i);
  }
  EXPECT_EQ(locate(parcels, field), 0u);
  const MeshParcels start = parcels;
  const double period = 2.0 * pi / rotation_rate;
  const MeshTransportReport report =
      advect(parcels, field, 0.0, period / steps, steps, scheme);
  EXPECT_EQ(report.left_domain + report.lost, 0u);
  double worst = 0.0;
  for (std::size_t i = 0; i < parcels.size(); ++i) {
    worst = std::max(worst, std::hypot(parcels.x[i] - start.x[i], parcels.y[i] - start.y[i],
                                       parcels.z[i] - start.z[i]));
  }
  return worst;
}

struct ConvergenceCase {
  Integrator scheme;
  const char* name;
  double expected_order;
  std::vector<int> steps;
};

void check_rotation_orders(const TetMesh& mesh, const char* mesh_name, double z_low) {
  const ConvergenceCase cases[] = {
      {Integrator::euler, "euler", 1.0, {1024, 2048, 4096, 8192}},
      {Integrator::midpoint, "midpoint", 2.0, {64, 128, 256, 512}},
      {Integrator::rk4, "rk4", 4.0, {32, 64, 128, 256}},
  };
  for (const ConvergenceCase& c : cases) {
    std::vector<double> errors;
    for (int steps : c.steps) errors.push_back(rotation_error(mesh, z_low, steps, c.scheme));
    for (std::size_t k = 1; k < errors.size(); ++k) {
      const double order = std::log2(errors[k - 1] / errors[k]);
      std::printf("[ rotation ] %s %s: %d -> %d steps, error %.3e -> %.3e m, order %.3f\n",
                  mesh_name, c.name, c.steps[k - 1], c.steps[k], errors[k - 1], errors[k], order);
      EXPECT_NEAR(order, c.expected_order, 0.2) << mesh_name << " " << c.name;
    }
  }
}

TEST(MeshAdvection, SolidBodyRotationConvergesAtTheSchemesOrders) {
  check_rotation_orders(test::make_box_mesh(8, 8, 5), "box", 500.0);
  // Graded, terrain-following tets; parcels above the mountain top.
  check_rotation_orders(test::make_small_mountain_mesh(10, 10, 6), "mountain", 600.0);
}

// ---- time interpolation --------------------------------------------------------------------

TEST(MeshAdvection, VelocityLinearInTimeGivesTheMeanDisplacement) {
  const TetMesh mesh = test::make_small_mountain_mesh(8, 8, 6);
  const test::Vec3 a{4.0, -2.0, 0.1}, b{-1.0, 6.0, 0.3};
  const double t0 = 500.0, t1 = 2300.0, period = t1 - t0;
  const MeshVelocityField field(mesh, test::uniform_velocity(mesh, a), t0,
                                test::uniform_velocity(mesh, b), t1);
  for (Integrator scheme : {Integrator::euler, Integrator::midpoint, Integrator::rk4}) {
    MeshParcels parcels;
    parcels.add(-5000.0, 1000.0, 3000.0, t0, 0);
    parcels.add(8000.0, -9000.0, 7000.0, t0, 1);
    ASSERT_EQ(locate(parcels, field), 0u);
    const MeshParcels start = parcels;
    const int steps = 9;
    advect(parcels, field, t0, period / steps, steps, scheme);
    // Midpoint and RK4 integrate a velocity linear in t exactly: (a + b) / 2 T. Euler samples
    // the left ends, a T + (b - a) T (steps - 1) / (2 steps).
    const double weight = scheme == Integrator::euler ? 0.5 * (steps - 1.0) / steps : 0.5;
    for (std::size_t i = 0; i < parcels.size(); ++i) {
      const double moved[3] = {parcels.x[i] - start.x[i], parcels.y[i] - start.y[i],
                               parcels.z[i] - start.z[i]};
      for (int c = 0; c < 3; ++c) {
        EXPECT_NEAR(moved[c], (a[c] + weight * (b[c] - a[c])) * period, 1e-9)
            << static_cast<int>(scheme) << " parcel " << i << " component " << c;
      }
      EXPECT_DOUBLE_EQ(parcels.time[i], t1);
    }
  }
  // Past t1 the field is clamped to b.
  MeshParcels late;
  late.add(0.0, 0.0, 8000.0, t1, 0);
  ASSERT_EQ(locate(late, field), 0u);
  advect(late, field, t1 + 100.0, 10.0, 20, Integrator::midpoint);
  EXPECT_NEAR(late.x[0], b[0] * 200.0, 1e-9);
  EXPECT_NEAR(late.y[0], b[1] * 200.0, 1e-9);
}

TEST(MeshAdvection, AdvanceShiftsTheLevels) {
  const TetMesh mesh = test::make_box_mesh(4, 4, 4);
  MeshVelocityField field(mesh, test::uniform_velocity(mesh, {1.0, 0.0, 0.0}));
  EXPECT_TRUE(field.steady());
  field.advance(test::uniform_velocity(mesh, {3.0, 0.0, 0.0}), 100.0);
  EXPECT_FALSE(field.steady());
  EXPECT_EQ(field.t0(), 0.0);
  EXPECT_EQ(field.t1(), 100.0);
  field.advance(test::uniform_velocity(mesh, {5.0, 0.0, 0.0}), 200.0);
  EXPECT_EQ(field.velocity_t0()[0], 3.0);
  EXPECT_EQ(field.velocity_t1()[0], 5.0);
  MeshParcels parcels;
  parcels.add(0.0, 0.0, 5000.0, 100.0, 0);
  advect(parcels, field, 100.0, 10.0, 10, Integrator::midpoint);  // tet -1: located on the way
  EXPECT_NEAR(parcels.x[0], 400.0, 1e-9);
  EXPECT_EQ(parcels.status[0], MeshParcelStatus::inside);
  EXPECT_GE(parcels.tet[0], 0);
}

}  // namespace
}  // namespace foehn::particles
