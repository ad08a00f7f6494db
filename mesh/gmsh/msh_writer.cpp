// write_gmsh: MSH 2.2 and 4.1, ASCII and binary, through AtomicOutputFile.
//
// Node i is written with tag i + 1. Tags become physical tags; each distinct tag also gets an
// elementary entity of its own (entity number = rank of the tag among the distinct tags of
// that dimension, from 1), which MSH 4.1 needs to carry the physical tag and Gmsh needs to
// keep regions apart when it re-saves the file. Element order is kept, so reading the file
// back gives the same arrays.

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <limits>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "foehn/mesh/gmsh.hpp"
#include "foehn/runtime/atomic_file.hpp"
#include "foehn/runtime/error.hpp"

namespace foehn {

namespace {

// Buffers output and writes each value either as text (followed by a space; end_line()
// turns the last space into a newline) or as native-order bytes.
class MshSink {
 public:
  MshSink(std::ostream& out, bool binary) : out_(out), binary_(binary) { buffer_.reserve(buffer_limit + 64); }

  bool binary() const { return binary_; }
  void text(std::string_view s) {
    buffer_.append(s);
    maybe_flush();
  }
  void int32(std::int32_t v) { binary_ ? raw(v) : number(v); }
  void size(std::uint64_t v) { binary_ ? raw(v) : number(v); }
  void real(double v) { binary_ ? raw(v) : number(v); }
  void end_line() {
    if (binary_) return;
    if (!buffer_.empty() && buffer_.back() == ' ') buffer_.back() = '\n';
    else buffer_.push_back('\n');
  }
  // Binary data is followed by a newline before the "$End..." line.
  void end_binary_data() {
    if (binary_) buffer_.push_back('\n');
  }
  void flush() {
    out_.write(buffer_.data(), static_cast<std::streamsize>(buffer_.size()));
    buffer_.clear();
  }

 private:
  static constexpr std::size_t buffer_limit = std::size_t{1} << 20;

  template <typename T>
  void raw(T v) {
    const auto* bytes = reinterpret_cast<const char*>(&v);
    buffer_.append(bytes, sizeof(T));
    maybe_flush();
  }
  template <typename T>
  void number(T v) {
    // Shortest text that reads back to the same double: round trips are exact.
    // Formatted in place (32 characters hold any double or 64-bit integer).
    const std::size_t start = buffer_.size();
    buffer_.resize(start + 32);
    const auto result = std::to_chars(buffer_.data() + start, buffer_.data() + buffer_.size(), v);
    buffer_.resize(static_cast<std::size_t>(result.ptr - buffer_.data()));
    buffer_.push_back(' ');
    maybe_flush();
  }
  void maybe_flush() {
    if (buffer_.size() >= buffer_limit) flush();
  }

  std::ostream& out_;
  bool binary_;
  std::string buffer_;
};

template <typename... Parts>
[[noreturn]] void fail_write(const std::filesystem::path& path, Parts&&... parts) {
  fail(ErrorCategory::invalid_input, "cannot write Gmsh file '", path.string(), "': ",
       std::forward<Parts>(parts)...);
}

void check_writable(const TetMesh& mesh, const std::filesystem::path& path, GmshVersion version) {
  if (mesh.tets.empty()) fail_write(path, "the mesh has no tetrahedra");
  if (!mesh.tet_tags.empty() && mesh.tet_tags.size() != mesh.tets.size()) {
    fail_write(path, mesh.tet_tags.size(), " tet tags for ", mesh.tets.size(), " tets");
  }
  if (!mesh.boundary_tags.empty() && mesh.boundary_tags.size() != mesh.boundary_faces.size()) {
    fail_write(path, mesh.boundary_tags.size(), " boundary tags for ",
               mesh.boundary_faces.size(), " boundary faces");
  }
  constexpr auto int32_max = static_cast<std::size_t>(std::numeric_limits<std::int32_t>::max());
  if (mesh.nodes.size() > int32_max ||
      (version == GmshVersion::msh22 && mesh.tets.size() + mesh.boundary_faces.size() > int32_max)) {
    fail_write(path, "too many nodes or elements for 32-bit Gmsh tags");
  }
  const auto node_count = static_cast<std::int64_t>(mesh.nodes.size());
  for (std::size_t i = 0; i < mesh.nodes.size(); ++i) {
    for (const double x : mesh.nodes[i]) {
      if (!std::isfinite(x)) fail_write(path, "node ", i, " has a non-finite coordinate ", x);
    }
  }
  const auto check_nodes = [&](const auto& elements, const char* kind) {
    for (std::size_t e = 0; e < elements.size(); ++e) {
      for (const std::int32_t n : elements[e]) {
        if (n < 0 || n >= node_count) {
          fail_write(path, kind, " ", e, " refers to node ", n, ", but the mesh has ", node_count, " nodes");
        }
      }
    }
  };
  check_nodes(mesh.tets, "tet");
  check_nodes(mesh.boundary_faces, "boundary face");
  const auto check_tags = [&](const std::vector<std::int32_t>& tags, const char* kind) {
    const auto it = std::find_if(tags.begin(), tags.end(), [](std::int32_t t) { return t < 0; });
    if (it != tags.end()) {
      fail_write(path, kind, " tag ", *it, " of element ", it - tags.begin(),
                 " is negative: Gmsh physical tags are positive (0 means none)");
    }
  };
  check_tags(mesh.tet_tags, "tet");
  check_tags(mesh.boundary_tags, "boundary");
}

// The elements of one dimension with their tags and the entity each tag gets.
struct TaggedElements {
  std::vector<std::int32_t> tags;      // one per element (0 when the mesh has none)
  std::vector<std::int32_t> distinct;  // sorted distinct tags; entity of tag = rank + 1

