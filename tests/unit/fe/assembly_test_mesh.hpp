#pragma once
// Small meshes for assembly tests: a mountain mesh (curved terrain, graded, anisotropic tets)
// and helpers to find its interior nodes and evaluate fields on its nodes.

#include <functional>
#include <set>
#include <vector>

#include "foehn/mesh/mountain.hpp"
#include "support/small_mountain.hpp"

namespace foehn::fe::testing {

inline TetMesh small_mountain_mesh(int cells = 6) {
  MountainMeshOptions options = foehn::testing::small_mountain_options(cells, cells, cells - 2);
  options.length_x = options.length_y = 6000.0;  // keep the mountain well resolved
  options.height = 4000.0;
  return generate_mountain_mesh(options);
}

inline std::vector<bool> interior_nodes(const TetMesh& mesh) {
  std::vector<bool> interior(mesh.node_count(), true);
  for (const Triangle& face : mesh.boundary_faces)
    for (std::int32_t n : face) interior[n] = false;
  return interior;
}

// Values of f(x) at every node, `components` per node, interleaved.
inline std::vector<double> nodal(const TetMesh& mesh, int components,
                                 const std::function<void(const Point3&, double*)>& f) {
  std::vector<double> values(mesh.node_count() * components);
  for (std::size_t n = 0; n < mesh.node_count(); ++n) f(mesh.nodes[n], &values[n * components]);
  return values;
}

}  // namespace foehn::fe::testing
