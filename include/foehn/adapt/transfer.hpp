#pragma once
// Moving nodal fields from one mesh to another covering the same domain (after remesh): every
// new node is located in the old mesh by the particles' neighbour walk (foehn/particles/
// mesh_location.hpp) and takes the old field's P1 value there, which is exact for a field
// linear over the domain. A conservative option rescales a field so that its integral is the
// old one (tracers).
//
//   const foehn::adapt::PointLocations at = foehn::adapt::locate_points(old_mesh, new_mesh.nodes);
//   std::vector<double> theta_new = foehn::adapt::interpolate(old_mesh, at, theta_old, 1);
//   std::vector<double> u_new = foehn::adapt::interpolate(old_mesh, at, u_old, 3);
#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "foehn/mesh/tet_mesh.hpp"
#include "foehn/runtime/stream.hpp"

namespace foehn::adapt {

// Where each point lies in a mesh: the tet and the point's barycentric coordinates in it.
struct PointLocations {
  std::vector<std::int32_t> tets;
  // Barycentrics summing to 1: each >= -1e-10 for a point inside, clamped to >= 0 outside.
  std::vector<std::array<double, 4>> weights;
  // Points outside every tet (beyond the location tolerance, 1e-10 in barycentrics): a curved
  // boundary adapted by the remesher may put new boundary nodes just outside the old mesh. Each
  // takes the tet where it is least outside, its negative barycentrics clamped to 0: the value
  // stays within that tet's values. `largest_outside_distance` is the farthest, in metres,
  // measured to that tet's nearest face plane.
  std::size_t outside = 0;
  double largest_outside_distance = 0;
  // Points whose neighbour walk did not end in a tet and which were found by a scan over all
  // tets (non-convex boundaries; the walk starts near each point, so these are few).
  std::size_t scanned = 0;
};

// Locates every point in `mesh` (a valid mesh, as check_mesh: invalid_input naming the defect
// otherwise). The walks start from the tet of a bucket grid nearest each point and run in
// parallel (OpenMP); the result does not depend on the thread count. invalid_input for a point
// that is not finite.
PointLocations locate_points(const TetMesh& mesh, std::span<const Point3> points);

// locate_points with the walks on the GPU (the same FOEHN_HD walk from the same starts, compiled
// without FMA contraction: the same result, bitwise); the points whose walk does not end in a
// tet are finished on the host by the same scan. unavailable in builds without CUDA.
PointLocations locate_points_on_device(const TetMesh& mesh, std::span<const Point3> points,
                                       const Stream& stream);

// The P1 interpolant of `field` (components values per node of `mesh`, interleaved) at the
// located points: components values per point, interleaved. invalid_input when `field`'s size
// does not match, or `at` names a tet `mesh` does not have.
std::vector<double> interpolate(const TetMesh& mesh, const PointLocations& at,
                                std::span<const double> field, int components = 1);

// The integral over the domain of a P1 field (each tet once; exact for P1).
double integral(const TetMesh& mesh, std::span<const double> field);

// Rescales `field` on `mesh` so that its integral equals `target_integral`: the global
// conservation a tracer needs across a remesh (interpolation alone gains or loses mass where
// the field is curved). Multiplicative, so a non-negative field stays non-negative. A field
// whose integral is zero is left alone when the target is zero too, and is invalid_input
// otherwise, as is a factor that is not finite or not positive. Returns the factor applied.
double conserve_integral(const TetMesh& mesh, std::vector<double>& field, double target_integral);

}  // namespace foehn::adapt
