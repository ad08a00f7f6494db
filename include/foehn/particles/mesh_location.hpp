#pragma once
// Parcels on a tetrahedral mesh, the arithmetic written once for host and device (FOEHN_HD):
// barycentric coordinates from precomputed per-tet inverse affine maps, point location by
// neighbour walking, P1 interpolation of a nodal velocity (linear in time between two levels)
// and the Euler / midpoint / RK4 steps in Cartesian coordinates (metres).
//
// Nothing here allocates or throws: a walk that cannot finish reports it in its outcome, and
// every array index it forms comes from arrays that MeshVelocityField validated on the host.

#include <cstdint>

#include "foehn/particles/integrators.hpp"
#include "foehn/runtime/host_device.hpp"

namespace foehn::particles {

// Stored per parcel (uint8 on the device). `lost` only comes out of the device walk, which has
// no brute-force fallback: the parcel is frozen where its step began, for the caller to re-locate.
enum class MeshParcelStatus : std::uint8_t { inside = 0, left_domain = 1, lost = 2 };

// Plain pointers and sizes, copyable into a kernel's parameters.
struct MeshFieldView {
  std::int32_t tet_count = 0;
  std::int32_t node_count = 0;
  const std::int32_t* tet_nodes = nullptr;   // 4 per tet
  // 4 per tet: the tet across the face opposite local node f, or -1 on the boundary.
  const std::int32_t* neighbours = nullptr;
  // 12 per tet: node 0's coordinates (3), then the rows of the inverse of the edge matrix
  // [x1 - x0 | x2 - x0 | x3 - x0] (9), so that (l1, l2, l3) = M (x - x0). Subtracting x0
  // first keeps the barycentrics accurate for coordinates of tens of kilometres.
  const double* inverse_maps = nullptr;
  const double* velocity_t0 = nullptr;  // 3 per node (u, v, w), m/s
  const double* velocity_t1 = nullptr;  // the same at t1 (may alias velocity_t0: steady field)
  double t0 = 0.0, t1 = 0.0;            // t1 == t0 means steady
  int max_walk_steps = 64;
};

// A point counts as inside a tet when every barycentric is >= -barycentric_tolerance: far
// above rounding (~1e-14 here), far below anything a parcel could notice.
inline constexpr double barycentric_tolerance = 1e-10;

struct MeshPoint {
  double x, y, z;
};

enum class WalkOutcome : std::uint8_t {
  found = 0,        // `tet` contains the point
  left_domain = 1,  // the walk would cross a boundary face of `tet`
  lost = 2          // the step budget ran out (a cycle or a very long walk)
};

struct MeshWalk {
  std::int32_t tet;
  WalkOutcome outcome;
  double lambda[4];  // barycentrics of the point in `tet` (negative ones outside it)
};

FOEHN_HD void barycentric_coordinates(const MeshFieldView& f, std::int32_t tet,
                                      const MeshPoint& p, double lambda[4]) {
  const double* m = f.inverse_maps + 12 * static_cast<std::int64_t>(tet);
  const double dx = p.x - m[0], dy = p.y - m[1], dz = p.z - m[2];
  lambda[1] = m[3] * dx + m[4] * dy + m[5] * dz;
  lambda[2] = m[6] * dx + m[7] * dy + m[8] * dz;
  lambda[3] = m[9] * dx + m[10] * dy + m[11] * dz;
  lambda[0] = 1.0 - lambda[1] - lambda[2] - lambda[3];
}

FOEHN_HD int most_negative_barycentric(const double lambda[4]) {
  int worst = 0;
  for (int k = 1; k < 4; ++k) {
    if (lambda[k] < lambda[worst]) worst = k;
  }
  return worst;
}

// Visibility walk: from `start`, step across the face opposite the most negative barycentric
// until none is below -tolerance. Crossing a boundary face means the point is outside (exact
// for convex domains; over non-convex terrain a point just across a valley may be reported
// outside, see docs/particles_mesh.md). An out-of-range `start` begins at tet 0.
FOEHN_HD MeshWalk walk_to_point(const MeshFieldView& f, const MeshPoint& p, std::int32_t start) {
  MeshWalk walk{};
  walk.tet = (start >= 0 && start < f.tet_count) ? start : 0;
  for (int step = 0; step <= f.max_walk_steps; ++step) {
    barycentric_coordinates(f, walk.tet, p, walk.lambda);
    const int worst = most_negative_barycentric(walk.lambda);
    if (walk.lambda[worst] >= -barycentric_tolerance) {
      walk.outcome = WalkOutcome::found;
      return walk;
    }
    const std::int32_t next = f.neighbours[4 * static_cast<std::int64_t>(walk.tet) + worst];
    if (next < 0) {
      walk.outcome = WalkOutcome::left_domain;
      return walk;
    }
    walk.tet = next;
  }
  walk.outcome = WalkOutcome::lost;
  return walk;
}

// The walk as a locator object, the form the steps take; the CPU reference passes one that
// falls back to a brute-force scan when the walk gets lost.
struct WalkingLocator {
  FOEHN_HD MeshWalk operator()(const MeshFieldView& f, const MeshPoint& p,
                               std::int32_t start) const {
    return walk_to_point(f, p, start);
  }
};

// Weight of the t1 level: linear in time, clamped to [t0, t1]; 0 for a steady field.
FOEHN_HD double time_weight(const MeshFieldView& f, double t) {
  if (!(f.t1 > f.t0)) return 0.0;
  const double w = (t - f.t0) / (f.t1 - f.t0);
  return w < 0.0 ? 0.0 : (w > 1.0 ? 1.0 : w);
}

// P1 interpolation with the given barycentrics (outside the tet this extrapolates the tet's
// linear field, which is how stage points just past the boundary get a velocity).
FOEHN_HD MeshPoint interpolate_velocity(const MeshFieldView& f, std::int32_t tet,
                                        const double lambda[4], double t) {
  const double wt = time_weight(f, t);
  const std::int32_t* nodes = f.tet_nodes + 4 * static_cast<std::int64_t>(tet);
  double u[3] = {0.0, 0.0, 0.0};
  for (int k = 0; k < 4; ++k) {
    const std::int64_t n = 3 * static_cast<std::int64_t>(nodes[k]);
    for (int c = 0; c < 3; ++c) {
      const double value = (1.0 - wt) * f.velocity_t0[n + c] + wt * f.velocity_t1[n + c];
      u[c] += lambda[k] * value;
    }
  }
  return MeshPoint{u[0], u[1], u[2]};
}

namespace detail {

FOEHN_HD MeshPoint offset(const MeshPoint& x, const MeshPoint& k, double h) {
  return MeshPoint{x.x + h * k.x, x.y + h * k.y, x.z + h * k.z};
}

// Velocity at a stage point, walking from `start` (the tet holding the parcel at the step's start).
// False when the locator got lost (device only): the step cannot be taken.
template <class Locator>
FOEHN_HD bool stage_velocity(const MeshFieldView& f, const Locator& locate, const MeshPoint& p,
                             std::int32_t start, double t, MeshPoint& velocity) {
  const MeshWalk walk = locate(f, p, start);
  if (walk.outcome == WalkOutcome::lost) return false;
  velocity = interpolate_velocity(f, walk.tet, walk.lambda, t);
  return true;
}

}  // namespace detail

// A parcel as one thread or loop iteration carries it through its steps.
struct MeshParcelState {
  MeshPoint position;
  std::int32_t tet;
  MeshParcelStatus status;
};

// One step of dt from time t for a parcel that is inside. Stage points are located starting
// from the tet holding the parcel at the step's start; one past the boundary takes the boundary tet's extrapolated velocity,
// so only the END point decides whether the parcel left (it is then frozen there, in the
// boundary tet it left through). A lost stage leaves the parcel unmoved with status lost.
template <class Locator>
FOEHN_HD MeshParcelState mesh_step(const MeshFieldView& f, const Locator& locate,
                                   const MeshParcelState& start, double t, double dt,
                                   Integrator scheme) {
  using detail::offset;
  using detail::stage_velocity;
  MeshParcelState lost = start;
  lost.status = MeshParcelStatus::lost;
  const MeshPoint& x = start.position;
  // The parcel's own point first: its walk is one barycentric evaluation for a located parcel
  // and places an unlocated one (tet -1), so the other stages start next to it.
  const MeshWalk here = locate(f, x, start.tet);
  if (here.outcome == WalkOutcome::lost) return lost;
  const std::int32_t home = here.tet;
  const MeshPoint k1 = interpolate_velocity(f, here.tet, here.lambda, t);
  MeshPoint k2{}, k3{}, k4{}, k{};
  if (scheme == Integrator::euler) {
    k = k1;
  } else {
    if (!stage_velocity(f, locate, offset(x, k1, 0.5 * dt), home, t + 0.5 * dt, k2)) {
      return lost;
    }
    if (scheme == Integrator::midpoint) {
      k = k2;
    } else {
      if (!stage_velocity(f, locate, offset(x, k2, 0.5 * dt), home, t + 0.5 * dt, k3) ||
          !stage_velocity(f, locate, offset(x, k3, dt), home, t + dt, k4)) {
        return lost;
      }
      const double sixth = 1.0 / 6.0;
      k = MeshPoint{sixth * (k1.x + 2.0 * k2.x + 2.0 * k3.x + k4.x),
                    sixth * (k1.y + 2.0 * k2.y + 2.0 * k3.y + k4.y),
                    sixth * (k1.z + 2.0 * k2.z + 2.0 * k3.z + k4.z)};
    }
  }
  const MeshPoint end = offset(x, k, dt);
  const MeshWalk walk = locate(f, end, home);
  if (walk.outcome == WalkOutcome::lost) return lost;
  MeshParcelState result{end, walk.tet, MeshParcelStatus::inside};
  if (walk.outcome == WalkOutcome::left_domain) result.status = MeshParcelStatus::left_domain;
  return result;
}

// `steps` steps from t_start; stops at the first step that leaves the domain or gets lost.
// `time` receives the time the parcel has reached (the exit step's end for a parcel that left,
// the start of the failed step for a lost one).
template <class Locator>
FOEHN_HD MeshParcelState mesh_integrate(const MeshFieldView& f, const Locator& locate,
                                        MeshParcelState state, double t_start, double dt,
                                        int steps, Integrator scheme, double& time) {
  time = t_start;
  if (state.status != MeshParcelStatus::inside) return state;
  for (int n = 0; n < steps; ++n) {
    const double t = t_start + n * dt;
    state = mesh_step(f, locate, state, t, dt, scheme);
    if (state.status == MeshParcelStatus::lost) {
      time = t;
      return state;
    }
    time = t_start + (n + 1) * dt;
    if (state.status != MeshParcelStatus::inside) return state;
  }
  return state;
}

}  // namespace foehn::particles
