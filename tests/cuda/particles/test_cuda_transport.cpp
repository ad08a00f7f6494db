// GPU vs CPU for the full parcel physics, the device sort and the device-sampled synthetic
// grids: the same FOEHN_HD code on both sides, so results agree to round-off (the device's
// sin/cos/exp differ from glibc's by an ulp), and the sort permutation is identical.
#include <gtest/gtest.h>

#include <cmath>
#include <numbers>
#include <map>
#include <random>

#include "foehn/particles/sorting.hpp"
#include "foehn/particles/synthetic.hpp"
#include "foehn/particles/transport.hpp"
#include "support/gpu_test.hpp"
#include "unit/particles/particle_test_support.hpp"

namespace foehn::particles {
namespace {

using std::numbers::pi;

MetGridGeometry test_geometry() {
  return make_global_geometry(96, 49, log_pressure_levels(16, 0.0, 45000.0), 0.0, 3600.0);
}

TurbulentWind test_wind() {
  TurbulentWind wind;
  wind.modes = 16;
  wind.largest_wavenumber = 24;
  return wind;
}

ParticleSet random_parcels(std::size_t n) {
  std::mt19937_64 rng(5);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  ParticleSet set;
  set.add_quantity("mass", 1.0);
  for (std::size_t i = 0; i < n; ++i) {
    const double z = 40000.0 * unit(rng);
    set.add(2.0 * pi * unit(rng) - pi, std::asin(2.0 * unit(rng) - 1.0),
            reference_pressure * std::exp(-z / scale_height), 0.0, static_cast<std::int64_t>(3 * i));
  }
  return set;
}

void expect_close(const ParticleSet& gpu, const ParticleSet& cpu) {
  ASSERT_EQ(gpu.size(), cpu.size());
  for (std::size_t i = 0; i < cpu.size(); ++i) {
    ASSERT_EQ(gpu.id[i], cpu.id[i]) << i;
    ASSERT_EQ(gpu.status[i], cpu.status[i]) << i;
    ASSERT_LE(test::central_angle(gpu.longitude[i], gpu.latitude[i], cpu.longitude[i],
                                  cpu.latitude[i]),
              1e-11)
        << "parcel " << cpu.id[i];
    ASSERT_NEAR(gpu.pressure[i], cpu.pressure[i], 1e-11 * cpu.pressure[i]) << cpu.id[i];
    ASSERT_EQ(gpu.time[i], cpu.time[i]);
    for (const auto& name : cpu.quantity_names()) {
      const double c = cpu.quantity(name)[i], g = gpu.quantity(name)[i];
      // A path step is the difference of two unit vectors ~1e-4 apart, times a: positions
      // that differ by an ulp (1e-16 rad, 1e-9 m) move each step's length by ~1e-9 m.
      const bool path = name.rfind("path_", 0) == 0;
      const double tolerance = path ? 1e-9 * 100 : 1e-11 * std::max(1.0, std::fabs(c));
      ASSERT_NEAR(g, c, tolerance) << name << " of " << cpu.id[i];
    }
  }
}

TEST(CudaSynthetic, DeviceSampledGridsEqualTheHostOnes) {
  FOEHN_SKIP_WITHOUT_GPU();
  Stream stream;
  const MetGrid host = make_turbulent_grid(test_geometry(), test_wind());
  const DeviceMetGrid device = make_turbulent_device_grid(test_geometry(), test_wind(), stream);
  std::vector<double> copy(device.interleaved_wind().size());
  device.interleaved_wind().copy_to_host_async(copy, stream);
  stream.synchronize();
  ASSERT_EQ(copy.size(), host.interleaved_wind().size());
  double worst = 0.0;
  for (std::size_t i = 0; i < copy.size(); ++i)
    worst = std::max(worst, std::fabs(copy[i] - host.interleaved_wind()[i]));
  EXPECT_LE(worst, 1e-11) << "largest |device - host| wind value";
}

TEST(CudaSynthetic, DeviceRandomParcelsEqualTheHostOnes) {
  FOEHN_SKIP_WITHOUT_GPU();
  Stream stream;
  RandomGlobalParcels spec;
  spec.count = 10000;
  spec.first_id = 77;
  const ParticleSet host = make_random_global_parcels(spec);
  ParticleSet device;
  make_random_global_device_parcels(spec, stream).download(device, stream);
  ASSERT_EQ(device.size(), host.size());
  for (std::size_t i = 0; i < host.size(); ++i) {
    ASSERT_EQ(device.id[i], host.id[i]);
    ASSERT_LE(test::central_angle(device.longitude[i], device.latitude[i], host.longitude[i],
                                  host.latitude[i]), 1e-14);
    ASSERT_NEAR(device.pressure[i], host.pressure[i], 1e-13 * host.pressure[i]);
  }
}

TEST(CudaTransport, FullPhysicsMatchesTheCpu) {
  FOEHN_SKIP_WITHOUT_GPU();
  Stream stream;
  const MetGrid grid = make_turbulent_grid(test_geometry(), test_wind());
  const DeviceMetGrid device_grid(grid, stream);
  TransportSettings settings;
  settings.physics.diffusion = true;
  settings.physics.subgrid_wind = true;
  settings.physics.decay_time_troposphere = 259200.0;
  settings.physics.decay_time_stratosphere = 86400.0;
  settings.physics.seed = 9;
  settings.physics.track_path_length = true;
  ParticleSet cpu = random_parcels(20000);
  DeviceParticleSet device = DeviceParticleSet::upload(cpu, stream);
  TransportReport cpu_report, gpu_report;
  for (int call = 0; call < 3; ++call) {
    const TransportClock clock{call * 10 * 180.0, 180.0, 10, call * 10};
    const TransportReport c = transport(cpu, grid, clock, settings);
    const TransportReport g = transport(device, device_grid, clock, settings, stream);
    cpu_report.vertical_clamps += c.vertical_clamps;
    gpu_report.vertical_clamps += g.vertical_clamps;
    EXPECT_EQ(g.active, c.active);
    EXPECT_EQ(g.left_domain, c.left_domain);
  }
  EXPECT_EQ(gpu_report.vertical_clamps, cpu_report.vertical_clamps);
  ParticleSet gpu;
  device.download(gpu, stream);
  expect_close(gpu, cpu);
}

TEST(CudaSorting, DevicePermutationEqualsTheCpuStableSort) {
  FOEHN_SKIP_WITHOUT_GPU();
  Stream stream;
  const MetGrid grid = make_turbulent_grid(test_geometry(), test_wind());
  const DeviceMetGrid device_grid(grid, stream);
  ParticleSet cpu = random_parcels(50000);
  cpu.add_quantity("tracer", 3.0);
  DeviceParticleSet device = DeviceParticleSet::upload(cpu, stream);
  DeviceParticleSorter sorter;
  sort_by_met_box(cpu, grid);
  sorter.sort(device, device_grid, stream);
  ParticleSet gpu;
  device.download(gpu, stream);
  ASSERT_EQ(gpu.size(), cpu.size());
  for (std::size_t i = 0; i < cpu.size(); ++i) {
    ASSERT_EQ(gpu.id[i], cpu.id[i]) << i;
    ASSERT_EQ(gpu.longitude[i], cpu.longitude[i]);
    ASSERT_EQ(gpu.pressure[i], cpu.pressure[i]);
    ASSERT_EQ(gpu.quantity("tracer")[i], cpu.quantity("tracer")[i]);
  }
  // Sorting again with the reused scratch keeps the (already sorted) order.
  sorter.sort(device, device_grid, stream);
  device.download(gpu, stream);
  for (std::size_t i = 0; i < cpu.size(); ++i) ASSERT_EQ(gpu.id[i], cpu.id[i]);
}

TEST(CudaTransport, SortedAndUnsortedDeviceRunsAgreeBitwisePerParcel) {
  FOEHN_SKIP_WITHOUT_GPU();
  Stream stream;
  const DeviceMetGrid grid = make_turbulent_device_grid(test_geometry(), test_wind(), stream);
  TransportSettings settings;
  settings.physics.diffusion = true;
  settings.physics.subgrid_wind = true;
  const ParticleSet start = random_parcels(30000);
  DeviceParticleSet unsorted = DeviceParticleSet::upload(start, stream);
  DeviceParticleSet sorted = DeviceParticleSet::upload(start, stream);
  DeviceParticleSorter sorter;
  for (int call = 0; call < 4; ++call) {
    const TransportClock clock{call * 5 * 180.0, 180.0, 5, call * 5};
    transport(unsorted, grid, clock, settings, stream);
    sorter.sort(sorted, grid, stream);
    transport(sorted, grid, clock, settings, stream);
  }
  ParticleSet a, b;
  unsorted.download(a, stream);
  sorted.download(b, stream);
  std::map<std::int64_t, std::size_t> slot;
  for (std::size_t i = 0; i < b.size(); ++i) slot[b.id[i]] = i;
  for (std::size_t i = 0; i < a.size(); ++i) {
    const std::size_t j = slot.at(a.id[i]);
    ASSERT_EQ(a.longitude[i], b.longitude[j]) << a.id[i];
    ASSERT_EQ(a.latitude[i], b.latitude[j]);
    ASSERT_EQ(a.pressure[i], b.pressure[j]);
    for (const auto& name : a.quantity_names()) ASSERT_EQ(a.quantity(name)[i], b.quantity(name)[j]);
  }
}

}  // namespace
}  // namespace foehn::particles
