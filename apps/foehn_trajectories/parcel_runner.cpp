#include "parcel_runner.hpp"

#include "foehn/particles/sorting.hpp"
#include "foehn/runtime/stream.hpp"

namespace foehn::app {

namespace {

using namespace foehn::particles;

class HostRunner final : public ParcelRunner {
 public:
  HostRunner(ParticleSet parcels, MetGridGeometry geometry, const WindLevel& at_t0,
             const WindLevel& at_t1)
      : parcels_(std::move(parcels)), grid_(std::move(geometry), at_t0, at_t1) {}
  TransportReport transport(const TransportClock& clock, const TransportSettings& s) override {
    return particles::transport(parcels_, grid_, clock, s);
  }
  void sort() override { sort_by_met_box(parcels_, grid_); }
  void advance_met(const WindLevel& next, double t_next) override { grid_.advance(next, t_next); }
  ParticleSet parcels() const override { return parcels_; }

 private:
  ParticleSet parcels_;
  MetGrid grid_;
};

class DeviceRunner final : public ParcelRunner {
 public:
  DeviceRunner(const ParticleSet& parcels, MetGridGeometry geometry, const WindLevel& at_t0,
               const WindLevel& at_t1)
      : parcels_(DeviceParticleSet::upload(parcels, stream_)),
        grid_(std::move(geometry), at_t0, at_t1, stream_) {}
  TransportReport transport(const TransportClock& clock, const TransportSettings& s) override {
    return particles::transport(parcels_, grid_, clock, s, stream_);
  }
  void sort() override { sorter_.sort(parcels_, grid_, stream_); }
  void advance_met(const WindLevel& next, double t_next) override {
    grid_.advance(next, t_next, stream_);
  }
  ParticleSet parcels() const override {
    ParticleSet host;
    parcels_.download(host, stream_);
    return host;
  }

 private:
  Stream stream_;
  DeviceParticleSet parcels_;
  DeviceMetGrid grid_;
  DeviceParticleSorter sorter_;
};

}  // namespace

std::unique_ptr<ParcelRunner> make_parcel_runner(TrajectoryBackend backend, ParticleSet parcels,
                                                 MetGridGeometry geometry, const WindLevel& at_t0,
                                                 const WindLevel& at_t1) {
  if (backend == TrajectoryBackend::cuda)
    return std::make_unique<DeviceRunner>(parcels, std::move(geometry), at_t0, at_t1);
  return std::make_unique<HostRunner>(std::move(parcels), std::move(geometry), at_t0, at_t1);
}

}  // namespace foehn::app
