#pragma once
// The metric pipeline of metric.hpp on the GPU, for one mesh: coordinates, patches and lumped
// volumes go to the device once; each field's Hessians are recovered there, and metrics are
// normalised, bounded, intersected and measured there (metric_functors.hpp, through for_each).
// The sums of the normalisation and of the complexity are taken on the host in node order, as
// the host functions take them. Results equal the host functions' to round-off: the device's
// pow differs from the host's in the last bits (tested to 1e-12 of each node's largest entry).
//
//   foehn::Stream stream;
//   foehn::adapt::DeviceMetricBuilder builder(mesh, patches, volumes, stream);
//   auto speed = builder.recover_hessians(speed_field);
//   auto metric = builder.metric_from_hessians(speed, options);
//   builder.intersect_into(metric, builder.metric_from_hessians(theta, options));
//   std::vector<foehn::adapt::Sym3<double>> on_host = builder.to_host(metric);
//
// unavailable in builds without CUDA.
#include <span>
#include <vector>

#include "foehn/adapt/metric.hpp"
#include "foehn/runtime/device_array.hpp"
#include "foehn/runtime/stream.hpp"

namespace foehn::adapt {

class DeviceMetricBuilder {
 public:
  // invalid_input for sizes that do not match the mesh. Keeps a reference to `stream`.
  DeviceMetricBuilder(const TetMesh& mesh, const NodePatches& patches,
                      std::span<const double> volumes, const Stream& stream);

  std::size_t node_count() const noexcept { return volumes_.size(); }

  // 6 per node. invalid_input for a field of the wrong size or not finite, and for nodes whose
  // patch determines no quadratic (as recover_hessians).
  DeviceArray<double> recover_hessians(std::span<const double> field) const;
  // As metric_from_hessians (same errors).
  DeviceArray<double> metric_from_hessians(const DeviceArray<double>& hessians,
                                           const MetricOptions& options) const;
  // a = a ∩ b node by node (intersect).
  void intersect_into(DeviceArray<double>& a, const DeviceArray<double>& b) const;
  // sum_i volumes_i sqrt(det M_i), as complexity().
  double complexity(const DeviceArray<double>& metric) const;
  std::vector<Sym3<double>> to_host(const DeviceArray<double>& tensors) const;

 private:
  void check_tensors(const DeviceArray<double>& tensors, const char* what) const;
  // The node sum of a device array, in node order on the host.
  double sum(const DeviceArray<double>& terms) const;

  const Stream& stream_;
  DeviceArray<double> coordinates_, volumes_;
  DeviceArray<std::int64_t> offsets_;
  DeviceArray<std::int32_t> patch_;
};

}  // namespace foehn::adapt
