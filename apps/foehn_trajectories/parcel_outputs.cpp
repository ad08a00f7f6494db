#include "parcel_outputs.hpp"

#include <cmath>
#include <cstdio>
#include <numbers>

#include "foehn/mesh/vtk_io.hpp"
#include "foehn/mesh/vtk_points.hpp"
#include "foehn/particles/integrators.hpp"
#include "foehn/particles/io/particle_file.hpp"

namespace foehn::app {

namespace {

// parcels_<time s, 10 digits>.<extension>: sorts in time order in a listing.
std::string snapshot_name(double t, const char* extension) {
  char name[64];
  std::snprintf(name, sizeof name, "parcels_%010.0f.%s", t, extension);
  return name;
}

}  // namespace

void write_parcels_vtp(const particles::ParticleSet& parcels, const std::filesystem::path& path) {
  constexpr double degrees = 180.0 / std::numbers::pi;
  const std::size_t n = parcels.size();
  PointCloud cloud;
  cloud.points.resize(n);
  std::vector<double> lon(n), lat(n), height(n);
  for (std::size_t i = 0; i < n; ++i) {
    height[i] =
        particles::scale_height * std::log(particles::reference_pressure / parcels.pressure[i]);
    const double r = particles::earth_radius + height[i];
    const double cos_lat = std::cos(parcels.latitude[i]);
    cloud.points[i] = {r * cos_lat * std::cos(parcels.longitude[i]),
                       r * cos_lat * std::sin(parcels.longitude[i]),
                       r * std::sin(parcels.latitude[i])};
    lon[i] = parcels.longitude[i] * degrees;
    lat[i] = parcels.latitude[i] * degrees;
  }
  cloud.fields.push_back({"pressure", 1, parcels.pressure});
  cloud.fields.push_back({"height_m", 1, std::move(height)});
  cloud.fields.push_back({"lon", 1, std::move(lon)});
  cloud.fields.push_back({"lat", 1, std::move(lat)});
  cloud.fields.push_back({"time", 1, parcels.time});
  for (const std::string& name : parcels.quantity_names())
    cloud.fields.push_back({name, 1, parcels.quantity(name)});
  cloud.integer_fields.push_back({"id", parcels.id, false});
  std::vector<std::int64_t> status(n);
  for (std::size_t i = 0; i < n; ++i) status[i] = static_cast<std::int64_t>(parcels.status[i]);
  cloud.integer_fields.push_back({"status", std::move(status), true});
  write_vtp(cloud, path);
}

ParcelOutputs::ParcelOutputs(const TrajectoryOptions& options, const particles::ParticleSet& first,
                             std::string time_units)
    : options_(options), time_units_(std::move(time_units)) {
  if (options_.write_trajectory_file)
    trajectory_ = std::make_unique<particles::TrajectoryFileWriter>(
        std::filesystem::path(options_.output_dir) / "parcels_trajectories.nc", first,
        particles::TrajectoryFileOptions{time_units_});
}

void ParcelOutputs::write(const particles::ParticleSet& parcels, double t) {
  const std::filesystem::path folder(options_.output_dir);
  if (options_.write_snapshots)
    particles::write_particle_file(parcels, folder / snapshot_name(t, "nc"),
                                   particles::ParticleFileOptions{time_units_});
  if (trajectory_) trajectory_->append(parcels);
  if (options_.write_vtk) {
    const std::string name = snapshot_name(t, "vtp");
    write_parcels_vtp(parcels, folder / name);
    vtk_series_.emplace_back(t, name);
    // Rewritten after each snapshot, so ParaView can open the series while the run goes on.
    write_pvd(folder / "parcels.pvd", vtk_series_);
  }
}

void ParcelOutputs::finish() {
  if (trajectory_) trajectory_->finish();
}

std::string ParcelOutputs::describe() const {
  std::string text;
  const auto add = [&](const std::string& what) { text += (text.empty() ? "" : ", ") + what; };
  if (options_.write_snapshots) add("parcels_<time s>.nc");
  if (trajectory_) add("parcels_trajectories.nc (CF trajectories, " + time_units_ + ")");
  if (options_.write_vtk) add("parcels.pvd");
  return text.empty() ? "no parcel output" : text;
}

}  // namespace foehn::app
