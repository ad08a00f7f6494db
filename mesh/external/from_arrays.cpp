// mesh_from_arrays: the caller's arrays checked value by value (so that an error names the array
// and the item in the caller's own numbering), copied into a TetMesh, oriented, then validated.

#include "foehn/mesh/from_arrays.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>

#include "foehn/mesh/geometry.hpp"
#include "foehn/mesh/validate.hpp"
#include "foehn/runtime/error.hpp"

namespace foehn {

namespace {

constexpr const char* who = "mesh_from_arrays";
constexpr std::int64_t int32_max = std::numeric_limits<std::int32_t>::max();
constexpr std::int64_t int32_min = std::numeric_limits<std::int32_t>::min();

template <typename... Parts>
[[noreturn]] void bad_input(Parts&&... parts) {
  fail(ErrorCategory::invalid_input, who, ": ", std::forward<Parts>(parts)...);
}

void check_counts(const MeshArrays& a) {
  if (a.index_base != 0 && a.index_base != 1)
    bad_input("index_base is ", a.index_base, "; it must be 0 (C) or 1 (Fortran)");
  if (a.node_count <= 0) bad_input("node_count is ", a.node_count, "; it must be positive");
  if (a.node_count > int32_max)
    bad_input("node_count is ", a.node_count, ", more than the ", int32_max,
              " nodes 32-bit indices address");
  if (a.coordinates == nullptr)
    bad_input("coordinates is a null pointer for ", a.node_count, " nodes");

  if (a.tets.has_null_data()) bad_input("tets is a null pointer with ", a.tets.size(), " values");
  if (a.tets.empty()) bad_input("tets is empty; a mesh needs at least one tet");
  if (a.tets.size() % 4 != 0)
    bad_input("tets has ", a.tets.size(), " indices, not a multiple of 4 (4 nodes per tet)");
  const std::size_t tets = a.tets.size() / 4;
  if (tets > static_cast<std::size_t>(int32_max))
    bad_input("tets holds ", tets, " tets, more than the ", int32_max, " 32-bit numbers address");

  if (a.boundary_faces.has_null_data())
    bad_input("boundary_faces is a null pointer with ", a.boundary_faces.size(), " values");
  if (a.boundary_faces.size() % 3 != 0)
    bad_input("boundary_faces has ", a.boundary_faces.size(),
              " indices, not a multiple of 3 (3 nodes per triangle)");
  const std::size_t faces = a.boundary_faces.size() / 3;
  if (!a.boundary_tags.empty() && a.boundary_tags.size() != faces)
    bad_input("boundary_tags has ", a.boundary_tags.size(), " tags for ", faces,
              " boundary triangles (give one per triangle, or none)");
  if (a.boundary_tags.data() == nullptr && !a.boundary_tags.empty())
    bad_input("boundary_tags is a null pointer");
  if (!a.tet_tags.empty() && a.tet_tags.size() != tets)
    bad_input("tet_tags has ", a.tet_tags.size(), " tags for ", tets,
              " tets (give one per tet, or none)");
  if (a.tet_tags.data() == nullptr && !a.tet_tags.empty()) bad_input("tet_tags is a null pointer");
}

// The caller's indices of one connectivity array as 0-based 32-bit node numbers. `array` and
// `item` name them in messages ("tets", "tet"); entities and corners are counted in the base.
template <std::size_t N>
std::vector<std::array<std::int32_t, N>> node_indices(const IndexArray& values,
                                                      std::int64_t node_count, int base,
                                                      const char* array, const char* item) {
  std::vector<std::array<std::int32_t, N>> out(values.size() / N);
  const std::int64_t last = node_count - 1 + base;
  for (std::size_t i = 0; i < values.size(); ++i) {
    const std::int64_t v = values[i];
    if (v < base || v > last) {
      const std::size_t entity = i / N + static_cast<std::size_t>(base);
      const std::size_t corner = i % N + static_cast<std::size_t>(base);
      const auto where = detail::concat(array, ": ", item, " ", entity, " corner ", corner, " is ");
      if (v > int32_max || v < int32_min)
        bad_input(where, v, ", which does not fit a 32-bit node index (the nodes are ", base, "..",
                  last, ")");
      if (base == 1 && v == 0)
        bad_input(where, "0, below index_base 1 (is the array 0-based? then set index_base = 0)");
      if (base == 0 && v == node_count)
        bad_input(where, v, ", beyond the last node ", last,
                  " (is the array 1-based? then set index_base = 1)");
      bad_input(where, v, ", outside the nodes ", base, "..", last, " (index_base ", base, ")");
    }
    out[i / N][i % N] = static_cast<std::int32_t>(v - base);
  }
  return out;
}

std::vector<Point3> checked_coordinates(const MeshArrays& a) {
  std::vector<Point3> nodes(static_cast<std::size_t>(a.node_count));
  for (std::size_t n = 0; n < nodes.size(); ++n) {
    const double* p = a.coordinates + 3 * n;
    if (!std::isfinite(p[0]) || !std::isfinite(p[1]) || !std::isfinite(p[2]))
      bad_input("coordinates: node ", n + static_cast<std::size_t>(a.index_base), " is at (", p[0],
                ", ", p[1], ", ", p[2], "), which is not finite");
    nodes[n] = {p[0], p[1], p[2]};
  }
  return nodes;
}

double longest_edge(const TetMesh& mesh, const Tet& tet) {
  double longest = 0.0;
  for (std::size_t i = 0; i < 4; ++i)
    for (std::size_t j = i + 1; j < 4; ++j)
      longest = std::max(longest, norm(mesh.nodes[static_cast<std::size_t>(tet[j])] -
                                       mesh.nodes[static_cast<std::size_t>(tet[i])]));
  return longest;
}

// Inverted tets: an error naming the first (check) or two nodes swapped (fix). Degenerate
// tets are left to validate_mesh, which names them as such: their sign means nothing.
std::size_t orient_tets(TetMesh& mesh, const MeshArrays& a) {
  const double tolerance = MeshCheckOptions{}.degenerate_tolerance;
  std::size_t inverted = 0, first = 0;
  double first_volume = 0.0;
  for (std::size_t t = 0; t < mesh.tets.size(); ++t) {
    Tet& tet = mesh.tets[t];
    const double volume = signed_volume(mesh, tet);
    const double edge = longest_edge(mesh, tet);
    if (volume >= 0.0 || 6.0 * std::abs(volume) <= tolerance * edge * edge * edge) continue;
    if (inverted++ == 0) {
      first = t;
      first_volume = volume;
    }
    // The same swap as check_mesh's fix, so both give the same mesh.
    if (a.orientation == OrientationPolicy::fix) std::swap(tet[2], tet[3]);
  }
  if (inverted > 0 && a.orientation == OrientationPolicy::check) {
    const auto base = static_cast<std::int64_t>(a.index_base);
    const Tet& tet = mesh.tets[first];
    bad_input("tets: ", inverted, " tet(s) are inverted (negative volume), the first is tet ",
              static_cast<std::int64_t>(first) + base, " (nodes ", tet[0] + base, ", ",
              tet[1] + base, ", ", tet[2] + base, ", ", tet[3] + base, ") with volume ",
              first_volume, " (OrientationPolicy::fix swaps two nodes of each)");
  }
  return a.orientation == OrientationPolicy::fix ? inverted : 0;
}

}  // namespace

TetMesh mesh_from_arrays(const MeshArrays& arrays, MeshImportReport* report) {
  check_counts(arrays);
  TetMesh mesh;
  mesh.tets = node_indices<4>(arrays.tets, arrays.node_count, arrays.index_base, "tets", "tet");
  mesh.boundary_faces = node_indices<3>(arrays.boundary_faces, arrays.node_count, arrays.index_base,
                                        "boundary_faces", "triangle");
  mesh.nodes = checked_coordinates(arrays);
  if (arrays.boundary_tags.empty())
    mesh.boundary_tags.assign(mesh.boundary_faces.size(), 0);
  else
    mesh.boundary_tags.assign(arrays.boundary_tags.begin(), arrays.boundary_tags.end());
  mesh.tet_tags.assign(arrays.tet_tags.begin(), arrays.tet_tags.end());

  MeshImportReport done;
  done.flipped_tets = orient_tets(mesh, arrays);

  MeshCheckOptions options;
  options.fix_orientation = arrays.orientation == OrientationPolicy::fix;
  options.allow_unused_nodes = arrays.allow_unused_nodes;
  MeshCheckResult result = check_mesh(mesh, options);
  if (arrays.allow_non_manifold_surface) {
    std::erase_if(result.findings, [](const MeshFinding& f) {
      return f.problem == MeshProblem::non_manifold_boundary;
    });
  }
  if (!result.ok())
    bad_input("the mesh is not valid: ", result.summary(),
              arrays.index_base == 1 ? " (these findings count items from 0)" : "");
  done.flipped_boundary_faces = result.flipped_boundary_faces;
  if (report != nullptr) *report = done;
  return mesh;
}

}  // namespace foehn
