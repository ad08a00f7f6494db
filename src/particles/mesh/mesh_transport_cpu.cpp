// CPU reference of mesh transport: parcel arrays, initial placement and advection, running the
// FOEHN_HD steps of mesh_location.hpp with a locator that falls back to a brute-force scan
// when the walk runs out of steps (the device reports such parcels as lost instead).
#include <cmath>
#include <cstdint>
#include <span>

#include "foehn/particles/mesh_transport.hpp"
#include "foehn/runtime/error.hpp"

namespace foehn::particles {

namespace detail {
void check_mesh_advect_arguments(double t_start, double dt, int steps) {
  if (steps < 0 || !std::isfinite(dt) || !std::isfinite(t_start)) {
    fail(ErrorCategory::invalid_input,
         "advect (mesh): need steps >= 0 and finite t_start and dt, got steps = ", steps,
         ", t_start = ", t_start, ", dt = ", dt);
  }
}
}  // namespace detail

namespace {

// The first tet containing the point, or -1. O(tets): only for walks that got lost and for
// confirming that a point placed by locate() is really outside a non-convex mesh.
std::int32_t scan_for_tet(const MeshFieldView& f, const MeshPoint& p) {
  double lambda[4];
  for (std::int32_t t = 0; t < f.tet_count; ++t) {
    barycentric_coordinates(f, t, p, lambda);
    if (lambda[most_negative_barycentric(lambda)] >= -barycentric_tolerance) return t;
  }
  return -1;
}

// The walk, and when it runs out of steps the scan: never `lost`. A point the scan does not
// find is outside; its barycentrics are taken in the start tet (the extrapolating tet).
struct ScanningLocator {
  MeshWalk operator()(const MeshFieldView& f, const MeshPoint& p, std::int32_t start) const {
    MeshWalk walk = walk_to_point(f, p, start);
    if (walk.outcome != WalkOutcome::lost) return walk;
    const std::int32_t found = scan_for_tet(f, p);
    walk.tet = found >= 0 ? found : ((start >= 0 && start < f.tet_count) ? start : 0);
    walk.outcome = found >= 0 ? WalkOutcome::found : WalkOutcome::left_domain;
    barycentric_coordinates(f, walk.tet, p, walk.lambda);
    return walk;
  }
};

void check_parcel_tets(const MeshParcels& parcels, const MeshVelocityField& field) {
  const auto tets = static_cast<std::int64_t>(field.tet_count());
  for (std::size_t i = 0; i < parcels.size(); ++i) {
    if (parcels.tet[i] < -1 || parcels.tet[i] >= tets) {
      fail(ErrorCategory::invalid_input, "advect (mesh): parcel ", parcels.id[i], " has tet ",
           parcels.tet[i], ", the mesh has ", tets, " tets (-1: not located)");
    }
  }
}

}  // namespace

void MeshParcels::add(double px, double py, double pz, double t, std::int64_t parcel_id) {
  x.push_back(px);
  y.push_back(py);
  z.push_back(pz);
  time.push_back(t);
  id.push_back(parcel_id);
  tet.push_back(-1);
  status.push_back(MeshParcelStatus::inside);
}

void MeshParcels::validate() const {
  const std::size_t n = id.size();
  if (x.size() != n || y.size() != n || z.size() != n || time.size() != n || tet.size() != n ||
      status.size() != n) {
    fail(ErrorCategory::invalid_input, "MeshParcels: the arrays differ in length (x ", x.size(),
         ", y ", y.size(), ", z ", z.size(), ", time ", time.size(), ", id ", n, ", tet ",
         tet.size(), ", status ", status.size(), ")");
  }
  for (std::size_t i = 0; i < n; ++i) {
    if (!std::isfinite(x[i]) || !std::isfinite(y[i]) || !std::isfinite(z[i]) ||
        !std::isfinite(time[i])) {
      fail(ErrorCategory::invalid_input, "MeshParcels: parcel ", id[i], " (index ", i,
           ") has a non-finite position or time");
    }
    if (status[i] != MeshParcelStatus::inside && status[i] != MeshParcelStatus::left_domain &&
        status[i] != MeshParcelStatus::lost) {
      fail(ErrorCategory::invalid_input, "MeshParcels: parcel ", id[i], " has the unknown status ",
           static_cast<int>(status[i]));
    }
  }
}

DeviceMeshParcels DeviceMeshParcels::upload(const MeshParcels& host, const Stream& stream) {
  host.validate();
  const std::size_t n = host.size();
  DeviceMeshParcels d;
  auto put = [&](DeviceArray<double>& target, const std::vector<double>& source) {
    target = DeviceArray<double>(n, stream);
    target.copy_from_host_async(source, stream);
  };
  put(d.x, host.x);
  put(d.y, host.y);
  put(d.z, host.z);
  put(d.time, host.time);
  d.id = DeviceArray<std::int64_t>(n, stream);
  d.id.copy_from_host_async(host.id, stream);
  d.tet = DeviceArray<std::int32_t>(n, stream);
  d.tet.copy_from_host_async(host.tet, stream);
  d.status = DeviceArray<std::uint8_t>(n, stream);
  d.status.copy_from_host_async(
      std::span<const std::uint8_t>(reinterpret_cast<const std::uint8_t*>(host.status.data()), n),
      stream);
  stream.synchronize();  // pageable sources: the caller may change them after we return
  return d;
}

void DeviceMeshParcels::download(MeshParcels& host, const Stream& stream) const {
  const std::size_t n = size();
  MeshParcels result;
  result.x.resize(n);
  result.y.resize(n);
  result.z.resize(n);
  result.time.resize(n);
  result.id.resize(n);
  result.tet.resize(n);
  result.status.resize(n);
  x.copy_to_host_async(result.x, stream);
  y.copy_to_host_async(result.y, stream);
  z.copy_to_host_async(result.z, stream);
  time.copy_to_host_async(result.time, stream);
  id.copy_to_host_async(result.id, stream);
  tet.copy_to_host_async(result.tet, stream);
  status.copy_to_host_async(
      std::span<std::uint8_t>(reinterpret_cast<std::uint8_t*>(result.status.data()), n), stream);
  if (n > 0) stream.synchronize();
  host = std::move(result);
}

std::size_t locate(MeshParcels& parcels, const MeshVelocityField& field) {
  parcels.validate();
  const MeshFieldView f = field.view();
  const auto tets = static_cast<std::int64_t>(field.tet_count());
  std::size_t outside = 0;
  // Serial on purpose: each walk starts where the previous parcel was found, which for parcels
  // released along lines or in clusters makes most walks a few steps long.
  std::int32_t previous = 0;
  for (std::size_t i = 0; i < parcels.size(); ++i) {
    const MeshPoint p{parcels.x[i], parcels.y[i], parcels.z[i]};
    const std::int32_t own = parcels.tet[i];
    const MeshWalk walk = walk_to_point(f, p, (own >= 0 && own < tets) ? own : previous);
    // Over non-convex terrain a walk can leave through the ground on its way to a point that
    // is inside: a point reported outside is confirmed by a scan.
    const std::int32_t found = walk.outcome == WalkOutcome::found ? walk.tet : scan_for_tet(f, p);
    if (found >= 0) {
      parcels.tet[i] = found;
      parcels.status[i] = MeshParcelStatus::inside;
      previous = found;
    } else {
      parcels.tet[i] = -1;
      parcels.status[i] = MeshParcelStatus::left_domain;
      ++outside;
    }
  }
  return outside;
}

MeshTransportReport advect(MeshParcels& parcels, const MeshVelocityField& field, double t_start,
                           double dt, int steps, Integrator scheme) {
  parcels.validate();
  detail::check_mesh_advect_arguments(t_start, dt, steps);
  check_parcel_tets(parcels, field);
  const MeshFieldView f = field.view();
  const ScanningLocator locator;
  const auto n = static_cast<std::int64_t>(parcels.size());
  double* x = parcels.x.data();
  double* y = parcels.y.data();
  double* z = parcels.z.data();
  double* time = parcels.time.data();
  std::int32_t* tet = parcels.tet.data();
  MeshParcelStatus* status = parcels.status.data();
  std::int64_t left = 0, lost = 0;
#pragma omp parallel for schedule(dynamic, 256) reduction(+ : left, lost)
  for (std::int64_t i = 0; i < n; ++i) {
    if (status[i] != MeshParcelStatus::inside) continue;
    double reached = t_start;
    const MeshParcelState end =
        mesh_integrate(f, locator, MeshParcelState{{x[i], y[i], z[i]}, tet[i], status[i]},
                       t_start, dt, steps, scheme, reached);
    x[i] = end.position.x;
    y[i] = end.position.y;
    z[i] = end.position.z;
    tet[i] = end.tet;
    status[i] = end.status;
    time[i] = reached;
    if (end.status == MeshParcelStatus::left_domain) ++left;
    if (end.status == MeshParcelStatus::lost) ++lost;
  }
  return MeshTransportReport{static_cast<std::size_t>(left), static_cast<std::size_t>(lost)};
}

}  // namespace foehn::particles
