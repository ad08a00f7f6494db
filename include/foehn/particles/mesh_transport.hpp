#pragma once
// Parcels advected through a P1 (nodal, piecewise linear) velocity field on a tetrahedral
// mesh in Cartesian metres -- the mountain-wave core's mesh -- so the dynamical core can carry
// tracers along trajectories. CPU reference (OpenMP over parcels where available) and CUDA
// backend (one thread per parcel), both running the FOEHN_HD code of mesh_location.hpp.
// See docs/particles_mesh.md.

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "foehn/mesh/tet_mesh.hpp"
#include "foehn/particles/integrators.hpp"
#include "foehn/particles/mesh_location.hpp"
#include "foehn/runtime/device_array.hpp"
#include "foehn/runtime/stream.hpp"

namespace foehn::particles {

// Parcels on the mesh, structure of arrays. `tet` is the tet that contains the parcel (-1:
// not located yet, the walk then starts at tet 0); `status` says whether it is still moved.
struct MeshParcels {
  std::vector<double> x, y, z;  // m
  std::vector<double> time;     // s
  std::vector<std::int64_t> id;
  std::vector<std::int32_t> tet;
  std::vector<MeshParcelStatus> status;

  std::size_t size() const noexcept { return id.size(); }
  // Appends one parcel, not located yet (tet -1), status inside.
  void add(double px, double py, double pz, double t, std::int64_t parcel_id);
  // invalid_input when the arrays differ in length, a coordinate or time is not finite or a
  // status is unknown.
  void validate() const;
};

// The same parcels in device memory (status as uint8 MeshParcelStatus values).
struct DeviceMeshParcels {
  DeviceArray<double> x, y, z, time;
  DeviceArray<std::int64_t> id;
  DeviceArray<std::int32_t> tet;
  DeviceArray<std::uint8_t> status;

  std::size_t size() const noexcept { return id.size(); }
  // Validates, allocates on `stream`, copies and waits (the host arrays may change afterwards).
  static DeviceMeshParcels upload(const MeshParcels& host, const Stream& stream);
  // Copies everything back into `host` (resized); waits for the stream.
  void download(MeshParcels& host, const Stream& stream) const;
};

// Mesh geometry prepared for location (per-tet inverse affine maps, face neighbours) plus a
// nodal velocity (u, v, w interleaved per node, m/s) at two time levels, linear in between
// and clamped outside [t0, t1]. Keeps no reference to the TetMesh.
class MeshVelocityField {
 public:
  // Steady field. invalid_input (naming the tet or node) for node indices out of range,
  // non-finite coordinates, inverted or degenerate tets (6|V| <= 1e-10 * longest edge^3, as
  // check_mesh), faces shared by three or more tets, a velocity of the wrong size or with
  // NaN/Inf values.
  MeshVelocityField(const TetMesh& mesh, std::vector<double> velocity);
  // Two time levels, t0 < t1.
  MeshVelocityField(const TetMesh& mesh, std::vector<double> velocity_t0, double t0,
                    std::vector<double> velocity_t1, double t1);

  // Moves the pair on to (old t1, next) with t_next > t1 (a steady field becomes unsteady
  // with its velocity at t0 = its old time).
  void advance(std::vector<double> next, double t_next);
  // Replaces both levels (same checks as the constructor).
  void set_velocity(std::vector<double> velocity_t0, double t0, std::vector<double> velocity_t1,
                    double t1);

