// MeshVelocityField: validates the mesh and velocities once and precomputes what every
// location needs -- per-tet inverse affine maps and face neighbours -- so that the FOEHN_HD
// walk never meets an index out of range or a singular map.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <limits>
#include <utility>

#include "foehn/mesh/geometry.hpp"
#include "foehn/mesh/topology.hpp"
#include "foehn/particles/mesh_transport.hpp"
#include "foehn/runtime/error.hpp"

namespace foehn::particles {

namespace {

// Same criterion as check_mesh's degenerate_element (docs/mesh.md).
constexpr double degenerate_tolerance = 1e-10;

void check_nodes(const TetMesh& mesh) {
  if (mesh.tets.empty())
    fail(ErrorCategory::invalid_input, "MeshVelocityField: the mesh has no tets");
  constexpr auto index_limit = static_cast<std::size_t>(std::numeric_limits<std::int32_t>::max());
  if (mesh.nodes.size() > index_limit / 3 || mesh.tets.size() > index_limit / 4) {
    fail(ErrorCategory::invalid_input, "MeshVelocityField: ", mesh.nodes.size(), " nodes and ",
         mesh.tets.size(), " tets do not fit 32-bit indices");
  }
  for (std::size_t n = 0; n < mesh.nodes.size(); ++n) {
    for (double c : mesh.nodes[n]) {
      if (!std::isfinite(c)) {
        fail(ErrorCategory::invalid_input, "MeshVelocityField: node ", n,
             " has a non-finite coordinate");
      }
    }
  }
  const auto node_count = static_cast<std::int64_t>(mesh.nodes.size());
  for (std::size_t t = 0; t < mesh.tets.size(); ++t) {
    for (std::int32_t node : mesh.tets[t]) {
      if (node < 0 || node >= node_count) {
        fail(ErrorCategory::invalid_input, "MeshVelocityField: tet ", t, " names node ", node,
             ", but the mesh has ", node_count, " nodes");
      }
    }
  }
}

// 12 doubles: x0, then the inverse of E = [x1 - x0 | x2 - x0 | x3 - x0] row by row, from the
// adjugate (rows of E^-1 are the cross products of E's columns divided by det E = 6V).
std::array<double, 12> inverse_map(const TetMesh& mesh, std::size_t t) {
  const Tet& tet = mesh.tets[t];
  const Point3& x0 = mesh.nodes[tet[0]];
  const Point3 e1 = mesh.nodes[tet[1]] - x0;
  const Point3 e2 = mesh.nodes[tet[2]] - x0;
  const Point3 e3 = mesh.nodes[tet[3]] - x0;
  const double det = dot(e1, cross(e2, e3));  // 6 V
  double longest = 0.0;
  for (int a = 0; a < 4; ++a) {
    for (int b = a + 1; b < 4; ++b) {
      longest = std::max(longest, norm(mesh.nodes[tet[a]] - mesh.nodes[tet[b]]));
    }
  }
  if (std::abs(det) <= degenerate_tolerance * longest * longest * longest) {
    fail(ErrorCategory::invalid_input, "MeshVelocityField: tet ", t, " is degenerate (volume ",
         det / 6.0, " m^3, longest edge ", longest, " m)");
  }
  if (det < 0.0) {
    fail(ErrorCategory::invalid_input, "MeshVelocityField: tet ", t, " is inverted (volume ",
         det / 6.0, " m^3; fix the orientation with check_mesh first)");
  }
  const Point3 r1 = cross(e2, e3), r2 = cross(e3, e1), r3 = cross(e1, e2);
  const double inv = 1.0 / det;
  return {x0[0],       x0[1],       x0[2],       r1[0] * inv, r1[1] * inv, r1[2] * inv,
          r2[0] * inv, r2[1] * inv, r2[2] * inv, r3[0] * inv, r3[1] * inv, r3[2] * inv};
}

}  // namespace

MeshVelocityField::MeshVelocityField(const TetMesh& mesh, std::vector<double> velocity)
    : node_count_(mesh.nodes.size()) {
  check_nodes(mesh);
  tet_nodes_.reserve(4 * mesh.tets.size());
  inverse_maps_.reserve(12 * mesh.tets.size());
  for (std::size_t t = 0; t < mesh.tets.size(); ++t) {
    const std::array<double, 12> map = inverse_map(mesh, t);
    inverse_maps_.insert(inverse_maps_.end(), map.begin(), map.end());
    tet_nodes_.insert(tet_nodes_.end(), mesh.tets[t].begin(), mesh.tets[t].end());
  }
  neighbours_ = tet_face_neighbours(mesh, "MeshVelocityField");
  boundary_face_count_ =
      static_cast<std::size_t>(std::count(neighbours_.begin(), neighbours_.end(), -1));
  // A walk between parcels' consecutive positions crosses a handful of tets; a walk across the
  // whole mesh about its diameter in tets, ~cbrt(tets) times a small factor.
  max_walk_steps_ = static_cast<int>(4.0 * std::cbrt(static_cast<double>(mesh.tets.size()))) + 64;
  check_velocity(velocity, "velocity");
  velocity_t0_ = std::move(velocity);
}

MeshVelocityField::MeshVelocityField(const TetMesh& mesh, std::vector<double> velocity_t0,
                                     double t0, std::vector<double> velocity_t1, double t1)
    : MeshVelocityField(mesh, std::move(velocity_t0)) {
  if (!std::isfinite(t0) || !std::isfinite(t1) || !(t1 > t0)) {
    fail(ErrorCategory::invalid_input,
         "MeshVelocityField: need finite times t0 < t1, got t0 = ", t0, ", t1 = ", t1);
  }
  check_velocity(velocity_t1, "velocity at t1");
  velocity_t1_ = std::move(velocity_t1);
  t0_ = t0;
  t1_ = t1;
}

void MeshVelocityField::check_velocity(const std::vector<double>& velocity,
                                       const char* which) const {
  if (velocity.size() != 3 * node_count_) {
    fail(ErrorCategory::invalid_input, "MeshVelocityField: the ", which, " has ", velocity.size(),
         " values, the mesh needs 3 per node = ", 3 * node_count_);
  }
  for (std::size_t i = 0; i < velocity.size(); ++i) {
    if (!std::isfinite(velocity[i])) {
      fail(ErrorCategory::invalid_input, "MeshVelocityField: the ", which, " at node ", i / 3,
           " (component ", i % 3, ") is not finite: ", velocity[i]);
    }
  }
}

void MeshVelocityField::advance(std::vector<double> next, double t_next) {
  if (!std::isfinite(t_next) || !(t_next > t1_)) {
    fail(ErrorCategory::invalid_input, "MeshVelocityField::advance: the next time ", t_next,
         " must be finite and after t1 = ", t1_);
  }
  check_velocity(next, "next velocity");
  if (!steady()) velocity_t0_ = std::move(velocity_t1_);
  velocity_t1_ = std::move(next);
  t0_ = t1_;
  t1_ = t_next;
}

void MeshVelocityField::set_velocity(std::vector<double> velocity_t0, double t0,
                                     std::vector<double> velocity_t1, double t1) {
  if (!std::isfinite(t0) || !std::isfinite(t1) || !(t1 > t0)) {
    fail(ErrorCategory::invalid_input,
         "MeshVelocityField::set_velocity: need finite times t0 < t1, got t0 = ", t0,
         ", t1 = ", t1);
  }
  check_velocity(velocity_t0, "velocity at t0");
  check_velocity(velocity_t1, "velocity at t1");
  velocity_t0_ = std::move(velocity_t0);
  velocity_t1_ = std::move(velocity_t1);
  t0_ = t0;
  t1_ = t1;
}

void MeshVelocityField::set_max_walk_steps(int steps) {
  if (steps < 1) {
    fail(ErrorCategory::invalid_input, "MeshVelocityField: the walk needs at least 1 step, got ",
         steps);
  }
  max_walk_steps_ = steps;
}

std::span<const double> MeshVelocityField::velocity_t1() const noexcept {
  return steady() ? std::span<const double>(velocity_t0_) : std::span<const double>(velocity_t1_);
}

MeshFieldView MeshVelocityField::view() const noexcept {
  MeshFieldView v;
  v.tet_count = static_cast<std::int32_t>(tet_count());
  v.node_count = static_cast<std::int32_t>(node_count_);
  v.tet_nodes = tet_nodes_.data();
  v.neighbours = neighbours_.data();
  v.inverse_maps = inverse_maps_.data();
  v.velocity_t0 = velocity_t0_.data();
  v.velocity_t1 = velocity_t1().data();
  v.t0 = t0_;
  v.t1 = t1_;
  v.max_walk_steps = max_walk_steps_;
  return v;
}

}  // namespace foehn::particles
