// GPU vs CPU: the same FOEHN_HD steps on both; positions agree to 1e-12 relative.
#include <gtest/gtest.h>

#include <cmath>
#include <numbers>
#include <string>

#include "foehn/particles/advect.hpp"
#include "foehn/particles/synthetic.hpp"
#include "support/gpu_test.hpp"
#include "unit/particles/particle_test_support.hpp"

namespace foehn::particles {
namespace {

using std::numbers::pi;

ParticleSet make_parcels(std::size_t n) {
  ParticleSet set;
  set.add_quantity("mass", 1.0);
  for (std::size_t i = 0; i < n; ++i) {
    const double s = (i + 0.5) / n;
    set.add(2.0 * pi * std::fmod(s * 13.7, 1.0) - pi, 0.5 * pi * (2.0 * std::fmod(s * 7.3, 1.0) - 1.0),
            1000.0 + 99000.0 * std::fmod(s * 3.1, 1.0), 0.0, static_cast<std::int64_t>(i));
  }
  return set;
}

std::string scheme_name(const ::testing::TestParamInfo<Integrator>& info) {
  switch (info.param) {
    case Integrator::euler: return "euler";
    case Integrator::midpoint: return "midpoint";
    case Integrator::rk4: return "rk4";
  }
  return "unknown";
}

class GpuVsCpu : public ::testing::TestWithParam<Integrator> {};

TEST_P(GpuVsCpu, PositionsAgree) {
  FOEHN_SKIP_WITHOUT_GPU();
  const MetGrid grid = make_solid_body_grid(
      make_global_geometry(120, 61, {1000.0, 20000.0, 60000.0, 100000.0}, 0.0, 86400.0),
      pi / 4.0);
  ParticleSet cpu = make_parcels(5000);
  Stream stream;
  DeviceParticleSet device = DeviceParticleSet::upload(cpu, stream);
  const DeviceMetGrid device_grid(grid, stream);
  advect(cpu, grid, 0.0, 1800.0, 48, GetParam());
  advect(device, device_grid, 0.0, 1800.0, 48, stream, GetParam());
  ParticleSet gpu;
  device.download(gpu, stream);
  ASSERT_EQ(gpu.size(), cpu.size());
  for (std::size_t i = 0; i < cpu.size(); ++i) {
    ASSERT_EQ(gpu.id[i], cpu.id[i]);
    EXPECT_LE(test::central_angle(gpu.longitude[i], gpu.latitude[i], cpu.longitude[i],
                                  cpu.latitude[i]),
              1e-12)
        << i;
    EXPECT_NEAR(gpu.pressure[i], cpu.pressure[i], 1e-12 * cpu.pressure[i]) << i;
    EXPECT_EQ(gpu.time[i], cpu.time[i]);
    EXPECT_EQ(gpu.quantity("mass")[i], 1.0);
  }
}

INSTANTIATE_TEST_SUITE_P(Schemes, GpuVsCpu,
                         ::testing::Values(Integrator::euler, Integrator::midpoint,
                                           Integrator::rk4),
                         scheme_name);

// The device-built AoS wind equals the host-interleaved one.
TEST(GpuMetGrid, InterleavedOnDeviceMatchesHost) {
  FOEHN_SKIP_WITHOUT_GPU();
  MetGridGeometry g = make_global_geometry(16, 9, {1000.0, 50000.0, 100000.0}, 0.0, 10.0);
  const std::size_t n = g.point_count();
  WindLevel a, b;
  for (std::size_t i = 0; i < n; ++i) {
    a.u.push_back(i); a.v.push_back(-1.0 * i); a.omega.push_back(0.5 * i);
    b.u.push_back(2.0 * i); b.v.push_back(3.0); b.omega.push_back(-0.25 * i);
  }
  Stream stream;
  const MetGrid host(g, a, b);
  const DeviceMetGrid device(g, a, b, stream);
  EXPECT_EQ(device.interleaved_wind().copy_to_host(stream), host.interleaved_wind());
}

}  // namespace
}  // namespace foehn::particles
