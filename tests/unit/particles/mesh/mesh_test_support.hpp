#pragma once
// Helpers shared by the mesh-transport tests (CPU and GPU): small meshes, references that do
// not use the code under test, and random points inside a mesh.
#include <array>
#include <cstdint>
#include <random>
#include <vector>

#include "foehn/mesh/geometry.hpp"
#include "foehn/mesh/mountain.hpp"
#include "foehn/mesh/tet_mesh.hpp"
#include "foehn/particles/mesh_transport.hpp"

namespace foehn::particles::test {

inline constexpr double half_length = 30000.0;  // the generator's default box: +-30 km
inline constexpr double model_top = 16000.0;

// A box of cells_x x cells_y x cells_z cells of Kuhn tets, uniform spacing, flat ground.
inline TetMesh make_box_mesh(int cells_x, int cells_y, int cells_z) {
  MountainMeshOptions options;
  options.mountain_height = 0.0;
  options.mountain_spacing = 0.0;
  options.vertical_grading = 1.0;
  options.cells_x = cells_x;
  options.cells_y = cells_y;
  options.cells_z = cells_z;
  return generate_mountain_mesh(options);
}

// The mountain-wave mesh with its terrain and grading, coarse.
inline TetMesh make_small_mountain_mesh(int cells_x, int cells_y, int cells_z) {
  MountainMeshOptions options;
  options.cells_x = cells_x;
  options.cells_y = cells_y;
  options.cells_z = cells_z;
  return generate_mountain_mesh(options);
}

using Vec3 = std::array<double, 3>;

// Barycentrics from signed sub-volumes (geometry.hpp), independent of the inverse maps.
inline std::array<double, 4> reference_barycentrics(const TetMesh& mesh, std::size_t t,
                                                    const Point3& p) {
  const Tet& tet = mesh.tets[t];
  const double volume = signed_volume(mesh, tet);
  std::array<double, 4> lambda{};
  for (int k = 0; k < 4; ++k) {
    std::array<Point3, 4> corners{mesh.nodes[tet[0]], mesh.nodes[tet[1]], mesh.nodes[tet[2]],
                                  mesh.nodes[tet[3]]};
    corners[k] = p;
    lambda[k] = signed_volume(corners[0], corners[1], corners[2], corners[3]) / volume;
  }
  return lambda;
}

inline double min_of(const std::array<double, 4>& values) {
  double m = values[0];
  for (double v : values) m = v < m ? v : m;
  return m;
}

// Brute force: every tet whose reference barycentrics are all >= -tolerance.
inline std::vector<std::int32_t> containing_tets(const TetMesh& mesh, const Point3& p,
                                                 double tolerance = 1e-10) {
  std::vector<std::int32_t> found;
  for (std::size_t t = 0; t < mesh.tets.size(); ++t) {
    if (min_of(reference_barycentrics(mesh, t, p)) >= -tolerance) {
      found.push_back(static_cast<std::int32_t>(t));
    }
  }
  return found;
}

// A point drawn uniformly inside a random tet (Dirichlet(1,1,1,1) barycentrics), so it is
// inside the mesh whatever the terrain.
inline Point3 random_point_in_mesh(const TetMesh& mesh, std::mt19937_64& rng) {
  std::uniform_int_distribution<std::size_t> pick(0, mesh.tets.size() - 1);
  std::exponential_distribution<double> e(1.0);
  const Tet& tet = mesh.tets[pick(rng)];
  double w[4], sum = 0.0;
  for (double& v : w) sum += (v = e(rng));
  Point3 p{0.0, 0.0, 0.0};
  for (int k = 0; k < 4; ++k) {
    for (int c = 0; c < 3; ++c) p[c] += w[k] / sum * mesh.nodes[tet[k]][c];
  }
  return p;
}

// Nodal values of u(x) = a x + b (3 per node).
inline std::vector<double> sample_linear(const TetMesh& mesh, const std::array<Vec3, 3>& a,
                                         const Vec3& b) {
  std::vector<double> values;
  values.reserve(3 * mesh.nodes.size());
  for (const Point3& x : mesh.nodes) {
    for (int c = 0; c < 3; ++c) {
      values.push_back(a[c][0] * x[0] + a[c][1] * x[1] + a[c][2] * x[2] + b[c]);
    }
  }
  return values;
}

inline std::vector<double> uniform_velocity(const TetMesh& mesh, const Vec3& u) {
  return sample_linear(mesh, {}, u);
}

}  // namespace foehn::particles::test
