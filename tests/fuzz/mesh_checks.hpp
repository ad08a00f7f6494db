#pragma once
// What every mesh reader promises about the TetMesh it returns, checked by the .msh and .vtu
// fuzz targets: indices in range and arrays of matching lengths (everything later code indexes
// with), finite coordinates where the reader says it checks them.

#include <cmath>
#include <cstddef>

#include "foehn/mesh/tet_mesh.hpp"
#include "fuzz_support.hpp"

namespace foehn::fuzz {

inline bool node_in_range(std::int32_t node, const TetMesh& mesh) {
  return node >= 0 && static_cast<std::size_t>(node) < mesh.node_count();
}

inline void require_consistent_mesh(const TetMesh& mesh) {
  for (const Tet& tet : mesh.tets)
    for (const std::int32_t node : tet) require(node_in_range(node, mesh), "tet node in range");
  for (const Triangle& face : mesh.boundary_faces)
    for (const std::int32_t node : face)
      require(node_in_range(node, mesh), "boundary face node in range");
  require(mesh.tet_tags.empty() || mesh.tet_tags.size() == mesh.tet_count(),
          "one tag per tet (or none)");
  require(mesh.boundary_tags.size() == mesh.boundary_face_count(), "one tag per boundary face");
  for (const MeshField& field : mesh.node_fields)
    require(
        field.components > 0 &&
            field.values.size() == mesh.node_count() * static_cast<std::size_t>(field.components),
        "node field of node_count x components values");
  for (const MeshField& field : mesh.tet_fields)
    require(
        field.components > 0 &&
            field.values.size() == mesh.tet_count() * static_cast<std::size_t>(field.components),
        "tet field of tet_count x components values");
}

inline void require_finite_nodes(const TetMesh& mesh) {
  for (const Point3& p : mesh.nodes)
    require(std::isfinite(p[0]) && std::isfinite(p[1]) && std::isfinite(p[2]),
            "finite coordinates");
}

}  // namespace foehn::fuzz
