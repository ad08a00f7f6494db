#pragma once
// TetMesh: the host-side unstructured tetrahedral mesh every Foehn layer starts from.
// Plain arrays (structure of arrays where it matters) so they can be copied to the device
// and handed to METIS/VTK without conversion.

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace foehn {

using Point3 = std::array<double, 3>;
using Tet = std::array<std::int32_t, 4>;       // node indices, positive orientation
using Triangle = std::array<std::int32_t, 3>;  // node indices, outward normal by right-hand rule

// Tags of boundary triangles. The mountain generator uses these; meshes read from Gmsh
// carry their physical tags through unchanged.
enum BoundaryTag : std::int32_t {
  boundary_terrain = 1,  // bottom, terrain-following surface
  boundary_top = 2,
  boundary_inflow = 3,   // x = x_min
  boundary_outflow = 4,  // x = x_max
  boundary_lateral = 5,  // y = y_min and y = y_max
};

// A named field with `components` values per node or per element, stored interleaved
// (value of component c at entity i is values[i * components + c]).
struct MeshField {
  std::string name;
  int components = 1;
  std::vector<double> values;
};

struct TetMesh {
  std::vector<Point3> nodes;                 // coordinates in metres
  std::vector<Tet> tets;                     // 4-node connectivity
  std::vector<std::int32_t> tet_tags;        // region tag per tet (empty or one per tet)
  std::vector<Triangle> boundary_faces;      // boundary triangles
  std::vector<std::int32_t> boundary_tags;   // one tag per boundary triangle
  std::vector<MeshField> node_fields;        // optional, written to VTK as point data
  std::vector<MeshField> tet_fields;         // optional, written to VTK as cell data

  std::size_t node_count() const noexcept { return nodes.size(); }
  std::size_t tet_count() const noexcept { return tets.size(); }
  std::size_t boundary_face_count() const noexcept { return boundary_faces.size(); }
};

}  // namespace foehn
