// foehn::adapt::DeviceMetricBuilder (the metric pipeline on the GPU through for_each) against the
// host functions of metric.hpp on the graded terrain mesh, for a boundary-layer field and a wave:
// Hessians, normalised and bounded metrics, their intersection and its complexity agree to 1e-12
// (each node relative to its largest entry; the device's pow differs in the last bits). The
// transfer's point location on the GPU is bitwise the host's. Bad input is named as the host
// functions name it. Skips without a GPU.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <vector>

#include "foehn/adapt/device_metric.hpp"
#include "foehn/adapt/transfer.hpp"
#include "support/error_category.hpp"
#include "support/gpu_test.hpp"
#include "support/small_mountain.hpp"

namespace foehn::adapt {
namespace {

TEST(AdaptDeviceMetric, ThePipelineOnTheGpuIsTheHostsToRoundOff) {
  FOEHN_SKIP_WITHOUT_GPU();
  const TetMesh mesh = testing::small_mountain(12, 12, 16);
  std::vector<double> layer(mesh.node_count()), wave(mesh.node_count());
  for (std::size_t n = 0; n < mesh.node_count(); ++n) {
    layer[n] = std::tanh((mesh.nodes[n][2] - 3000.0) / 300.0);
    wave[n] = std::sin(mesh.nodes[n][0] / 4000.0) * std::exp(-mesh.nodes[n][2] / 5000.0);
  }
  const NodePatches patches = node_patches(mesh);
  const auto volumes = lumped_volumes(mesh);
  MetricOptions options;
  options.bounds = {100.0, 10000.0, 50.0};
  options.target_complexity = 20000;
  const auto host_layer = recover_hessians(mesh, patches, layer);
  const auto host_metric =
      intersect(metric_from_hessians(host_layer, volumes, options),
                metric_from_hessians(recover_hessians(mesh, patches, wave), volumes, options));

  Stream stream;
  const DeviceMetricBuilder builder(mesh, patches, volumes, stream);
  const auto device_layer = builder.recover_hessians(layer);
  auto device_metric = builder.metric_from_hessians(device_layer, options);
  builder.intersect_into(device_metric,
                         builder.metric_from_hessians(builder.recover_hessians(wave), options));
  const double hessians = max_relative_difference(builder.to_host(device_layer), host_layer);
  const double metrics = max_relative_difference(builder.to_host(device_metric), host_metric);
  const double complexity_cpu = complexity(host_metric, volumes);
  const double complexity_gpu = builder.complexity(device_metric);
  std::printf("GPU vs host: Hessians %.3e, intersected metrics %.3e, complexity %.3e\n", hessians,
              metrics, std::fabs(complexity_gpu / complexity_cpu - 1));
  EXPECT_LE(hessians, 1e-12);
  EXPECT_LE(metrics, 1e-12);
  EXPECT_NEAR(complexity_gpu, complexity_cpu, 1e-12 * complexity_cpu);
}

// The point location of a remesh's transfer with its walks on the GPU: bitwise the host's, for
// the nodes of another mesh of the domain and for points outside it (finished by the host's scan).
TEST(AdaptDeviceTransfer, TheWalksOnTheGpuLocateAsTheHostsDo) {
  FOEHN_SKIP_WITHOUT_GPU();
  MountainMeshOptions flat = testing::small_mountain_options(10, 9, 6);
  flat.mountain_height = 0;
  const TetMesh from = generate_mountain_mesh(flat);
  flat.cells_x = 13;
  flat.cells_y = 11;
  flat.cells_z = 7;
  std::vector<Point3> points = generate_mountain_mesh(flat).nodes;
  points.push_back({flat.length_x / 2 + 25.0, 0.0, 3000.0});  // outside: the scan's
  const PointLocations host = locate_points(from, points);
  Stream stream;
  const PointLocations device = locate_points_on_device(from, points, stream);
  EXPECT_EQ(device.tets, host.tets);
  EXPECT_EQ(device.weights, host.weights);
  EXPECT_EQ(device.outside, 1u);
  EXPECT_EQ(device.scanned, host.scanned);
  EXPECT_EQ(device.largest_outside_distance, host.largest_outside_distance);
}

TEST(AdaptDeviceMetric, BadInputIsNamed) {
  FOEHN_SKIP_WITHOUT_GPU();
  const TetMesh mesh = testing::small_mountain(4, 4, 3);
  const NodePatches patches = node_patches(mesh);
  const auto volumes = lumped_volumes(mesh);
  Stream stream;
  testing::expect_error(ErrorCategory::invalid_input, "volumes", [&] {
    DeviceMetricBuilder(mesh, patches, std::span(volumes).first(3), stream);
  });
  const DeviceMetricBuilder builder(mesh, patches, volumes, stream);
  std::vector<double> field(mesh.node_count(), 1.0);
  field[7] = NAN;
  testing::expect_error(ErrorCategory::invalid_input, "at node 7",
                        [&] { builder.recover_hessians(field); });
  field[7] = 1.0;
  const auto hessians = builder.recover_hessians(field);
  MetricOptions options;
  options.bounds = {10.0, 1.0, 2.0};
  options.target_complexity = 100;
  testing::expect_error(ErrorCategory::invalid_input, "h_min",
                        [&] { builder.metric_from_hessians(hessians, options); });
}

}  // namespace
}  // namespace foehn::adapt
