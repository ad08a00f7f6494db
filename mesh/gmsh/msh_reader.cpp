// read_gmsh: file header, section dispatch and the parts shared by the MSH 2.2 and 4.1
// section readers (element filter, node tag map, mesh assembly).

#include <charconv>
#include <limits>
#include <string>

#include "foehn/mesh/gmsh.hpp"
#include "msh_reader_state.hpp"

namespace foehn::gmsh_detail {

int accepted_element_nodes(std::int64_t type) noexcept {
  switch (type) {
    case msh_point:
      return 1;
    case msh_line:
      return 2;
    case msh_triangle:
      return 3;
    case msh_tetrahedron:
      return 4;
    default:
      return -1;
  }
}

int accepted_element_dimension(std::int64_t type) noexcept {
  switch (type) {
    case msh_point:
      return 0;
    case msh_line:
      return 1;
    case msh_triangle:
      return 2;
    case msh_tetrahedron:
      return 3;
    default:
      return -1;
  }
}

namespace {
// Names of the Gmsh element types people meet in practice, so the error says what the file
// holds (a second-order mesh, a hex mesh) rather than just a number.
const char* element_type_name(std::int64_t type) {
  switch (type) {
    case 3:
      return "4-node quadrangle";
    case 5:
      return "8-node hexahedron";
    case 6:
      return "6-node prism";
    case 7:
      return "5-node pyramid";
    case 8:
      return "3-node second-order line";
    case 9:
      return "6-node second-order triangle";
    case 10:
      return "9-node second-order quadrangle";
    case 11:
      return "10-node second-order tetrahedron";
    case 12:
      return "27-node second-order hexahedron";
    case 13:
      return "18-node second-order prism";
    case 14:
      return "14-node second-order pyramid";
    case 16:
      return "8-node second-order quadrangle";
    case 17:
      return "20-node second-order hexahedron";
    case 18:
      return "15-node second-order prism";
    case 19:
      return "13-node second-order pyramid";
    case 29:
      return "20-node third-order tetrahedron";
    default:
      return "a type Foehn does not know";
  }
}
}  // namespace

void fail_unsupported_element_type(const MshScanner& in, std::size_t pos, std::int64_t type) {
  in.fail_at(pos, "element type ", type, " (", element_type_name(type),
             ") is not supported: Foehn reads linear tetrahedra (type 4) and triangles "
             "(type 2) and skips points (15) and lines (1); mesh with first-order elements "
             "(Mesh.ElementOrder = 1) and without recombination");
}

void NodeTagMap::prepare(std::size_t node_count, std::uint64_t max_tag_hint) {
  // Dense up to a few times the node count: 16 bytes per node at most, and the count was
  // already checked against the file size.
  const std::uint64_t limit = 4 * static_cast<std::uint64_t>(node_count) + 1024;
  const std::uint64_t size = (max_tag_hint > 0 && max_tag_hint < limit) ? max_tag_hint + 1 : limit;
  dense_.assign(static_cast<std::size_t>(size), -1);
  sparse_.clear();
}

bool NodeTagMap::insert(std::uint64_t tag, std::int32_t index) {
  if (tag < dense_.size()) {
    std::int32_t& slot = dense_[static_cast<std::size_t>(tag)];
    if (slot >= 0) return false;
    slot = index;
    return true;
  }
  return sparse_.emplace(tag, index).second;
}

void MshReadState::add_node(std::uint64_t tag, const Point3& xyz, std::size_t pos) {
  const std::size_t index = mesh.nodes.size();
  if (index >= static_cast<std::size_t>(std::numeric_limits<std::int32_t>::max())) {
    in.fail_at(pos, "more than 2^31-1 nodes: TetMesh indices are 32-bit");
  }
  if (!node_tags.insert(tag, static_cast<std::int32_t>(index))) {
    in.fail_at(pos, "node tag ", tag, " is defined twice (first as node number ",
               node_tags.find(tag) + 1, " of the file)");
  }
  mesh.nodes.push_back(xyz);
}

std::int32_t MshReadState::node_index(std::uint64_t tag, std::uint64_t element_tag,
                                      std::size_t pos) const {
  const std::int32_t index = node_tags.find(tag);
  if (index < 0) {
    in.fail_at(pos, "element ", element_tag, " refers to node tag ", tag,
               ", which $Nodes does not define");
  }
  return index;
}

void MshReadState::add_element(std::int64_t type, std::int32_t physical, const std::uint64_t* tags,
                               std::uint64_t element_tag, std::size_t pos, bool drop_repeats) {
  if (type == msh_tetrahedron) {
    const Tet tet{node_index(tags[0], element_tag, pos), node_index(tags[1], element_tag, pos),
                  node_index(tags[2], element_tag, pos), node_index(tags[3], element_tag, pos)};
    if (drop_repeats && !mesh.tets.empty() && mesh.tets.back() == tet &&
        mesh.tet_tags.back() != physical) {
      return;
    }
    mesh.tets.push_back(tet);
    mesh.tet_tags.push_back(physical);
  } else if (type == msh_triangle) {
    const Triangle face{node_index(tags[0], element_tag, pos),
                        node_index(tags[1], element_tag, pos),
                        node_index(tags[2], element_tag, pos)};
    if (drop_repeats && !mesh.boundary_faces.empty() && mesh.boundary_faces.back() == face &&
        mesh.boundary_tags.back() != physical) {
      return;
    }
    mesh.boundary_faces.push_back(face);
    mesh.boundary_tags.push_back(physical);
  } else {
    // Points and lines are skipped, but a reference to a missing node is still corruption.
    for (int i = 0; i < accepted_element_nodes(type); ++i) node_index(tags[i], element_tag, pos);
  }
}

namespace {

// What a file that is not a Gmsh mesh looks like from its first non-blank byte on.
std::string describe_foreign_file(std::string_view data, std::string_view first_token) {
  if (data.empty()) return "the file is empty or blank";
  const std::string_view head = data.substr(0, 512);
  if (head.find("<VTKFile") != std::string_view::npos) {
    return "it is a VTK XML file (" + printable(first_token) + "...), not a Gmsh mesh";
  }
  if (head.rfind("<?xml", 0) == 0 || head.front() == '<')
    return "it looks like an XML file, not a Gmsh mesh";
  if (head.rfind("# vtk DataFile", 0) == 0) return "it is a legacy VTK file, not a Gmsh mesh";
  if (first_token == "$NOD" || first_token == "$NOE") {
    return "it is an MSH 1.0 file, which Foehn does not read (supported: MSH 2.2 and 4.1; "
           "re-save with gmsh <file> -save -format msh41 -o <new>.msh)";
  }
  for (const char c : head.substr(0, 64)) {
    const auto byte = static_cast<unsigned char>(c);
    if (byte == 0 || (byte < 0x20 && c != '\n' && c != '\r' && c != '\t')) {
      return "it starts with binary data ('" + printable(head, 16) + "'), not '$MeshFormat'";
    }
  }
  const std::string_view first_line = head.substr(0, head.find('\n'));
  return "it starts with '" + printable(first_line, 60) + "', not '$MeshFormat'";
}

// Parses $MeshFormat; returns the major version (2 or 4).
int read_mesh_format(MshScanner& in) {
  const std::string_view first = in.next_token();
  // "$MeshFor" and nothing else: a Gmsh file cut inside its first marker.
  if (!first.empty() && first != "$MeshFormat" && in.remaining() == 0 &&
      std::string_view("$MeshFormat").starts_with(first)) {
    in.fail_truncated("$MeshFormat");
  }
  if (first != "$MeshFormat") {
    in.fail_at(in.token_start(), "not a Gmsh mesh file: ",
               describe_foreign_file(in.data().substr(in.token_start()), first));
  }
  in.set_section("$MeshFormat");
  const std::string_view version_token = in.next_token();
  const std::size_t version_pos = in.token_start();
  // "2." at the very end is a cut "2.2 0 8", not an unsupported version.
  if (version_token.empty() || in.remaining() == 0) {
    in.fail_truncated("the format version, file type and data size");
  }
  double version = 0.0;
  const auto [end, ec] =
      std::from_chars(version_token.data(), version_token.data() + version_token.size(), version);
  if (ec != std::errc() || end != version_token.data() + version_token.size()) {
    in.fail_at(version_pos, "expected the format version (such as 4.1) but found '",
               printable(version_token), "'");
  }
  int major = 0;
  if (version == 2.2) {
    major = 2;
  } else if (version == 4.1) {
    major = 4;
  } else {
    in.fail_at(version_pos, "MSH version ", printable(version_token),
               " is not supported: Foehn reads MSH 2.2 and 4.1 (re-save with gmsh <file> "
               "-save -format msh41 -o <new>.msh)");
  }
  const std::int64_t file_type = in.read_int("the file type (0 ASCII, 1 binary)", 0, 1);
  const std::int64_t data_size = in.read_int("the data size", 0, 1 << 20);
  if (data_size != 8) {
    in.fail_at(in.token_start(), "data size ", data_size,
               " is not supported: Foehn reads files with 8-byte doubles and size_t");
  }
  if (file_type == 1) {
    in.set_binary(true);
    in.skip_line_end();
    const std::size_t marker_pos = in.position();
    const std::int32_t one = in.read_i32("the binary byte-order marker (int 1)");
    if (one != 1) {
      if (one == 0x01000000) {
        in.fail_at(marker_pos,
                   "the binary file was written with the opposite byte order "
                   "(endianness); re-save it as ASCII or on this kind of machine");
      }
      in.fail_at(marker_pos, "the binary byte-order marker is ", one,
                 " instead of 1: corrupt file");
    }
  }
  in.expect_token("$EndMeshFormat");
  in.set_section({});
  return major;
}

void read_sections(MshReadState& state, int major) {
  MshScanner& in = state.in;
  while (true) {
    const std::string_view token = in.next_token();
    if (token.empty()) break;
    const std::size_t pos = in.token_start();
    if (token.front() != '$') {
      in.fail_at(pos, "expected a section such as $Nodes or $Elements but found '",
                 printable(token), "'");
    }
    // A section marker that ends the file ("$", "$Nod"): no section ends without its $End.
    if (in.remaining() == 0) {
      in.fail_truncated("the section that '" + printable(token) + "' starts");
    }
    const std::string_view name = token.substr(1);
    in.set_section(token);  // a view into the file data, which outlives the scanner's use
    if (name == "Nodes") {
      if (state.have_nodes) in.fail_at(pos, "a second $Nodes section: Foehn expects one");
      if (major == 2) {
        read_msh2_nodes(state);
      } else {
        read_msh4_nodes(state);
      }
      state.have_nodes = true;
    } else if (name == "Elements") {
      if (!state.have_nodes) in.fail_at(pos, "$Elements comes before $Nodes");
      if (state.have_elements) in.fail_at(pos, "a second $Elements section: Foehn expects one");
      state.elements_pos = pos;
      if (major == 2) {
        read_msh2_elements(state);
      } else {
        read_msh4_elements(state);
      }
      state.have_elements = true;
    } else if (name == "Entities" && major == 4) {
      if (state.have_entities || state.have_elements) {
        in.fail_at(pos, "$Entities must come once, before $Elements");
      }
      read_msh4_entities(state);
      state.have_entities = true;
    } else if (name == "PartitionedEntities") {
      in.fail_at(pos,
                 "partitioned meshes are not supported: save the mesh without "
                 "partitions (Foehn partitions it itself)");
    } else if (name == "MeshFormat" || name.rfind("End", 0) == 0 || name.empty()) {
      in.fail_at(pos, "unexpected '", printable(token), "' between sections");
    } else {
      in.skip_section(name);  // $PhysicalNames, $Periodic, $NodeData, ...: not needed
    }
    in.set_section({});
  }
  const std::size_t end = in.data().size();
  if (!state.have_nodes) in.fail_at(end, "no $Nodes section: the file is truncated or not a mesh");
  if (!state.have_elements) {
    in.fail_at(end, "no $Elements section: the file is truncated or not a mesh");
  }
  if (state.mesh.tets.empty()) {
    in.fail_at(state.elements_pos,
               "no linear tetrahedra (element type 4) in $Elements: Foehn "
               "needs a 3D tetrahedral mesh (gmsh -3), and only elements in "
               "physical groups are saved unless Mesh.SaveAll is set");
  }
}

}  // namespace
}  // namespace foehn::gmsh_detail

namespace foehn {

TetMesh read_gmsh(const std::filesystem::path& path) {
  using namespace gmsh_detail;
  MshScanner in(path, load_file(path));
  MshReadState state(in);
  const int major = read_mesh_format(in);
  read_sections(state, major);
  return std::move(state.mesh);
}

}  // namespace foehn
