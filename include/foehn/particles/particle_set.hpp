#pragma once
// Air parcels, structure of arrays: one contiguous array per attribute so that a kernel
// touching only positions reads only positions (coalesced on the GPU, vectorisable on the CPU).
// Units: longitude and latitude in radians, pressure in Pa, time in s.

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "foehn/runtime/device_array.hpp"
#include "foehn/runtime/stream.hpp"

namespace foehn::particles {

// Whether the physics still moves a parcel. A parcel that leaves a regional met grid is
// frozen at its exit position and time (and reported), never silently dropped.
enum class ParcelStatus : std::uint8_t { active = 0, left_domain = 1 };

class ParticleSet {
 public:
  std::vector<double> longitude;
  std::vector<double> latitude;
  std::vector<double> pressure;
  std::vector<double> time;
  // Persistent identity: survives sorting and lets two runs be compared parcel by parcel.
  std::vector<std::int64_t> id;
  std::vector<ParcelStatus> status;

  std::size_t size() const noexcept { return id.size(); }
  // Appends one active parcel; each user quantity starts at that quantity's initial value.
  void add(double lon, double lat, double p, double t, std::int64_t parcel_id);
  bool has_quantity(std::string_view name) const noexcept;
  // Adds a named per-parcel quantity (mass, tracer, ...): existing parcels and parcels added
  // later start at `initial`; invalid_input if the name exists already.
  void add_quantity(const std::string& name, double initial = 0.0);
  std::vector<double>& quantity(std::string_view name);
  const std::vector<double>& quantity(std::string_view name) const;
  const std::vector<std::string>& quantity_names() const noexcept { return quantity_names_; }
  // invalid_input if the arrays disagree in length or a coordinate is not finite.
  void validate() const;

 private:
  std::size_t quantity_index(std::string_view name) const;
  std::vector<std::string> quantity_names_;
  std::vector<std::vector<double>> quantities_;
  std::vector<double> quantity_initial_values_;
};

// The same parcels in device memory. Quantities keep the host's order of names.
class DeviceParticleSet {
 public:
  DeviceArray<double> longitude, latitude, pressure, time;
  DeviceArray<std::int64_t> id;
  DeviceArray<std::uint8_t> status;  // ParcelStatus values
  std::vector<std::string> quantity_names;
  std::vector<DeviceArray<double>> quantities;

  std::size_t size() const noexcept { return id.size(); }
  // Allocates on `stream` and copies; waits for the copies so `host` may change afterwards.
  static DeviceParticleSet upload(const ParticleSet& host, const Stream& stream);
  // Copies everything back into `host` (resized and renamed to match); waits for the stream.
  void download(ParticleSet& host, const Stream& stream) const;
  bool has_quantity(std::string_view name) const noexcept;
  // Index of a quantity in `quantities`; invalid_input if there is none of that name.
  std::size_t quantity_index(std::string_view name) const;
  // Adds a quantity set to `initial` for every parcel (queued on `stream`).
  void add_quantity(const std::string& name, double initial, const Stream& stream);
};

}  // namespace foehn::particles
