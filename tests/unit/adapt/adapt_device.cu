// The metric mathematics (foehn/adapt/metric_math.hpp) compiled for the device, one thread per
// node, against the host reference (foehn/adapt/metric.hpp) on the graded terrain mesh: the
// recovered Hessians of a boundary-layer field, the bounded metrics built from them and their
// intersection with a second field's agree to 1e-12 of each node's largest entry. Without a GPU
// the tests skip; the file still proves the mathematics compiles for the device.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "foehn/adapt/metric.hpp"
#include "foehn/runtime/cuda_check.hpp"
#include "foehn/runtime/device_array.hpp"
#include "support/gpu_test.hpp"
#include "support/small_mountain.hpp"

namespace foehn::adapt {
namespace {

struct PatchView {
  const double* x;  // 3 per node
  const double* field;
  const std::int64_t* offsets;
  const std::int32_t* nodes;
};

FOEHN_HD void store(const Sym3<double>& m, double* out) {
  out[0] = m.xx, out[1] = m.yy, out[2] = m.zz, out[3] = m.xy, out[4] = m.xz, out[5] = m.yz;
}

FOEHN_HD Sym3<double> load(const double* in) {
  return {in[0], in[1], in[2], in[3], in[4], in[5]};
}

__global__ void hessian_kernel(PatchView p, int count, double* hessians, int* failed) {
  const int n = blockIdx.x * blockDim.x + threadIdx.x;
  if (n >= count) return;
  const std::int64_t begin = p.offsets[n];
  const auto point = [&](int j, double d[3], double& r) {
    const std::int32_t m = p.nodes[begin + j];
    for (int c = 0; c < 3; ++c) d[c] = p.x[3 * m + c] - p.x[3 * n + c];
    r = p.field[m] - p.field[n];
  };
  QuadraticFit<double> fit{};
  if (!fit_quadratic<double>(static_cast<int>(p.offsets[n + 1] - begin), point, fit)) {
    atomicAdd(failed, 1);
    return;
  }
  store(fit.hessian, hessians + 6 * n);
}

__global__ void metric_kernel(const double* hessians, const double* scales, int count,
                              MetricBounds<double> bounds, double* metrics, int* failed) {
  const int n = blockIdx.x * blockDim.x + threadIdx.x;
  if (n >= count) return;
  Sym3<double> m{};
  if (!metric_from_hessian(load(hessians + 6 * n), scales[n], bounds, m)) atomicAdd(failed, 1);
  store(m, metrics + 6 * n);
}

__global__ void intersect_kernel(const double* a, const double* b, int count, double* out,
                                 int* failed) {
  const int n = blockIdx.x * blockDim.x + threadIdx.x;
  if (n >= count) return;
  Sym3<double> m{};
  if (!intersect_metrics(load(a + 6 * n), load(b + 6 * n), m)) atomicAdd(failed, 1);
  store(m, out + 6 * n);
}

template <typename T>
DeviceArray<T> upload(const std::vector<T>& host, const Stream& stream) {
  DeviceArray<T> d(host.size(), stream);
  d.copy_from_host_async(host, stream);
  return d;
}

std::vector<double> flat(const std::vector<Sym3<double>>& field) {
  std::vector<double> out(6 * field.size());
  for (std::size_t n = 0; n < field.size(); ++n) store(field[n], out.data() + 6 * n);
  return out;
}

// Every node's entries within `rel` of its largest entry on the host.
void expect_close(const std::vector<double>& gpu, const std::vector<double>& cpu, double rel,
                  const char* what) {
  ASSERT_EQ(gpu.size(), cpu.size());
  double worst = 0;
  for (std::size_t n = 0; n < cpu.size() / 6; ++n) {
    double scale = 0;
    for (int k = 0; k < 6; ++k) scale = std::fmax(scale, std::fabs(cpu[6 * n + k]));
    for (int k = 0; k < 6; ++k)
      worst =
          std::fmax(worst, std::fabs(gpu[6 * n + k] - cpu[6 * n + k]) / std::fmax(scale, 1e-300));
  }
  std::printf("%s: largest difference %.3e of the node's largest entry\n", what, worst);
  EXPECT_LE(worst, rel) << what;
}

TEST(AdaptDevice, HessiansMetricsAndIntersectionsAreTheHostsToRoundOff) {
  FOEHN_SKIP_WITHOUT_GPU();
  const TetMesh mesh = testing::small_mountain(10, 10, 16);
  const auto count = static_cast<int>(mesh.node_count());
  std::vector<double> x(3 * mesh.node_count()), layer(mesh.node_count()), wave(mesh.node_count());
  for (std::size_t n = 0; n < mesh.node_count(); ++n) {
    for (int c = 0; c < 3; ++c) x[3 * n + c] = mesh.nodes[n][c];
    layer[n] = std::tanh((mesh.nodes[n][2] - 3000.0) / 300.0);
    wave[n] = std::sin(mesh.nodes[n][0] / 4000.0) * std::exp(-mesh.nodes[n][2] / 5000.0);
  }
  const NodePatches patches = node_patches(mesh);
  const auto volumes = lumped_volumes(mesh);
  MetricOptions options;
  options.bounds = {100.0, 10000.0, 50.0};
  options.target_complexity = 20000;
  const auto host_layer = recover_hessians(mesh, patches, layer);
  const auto host_wave = recover_hessians(mesh, patches, wave);
  const auto host_metric_layer = metric_from_hessians(host_layer, volumes, options);
  const auto host_metric_wave = metric_from_hessians(host_wave, volumes, options);
  const auto host_intersection = intersect(host_metric_layer, host_metric_wave);
  // The scales metric_from_hessians used, recomputed on the host (as the GPU path will).
  std::vector<double> abs_det(mesh.node_count()), scales(mesh.node_count());
  double total = 0;
  for (std::size_t n = 0; n < mesh.node_count(); ++n) {
    abs_det[n] = std::fabs(fe::determinant(host_layer[n].to_mat()));
    total += volumes[n] * lp_density(abs_det[n], options.norm_order);
  }
  for (std::size_t n = 0; n < mesh.node_count(); ++n)
    scales[n] = std::pow(options.target_complexity / total, 2.0 / 3.0) *
                lp_weight(abs_det[n], options.norm_order);

  Stream stream;
  const auto dx = upload(x, stream), dlayer = upload(layer, stream), dwave = upload(wave, stream);
  const auto doffsets = upload(patches.offsets, stream);
  const auto dnodes = upload(patches.nodes, stream);
  const auto dscales = upload(scales, stream);
  DeviceArray<double> dh(6 * mesh.node_count(), stream), dm(6 * mesh.node_count(), stream),
      dwave_metric(6 * mesh.node_count(), stream), dout(6 * mesh.node_count(), stream);
  DeviceArray<int> dfailed(1, stream);
  dfailed.fill_bytes_async(0, stream);
  const int blocks = (count + 127) / 128;
  hessian_kernel<<<blocks, 128, 0, native(stream)>>>(
      PatchView{dx.data(), dlayer.data(), doffsets.data(), dnodes.data()}, count, dh.data(),
      dfailed.data());
  FOEHN_CUDA_CHECK_LAUNCH("hessian_kernel");
  expect_close(dh.copy_to_host(stream), flat(host_layer), 1e-12, "Hessians");
  metric_kernel<<<blocks, 128, 0, native(stream)>>>(dh.data(), dscales.data(), count,
                                                    options.bounds, dm.data(), dfailed.data());
  FOEHN_CUDA_CHECK_LAUNCH("metric_kernel");
  expect_close(dm.copy_to_host(stream), flat(host_metric_layer), 1e-12, "metrics");
  const auto dwave_host_metric = upload(flat(host_metric_wave), stream);
  intersect_kernel<<<blocks, 128, 0, native(stream)>>>(dm.data(), dwave_host_metric.data(), count,
                                                       dout.data(), dfailed.data());
  FOEHN_CUDA_CHECK_LAUNCH("intersect_kernel");
  expect_close(dout.copy_to_host(stream), flat(host_intersection), 1e-12, "intersections");
  EXPECT_EQ(dfailed.copy_to_host(stream)[0], 0);
}

}  // namespace
}  // namespace foehn::adapt