  std::size_t tet_count() const noexcept { return tet_nodes_.size() / 4; }
  std::size_t node_count() const noexcept { return node_count_; }
  double t0() const noexcept { return t0_; }
  double t1() const noexcept { return t1_; }
  bool steady() const noexcept { return !(t1_ > t0_); }
  std::span<const std::int32_t> tet_nodes() const noexcept { return tet_nodes_; }
  std::span<const std::int32_t> neighbours() const noexcept { return neighbours_; }
  std::span<const double> inverse_maps() const noexcept { return inverse_maps_; }
  std::span<const double> velocity_t0() const noexcept { return velocity_t0_; }
  // Equals velocity_t0() for a steady field.
  std::span<const double> velocity_t1() const noexcept;
  int max_walk_steps() const noexcept { return max_walk_steps_; }
  // The walk's step budget (default 4 cbrt(tets) + 64); invalid_input below 1. Small budgets
  // make the CPU scan and the device's `lost` status testable.
  void set_max_walk_steps(int steps);
  std::size_t boundary_face_count() const noexcept { return boundary_face_count_; }

  // Host pointers, valid while the field lives and is not modified.
  MeshFieldView view() const noexcept;

 private:
  void check_velocity(const std::vector<double>& velocity, const char* which) const;

  std::size_t node_count_ = 0;
  std::vector<std::int32_t> tet_nodes_;
  std::vector<std::int32_t> neighbours_;
  std::vector<double> inverse_maps_;
  std::vector<double> velocity_t0_, velocity_t1_;  // velocity_t1_ empty when steady
  double t0_ = 0.0, t1_ = 0.0;
  int max_walk_steps_ = 64;
  std::size_t boundary_face_count_ = 0;
};

// The field in device memory. unavailable in builds without CUDA.
class DeviceMeshVelocityField {
 public:
  DeviceMeshVelocityField(const MeshVelocityField& field, const Stream& stream);
  // As MeshVelocityField::advance: the old t1 level is copied on the device, only `next`
  // crosses the bus (validated on the host first).
  void advance(const std::vector<double>& next, double t_next, const Stream& stream);

  std::size_t tet_count() const noexcept { return tet_nodes_.size() / 4; }
  MeshFieldView view() const noexcept;  // device pointers

 private:
  std::int32_t node_count_ = 0;
  int max_walk_steps_ = 64;
  double t0_ = 0.0, t1_ = 0.0;
  DeviceArray<std::int32_t> tet_nodes_, neighbours_;
  DeviceArray<double> inverse_maps_;
  DeviceArray<double> velocity_t0_, velocity_t1_;
};

// What one call did: parcels that left the domain (or, on the device, got lost) during it.
struct MeshTransportReport {
  std::size_t left_domain = 0;
  std::size_t lost = 0;
};

// Places every parcel (whatever its status): a walk from the parcel's own tet, or from the
// previous parcel's tet when it has none, confirmed by a brute-force scan when the walk ends
// outside or gets lost. Parcels inside get status inside and their tet; the others status
// left_domain (tet -1), and their number is returned. Host only (upload located parcels).
std::size_t locate(MeshParcels& parcels, const MeshVelocityField& field);

// `steps` steps of dt from t_start for every parcel that is inside (the others are left
// untouched). Each moved parcel ends with time t_start + steps * dt, or, when it left the
// domain, frozen at the end point of its exit step with that step's end time. On the CPU a
// walk that runs out of steps falls back to a brute-force scan, so nothing gets lost.
// invalid_input for steps < 0, a non-finite dt or t_start, invalid parcels or a parcel tet
// outside [-1, tet_count).
MeshTransportReport advect(MeshParcels& parcels, const MeshVelocityField& field, double t_start,
                           double dt, int steps, Integrator scheme = Integrator::midpoint);

// The CUDA backend; queued on `stream`, which it synchronises before returning. A walk that
// runs out of steps marks the parcel lost (frozen where its step began, counted in the
// report). unavailable in builds without CUDA.
MeshTransportReport advect(DeviceMeshParcels& parcels, const DeviceMeshVelocityField& field,
                           double t_start, double dt, int steps, const Stream& stream,
                           Integrator scheme = Integrator::midpoint);

namespace detail {
// Shared by both backends: invalid_input for steps < 0 or a non-finite dt or t_start.
void check_mesh_advect_arguments(double t_start, double dt, int steps);
}  // namespace detail

}  // namespace foehn::particles
