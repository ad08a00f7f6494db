// Mesh transport on the GPU against the CPU reference: the same FOEHN_HD walk and steps on
// both, so positions agree to rounding and tets and statuses exactly.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numbers>
#include <random>
#include <string>

#include "foehn/particles/mesh_transport.hpp"
#include "support/gpu_test.hpp"
#include "unit/particles/mesh/mesh_test_support.hpp"

namespace foehn::particles {
namespace {

using std::numbers::pi;

// A smooth, non-linear, time-dependent wind over the mountain mesh: a westerly with a shear
// and a wave in the vertical velocity, the wave shifted between the two levels.
std::vector<double> wavy_wind(const TetMesh& mesh, double phase) {
  std::vector<double> wind;
  wind.reserve(3 * mesh.nodes.size());
  for (const Point3& p : mesh.nodes) {
    const double x = p[0], y = p[1], z = p[2];
    wind.push_back(12.0 + 4.0 * std::sin(2.0 * pi * y / 40000.0 + phase) + 2e-4 * z);
    wind.push_back(3.0 * std::cos(2.0 * pi * x / 25000.0) * std::sin(pi * z / 16000.0));
    wind.push_back(1.5 * std::sin(2.0 * pi * (x - 2000.0 * phase) / 12000.0) *
                   std::sin(pi * z / 16000.0));
  }
  return wind;
}

std::string scheme_name(const ::testing::TestParamInfo<Integrator>& info) {
  switch (info.param) {
    case Integrator::euler: return "euler";
    case Integrator::midpoint: return "midpoint";
    case Integrator::rk4: return "rk4";
  }
  return "unknown";
}

void expect_same_parcels(const MeshParcels& gpu, const MeshParcels& cpu) {
  ASSERT_EQ(gpu.size(), cpu.size());
  for (std::size_t i = 0; i < cpu.size(); ++i) {
    ASSERT_EQ(gpu.id[i], cpu.id[i]);
    const double scale = std::max(1000.0, std::hypot(cpu.x[i], cpu.y[i], cpu.z[i]));
    EXPECT_NEAR(gpu.x[i], cpu.x[i], 1e-12 * scale) << i;
    EXPECT_NEAR(gpu.y[i], cpu.y[i], 1e-12 * scale) << i;
    EXPECT_NEAR(gpu.z[i], cpu.z[i], 1e-12 * scale) << i;
    EXPECT_EQ(gpu.time[i], cpu.time[i]) << i;
    EXPECT_EQ(gpu.tet[i], cpu.tet[i]) << i;
    EXPECT_EQ(gpu.status[i], cpu.status[i]) << i;
  }
}

class MeshGpuVsCpu : public ::testing::TestWithParam<Integrator> {};

TEST_P(MeshGpuVsCpu, PositionsTetsAndStatusesAgree) {
  FOEHN_SKIP_WITHOUT_GPU();
  const TetMesh mesh = test::make_small_mountain_mesh(16, 16, 10);
  MeshVelocityField field(mesh, wavy_wind(mesh, 0.0), 0.0, wavy_wind(mesh, 0.5), 900.0);
  MeshParcels cpu;
  std::mt19937_64 rng(17);
  for (int i = 0; i < 4000; ++i) {
    const Point3 p = test::random_point_in_mesh(mesh, rng);
    cpu.add(p[0], p[1], p[2], 0.0, i);
  }
  ASSERT_EQ(locate(cpu, field), 0u);

  Stream stream;
  DeviceMeshParcels device = DeviceMeshParcels::upload(cpu, stream);
  DeviceMeshVelocityField device_field(field, stream);
  // Two calls spanning two pairs of levels: 30 min at 30 s, about half of the parcels reach
  // the outflow or the ground, and advance() is exercised on both backends.
  const MeshTransportReport cpu_first = advect(cpu, field, 0.0, 30.0, 30, GetParam());
  const MeshTransportReport gpu_first = advect(device, device_field, 0.0, 30.0, 30, stream,
                                               GetParam());
  field.advance(wavy_wind(mesh, 1.0), 1800.0);
  device_field.advance(wavy_wind(mesh, 1.0), 1800.0, stream);
  const MeshTransportReport cpu_second = advect(cpu, field, 900.0, 30.0, 30, GetParam());
  const MeshTransportReport gpu_second = advect(device, device_field, 900.0, 30.0, 30, stream,
                                                GetParam());
  EXPECT_EQ(gpu_first.left_domain, cpu_first.left_domain);
  EXPECT_EQ(gpu_second.left_domain, cpu_second.left_domain);
  EXPECT_EQ(gpu_first.lost + gpu_second.lost, 0u);
  EXPECT_GT(cpu_first.left_domain + cpu_second.left_domain, 0u);

  MeshParcels gpu;
  device.download(gpu, stream);
  expect_same_parcels(gpu, cpu);
}

INSTANTIATE_TEST_SUITE_P(Schemes, MeshGpuVsCpu,
                         ::testing::Values(Integrator::euler, Integrator::midpoint,
                                           Integrator::rk4),
                         scheme_name);

TEST(MeshGpu, ExhaustedWalksAreLostOnTheDeviceAsTheSharedCodeSays) {
  FOEHN_SKIP_WITHOUT_GPU();
  const TetMesh mesh = test::make_box_mesh(8, 8, 6);
  MeshVelocityField field(mesh, test::uniform_velocity(mesh, {10.0, -4.0, 0.2}));
  field.set_max_walk_steps(1);
  MeshParcels host;
  std::mt19937_64 rng(29);
  for (int i = 0; i < 500; ++i) {
    const Point3 p = test::random_point_in_mesh(mesh, rng);
    host.add(0.8 * p[0], 0.8 * p[1], 1600.0 + 0.8 * p[2], 0.0, i);  // tet -1: walks from tet 0
  }
  // The expectation: the FOEHN_HD integration with the plain walk, run on the host.
  MeshParcels expected = host;
  std::size_t expected_lost = 0;
  for (std::size_t i = 0; i < host.size(); ++i) {
    double reached = 0.0;
    const MeshParcelState end = mesh_integrate(
        field.view(), WalkingLocator{},
        MeshParcelState{{host.x[i], host.y[i], host.z[i]}, -1, MeshParcelStatus::inside}, 0.0,
        30.0, 4, Integrator::midpoint, reached);
    expected.x[i] = end.position.x;
    expected.y[i] = end.position.y;
    expected.z[i] = end.position.z;
    expected.tet[i] = end.tet;
    expected.status[i] = end.status;
    expected.time[i] = reached;
    expected_lost += end.status == MeshParcelStatus::lost;
  }
  ASSERT_GT(expected_lost, 300u);
  Stream stream;
  DeviceMeshParcels device = DeviceMeshParcels::upload(host, stream);
  const DeviceMeshVelocityField device_field(field, stream);
  const MeshTransportReport report =
      advect(device, device_field, 0.0, 30.0, 4, stream, Integrator::midpoint);
  EXPECT_EQ(report.lost, expected_lost);
  EXPECT_EQ(report.left_domain, 0u);
  MeshParcels gpu;
  device.download(gpu, stream);
  expect_same_parcels(gpu, expected);
}

TEST(MeshGpu, UploadDownloadRoundTripsAndEmptySetsAreFine) {
  FOEHN_SKIP_WITHOUT_GPU();
  const TetMesh mesh = test::make_box_mesh(3, 3, 3);
  const MeshVelocityField field(mesh, test::uniform_velocity(mesh, {1.0, 2.0, 0.0}));
  MeshParcels host;
  host.add(1.0, 2.0, 300.0, 5.0, 42);
  host.add(-1.0, 20.0, 3000.0, 6.0, 43);
  host.status[1] = MeshParcelStatus::left_domain;
  Stream stream;
  const DeviceMeshParcels device = DeviceMeshParcels::upload(host, stream);
  MeshParcels back;
  device.download(back, stream);
  expect_same_parcels(back, host);

  DeviceMeshVelocityField device_field(field, stream);
  DeviceMeshParcels empty = DeviceMeshParcels::upload(MeshParcels{}, stream);
  const MeshTransportReport report = advect(empty, device_field, 0.0, 1.0, 3, stream);
  EXPECT_EQ(report.left_domain + report.lost, 0u);
  EXPECT_THROW(device_field.advance(test::uniform_velocity(mesh, {0.0, 0.0, 0.0}), -1.0, stream),
               Error);
}

}  // namespace
}  // namespace foehn::particles
