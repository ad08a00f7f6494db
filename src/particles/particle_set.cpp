#include "foehn/particles/particle_set.hpp"

#include <algorithm>
#include <cmath>
#include <span>

#include "foehn/runtime/error.hpp"

namespace foehn::particles {

void ParticleSet::add(double lon, double lat, double p, double t, std::int64_t parcel_id) {
  longitude.push_back(lon);
  latitude.push_back(lat);
  pressure.push_back(p);
  time.push_back(t);
  id.push_back(parcel_id);
  status.push_back(ParcelStatus::active);
  for (std::size_t q = 0; q < quantities_.size(); ++q)
    quantities_[q].push_back(quantity_initial_values_[q]);
}

void ParticleSet::add_quantity(const std::string& name, double initial) {
  if (std::find(quantity_names_.begin(), quantity_names_.end(), name) != quantity_names_.end()) {
    fail(ErrorCategory::invalid_input, "ParticleSet: quantity '", name, "' exists already");
  }
  quantity_names_.push_back(name);
  quantities_.emplace_back(size(), initial);
  quantity_initial_values_.push_back(initial);
}

bool ParticleSet::has_quantity(std::string_view name) const noexcept {
  return std::find(quantity_names_.begin(), quantity_names_.end(), name) != quantity_names_.end();
}

std::size_t ParticleSet::quantity_index(std::string_view name) const {
  const auto it = std::find(quantity_names_.begin(), quantity_names_.end(), name);
  if (it == quantity_names_.end()) {
    fail(ErrorCategory::invalid_input, "ParticleSet: no quantity named '", name, "'");
  }
  return static_cast<std::size_t>(it - quantity_names_.begin());
}
std::vector<double>& ParticleSet::quantity(std::string_view name) {
  return quantities_[quantity_index(name)];
}
const std::vector<double>& ParticleSet::quantity(std::string_view name) const {
  return quantities_[quantity_index(name)];
}

void ParticleSet::validate() const {
  const std::size_t n = size();
  if (longitude.size() != n || latitude.size() != n || pressure.size() != n || time.size() != n ||
      status.size() != n) {
    fail(ErrorCategory::invalid_input, "ParticleSet: attribute arrays differ in length (id has ", n,
         ")");
  }
  for (std::size_t q = 0; q < quantities_.size(); ++q) {
    if (quantities_[q].size() != n) {
      fail(ErrorCategory::invalid_input, "ParticleSet: quantity '", quantity_names_[q], "' has ",
           quantities_[q].size(), " values for ", n, " parcels");
    }
  }
  for (std::size_t i = 0; i < n; ++i) {
    if (!std::isfinite(longitude[i]) || !std::isfinite(latitude[i]) ||
        !std::isfinite(pressure[i]) || !std::isfinite(time[i])) {
      fail(ErrorCategory::invalid_input, "ParticleSet: parcel ", id[i],
           " has a non-finite position or time");
    }
    // Heights and the mesh transport take log(p0 / p): a pressure <= 0 would make NaN
    // positions (and once crashed foehn-trajectories in transport_step).
    if (!(pressure[i] > 0.0)) {
      fail(ErrorCategory::invalid_input, "ParticleSet: parcel ", id[i], " has pressure ",
           pressure[i], " Pa; pressures must be positive");
    }
    if (status[i] != ParcelStatus::active && status[i] != ParcelStatus::left_domain) {
      fail(ErrorCategory::invalid_input, "ParticleSet: parcel ", id[i], " has the unknown status ",
           static_cast<int>(status[i]));
    }
  }
}

DeviceParticleSet DeviceParticleSet::upload(const ParticleSet& host, const Stream& stream) {
  host.validate();
  const std::size_t n = host.size();
  DeviceParticleSet d;
  auto put = [&](DeviceArray<double>& target, const std::vector<double>& source) {
    target = DeviceArray<double>(n, stream);
    target.copy_from_host_async(source, stream);
  };
  put(d.longitude, host.longitude);
  put(d.latitude, host.latitude);
  put(d.pressure, host.pressure);
  put(d.time, host.time);
  d.id = DeviceArray<std::int64_t>(n, stream);
  d.id.copy_from_host_async(host.id, stream);
  d.status = DeviceArray<std::uint8_t>(n, stream);
  d.status.copy_from_host_async(
      std::span<const std::uint8_t>(reinterpret_cast<const std::uint8_t*>(host.status.data()), n),
      stream);
  d.quantity_names = host.quantity_names();
  for (const auto& name : d.quantity_names) {
    d.quantities.emplace_back();
    put(d.quantities.back(), host.quantity(name));
  }
  stream.synchronize();  // pageable sources: the caller may change them after we return
  return d;
}

void DeviceParticleSet::download(ParticleSet& host, const Stream& stream) const {
  const std::size_t n = size();
  ParticleSet result;
  result.longitude.resize(n);
  result.latitude.resize(n);
  result.pressure.resize(n);
  result.time.resize(n);
  result.id.resize(n);
  result.status.resize(n);
  longitude.copy_to_host_async(result.longitude, stream);
  latitude.copy_to_host_async(result.latitude, stream);
  pressure.copy_to_host_async(result.pressure, stream);
  time.copy_to_host_async(result.time, stream);
  id.copy_to_host_async(result.id, stream);
  status.copy_to_host_async(
      std::span<std::uint8_t>(reinterpret_cast<std::uint8_t*>(result.status.data()), n), stream);
  for (std::size_t q = 0; q < quantity_names.size(); ++q) {
    result.add_quantity(quantity_names[q]);
    result.quantity(quantity_names[q]).resize(n);
    quantities[q].copy_to_host_async(result.quantity(quantity_names[q]), stream);
  }
  stream.synchronize();
  host = std::move(result);
}

bool DeviceParticleSet::has_quantity(std::string_view name) const noexcept {
  return std::find(quantity_names.begin(), quantity_names.end(), name) != quantity_names.end();
}

void DeviceParticleSet::add_quantity(const std::string& name, double initial,
                                     const Stream& stream) {
  if (has_quantity(name)) {
    fail(ErrorCategory::invalid_input, "DeviceParticleSet: quantity '", name, "' exists already");
  }
  DeviceArray<double> values(size(), stream);
  if (size() > 0) values.fill_async(initial, stream);
  quantity_names.push_back(name);
  quantities.push_back(std::move(values));
}

std::size_t DeviceParticleSet::quantity_index(std::string_view name) const {
  const auto it = std::find(quantity_names.begin(), quantity_names.end(), name);
  if (it == quantity_names.end()) {
    fail(ErrorCategory::invalid_input, "DeviceParticleSet: no quantity named '", name, "'");
  }
  return static_cast<std::size_t>(it - quantity_names.begin());
}

}  // namespace foehn::particles
