#pragma once
// Face topology of a tetrahedral mesh: which tet faces are shared, which lie on the surface.
// Built by sorting (not hashing) so results are deterministic and memory stays predictable.

#include <array>
#include <cstdint>
#include <vector>

#include "foehn/mesh/tet_mesh.hpp"

namespace foehn {

// Local face f of a tet is the face opposite local node f; listed so that, for a positively
// oriented tet, the face's normal by the right-hand rule points out of the tet.
inline constexpr std::array<std::array<int, 3>, 4> tet_local_faces{
    {{{1, 2, 3}}, {{0, 3, 2}}, {{0, 1, 3}}, {{0, 2, 1}}}};

struct SurfaceFace {
  Triangle nodes;         // oriented outward when the owning tet is positively oriented
  std::int32_t tet;       // the one tet that owns the face
  std::int32_t opposite;  // the owning tet's node not on the face
};

struct FaceTopology {
  std::vector<SurfaceFace> surface;       // faces used by exactly one tet
  std::size_t interior_face_count = 0;    // faces shared by exactly two tets
  std::size_t overshared_face_count = 0;  // faces used by three or more tets (non-manifold)
  std::int64_t first_overshared_tet = -1;
};

// Requires every node index to be in range (validate first).
FaceTopology build_face_topology(const TetMesh& mesh);

// The tet across each local face (slot 4 t + f, face f opposite local node f), -1 where the
// face is on the surface. Built by sorting every tet's faces. Requires node indices in range;
// invalid_input, naming `who`, for a face shared by three or more tets or a tet using one face
// twice (a repeated node).
std::vector<std::int32_t> tet_face_neighbours(const TetMesh& mesh, const char* who);

// A mesh without boundary triangles (made from arrays, or read from a file that has none) gets
// its surface as boundary triangles: every face of exactly one tet, oriented outward, each with
// `tag`. A mesh with boundary triangles is left as it is. Requires a validated mesh. Without it,
// boundary conditions on such a mesh found no boundary nodes, and a solve "converged" to
// garbage.
void add_surface_as_boundary(TetMesh& mesh, std::int32_t tag = 0);

// Canonical (sorted) key of a triangle, for matching faces regardless of orientation.
inline Triangle sorted_triangle(Triangle t) {
  if (t[0] > t[1]) std::swap(t[0], t[1]);
  if (t[1] > t[2]) std::swap(t[1], t[2]);
  if (t[0] > t[1]) std::swap(t[0], t[1]);
  return t;
}

}  // namespace foehn
