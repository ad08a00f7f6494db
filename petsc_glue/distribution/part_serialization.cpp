// pack_part / unpack_part: plain arrays back to back, each preceded by its element count.
// Sender and receiver are the same program on the same kind of machine, so values are copied
// in native byte order.

#include "part_serialization.hpp"

#include <cstdint>
#include <cstring>
#include <string>
#include <type_traits>

#include "foehn/runtime/error.hpp"

namespace foehn::petsc::detail {

namespace {

class ByteWriter {
 public:
  template <typename T>
  void value(const T& v) {
    static_assert(std::is_trivially_copyable_v<T>);
    append(&v, sizeof v);
  }
  template <typename T>
  void array(const std::vector<T>& values) {
    static_assert(std::is_trivially_copyable_v<T>);
    value(static_cast<std::uint64_t>(values.size()));
    if (!values.empty()) append(values.data(), values.size() * sizeof(T));
  }
  void string(const std::string& text) {
    value(static_cast<std::uint64_t>(text.size()));
    append(text.data(), text.size());
  }
  void fields(const std::vector<MeshField>& list) {
    value(static_cast<std::uint64_t>(list.size()));
    for (const MeshField& field : list) {
      string(field.name);
      value(static_cast<std::int32_t>(field.components));
      array(field.values);
    }
  }
  std::vector<std::byte> take() { return std::move(bytes_); }

 private:
  void append(const void* data, std::size_t count) {
    const auto* from = static_cast<const std::byte*>(data);
    bytes_.insert(bytes_.end(), from, from + count);
  }
  std::vector<std::byte> bytes_;
};

class ByteReader {
 public:
  explicit ByteReader(std::span<const std::byte> bytes) : bytes_(bytes) {}

  template <typename T>
  T value() {
    T v;
    copy_out(&v, sizeof v);
    return v;
  }
  template <typename T>
  std::vector<T> array() {
    const std::size_t count = length(sizeof(T));
    std::vector<T> values(count);
    if (count > 0) copy_out(values.data(), count * sizeof(T));
    return values;
  }
  std::string string() {
    std::string text(length(1), '\0');
    if (!text.empty()) copy_out(text.data(), text.size());
    return text;
  }
  std::vector<MeshField> fields() {
    std::vector<MeshField> list(length(1));
    for (MeshField& field : list) {
      field.name = string();
      field.components = value<std::int32_t>();
      field.values = array<double>();
    }
    return list;
  }
  void expect_end() const {
    if (at_ != bytes_.size())
      fail(ErrorCategory::internal, "mesh part has ", bytes_.size() - at_,
           " unexpected bytes at its end");
  }

 private:
  // An element count, checked against the bytes left so a corrupt count cannot allocate wildly.
  std::size_t length(std::size_t element_bytes) {
    const auto count = value<std::uint64_t>();
    if (count > (bytes_.size() - at_) / element_bytes)
      fail(ErrorCategory::internal, "mesh part truncated: ", count, " elements of ", element_bytes,
           " bytes announced, ", bytes_.size() - at_, " bytes left");
    return static_cast<std::size_t>(count);
  }
  void copy_out(void* into, std::size_t count) {
    if (count > bytes_.size() - at_)
      fail(ErrorCategory::internal, "mesh part truncated at byte ", at_, " of ", bytes_.size());
    std::memcpy(into, bytes_.data() + at_, count);
    at_ += count;
  }
  std::span<const std::byte> bytes_;
  std::size_t at_ = 0;
};

}  // namespace

std::vector<std::byte> pack_part(const DistributedMesh& part) {
  ByteWriter out;
  out.value(part.owned_nodes);
  out.value(part.global_nodes);
  out.value(part.global_tets);
  out.value(part.global_boundary_faces);
  out.value(part.first_owned_global);
  out.array(part.ownership_ranges);
  out.array(part.global_of_local);
  out.array(part.input_node_of_local);
  out.array(part.input_tet_of_local);
  out.array(part.input_boundary_face_of_local);
  out.array(part.owner_of_local);
  const TetMesh& mesh = part.local;
  out.array(mesh.nodes);
  out.array(mesh.tets);
  out.array(mesh.tet_tags);
  out.array(mesh.boundary_faces);
  out.array(mesh.boundary_tags);
  out.fields(mesh.node_fields);
  out.fields(mesh.tet_fields);
  return out.take();
}

DistributedMesh unpack_part(std::span<const std::byte> bytes) {
  ByteReader in(bytes);
  DistributedMesh part;
  part.owned_nodes = in.value<std::int32_t>();
  part.global_nodes = in.value<std::int64_t>();
  part.global_tets = in.value<std::int64_t>();
  part.global_boundary_faces = in.value<std::int64_t>();
  part.first_owned_global = in.value<std::int64_t>();
  part.ownership_ranges = in.array<std::int64_t>();
  part.global_of_local = in.array<std::int64_t>();
  part.input_node_of_local = in.array<std::int64_t>();
  part.input_tet_of_local = in.array<std::int64_t>();
  part.input_boundary_face_of_local = in.array<std::int64_t>();
  part.owner_of_local = in.array<std::int32_t>();
  TetMesh& mesh = part.local;
  mesh.nodes = in.array<Point3>();
  mesh.tets = in.array<Tet>();
  mesh.tet_tags = in.array<std::int32_t>();
  mesh.boundary_faces = in.array<Triangle>();
  mesh.boundary_tags = in.array<std::int32_t>();
  mesh.node_fields = in.fields();
  mesh.tet_fields = in.fields();
  in.expect_end();
  return part;
}

}  // namespace foehn::petsc::detail
