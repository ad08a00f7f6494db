#pragma once
// A TetMesh built from the arrays a caller already holds (a Fortran or C dynamical core's own
// coordinates and connectivity), with every value checked before it is used: counts, index
// range and base, 64-bit indices that do not fit Foehn's 32-bit ones, finite coordinates,
// tag counts, element orientation, then the full mesh validation (validate.hpp).
//
//   std::vector<double> xyz = ...;               // x0 y0 z0 x1 y1 z1 ...
//   std::vector<std::int64_t> cells = ...;       // 4 nodes per tet, 1-based (Fortran)
//   MeshArrays arrays;
//   arrays.coordinates = xyz.data();
//   arrays.node_count = static_cast<std::int64_t>(xyz.size() / 3);
//   arrays.tets = cells;
//   arrays.index_base = 1;
//   arrays.orientation = OrientationPolicy::fix;
//   MeshImportReport report;
//   TetMesh mesh = mesh_from_arrays(arrays, &report);   // report.flipped_tets
//
// Error messages name the array and the item; items and corners are counted in the caller's
// index base (with index_base = 1, "tet 1 corner 1" is cells(1, 1) of a Fortran caller), so the
// caller reads its own numbers. Only the findings of validate_mesh count from 0.
// The caller's node numbering is kept: node i of the result is the caller's node i (- base).
#include <cstddef>
#include <cstdint>
#include <span>
#include <variant>
#include <vector>

#include "foehn/mesh/tet_mesh.hpp"

namespace foehn {

// A read-only view of caller indices, 32- or 64-bit (Fortran integer or integer(8),
// C int or int64_t). Refers to the caller's memory, which must outlive the call it is used in.
class IndexArray {
 public:
  IndexArray() = default;
  IndexArray(std::span<const std::int32_t> values) : values_(values) {}
  IndexArray(std::span<const std::int64_t> values) : values_(values) {}
  IndexArray(const std::vector<std::int32_t>& values)
      : values_(std::span<const std::int32_t>(values)) {}
  IndexArray(const std::vector<std::int64_t>& values)
      : values_(std::span<const std::int64_t>(values)) {}
  // A view of a temporary would dangle at the end of the statement.
  IndexArray(std::vector<std::int32_t>&&) = delete;
  IndexArray(std::vector<std::int64_t>&&) = delete;

  std::size_t size() const noexcept {
    return std::visit([](auto view) { return view.size(); }, values_);
  }
  bool empty() const noexcept { return size() == 0; }
  bool is_64bit() const noexcept { return values_.index() == 1; }
  std::int64_t operator[](std::size_t i) const noexcept {
    return std::visit([i](auto view) { return static_cast<std::int64_t>(view[i]); }, values_);
  }
  // True for a null pointer with a non-zero size (which mesh_from_arrays refuses).
  bool has_null_data() const noexcept {
    return std::visit([](auto view) { return view.data() == nullptr && !view.empty(); }, values_);
  }

 private:
  std::variant<std::span<const std::int32_t>, std::span<const std::int64_t>> values_;
};

enum class OrientationPolicy {
  check,  // a tet of negative volume is an error naming the first one
  fix     // such tets get two nodes swapped (and inward boundary triangles are turned outward)
};

struct MeshArrays {
  const double* coordinates = nullptr;  // node_count * 3 values, x y z of each node in turn
  std::int64_t node_count = 0;          // > 0

  IndexArray tets;            // 4 node indices per tet (> 0 tets)
  IndexArray boundary_faces;  // optional: 3 node indices per boundary triangle
  // One tag per boundary triangle, or empty (every tag 0). Must be empty without triangles.
  std::span<const std::int32_t> boundary_tags;
  std::span<const std::int32_t> tet_tags;  // one region tag per tet, or empty

  int index_base = 0;  // 0 (C) or 1 (Fortran); applies to tets and boundary_faces alike
  OrientationPolicy orientation = OrientationPolicy::check;
  // Caller meshes may carry nodes no tet uses (geometry points, a rank's halo nodes).
  bool allow_unused_nodes = false;
  // One rank's piece of a partitioned mesh: its surface includes the faces between ranks, which
  // may meet along an edge in a non-manifold way. With this set such surface edges are accepted;
  // everything else is validated as usual.
  bool allow_non_manifold_surface = false;
};

struct MeshImportReport {
  std::size_t flipped_tets = 0;            // with OrientationPolicy::fix
  std::size_t flipped_boundary_faces = 0;  // inward triangles turned outward (fix)
};

// Copies and checks the arrays into a TetMesh (node i = caller node i - index_base, tet t =
// caller tet t). Throws foehn::Error (invalid_input) with one line naming the array and the
// first bad item: a negative or zero count, a null pointer, a connectivity length that is not a
// multiple of 4 (3), an index below the base or beyond the last node, a 64-bit index that does
// not fit 32 bits, a non-finite coordinate, a tag array of the wrong length, an inverted tet
// (with OrientationPolicy::check), or any finding of validate_mesh. `report` (optional)
// receives the number of tets and boundary triangles that were flipped.
TetMesh mesh_from_arrays(const MeshArrays& arrays, MeshImportReport* report = nullptr);

}  // namespace foehn
