// MSH 4.1 $Entities, $Nodes and $Elements, ASCII and binary.
//
// ASCII and binary hold the same values in the same order (binary: int is 4 bytes, size_t
// and double 8), so one reader serves both through Msh4Values. Physical tags live on the
// entities: an element block names its entity, whose first physical tag every element in
// the block gets.

#include <array>
#include <limits>
#include <vector>

#include "msh_reader_state.hpp"

namespace foehn::gmsh_detail {

namespace {

constexpr std::int64_t int32_min = std::numeric_limits<std::int32_t>::min();
constexpr std::int64_t int32_max = std::numeric_limits<std::int32_t>::max();

// One value of the MSH 4.1 layout, read as text or as raw bytes.
struct Msh4Values {
  MshScanner& in;
  bool binary = in.binary();

  std::uint64_t size(std::string_view what) { return binary ? in.read_u64(what) : in.read_size(what); }
  std::int32_t int32(std::string_view what) {
    return binary ? in.read_i32(what) : static_cast<std::int32_t>(in.read_int(what, int32_min, int32_max));
  }
  double real(std::string_view what, bool require_finite) {
    return binary ? in.read_f64(what, require_finite) : in.read_double(what, require_finite);
  }
  // Where the next value starts, for messages (ASCII: its first character, so the line is right).
  std::size_t next_pos() {
    if (!binary) in.skip_whitespace();
    return in.position();
  }
  // Minimum bytes of an entry of `ints` ints, `sizes` size_ts and `reals` doubles, for
  // MshScanner::check_count (ASCII: one character and one separator per value).
  std::size_t min_bytes(std::size_t ints, std::size_t sizes, std::size_t reals) const {
    return binary ? 4 * ints + 8 * sizes + 8 * reals : 2 * (ints + sizes + reals);
  }
};

}  // namespace

void read_msh4_entities(MshReadState& state) {
  MshScanner& in = state.in;
  if (in.binary()) in.skip_line_end();  // the binary data starts on the next line
  Msh4Values v{in};
  std::array<std::uint64_t, 4> counts{};
  const std::size_t counts_pos = v.next_pos();
  for (auto& count : counts) count = v.size("an entity count");
  for (int dim = 0; dim < 4; ++dim) {
    // A point is tag, x, y, z, physical count; the others have a bounding box and a
    // bounding-entity count.
    const std::size_t bytes = dim == 0 ? v.min_bytes(1, 1, 3) : v.min_bytes(1, 2, 6);
    in.check_count(counts[dim], bytes, "entities", counts_pos);
    for (std::uint64_t i = 0; i < counts[dim]; ++i) {
      const std::size_t pos = v.next_pos();
      const std::int32_t tag = v.int32("an entity tag");
      for (int k = 0; k < (dim == 0 ? 3 : 6); ++k) v.real("an entity coordinate", false);
      const std::size_t physical_pos = v.next_pos();
      const std::uint64_t physical_count = v.size("the number of physical tags");
      in.check_count(physical_count, v.min_bytes(1, 0, 0), "physical tags", physical_pos);
      std::int32_t physical = 0;
      for (std::uint64_t p = 0; p < physical_count; ++p) {
        const std::int32_t value = v.int32("a physical tag");
        if (p == 0) physical = value;  // an entity in several groups keeps the first
      }
      if (dim > 0) {
        const std::size_t bounding_pos = v.next_pos();
        const std::uint64_t bounding_count = v.size("the number of bounding entities");
        in.check_count(bounding_count, v.min_bytes(1, 0, 0), "bounding entities", bounding_pos);
        for (std::uint64_t b = 0; b < bounding_count; ++b) v.int32("a bounding entity tag");
      }
      if (dim >= 2) {
        auto& physical_of = dim == 2 ? state.surface_physical : state.volume_physical;
        if (!physical_of.emplace(tag, physical).second) {
          in.fail_at(pos, dim == 2 ? "surface" : "volume", " entity ", tag, " is defined twice");
        }
      }
    }
  }
  in.expect_token("$EndEntities");
}

void read_msh4_nodes(MshReadState& state) {
  MshScanner& in = state.in;
  if (in.binary()) in.skip_line_end();  // the binary data starts on the next line
  Msh4Values v{in};
  const std::size_t header_pos = v.next_pos();
  const std::uint64_t block_count = v.size("the number of node blocks");
  const std::uint64_t node_count = v.size("the node count");
  v.size("the minimum node tag");
  const std::uint64_t max_tag = v.size("the maximum node tag");
  in.check_count(node_count, v.min_bytes(0, 1, 3), "nodes", header_pos);
  in.check_count(block_count, v.min_bytes(3, 1, 0), "node blocks", header_pos);
  if (node_count > static_cast<std::uint64_t>(int32_max)) {
    in.fail_at(header_pos, node_count, " nodes: TetMesh indices are 32-bit");
  }
  state.node_tags.prepare(static_cast<std::size_t>(node_count), max_tag);
  state.mesh.nodes.reserve(static_cast<std::size_t>(node_count));

  std::vector<std::uint64_t> tags;
  std::vector<std::size_t> tag_positions;
  std::uint64_t done = 0;
  for (std::uint64_t b = 0; b < block_count; ++b) {
    const std::size_t block_pos = v.next_pos();
    const std::int32_t dim = v.int32("the entity dimension of a node block");
    v.int32("the entity tag of a node block");
    const std::int32_t parametric = v.int32("the parametric flag of a node block");
    const std::uint64_t count = v.size("the node count of a node block");
    if (dim < 0 || dim > 3 || parametric < 0 || parametric > 1) {
      in.fail_at(block_pos, "node block header with entity dimension ", dim,
                 " and parametric flag ", parametric, ": corrupt block header");
    }
    if (count > node_count - done) {
      in.fail_at(block_pos, "node block of ", count, " nodes, but only ", node_count - done,
                 " of the announced ", node_count, " remain: corrupt block header");
    }
    // Parametric nodes carry u (curves), u v (surfaces) or u v w (volumes) after x y z.
    const int extra = parametric != 0 ? dim : 0;
    in.check_count(count, v.min_bytes(0, 1, 3 + static_cast<std::size_t>(extra)), "nodes in this block", block_pos);
    tags.resize(static_cast<std::size_t>(count));
    tag_positions.resize(static_cast<std::size_t>(count));
    for (std::size_t i = 0; i < tags.size(); ++i) {
      tag_positions[i] = v.next_pos();
      tags[i] = v.size("a node tag");
    }
    for (std::size_t i = 0; i < tags.size(); ++i) {
      Point3 xyz;
      for (double& x : xyz) x = v.real("a node coordinate", true);
      for (int k = 0; k < extra; ++k) v.real("a parametric node coordinate", false);
      state.add_node(tags[i], xyz, tag_positions[i]);
    }
    done += count;
  }
  if (done != node_count) {
    in.fail_at(v.next_pos(), "the node blocks hold ", done, " nodes but the header announces ", node_count);
  }
  in.expect_token("$EndNodes");
}

void read_msh4_elements(MshReadState& state) {
  MshScanner& in = state.in;
  if (in.binary()) in.skip_line_end();  // the binary data starts on the next line
  Msh4Values v{in};
  const std::size_t header_pos = v.next_pos();
  const std::uint64_t block_count = v.size("the number of element blocks");
  const std::uint64_t element_count = v.size("the element count");
  v.size("the minimum element tag");
  v.size("the maximum element tag");
  in.check_count(element_count, v.min_bytes(0, 2, 0), "elements", header_pos);
  in.check_count(block_count, v.min_bytes(3, 1, 0), "element blocks", header_pos);

  std::array<std::uint64_t, 4> nodes{};
  std::uint64_t done = 0;
  for (std::uint64_t b = 0; b < block_count; ++b) {
    const std::size_t block_pos = v.next_pos();
    const std::int32_t dim = v.int32("the entity dimension of an element block");
    const std::int32_t entity = v.int32("the entity tag of an element block");
    const std::size_t type_pos = v.next_pos();
    const std::int32_t type = v.int32("the element type of an element block");
    const std::uint64_t count = v.size("the element count of an element block");
    const int node_count = accepted_element_nodes(type);
    if (node_count < 0) fail_unsupported_element_type(in, type_pos, type);
    if (accepted_element_dimension(type) != dim) {
      in.fail_at(block_pos, "element block of type ", type, " (dimension ",
                 accepted_element_dimension(type), ") on an entity of dimension ", dim,
                 ": corrupt block header");
    }
    if (count > element_count - done) {
      in.fail_at(block_pos, "element block of ", count, " elements, but only ",
                 element_count - done, " of the announced ", element_count,
                 " remain: corrupt block header");
    }
    in.check_count(count, v.min_bytes(0, 1 + static_cast<std::size_t>(node_count), 0),
                   "elements in this block", block_pos);
    // Entities without a physical group, or missing from $Entities, give tag 0.
    std::int32_t physical = 0;
    const auto* physical_of = dim == 3 ? &state.volume_physical
                              : dim == 2 ? &state.surface_physical : nullptr;
    if (physical_of != nullptr) {
      const auto it = physical_of->find(entity);
      if (it != physical_of->end()) physical = it->second;
    }
    for (std::uint64_t e = 0; e < count; ++e) {
      const std::size_t pos = v.next_pos();
      const std::uint64_t element_tag = v.size("an element tag");
      for (int k = 0; k < node_count; ++k) nodes[k] = v.size("a node tag of an element");
      state.add_element(type, physical, nodes.data(), element_tag, pos, false);
    }
    done += count;
  }
  if (done != element_count) {
    in.fail_at(v.next_pos(), "the element blocks hold ", done,
               " elements but the header announces ", element_count);
  }
  in.expect_token("$EndElements");
}

}  // namespace foehn::gmsh_detail