  TaggedElements(const std::vector<std::int32_t>& mesh_tags, std::size_t count)
      : tags(mesh_tags.empty() ? std::vector<std::int32_t>(count, 0) : mesh_tags), distinct(tags) {
    std::sort(distinct.begin(), distinct.end());
    distinct.erase(std::unique(distinct.begin(), distinct.end()), distinct.end());
  }
  std::int32_t entity(std::int32_t tag) const {
    return static_cast<std::int32_t>(std::lower_bound(distinct.begin(), distinct.end(), tag) - distinct.begin()) + 1;
  }
};

void write_header(MshSink& out, const char* version) {
  out.text("$MeshFormat\n");
  out.text(version);
  out.text(out.binary() ? " 1 8\n" : " 0 8\n");
  if (out.binary()) {
    out.int32(1);  // byte-order marker
    out.text("\n");
  }
  out.text("$EndMeshFormat\n");
}

template <typename Element>
void write_msh2_elements(MshSink& out, const std::vector<Element>& elements,
                         const TaggedElements& tagged, std::int32_t type, std::int32_t& next_id) {
  if (elements.empty()) return;
  if (out.binary()) {  // one block: (type, count, 2 tags)
    out.int32(type);
    out.int32(static_cast<std::int32_t>(elements.size()));
    out.int32(2);
  }
  for (std::size_t e = 0; e < elements.size(); ++e) {
    out.int32(next_id++);
    if (!out.binary()) {
      out.int32(type);
      out.int32(2);
    }
    out.int32(tagged.tags[e]);                  // physical
    out.int32(tagged.entity(tagged.tags[e]));   // elementary
    for (const std::int32_t n : elements[e]) out.int32(n + 1);
    out.end_line();
  }
}

void write_msh2(MshSink& out, const TetMesh& mesh, const TaggedElements& tets,
                const TaggedElements& faces) {
  write_header(out, "2.2");
  out.text("$Nodes\n" + std::to_string(mesh.nodes.size()) + "\n");
  for (std::size_t i = 0; i < mesh.nodes.size(); ++i) {
    out.int32(static_cast<std::int32_t>(i + 1));
    for (const double x : mesh.nodes[i]) out.real(x);
    out.end_line();
  }
  out.end_binary_data();
  out.text("$EndNodes\n$Elements\n" +
           std::to_string(mesh.tets.size() + mesh.boundary_faces.size()) + "\n");
  std::int32_t next_id = 1;
  write_msh2_elements(out, mesh.boundary_faces, faces, 2, next_id);
  write_msh2_elements(out, mesh.tets, tets, 4, next_id);
  out.end_binary_data();
  out.text("$EndElements\n");
}

template <typename Element>
void write_msh4_entities(MshSink& out, const TetMesh& mesh, const std::vector<Element>& elements,
                         const TaggedElements& tagged) {
  // Bounding box of each entity's nodes: part of the format, used by Gmsh for its geometry.
  constexpr double inf = std::numeric_limits<double>::infinity();
  std::vector<std::array<double, 6>> boxes(tagged.distinct.size(), {inf, inf, inf, -inf, -inf, -inf});
  for (std::size_t e = 0; e < elements.size(); ++e) {
    auto& box = boxes[static_cast<std::size_t>(tagged.entity(tagged.tags[e]) - 1)];
    for (const std::int32_t n : elements[e]) {
      for (int c = 0; c < 3; ++c) {
        box[c] = std::min(box[c], mesh.nodes[n][c]);
        box[c + 3] = std::max(box[c + 3], mesh.nodes[n][c]);
      }
    }
  }
  for (std::size_t k = 0; k < tagged.distinct.size(); ++k) {
    out.int32(static_cast<std::int32_t>(k + 1));
    for (const double x : boxes[k]) out.real(x);
    const std::int32_t physical = tagged.distinct[k];
    out.size(physical == 0 ? 0 : 1);  // tag 0: no physical group
    if (physical != 0) out.int32(physical);
    out.size(0);  // no bounding entities: the mesh is all there is
    out.end_line();
  }
}

// Consecutive elements with the same tag form one block, so the element order survives.
template <typename Element>
void write_msh4_blocks(MshSink& out, const std::vector<Element>& elements,
                       const TaggedElements& tagged, std::int32_t dim, std::int32_t type,
                       std::uint64_t& next_id) {
  std::size_t begin = 0;
  while (begin < elements.size()) {
    std::size_t end = begin + 1;
    while (end < elements.size() && tagged.tags[end] == tagged.tags[begin]) ++end;
    out.int32(dim);
    out.int32(tagged.entity(tagged.tags[begin]));
    out.int32(type);
    out.size(end - begin);
    out.end_line();
    for (std::size_t e = begin; e < end; ++e) {
      out.size(next_id++);
      for (const std::int32_t n : elements[e]) out.size(static_cast<std::uint64_t>(n) + 1);
      out.end_line();
    }
    begin = end;
  }
}

template <typename Element>
std::size_t count_runs(const std::vector<Element>& elements, const TaggedElements& tagged) {
  std::size_t runs = elements.empty() ? 0 : 1;
  for (std::size_t e = 1; e < elements.size(); ++e) runs += tagged.tags[e] != tagged.tags[e - 1];
  return runs;
}

void write_msh4(MshSink& out, const TetMesh& mesh, const TaggedElements& tets,
                const TaggedElements& faces) {
  write_header(out, "4.1");
  out.text("$Entities\n");
  for (const std::size_t count : {std::size_t{0}, std::size_t{0}, faces.distinct.size(), tets.distinct.size()}) {
    out.size(count);
  }
  out.end_line();
  write_msh4_entities(out, mesh, mesh.boundary_faces, faces);
  write_msh4_entities(out, mesh, mesh.tets, tets);
  out.end_binary_data();

  // All nodes in one block on the first volume entity: Gmsh accepts nodes on any entity.
  const std::uint64_t node_count = mesh.nodes.size();
  out.text("$EndEntities\n$Nodes\n");
  for (const std::uint64_t v : {std::uint64_t{1}, node_count, std::uint64_t{1}, node_count}) out.size(v);
  out.end_line();
  out.int32(3);
  out.int32(1);
  out.int32(0);
  out.size(node_count);
  out.end_line();
  for (std::uint64_t i = 1; i <= node_count; ++i) {
    out.size(i);
    out.end_line();
  }
  for (const Point3& p : mesh.nodes) {
    for (const double x : p) out.real(x);
    out.end_line();
  }
  out.end_binary_data();

  const std::uint64_t element_count = mesh.tets.size() + mesh.boundary_faces.size();
  out.text("$EndNodes\n$Elements\n");
  out.size(count_runs(mesh.boundary_faces, faces) + count_runs(mesh.tets, tets));
  out.size(element_count);
  out.size(1);
  out.size(element_count);
  out.end_line();
  std::uint64_t next_id = 1;
  write_msh4_blocks(out, mesh.boundary_faces, faces, 2, 2, next_id);
  write_msh4_blocks(out, mesh.tets, tets, 3, 4, next_id);
  out.end_binary_data();
  out.text("$EndElements\n");
}

}  // namespace

void write_gmsh(const TetMesh& mesh, const std::filesystem::path& path, GmshFormat format) {
  check_writable(mesh, path, format.version);
  const TaggedElements tets(mesh.tet_tags, mesh.tets.size());
  const TaggedElements faces(mesh.boundary_tags, mesh.boundary_faces.size());
  AtomicOutputFile file(path);
  MshSink out(file.stream(), format.binary);
  if (format.version == GmshVersion::msh22) {
    write_msh2(out, mesh, tets, faces);
  } else {
    write_msh4(out, mesh, tets, faces);
  }
  out.flush();
  file.commit();
}

}  // namespace foehn
