#pragma once
// Mesh validation: finds every kind of defect that would make an FE assembly crash or silently
// compute garbage, and reports for each kind how many items are affected and the first one.

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "foehn/mesh/tet_mesh.hpp"

namespace foehn {

enum class MeshProblem {
  inconsistent_sizes,      // tag or field arrays whose length does not match the mesh
  node_index_out_of_range, // a tet or boundary triangle names a node that does not exist
  repeated_node_in_element,// the same node twice in one tet or triangle
  non_finite_coordinate,   // NaN or Inf in a node coordinate
  degenerate_element,      // (near) zero volume: cannot be fixed
  inverted_element,        // negative volume: fixable by swapping two nodes
  duplicate_element,       // two tets with the same node set
  unused_node,             // a node no tet uses
  non_manifold_face,       // a face shared by three or more tets
  non_manifold_boundary,   // a surface edge not shared by exactly two surface faces
  boundary_face_not_on_surface,  // a boundary triangle that is not a face of exactly one tet
  inward_boundary_face,    // a boundary triangle whose normal points into the mesh (fixable)
};

std::string_view to_string(MeshProblem problem);

struct MeshFinding {
  MeshProblem problem;
  std::size_t count = 0;      // how many items have this problem
  std::size_t first = 0;      // index of the first item (node, tet or boundary face)
  std::string first_detail;   // e.g. "tet 17: volume -1.2e+03 m^3"
};

struct MeshCheckOptions {
  bool fix_orientation = false;     // flip inverted tets and inward boundary faces in place
  bool allow_unused_nodes = false;  // Gmsh files often keep geometry points: allow them
  // A tet counts as degenerate when 6|V| <= tolerance * (longest edge)^3.
  double degenerate_tolerance = 1e-10;
};

struct MeshCheckResult {
  std::vector<MeshFinding> findings;  // empty when the mesh is valid
  std::size_t flipped_tets = 0;       // only with fix_orientation
  std::size_t flipped_boundary_faces = 0;
  bool ok() const noexcept { return findings.empty(); }
  std::string summary() const;  // one line per finding, or "mesh is valid"
};

// Inspects the mesh; with fix_orientation, repairs orientation in place. Never throws for a
// defective mesh (only for allocation failure).
MeshCheckResult check_mesh(TetMesh& mesh, const MeshCheckOptions& options = {});

// check_mesh, then throws foehn::Error (invalid_input) naming `mesh_name` and every finding
// when the mesh is not valid.
void validate_mesh(TetMesh& mesh, std::string_view mesh_name, const MeshCheckOptions& options = {});

}  // namespace foehn
