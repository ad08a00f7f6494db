// CUDA backend of mesh transport: the field's arrays in device memory and advection with one
// thread per parcel, running the FOEHN_HD walk and steps of mesh_location.hpp. The device walk
// has no brute-force fallback: a parcel whose walk runs out of steps is marked lost.
#include <cmath>
#include <cstdint>
#include <span>
#include <vector>

#include "foehn/particles/mesh_transport.hpp"
#include "foehn/runtime/cuda_check.hpp"
#include "foehn/runtime/error.hpp"

namespace foehn::particles {

namespace {

constexpr int block_size = 128;

int grid_size(std::size_t n) {
  return static_cast<int>((n + block_size - 1) / block_size);
}

// Counters of parcels that left the domain or got lost in this call: [0] left, [1] lost.
__global__ void advect_mesh_parcels(MeshFieldView field, double* __restrict__ x,
                                    double* __restrict__ y, double* __restrict__ z,
                                    double* __restrict__ time, std::int32_t* __restrict__ tet,
                                    std::uint8_t* __restrict__ status, std::size_t n,
                                    double t_start, double dt, int steps, Integrator scheme,
                                    unsigned long long* __restrict__ counters) {
  const std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;
  if (i >= n) return;
  const auto start_status = static_cast<MeshParcelStatus>(status[i]);
  if (start_status != MeshParcelStatus::inside) return;
  double reached = t_start;
  const MeshParcelState end =
      mesh_integrate(field, WalkingLocator{}, MeshParcelState{{x[i], y[i], z[i]}, tet[i], start_status},
                     t_start, dt, steps, scheme, reached);
  x[i] = end.position.x;
  y[i] = end.position.y;
  z[i] = end.position.z;
  tet[i] = end.tet;
  status[i] = static_cast<std::uint8_t>(end.status);
  time[i] = reached;
  if (end.status == MeshParcelStatus::left_domain) atomicAdd(&counters[0], 1ull);
  if (end.status == MeshParcelStatus::lost) atomicAdd(&counters[1], 1ull);
}

template <typename T>
DeviceArray<T> upload(std::span<const T> host, const Stream& stream) {
  DeviceArray<T> device(host.size(), stream);
  device.copy_from_host_async(host, stream);
  return device;
}

}  // namespace

DeviceMeshVelocityField::DeviceMeshVelocityField(const MeshVelocityField& field,
                                                 const Stream& stream)
    : node_count_(static_cast<std::int32_t>(field.node_count())),
      max_walk_steps_(field.max_walk_steps()),
      t0_(field.t0()),
      t1_(field.t1()),
      tet_nodes_(upload(field.tet_nodes(), stream)),
      neighbours_(upload(field.neighbours(), stream)),
      inverse_maps_(upload(field.inverse_maps(), stream)),
      velocity_t0_(upload(field.velocity_t0(), stream)),
      // A steady field is stored as two levels here, so that advance() works the same way.
      velocity_t1_(upload(field.velocity_t1(), stream)) {
  stream.synchronize();  // the host field may change once we return
}

void DeviceMeshVelocityField::advance(const std::vector<double>& next, double t_next,
                                      const Stream& stream) {
  if (!std::isfinite(t_next) || !(t_next > t1_)) {
    fail(ErrorCategory::invalid_input, "DeviceMeshVelocityField::advance: the next time ", t_next,
         " must be finite and after t1 = ", t1_);
  }
  if (next.size() != velocity_t1_.size()) {
    fail(ErrorCategory::invalid_input, "DeviceMeshVelocityField::advance: the next velocity has ",
         next.size(), " values, the mesh needs 3 per node = ", velocity_t1_.size());
  }
  for (std::size_t i = 0; i < next.size(); ++i) {
    if (!std::isfinite(next[i])) {
      fail(ErrorCategory::invalid_input, "DeviceMeshVelocityField::advance: the next velocity at "
           "node ", i / 3, " (component ", i % 3, ") is not finite: ", next[i]);
    }
  }
  // Both levels are equal for a field that was steady, so copying t1 -> t0 is right in any case.
  velocity_t0_.copy_from_async(velocity_t1_, stream);
  velocity_t1_.copy_from_host_async(next, stream);
  stream.synchronize();  // pageable source
  t0_ = t1_;
  t1_ = t_next;
}

MeshFieldView DeviceMeshVelocityField::view() const noexcept {
  MeshFieldView v;
  v.tet_count = static_cast<std::int32_t>(tet_count());
  v.node_count = node_count_;
  v.tet_nodes = tet_nodes_.data();
  v.neighbours = neighbours_.data();
  v.inverse_maps = inverse_maps_.data();
  v.velocity_t0 = velocity_t0_.data();
  v.velocity_t1 = velocity_t1_.data();
  v.t0 = t0_;
  v.t1 = t1_;
  v.max_walk_steps = max_walk_steps_;
  return v;
}

MeshTransportReport advect(DeviceMeshParcels& parcels, const DeviceMeshVelocityField& field,
                           double t_start, double dt, int steps, const Stream& stream,
                           Integrator scheme) {
  detail::check_mesh_advect_arguments(t_start, dt, steps);
  const std::size_t n = parcels.size();
  if (parcels.x.size() != n || parcels.y.size() != n || parcels.z.size() != n ||
      parcels.time.size() != n || parcels.tet.size() != n || parcels.status.size() != n) {
    fail(ErrorCategory::invalid_input, "advect (mesh, device): the parcel arrays differ in length");
  }
  if (n == 0) return {};
  DeviceArray<unsigned long long> counters(2, stream);
  counters.fill_bytes_async(0, stream);
  advect_mesh_parcels<<<grid_size(n), block_size, 0, native(stream)>>>(
      field.view(), parcels.x.data(), parcels.y.data(), parcels.z.data(), parcels.time.data(),
      parcels.tet.data(), parcels.status.data(), n, t_start, dt, steps, scheme, counters.data());
  FOEHN_CUDA_CHECK_LAUNCH("advect_mesh_parcels");
  const std::vector<unsigned long long> counted = counters.copy_to_host(stream);
  return MeshTransportReport{static_cast<std::size_t>(counted[0]),
                             static_cast<std::size_t>(counted[1])};
}

}  // namespace foehn::particles
