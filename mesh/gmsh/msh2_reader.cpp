// MSH 2.2 $Nodes and $Elements, ASCII and binary.
//
// ASCII:  $Nodes / count / "tag x y z" per node; $Elements / count /
//         "tag type ntags tag... node..." per element.
// Binary: the counts stay ASCII lines; nodes are (int tag, 3 doubles); elements come in
//         blocks of one type: header (int type, int count, int ntags), then per element
//         (int tag, ntags ints, node ints).

#include <array>
#include <limits>

#include "msh_reader_state.hpp"

namespace foehn::gmsh_detail {

namespace {

constexpr std::int64_t int32_min = std::numeric_limits<std::int32_t>::min();
constexpr std::int64_t int32_max = std::numeric_limits<std::int32_t>::max();
constexpr std::int64_t int64_max = std::numeric_limits<std::int64_t>::max();
// More tags than this per element is corruption, not a mesh (Gmsh writes 2 to 4).
constexpr std::int64_t max_element_tags = 1000;

void read_binary_nodes(MshReadState& state, std::int64_t count) {
  MshScanner& in = state.in;
  in.skip_line_end();
  for (std::int64_t i = 0; i < count; ++i) {
    const std::size_t pos = in.position();
    const std::int32_t tag = in.read_i32("a node tag");
    if (tag < 0) in.fail_at(pos, "node tag ", tag, " is negative");
    Point3 xyz;
    for (double& x : xyz) x = in.read_f64("a node coordinate", true);
    state.add_node(static_cast<std::uint64_t>(tag), xyz, pos);
  }
}

void read_ascii_nodes(MshReadState& state, std::int64_t count) {
  MshScanner& in = state.in;
  for (std::int64_t i = 0; i < count; ++i) {
    const auto tag = static_cast<std::uint64_t>(in.read_int("a node tag", 0, int64_max));
    const std::size_t pos = in.token_start();
    Point3 xyz;
    for (double& x : xyz) x = in.read_double("a node coordinate", true);
    state.add_node(tag, xyz, pos);
  }
}

void read_ascii_elements(MshReadState& state, std::int64_t count) {
  MshScanner& in = state.in;
  std::array<std::uint64_t, 4> nodes{};
  for (std::int64_t i = 0; i < count; ++i) {
    const auto element_tag = static_cast<std::uint64_t>(in.read_int("an element tag", 0, int64_max));
    const std::size_t pos = in.token_start();
    const std::int64_t type = in.read_int("an element type", int32_min, int32_max);
    const int node_count = accepted_element_nodes(type);
    if (node_count < 0) fail_unsupported_element_type(in, in.token_start(), type);
    const std::int64_t tag_count = in.read_int("the number of element tags", 0, max_element_tags);
    std::int32_t physical = 0;
    for (std::int64_t t = 0; t < tag_count; ++t) {
      const auto value = static_cast<std::int32_t>(in.read_int("an element tag value", int32_min, int32_max));
      if (t == 0) physical = value;  // MSH 2.2: physical tag first, then elementary
    }
    for (int k = 0; k < node_count; ++k) {
      nodes[k] = static_cast<std::uint64_t>(in.read_int("a node tag of an element", 0, int64_max));
    }
    state.add_element(type, physical, nodes.data(), element_tag, pos, true);
  }
}

void read_binary_elements(MshReadState& state, std::int64_t count) {
  MshScanner& in = state.in;
  in.skip_line_end();
  std::array<std::uint64_t, 4> nodes{};
  std::int64_t done = 0;
  while (done < count) {
    const std::size_t header_pos = in.position();
    const std::int32_t type = in.read_i32("an element block type");
    const int node_count = accepted_element_nodes(type);
    if (node_count < 0) fail_unsupported_element_type(in, header_pos, type);
    const std::int32_t block = in.read_i32("an element block count");
    const std::int32_t tag_count = in.read_i32("an element block tag count");
    if (block <= 0 || block > count - done) {
      in.fail_at(header_pos, "element block of ", block, " elements, but ", count - done,
                 " of the announced ", count, " remain: corrupt block header");
    }
    if (tag_count < 0 || tag_count > max_element_tags) {
      in.fail_at(header_pos, "element block with ", tag_count, " tags per element: corrupt block header");
    }
    const std::size_t element_bytes = 4 * static_cast<std::size_t>(1 + tag_count + node_count);
    in.check_count(static_cast<std::uint64_t>(block), element_bytes, "elements in this block", header_pos);
    for (std::int32_t e = 0; e < block; ++e) {
      const std::size_t pos = in.position();
      const std::int32_t element_tag = in.read_i32("an element tag");
      std::int32_t physical = 0;
      for (std::int32_t t = 0; t < tag_count; ++t) {
        const std::int32_t value = in.read_i32("an element tag value");
        if (t == 0) physical = value;
      }
      for (int k = 0; k < node_count; ++k) {
        const std::int32_t node = in.read_i32("a node tag of an element");
        if (node < 0) in.fail_at(pos, "element ", element_tag, " has a negative node tag ", node);
        nodes[k] = static_cast<std::uint64_t>(node);
      }
      state.add_element(type, physical, nodes.data(), static_cast<std::uint64_t>(element_tag), pos, true);
    }
    done += block;
  }
}

}  // namespace

void read_msh2_nodes(MshReadState& state) {
  MshScanner& in = state.in;
  const std::int64_t count = in.read_int("the node count", 0, int32_max);
  // At least "t x y z" plus separators in ASCII; exactly 4 + 3 * 8 bytes in binary.
  in.check_count(static_cast<std::uint64_t>(count), in.binary() ? 28 : 8, "nodes", in.token_start());
  state.node_tags.prepare(static_cast<std::size_t>(count), 0);
  state.mesh.nodes.reserve(static_cast<std::size_t>(count));
  if (in.binary()) {
    read_binary_nodes(state, count);
  } else {
    read_ascii_nodes(state, count);
  }
  in.expect_token("$EndNodes");
}

void read_msh2_elements(MshReadState& state) {
  MshScanner& in = state.in;
  const std::int64_t count = in.read_int("the element count", 0, int64_max);
  // At least "tag type ntags node" (ASCII) or 3 ints of block header + 2 ints (binary).
  in.check_count(static_cast<std::uint64_t>(count), 8, "elements", in.token_start());
  if (in.binary()) {
    read_binary_elements(state, count);
  } else {
    read_ascii_elements(state, count);
  }
  in.expect_token("$EndElements");
}

}  // namespace foehn::gmsh_detail
