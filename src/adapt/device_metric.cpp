#include "foehn/adapt/device_metric.hpp"

#include <cmath>

#include "foehn/adapt/metric_functors.hpp"
#include "foehn/runtime/error.hpp"
#include "foehn/runtime/for_each.hpp"

namespace foehn::adapt {

namespace {

// Asynchronous: `host` must live until the stream has passed the copy.
template <typename T>
DeviceArray<T> upload(std::span<const T> host, const Stream& stream) {
  DeviceArray<T> device(host.size(), stream);
  device.copy_from_host_async(host, stream);
  return device;
}

}  // namespace

DeviceMetricBuilder::DeviceMetricBuilder(const TetMesh& mesh, const NodePatches& patches,
                                         std::span<const double> volumes, const Stream& stream)
    : stream_(stream) {
  if (patches.offsets.size() != mesh.node_count() + 1 || volumes.size() != mesh.node_count())
    fail(ErrorCategory::invalid_input, "adapt::DeviceMetricBuilder: ", patches.offsets.size(),
         " patch offsets and ", volumes.size(), " volumes for ", mesh.node_count(), " nodes");
  std::vector<double> coordinates(3 * mesh.node_count());
  for (std::size_t n = 0; n < mesh.node_count(); ++n)
    for (int c = 0; c < 3; ++c) coordinates[3 * n + c] = mesh.nodes[n][c];
  coordinates_ = upload<double>(coordinates, stream);
  volumes_ = upload(volumes, stream);
  offsets_ = upload<std::int64_t>(patches.offsets, stream);
  patch_ = upload<std::int32_t>(patches.nodes, stream);
  stream.synchronize();  // `coordinates` goes out of scope
}

void DeviceMetricBuilder::check_tensors(const DeviceArray<double>& tensors,
                                        const char* what) const {
  if (tensors.size() != 6 * node_count())
    fail(ErrorCategory::invalid_input, "adapt::DeviceMetricBuilder::", what, ": ", tensors.size(),
         " values for ", node_count(), " nodes of 6");
}

double DeviceMetricBuilder::sum(const DeviceArray<double>& terms) const {
  double total = 0;
  for (const double term : terms.copy_to_host(stream_)) total += term;
  return total;
}

DeviceArray<double> DeviceMetricBuilder::recover_hessians(std::span<const double> field) const {
  if (field.size() != node_count())
    fail(ErrorCategory::invalid_input,
         "adapt::DeviceMetricBuilder::recover_hessians: ", field.size(), " values for ",
         node_count(), " nodes");
  for (std::size_t n = 0; n < field.size(); ++n)
    if (!std::isfinite(field[n]))
      fail(ErrorCategory::invalid_input,
           "adapt::DeviceMetricBuilder::recover_hessians: the "
           "field is ",
           field[n], " at node ", n);
  const Placement device = Placement::device(stream_);
  const DeviceArray<double> values = upload(field, stream_);  // count_where below waits
  DeviceArray<double> hessians(6 * node_count(), stream_);
  for_each(device, node_count(),
           HessianAt{coordinates_.data(), values.data(), offsets_.data(), patch_.data(),
                     hessians.data()});
  if (const std::size_t bad = count_where(device, node_count(), Sym6NotFinite{hessians.data()}))
    fail(ErrorCategory::invalid_input, "adapt::DeviceMetricBuilder::recover_hessians: ", bad,
         " nodes whose patch points do not determine a quadratic (a degenerate mesh?)");
  return hessians;
}

DeviceArray<double> DeviceMetricBuilder::metric_from_hessians(const DeviceArray<double>& hessians,
                                                              const MetricOptions& options) const {
  check_tensors(hessians, "metric_from_hessians");
  check_metric_options(options);  // the host function's checks and messages
  const Placement device = Placement::device(stream_);
  if (const std::size_t bad = count_where(device, node_count(), Sym6NotFinite{hessians.data()}))
    fail(ErrorCategory::invalid_input, "adapt::DeviceMetricBuilder::metric_from_hessians: ", bad,
         " Hessians are not finite");
  DeviceArray<double> densities(node_count(), stream_), weights(node_count(), stream_);
  for_each(device, node_count(),
           LpTermsAt{hessians.data(), volumes_.data(), options.norm_order, densities.data(),
                     weights.data()});
  const double total_density = sum(densities);
  const double global_scale =
      total_density > 0 ? std::pow(options.target_complexity / total_density, 2.0 / 3.0) : 0.0;
  DeviceArray<double> metric(6 * node_count(), stream_);
  for_each(device, node_count(),
           MetricAt{hessians.data(), weights.data(), global_scale, options.bounds, metric.data()});
  if (const std::size_t bad = count_where(device, node_count(), Sym6NotFinite{metric.data()}))
    fail(ErrorCategory::internal, "adapt::DeviceMetricBuilder::metric_from_hessians: ", bad,
         " nodes without a metric from a finite Hessian");
  return metric;
}

void DeviceMetricBuilder::intersect_into(DeviceArray<double>& a,
                                         const DeviceArray<double>& b) const {
  check_tensors(a, "intersect_into");
  check_tensors(b, "intersect_into");
  const Placement device = Placement::device(stream_);
  for_each(device, node_count(), IntersectAt{a.data(), b.data(), a.data()});
  if (const std::size_t bad = count_where(device, node_count(), Sym6NotFinite{a.data()}))
    fail(ErrorCategory::invalid_input, "adapt::DeviceMetricBuilder::intersect_into: ", bad,
         " nodes whose metrics are not both positive definite");
}

double DeviceMetricBuilder::complexity(const DeviceArray<double>& metric) const {
  check_tensors(metric, "complexity");
  DeviceArray<double> terms(node_count(), stream_);
  for_each(Placement::device(stream_), node_count(),
           ComplexityTermAt{metric.data(), volumes_.data(), terms.data()});
  return sum(terms);
}

std::vector<Sym3<double>> DeviceMetricBuilder::to_host(const DeviceArray<double>& tensors) const {
  check_tensors(tensors, "to_host");
  const std::vector<double> flat = tensors.copy_to_host(stream_);
  std::vector<Sym3<double>> out(node_count());
  for (std::size_t n = 0; n < out.size(); ++n) out[n] = load_sym6(flat.data() + 6 * n);
  return out;
}

}  // namespace foehn::adapt
