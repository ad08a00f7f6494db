#include "tracer_parcels.hpp"

#include <cmath>
#include <cstdio>

#include "foehn/mesh/vtk_points.hpp"
#include "foehn/petsc/mpi_collective.hpp"
#include "foehn/petsc/node_exchange.hpp"
#include "foehn/runtime/atomic_file.hpp"
#include "foehn/runtime/error.hpp"

namespace foehn::mountainwave {

namespace {

particles::MeshParcels seed_parcels(const TracerSeeding& s, double time) {
  if (!(s.columns > 0 && s.levels > 0) || !std::isfinite(s.x_start) || !(s.y_half_width >= 0) ||
      !(s.z_top >= s.z_bottom) || !std::isfinite(s.z_top)) {
    fail(ErrorCategory::invalid_input,
         "tracer parcels: need columns, levels > 0, y_half_width >= 0 ",
         "and z_top >= z_bottom, got ", s.columns, " x ", s.levels, ", y_half_width ",
         s.y_half_width, ", z ", s.z_bottom, " .. ", s.z_top);
  }
  particles::MeshParcels parcels;
  std::int64_t id = 0;
  for (int j = 0; j < s.columns; ++j) {
    const double y =
        s.columns == 1 ? 0.0 : -s.y_half_width + 2.0 * s.y_half_width * j / (s.columns - 1);
    for (int k = 0; k < s.levels; ++k, ++id) {
      const double z =
          s.levels == 1 ? s.z_bottom : s.z_bottom + (s.z_top - s.z_bottom) * k / (s.levels - 1);
      parcels.add(s.x_start, y, z, time, id);
    }
  }
  return parcels;
}

}  // namespace

TracerParcels::TracerParcels(const petsc::DistributedMesh& mesh, const TetMesh* input_mesh,
                             const TracerSeeding& seeding, const ModelState& state)
    : mesh_(mesh), time_(state.time) {
  const std::vector<double> velocity = petsc::gather_to_input_numbering(mesh, state.velocity, 3);
  // Rank 0 alone seeds and locates; every rank learns whether that failed.
  petsc::detail::run_collectively(mesh.comm, [&] {
    if (mesh.rank != 0) return;
    if (input_mesh == nullptr) {
      fail(ErrorCategory::internal, "TracerParcels: rank 0 needs the input mesh");
    }
    parcels_ = seed_parcels(seeding, state.time);
    field_ = std::make_unique<particles::MeshVelocityField>(*input_mesh, velocity);
    previous_velocity_ = velocity;
    if (particles::locate(parcels_, *field_) == 0) return;
    for (std::size_t i = 0; i < parcels_.size(); ++i) {
      if (parcels_.status[i] != particles::MeshParcelStatus::inside) {
        fail(ErrorCategory::invalid_input, "tracer parcels: parcel ", parcels_.id[i], " at (",
             parcels_.x[i], ", ", parcels_.y[i], ", ", parcels_.z[i], ") m is outside the mesh");
      }
    }
  });
}

TracerParcels::~TracerParcels() = default;

void TracerParcels::follow(const ModelState& state) {
  const std::vector<double> velocity = petsc::gather_to_input_numbering(mesh_, state.velocity, 3);
  petsc::detail::run_collectively(mesh_.comm, [&] {
    if (mesh_.rank != 0 || !(state.time > time_)) return;
    // Both levels set explicitly: the first pair must start at the run's (possibly restarted)
    // time, not at a steady field's time 0.
    field_->set_velocity(std::move(previous_velocity_), time_, velocity, state.time);
    previous_velocity_ = velocity;
    const particles::MeshTransportReport report =
        particles::advect(parcels_, *field_, time_, state.time - time_, 1);
    left_domain_ += report.left_domain;
  });
  time_ = state.time;
}

void TracerParcels::write_csv(const std::filesystem::path& path) const {
  if (mesh_.rank != 0) return;
  AtomicOutputFile file(path);
  auto& out = file.stream();
  out << "id,x_m,y_m,z_m,time_s,inside\n";
  char line[160];
  for (std::size_t i = 0; i < parcels_.size(); ++i) {
    std::snprintf(line, sizeof line, "%lld,%.9g,%.9g,%.9g,%.9g,%d\n",
                  static_cast<long long>(parcels_.id[i]), parcels_.x[i], parcels_.y[i],
                  parcels_.z[i], parcels_.time[i],
                  parcels_.status[i] == particles::MeshParcelStatus::inside ? 1 : 0);
    out << line;
  }
  file.commit();
}

void TracerParcels::write_vtp(const std::filesystem::path& path) const {
  petsc::detail::run_collectively(mesh_.comm, [&] {
    if (mesh_.rank != 0) return;
    PointCloud cloud;
    cloud.points.resize(parcels_.size());
    std::vector<std::int64_t> status(parcels_.size());
    for (std::size_t i = 0; i < parcels_.size(); ++i) {
      cloud.points[i] = {parcels_.x[i], parcels_.y[i], parcels_.z[i]};
      status[i] = parcels_.status[i] == particles::MeshParcelStatus::inside ? 0 : 1;
    }
    cloud.fields.push_back({"time", 1, parcels_.time});
    cloud.integer_fields.push_back({"id", parcels_.id, false});
    cloud.integer_fields.push_back({"status", std::move(status), true});
    foehn::write_vtp(cloud, path);
  });
}

}  // namespace foehn::mountainwave
