// CUDA backend of the parcel physics: one thread per parcel runs all steps of the call with
// its state in registers (transport_step of physics.hpp, the CPU reference's code), then
// writes it back once. Domain events are summed per block and added to three counters.
#include <cub/block/block_reduce.cuh>

#include <cstdint>
#include <vector>

#include "foehn/particles/transport.hpp"
#include "foehn/runtime/cuda_check.hpp"
#include "foehn/runtime/error.hpp"

namespace foehn::particles {

namespace detail {
void check_transport_arguments(const TransportClock& clock, const TransportSettings& settings);
}  // namespace detail

namespace {

constexpr int block_size = 256;
constexpr int max_decaying_quantities = 8;

// Pointers passed by value in the kernel's parameters.
struct DecayingQuantities {
  double* values[max_decaying_quantities];
  int count;
};

struct EventCounters {
  unsigned long long active, left_domain, vertical_clamps;
};

__global__ void __launch_bounds__(block_size)
    transport_parcels(MetGridView grid, TransportPhysics physics, TransportClock clock,
                      double* __restrict__ lon, double* __restrict__ lat, double* __restrict__ p,
                      double* __restrict__ t, const std::int64_t* __restrict__ id,
                      std::uint8_t* __restrict__ status, OptionalParcelArrays optional,
                      DecayingQuantities decaying, std::size_t n, EventCounters* counters) {
  const std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;
  unsigned int active = 0, left = 0, clamps = 0;
  if (i < n) {
    auto* parcel_status = reinterpret_cast<ParcelStatus*>(status);
    ParcelState state = load_parcel(static_cast<std::int64_t>(i), clock.t_start, lon, lat, p,
                                    parcel_status, optional);
    if (state.status == ParcelStatus::active) {
      DomainEvents events;
      const std::int64_t parcel_id = id[i];
      for (int s = 0; s < clock.steps; ++s) {
        transport_step(grid, physics, parcel_id, clock.first_step_index + s, clock.dt, state,
                       events);
      }
      write_back_parcel(state, static_cast<std::int64_t>(i), lon, lat, p, t, parcel_status,
                        optional, decaying.values, decaying.count);
      left = events.left_domain;
      clamps = events.vertical_clamps;
    }
    active = state.status == ParcelStatus::active ? 1u : 0u;
  }
  using Reduce = cub::BlockReduce<unsigned int, block_size>;
  __shared__ typename Reduce::TempStorage scratch;
  const unsigned int block_active = Reduce(scratch).Sum(active);
  __syncthreads();
  const unsigned int block_left = Reduce(scratch).Sum(left);
  __syncthreads();
  const unsigned int block_clamps = Reduce(scratch).Sum(clamps);
  if (threadIdx.x == 0) {
    if (block_active) atomicAdd(&counters->active, static_cast<unsigned long long>(block_active));
    if (block_left) atomicAdd(&counters->left_domain, static_cast<unsigned long long>(block_left));
    if (block_clamps)
      atomicAdd(&counters->vertical_clamps, static_cast<unsigned long long>(block_clamps));
  }
}

}  // namespace

TransportReport transport(DeviceParticleSet& particles, const DeviceMetGrid& grid,
                          const TransportClock& clock, const TransportSettings& settings,
                          const Stream& stream) {
  detail::check_transport_arguments(clock, settings);
  const TransportPhysics physics = settings.physics;
  if (physics.subgrid_wind) {
    for (const char* name : subgrid_quantity_names)
      if (!particles.has_quantity(name)) particles.add_quantity(name, 0.0, stream);
  }
  if (physics.track_path_length) {
    for (const char* name : path_quantity_names)
      if (!particles.has_quantity(name)) particles.add_quantity(name, 0.0, stream);
  }
  auto device_quantity = [&](const char* name) {
    return particles.quantities[particles.quantity_index(name)].data();
  };
  OptionalParcelArrays optional{{nullptr, nullptr, nullptr}, {nullptr, nullptr}};
  if (physics.subgrid_wind) {
    for (int c = 0; c < 3; ++c) optional.subgrid[c] = device_quantity(subgrid_quantity_names[c]);
  }
  if (physics.track_path_length) {
    for (int c = 0; c < 2; ++c) optional.path[c] = device_quantity(path_quantity_names[c]);
  }
  DecayingQuantities decaying{};
  if (physics.decays()) {
    if (settings.decaying_quantities.size() > max_decaying_quantities) {
      fail(ErrorCategory::invalid_input, "transport (CUDA): at most ", max_decaying_quantities,
           " decaying quantities, got ", settings.decaying_quantities.size());
    }
    for (const auto& name : settings.decaying_quantities)
      decaying.values[decaying.count++] = particles.quantities[particles.quantity_index(name)].data();
  }
  const std::size_t n = particles.size();
  TransportReport report;
  report.parcels = n;
  if (n == 0) return report;
  DeviceArray<EventCounters> counters(1, stream);
  counters.fill_bytes_async(0, stream);
  const auto blocks = static_cast<unsigned int>((n + block_size - 1) / block_size);
  transport_parcels<<<blocks, block_size, 0, native(stream)>>>(
      grid.view(), physics, clock, particles.longitude.data(), particles.latitude.data(),
      particles.pressure.data(), particles.time.data(), particles.id.data(),
      particles.status.data(), optional, decaying, n, counters.data());
  FOEHN_CUDA_CHECK_LAUNCH("transport_parcels");
  std::vector<EventCounters> host(1);
  counters.copy_to_host_async(host, stream);
  stream.synchronize();
  report.active = host[0].active;
  report.left_domain = host[0].left_domain;
  report.vertical_clamps = host[0].vertical_clamps;
  return report;
}

}  // namespace foehn::particles
