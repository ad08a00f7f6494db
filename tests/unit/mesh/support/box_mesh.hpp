#pragma once
// Test helper: a structured box of nx x ny x nz cubes, each split into six positively
// oriented tets (Kuhn/Freudenthal split along the main diagonal, the same in every cube, so
// the mesh is conforming), with tagged boundary triangles. Header-only so that any test
// executable can include it as "unit/mesh/support/box_mesh.hpp".

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <vector>

#include "foehn/mesh/geometry.hpp"
#include "foehn/mesh/tet_mesh.hpp"

namespace foehn::testing {

struct BoxSize {
  int nx = 1, ny = 1, nz = 1;               // cubes per direction
  double lx = 1.0, ly = 1.0, lz = 1.0;      // extent in metres, box starts at the origin
};

inline std::int32_t box_node(const BoxSize& box, int i, int j, int k) {
  return static_cast<std::int32_t>((k * (box.ny + 1) + j) * (box.nx + 1) + i);
}

// Boundary triangles = tet faces that belong to one tet only, oriented outward (away from
// the tet's fourth node) and tagged by the box side they lie on.
inline void add_box_boundary(TetMesh& mesh, const BoxSize& box) {
  struct Face {
    std::array<std::int32_t, 3> sorted;
    Triangle nodes;
    std::int32_t opposite;
  };
  std::vector<Face> faces;
  for (const Tet& tet : mesh.tets) {
    for (std::size_t skip = 0; skip < 4; ++skip) {
      Face face{};
      std::size_t k = 0;
      for (std::size_t i = 0; i < 4; ++i) {
        if (i != skip) face.nodes[k++] = tet[i];
      }
      face.opposite = tet[skip];
      face.sorted = face.nodes;
      std::sort(face.sorted.begin(), face.sorted.end());
      faces.push_back(face);
    }
  }
  std::sort(faces.begin(), faces.end(),
            [](const Face& a, const Face& b) { return a.sorted < b.sorted; });
  const double eps = 1e-9 * std::max({box.lx, box.ly, box.lz});
  for (std::size_t i = 0; i < faces.size(); ++i) {
    if (i + 1 < faces.size() && faces[i].sorted == faces[i + 1].sorted) {
      ++i;  // interior face
      continue;
    }
    Triangle t = faces[i].nodes;
    const Point3& a = mesh.nodes[t[0]];
    const Point3 normal = cross(mesh.nodes[t[1]] - a, mesh.nodes[t[2]] - a);
    if (dot(normal, mesh.nodes[faces[i].opposite] - a) > 0) std::swap(t[1], t[2]);
    Point3 centre{};
    for (std::int32_t n : t) {
      for (std::size_t c = 0; c < 3; ++c) centre[c] += mesh.nodes[n][c] / 3.0;
    }
    std::int32_t tag = boundary_lateral;
    if (centre[2] < eps) tag = boundary_terrain;
    else if (centre[2] > box.lz - eps) tag = boundary_top;
    else if (centre[0] < eps) tag = boundary_inflow;
    else if (centre[0] > box.lx - eps) tag = boundary_outflow;
    mesh.boundary_faces.push_back(t);
    mesh.boundary_tags.push_back(tag);
  }
}

inline TetMesh make_box_mesh(const BoxSize& box) {
  if (box.nx < 1 || box.ny < 1 || box.nz < 1) throw std::invalid_argument("empty box");
  TetMesh mesh;
  for (int k = 0; k <= box.nz; ++k) {
    for (int j = 0; j <= box.ny; ++j) {
      for (int i = 0; i <= box.nx; ++i) {
        mesh.nodes.push_back({box.lx * i / box.nx, box.ly * j / box.ny, box.lz * k / box.nz});
      }
    }
  }
  // The six tets of a cube are the paths from corner (0,0,0) to (1,1,1) that step along the
  // axes in each of the six orders; odd orders are swapped to orient them positively.
  constexpr std::array<std::array<int, 3>, 6> orders{
      {{0, 1, 2}, {0, 2, 1}, {1, 0, 2}, {1, 2, 0}, {2, 0, 1}, {2, 1, 0}}};
  for (int k = 0; k < box.nz; ++k) {
    for (int j = 0; j < box.ny; ++j) {
      for (int i = 0; i < box.nx; ++i) {
        for (const auto& order : orders) {
          std::array<int, 3> at{i, j, k};
          Tet tet{};
          tet[0] = box_node(box, at[0], at[1], at[2]);
          for (std::size_t step = 0; step < 3; ++step) {
            ++at[static_cast<std::size_t>(order[step])];
            tet[step + 1] = box_node(box, at[0], at[1], at[2]);
          }
          if (signed_volume(mesh, tet) < 0) std::swap(tet[2], tet[3]);
          mesh.tets.push_back(tet);
        }
      }
    }
  }
  add_box_boundary(mesh, box);
  return mesh;
}

// Adds fields whose values are functions of position (so tests can check they moved with
// their entities): node scalar/vector/tensor, a tet scalar and a 2-component tet field, and
// tet tags 1 (lower half) and 2 (upper half).
inline void add_test_fields(TetMesh& mesh) {
  MeshField height{"height", 1, {}}, wind{"wind", 3, {}}, stress{"stress", 9, {}};
  for (const Point3& p : mesh.nodes) {
    height.values.push_back(p[2] / 3.0 + 0.1);  // not exactly representable in decimal
    for (double v : {p[0] * 0.7, -p[1], p[2] * 1e-7 + 1e12}) wind.values.push_back(v);
    for (int c = 0; c < 9; ++c) stress.values.push_back(p[c % 3] * (c + 1) / 7.0);
  }
  MeshField volume{"volume", 1, {}}, centroid_xy{"centroid_xy", 2, {}};
  mesh.tet_tags.clear();
  for (const Tet& tet : mesh.tets) {
    volume.values.push_back(signed_volume(mesh, tet));
    double x = 0, y = 0, z = 0;
    for (std::int32_t n : tet) {
      x += mesh.nodes[n][0] / 4;
      y += mesh.nodes[n][1] / 4;
      z += mesh.nodes[n][2] / 4;
    }
    centroid_xy.values.push_back(x);
    centroid_xy.values.push_back(y);
    mesh.tet_tags.push_back(z < 0.5 * mesh.nodes.back()[2] ? 1 : 2);
  }
  mesh.node_fields = {height, wind, stress};
  mesh.tet_fields = {volume, centroid_xy};
}

}  // namespace foehn::testing
