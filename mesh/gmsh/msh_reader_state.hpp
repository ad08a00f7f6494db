#pragma once
// What the MSH 2.2 and 4.1 section readers share: the node tag map, the mesh being built and
// the element filter (keep tets and triangles, skip points and lines, reject the rest).
// Private to mesh/gmsh.

#include <array>
#include <cstddef>
#include <cstdint>
#include <unordered_map>
#include <vector>

#include "foehn/mesh/tet_mesh.hpp"
#include "msh_scanner.hpp"

namespace foehn::gmsh_detail {

// Gmsh element types the reader knows.
inline constexpr int msh_line = 1;
inline constexpr int msh_triangle = 2;
inline constexpr int msh_tetrahedron = 4;
inline constexpr int msh_point = 15;

// Nodes of an accepted element type, or -1 for a type Foehn does not accept.
int accepted_element_nodes(std::int64_t type) noexcept;
// Dimension of an accepted element type (0 point, 1 line, 2 triangle, 3 tetrahedron).
int accepted_element_dimension(std::int64_t type) noexcept;
// Throws the "element type N (name) is not supported, Foehn accepts ..." error.
[[noreturn]] void fail_unsupported_element_type(const MshScanner& in, std::size_t pos,
                                                std::int64_t type);

// Gmsh node tag -> 0-based node index. Tags are usually dense (1..N), so a vector serves
// them; tags far above the node count (sparse numbering) fall back to a hash map, so a file
// with tag 10^15 neither allocates a huge vector nor fails.
class NodeTagMap {
 public:
  // node_count bounds the dense part; max_tag_hint (MSH 4.1 header) shrinks it when smaller.
  void prepare(std::size_t node_count, std::uint64_t max_tag_hint);
  // False when the tag is already present.
  bool insert(std::uint64_t tag, std::int32_t index);
  // -1 when the tag is unknown.
  std::int32_t find(std::uint64_t tag) const {
    if (tag < dense_.size()) return dense_[static_cast<std::size_t>(tag)];
    const auto it = sparse_.find(tag);
    return it == sparse_.end() ? -1 : it->second;
  }

 private:
  std::vector<std::int32_t> dense_;
  std::unordered_map<std::uint64_t, std::int32_t> sparse_;
};

struct MshReadState {
  explicit MshReadState(MshScanner& scanner) : in(scanner) {}

  MshScanner& in;
  TetMesh mesh;
  NodeTagMap node_tags;
  bool have_nodes = false;
  bool have_elements = false;
  std::size_t elements_pos = 0;  // where $Elements started, for "no tetrahedra"

  // MSH 4.1: first physical tag of each surface and volume entity (0 when none).
  bool have_entities = false;
  std::unordered_map<std::int32_t, std::int32_t> surface_physical;
  std::unordered_map<std::int32_t, std::int32_t> volume_physical;

  // Appends a node read at file position pos; fails on a duplicate tag or a node count that
  // no longer fits TetMesh's int32 indices.
  void add_node(std::uint64_t tag, const Point3& xyz, std::size_t pos);

  // Adds one element of an accepted type (checked by the caller) whose node tags are in
  // `tags[0..accepted_element_nodes(type))`; pos is where the element starts (messages).
  // With drop_repeats (MSH 2.2), an element equal to the previous one of its type but with
  // another physical tag is Gmsh's copy for a second physical group and is dropped.
  void add_element(std::int64_t type, std::int32_t physical, const std::uint64_t* tags,
                   std::uint64_t element_tag, std::size_t pos, bool drop_repeats);

 private:
  std::int32_t node_index(std::uint64_t tag, std::uint64_t element_tag, std::size_t pos) const;
};

// Section readers; each starts after its "$Section" token and consumes its "$EndSection".
void read_msh2_nodes(MshReadState& state);
void read_msh2_elements(MshReadState& state);
void read_msh4_entities(MshReadState& state);
void read_msh4_nodes(MshReadState& state);
void read_msh4_elements(MshReadState& state);

}  // namespace foehn::gmsh_detail
