#include "foehn/mesh/topology.hpp"

#include <algorithm>

#include "foehn/runtime/error.hpp"

namespace foehn {

FaceTopology build_face_topology(const TetMesh& mesh) {
  struct FaceRecord {
    Triangle key;
    std::int32_t tet;
    std::int8_t local_face;
  };
  std::vector<FaceRecord> faces;
  faces.reserve(mesh.tets.size() * 4);
  for (std::size_t t = 0; t < mesh.tets.size(); ++t) {
    const Tet& tet = mesh.tets[t];
    for (int f = 0; f < 4; ++f) {
      const auto& local = tet_local_faces[f];
      Triangle key = sorted_triangle({tet[local[0]], tet[local[1]], tet[local[2]]});
      faces.push_back({key, static_cast<std::int32_t>(t), static_cast<std::int8_t>(f)});
    }
  }
  std::sort(faces.begin(), faces.end(), [](const FaceRecord& a, const FaceRecord& b) {
    return a.key != b.key ? a.key < b.key : a.tet < b.tet;
  });

  FaceTopology topology;
  for (std::size_t begin = 0; begin < faces.size();) {
    std::size_t end = begin + 1;
    while (end < faces.size() && faces[end].key == faces[begin].key) ++end;
    const std::size_t uses = end - begin;
    if (uses == 1) {
      const FaceRecord& face = faces[begin];
      const Tet& tet = mesh.tets[face.tet];
      const auto& local = tet_local_faces[face.local_face];
      topology.surface.push_back(
          {{tet[local[0]], tet[local[1]], tet[local[2]]}, face.tet, tet[face.local_face]});
    } else if (uses == 2) {
      ++topology.interior_face_count;
    } else {
      if (topology.overshared_face_count == 0) topology.first_overshared_tet = faces[begin].tet;
      ++topology.overshared_face_count;
    }
    begin = end;
  }
  return topology;
}

void add_surface_as_boundary(TetMesh& mesh, std::int32_t tag) {
  if (!mesh.boundary_faces.empty()) return;
  const FaceTopology topology = build_face_topology(mesh);
  mesh.boundary_faces.reserve(topology.surface.size());
  for (const SurfaceFace& face : topology.surface) mesh.boundary_faces.push_back(face.nodes);
  mesh.boundary_tags.assign(mesh.boundary_faces.size(), tag);
}

std::vector<std::int32_t> tet_face_neighbours(const TetMesh& mesh, const char* who) {
  struct FaceUse {
    Triangle key;
    std::int32_t tet;
    std::int32_t local_face;
  };
  std::vector<FaceUse> uses;
  uses.reserve(4 * mesh.tets.size());
  for (std::size_t t = 0; t < mesh.tets.size(); ++t) {
    const Tet& tet = mesh.tets[t];
    for (int f = 0; f < 4; ++f) {
      const auto& local = tet_local_faces[static_cast<std::size_t>(f)];
      uses.push_back({sorted_triangle({tet[local[0]], tet[local[1]], tet[local[2]]}),
                      static_cast<std::int32_t>(t), f});
    }
  }
  std::sort(uses.begin(), uses.end(), [](const FaceUse& a, const FaceUse& b) {
    return a.key != b.key ? a.key < b.key : a.tet < b.tet;
  });
  std::vector<std::int32_t> neighbours(4 * mesh.tets.size(), -1);
  for (std::size_t begin = 0; begin < uses.size();) {
    std::size_t end = begin + 1;
    while (end < uses.size() && uses[end].key == uses[begin].key) ++end;
    if (end - begin > 2)
      fail(ErrorCategory::invalid_input, who, ": the face (", uses[begin].key[0], ", ",
           uses[begin].key[1], ", ", uses[begin].key[2], ") of tet ", uses[begin].tet,
           " is shared by ", end - begin, " tets (non-manifold mesh)");
    if (end - begin == 2) {
      const FaceUse& a = uses[begin];
      const FaceUse& b = uses[begin + 1];
      if (a.tet == b.tet)
        fail(ErrorCategory::invalid_input, who, ": tet ", a.tet,
             " uses the same face twice (repeated node)");
      neighbours[4 * static_cast<std::size_t>(a.tet) + static_cast<std::size_t>(a.local_face)] =
          b.tet;
      neighbours[4 * static_cast<std::size_t>(b.tet) + static_cast<std::size_t>(b.local_face)] =
          a.tet;
    }
    begin = end;
  }
  return neighbours;
}

}  // namespace foehn
