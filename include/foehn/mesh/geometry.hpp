#pragma once
// Small geometric helpers on mesh entities, shared by validation, statistics and writers.

#include <cmath>

#include "foehn/mesh/tet_mesh.hpp"

namespace foehn {

inline Point3 operator-(const Point3& a, const Point3& b) {
  return {a[0] - b[0], a[1] - b[1], a[2] - b[2]};
}

inline Point3 cross(const Point3& a, const Point3& b) {
  return {a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]};
}

inline double dot(const Point3& a, const Point3& b) {
  return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

inline double norm(const Point3& a) { return std::sqrt(dot(a, a)); }

// Signed volume of tetrahedron (a, b, c, d); positive when (b-a, c-a, d-a) is right-handed.
inline double signed_volume(const Point3& a, const Point3& b, const Point3& c, const Point3& d) {
  return dot(b - a, cross(c - a, d - a)) / 6.0;
}

inline double signed_volume(const TetMesh& mesh, const Tet& tet) {
  return signed_volume(mesh.nodes[tet[0]], mesh.nodes[tet[1]], mesh.nodes[tet[2]],
                       mesh.nodes[tet[3]]);
}

// Contribution of one boundary triangle to the enclosed volume by the divergence theorem:
// V = (1/3) sum over faces of integral(x . n) dA = (1/6) sum a . (b x c) for outward faces.
inline double enclosed_volume_term(const Point3& a, const Point3& b, const Point3& c) {
  return dot(a, cross(b, c)) / 6.0;
}

}  // namespace foehn
