// read_vtu: VTK XML UnstructuredGrid of tetrahedra -> TetMesh.

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <limits>
#include <new>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include <vtkCellArray.h>
#include <vtkCellData.h>
#include <vtkCellType.h>
#include <vtkDataArray.h>
#include <vtkDoubleArray.h>
#include <vtkErrorCode.h>
#include <vtkFieldData.h>
#include <vtkNew.h>
#include <vtkPointData.h>
#include <vtkPoints.h>
#include <vtkUnsignedCharArray.h>
#include <vtkUnstructuredGrid.h>
#include <vtkXMLDataElement.h>
#include <vtkXMLDataParser.h>
#include <vtkXMLUnstructuredGridReader.h>

#include "foehn/mesh/vtk_io.hpp"
#include "foehn/runtime/error.hpp"
#include "vtk_messages.hpp"
#include "vtk_names.hpp"

namespace foehn {

namespace {

// VTK's XML reader only prints warnings for a file that is not XML at all (a Gmsh .msh, a
// legacy .vtk, junk) and returns an empty grid, so such files are rejected before VTK sees
// them, with a message that says what the file looks like instead.
void require_vtk_xml(const std::filesystem::path& path) {
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) {
    fail(ErrorCategory::io, "cannot read '", path.string(), "': no such file");
  }
  if (!std::filesystem::is_regular_file(path, ec)) {
    fail(ErrorCategory::io, "cannot read '", path.string(), "': not a regular file");
  }
  std::ifstream in(path, std::ios::binary);
  if (!in)
    fail(ErrorCategory::io, "cannot open '", path.string(), "' (", std::strerror(errno), ")");
  char buffer[256] = {};
  in.read(buffer, sizeof buffer);
  std::string_view head(buffer, static_cast<std::size_t>(in.gcount()));
  if (head.starts_with("\xEF\xBB\xBF")) head.remove_prefix(3);  // UTF-8 byte order mark
  while (!head.empty() && (head.front() == ' ' || head.front() == '\t' || head.front() == '\n' ||
                           head.front() == '\r')) {
    head.remove_prefix(1);
  }
  if (head.starts_with("<?xml") || head.starts_with("<VTKFile")) return;
  if (!head.empty() && in.eof() &&
      (std::string_view("<?xml").starts_with(head) ||
       std::string_view("<VTKFile").starts_with(head))) {
    fail(ErrorCategory::invalid_input, "'", path.string(), "': truncated: the file ends inside '",
         head, "'");
  }
  std::string looks_like;
  if (head.starts_with("$MeshFormat")) looks_like = " (it looks like a Gmsh .msh file)";
  if (head.starts_with("# vtk DataFile")) looks_like = " (it looks like a legacy .vtk file)";
  if (head.empty()) looks_like = " (it is empty)";
  fail(ErrorCategory::invalid_input, "'", path.string(),
       "' is not a VTK XML file: it does not start with '<?xml' or '<VTKFile'", looks_like);
}

// Every VTK XML file ends with "</VTKFile>". VTK notices a cut in inline data (the XML is
// unclosed) but not always in appended data: a file cut in its raw appended block came back
// with zeros for the missing bytes, and one cut in its closing tags read as complete.
// Longer XML without "<VTKFile" near the start is left to VTK, which says it is not VTK.
void require_closing_tag(const std::filesystem::path& path) {
  constexpr std::string_view closing_tag = "</VTKFile>";
  std::ifstream in(path, std::ios::binary | std::ios::ate);
  const std::streamoff size = in.tellg();
  std::string head(static_cast<std::size_t>(std::min<std::streamoff>(size, 512)), '\0');
  in.seekg(0);
  in.read(head.data(), static_cast<std::streamsize>(head.size()));
  if (head.find("<VTKFile") == std::string::npos) {
    if (size > static_cast<std::streamoff>(head.size())) return;
    fail(ErrorCategory::invalid_input, "'", path.string(), "': no <VTKFile> element in its ", size,
         " bytes: truncated before it, or not a VTK XML file");
  }
  in.clear();
  std::string tail(static_cast<std::size_t>(std::min<std::streamoff>(size, 256)), '\0');
  in.seekg(size - static_cast<std::streamoff>(tail.size()));
  in.read(tail.data(), static_cast<std::streamsize>(tail.size()));
  if (!in) fail(ErrorCategory::io, "cannot read the end of '", path.string(), "'");
  while (!tail.empty() && (tail.back() == ' ' || tail.back() == '\t' || tail.back() == '\n' ||
                           tail.back() == '\r')) {
    tail.pop_back();
  }
  if (tail.ends_with(closing_tag)) return;
  std::string last;  // the last bytes, printable, for the message
  for (std::size_t i = tail.size() - std::min<std::size_t>(tail.size(), 16); i < tail.size(); ++i) {
    const auto c = static_cast<unsigned char>(tail[i]);
    last += c >= 0x20 && c < 0x7f ? static_cast<char>(c) : '.';
  }
  fail(ErrorCategory::invalid_input, "'", path.string(), "': truncated: a VTK XML file ends with ",
       closing_tag, ", this one with '", last, "'");
}

// VTK sizes its arrays from the header's NumberOfPoints/NumberOfCells before it reads any data:
// a 1.5 KB file declaring a billion points made it allocate 12 GB (found by fuzzing). A file
// holds at least one byte per coordinate and three per cell (type, offset, one node) before
// compression, and no compressor VTK offers shrinks real data 10^4-fold (zlib: at most 1032),
// so larger counts are a corrupt or cut header.
void require_counts_fit_file(const std::filesystem::path& path, vtkIdType points, vtkIdType cells) {
  constexpr double max_compression_ratio = 1.0e4;
  std::error_code ec;
  const auto file_bytes = static_cast<double>(std::filesystem::file_size(path, ec));
  const double least_bytes = 3.0 * static_cast<double>(points) + 3.0 * static_cast<double>(cells);
  if (ec || points < 0 || cells < 0 || least_bytes > max_compression_ratio * file_bytes) {
    fail(ErrorCategory::invalid_input, "'", path.string(), "': its header declares ", points,
         " points and ", cells, " cells, more than a file of ", file_bytes,
         " bytes can hold (corrupt or truncated)");
  }
}

// VTK 9.1 uses the array it failed to create for an array element whose type it does not know:
// a FieldData array of type "Int33", or any element inside FieldData not named DataArray (it
// makes every one an array), crashed read_vtu with a null pointer (found by fuzzing). So every
// array's type is checked first, in the XML structure VTK's own parser gives (no array data is
// decoded). A file that does not parse is left to the reader, which reports why.
void require_known_array_types(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  vtkNew<vtkXMLDataParser> parser;
  parser->SetStream(&in);
  if (parser->Parse() == 0 || parser->GetRootElement() == nullptr) return;
  struct Pending {
    vtkXMLDataElement* element;
    bool in_field_data;
  };
  std::vector<Pending> pending{{parser->GetRootElement(), false}};  // no recursion: any depth
  while (!pending.empty()) {
    const auto [element, in_field_data] = pending.back();
    pending.pop_back();
    const char* element_name = element->GetName();
    const std::string_view tag = element_name != nullptr ? element_name : "";
    for (int i = 0; i < element->GetNumberOfNestedElements(); ++i)
      pending.push_back({element->GetNestedElement(i), tag == "FieldData"});
    if (!in_field_data && tag != "DataArray" && tag != "Array") continue;
    int type = 0;
    if (element->GetWordTypeAttribute("type", type) != 0) continue;
    const char* name = element->GetAttribute("Name");
    const char* type_name = element->GetAttribute("type");
    fail(ErrorCategory::invalid_input, "'", path.string(), "': array '",
         name != nullptr ? name : "", "' (element <", tag, ">) has ",
         type_name != nullptr ? "the unknown type '" + std::string(type_name) + "'"
                              : std::string("no type"));
  }
}

[[noreturn]] void fail_allocation(const std::filesystem::path& path) {
  fail(ErrorCategory::invalid_input, "'", path.string(),
       "': VTK could not allocate what its data headers declare (a corrupt compressed-data "
       "header, or a mesh too large for this machine's memory)");
}

std::string array_name(vtkAbstractArray* array, int index) {
  const char* name = array->GetName();
  return (name != nullptr && *name != '\0') ? std::string(name) : "array_" + std::to_string(index);
}

std::vector<double> to_doubles(vtkDataArray* array) {
  const auto count = static_cast<std::size_t>(array->GetNumberOfValues());
  std::vector<double> values(count);
  if (auto* doubles = vtkDoubleArray::SafeDownCast(array); doubles != nullptr) {
    if (count > 0) std::memcpy(values.data(), doubles->GetPointer(0), count * sizeof(double));
    return values;
  }
  const int components = array->GetNumberOfComponents();
  for (std::size_t i = 0; i < count; ++i) {
    values[i] = array->GetComponent(static_cast<vtkIdType>(i) / components,
                                    static_cast<int>(static_cast<vtkIdType>(i) % components));
  }
  return values;
}

// Integer-valued array -> int32, refusing fractions and out-of-range values.
std::vector<std::int32_t> to_int32(vtkDataArray* array, const std::filesystem::path& path,
                                   const char* what) {
  const std::vector<double> values = to_doubles(array);
  std::vector<std::int32_t> result(values.size());
  for (std::size_t i = 0; i < values.size(); ++i) {
    const double v = values[i];
    if (!(v == std::floor(v)) || v < std::numeric_limits<std::int32_t>::min() ||
        v > std::numeric_limits<std::int32_t>::max()) {
      fail(ErrorCategory::invalid_input, "'", path.string(), "': ", what, " value ", v, " at ", i,
           " is not a 32-bit integer");
    }
    result[i] = static_cast<std::int32_t>(v);
  }
  return result;
}

void read_fields(vtkDataSetAttributes* data, std::size_t count, std::vector<MeshField>& fields,
                 std::vector<std::int32_t>* tags, const std::filesystem::path& path) {
  for (int i = 0; i < data->GetNumberOfArrays(); ++i) {
    vtkDataArray* array = vtkDataArray::SafeDownCast(data->GetAbstractArray(i));
    if (array == nullptr) continue;  // string or variant arrays have no MeshField form
    const std::string name = array_name(array, i);
    if (static_cast<std::size_t>(array->GetNumberOfTuples()) != count) {
      fail(ErrorCategory::invalid_input, "'", path.string(), "': array '", name, "' has ",
           array->GetNumberOfTuples(), " tuples, expected ", count);
    }
    if (tags != nullptr && name == vtk_detail::tet_tag_name &&
        array->GetNumberOfComponents() == 1) {
      *tags = to_int32(array, path, vtk_detail::tet_tag_name);
      continue;
    }
    fields.push_back(MeshField{name, array->GetNumberOfComponents(), to_doubles(array)});
  }
}

void read_boundary(vtkFieldData* data, TetMesh& mesh, const std::filesystem::path& path) {
  vtkDataArray* faces = data->GetArray(vtk_detail::boundary_faces_name);
  vtkDataArray* tags = data->GetArray(vtk_detail::boundary_tags_name);
  if (faces == nullptr && tags == nullptr) return;
  if (faces == nullptr || tags == nullptr || faces->GetNumberOfComponents() != 3 ||
      tags->GetNumberOfComponents() != 1 ||
      faces->GetNumberOfTuples() != tags->GetNumberOfTuples()) {
    fail(ErrorCategory::invalid_input, "'", path.string(), "': inconsistent '",
         vtk_detail::boundary_faces_name, "' and '", vtk_detail::boundary_tags_name,
         "' field data");
  }
  const std::vector<std::int32_t> nodes = to_int32(faces, path, vtk_detail::boundary_faces_name);
  mesh.boundary_tags = to_int32(tags, path, vtk_detail::boundary_tags_name);
  mesh.boundary_faces.resize(mesh.boundary_tags.size());
  for (std::size_t f = 0; f < mesh.boundary_faces.size(); ++f) {
    for (std::size_t k = 0; k < 3; ++k) {
      const std::int32_t n = nodes[3 * f + k];
      if (n < 0 || static_cast<std::size_t>(n) >= mesh.node_count()) {
        fail(ErrorCategory::invalid_input, "'", path.string(), "': boundary face ", f,
             " refers to node ", n, " but the file has ", mesh.node_count(), " points");
      }
      mesh.boundary_faces[f][k] = n;
    }
  }
}

// The grid's points as the mesh's nodes; every coordinate must be finite.
void copy_points(vtkUnstructuredGrid* grid, std::size_t point_count, TetMesh& mesh,
                 const std::filesystem::path& path) {
  mesh.nodes.resize(point_count);
  if (point_count > 0) {
    const std::vector<double> xyz = to_doubles(grid->GetPoints()->GetData());
    std::memcpy(mesh.nodes.data(), xyz.data(), xyz.size() * sizeof(double));
    for (std::size_t i = 0; i < xyz.size(); ++i) {
      if (!std::isfinite(xyz[i])) {
        fail(ErrorCategory::invalid_input, "'", path.string(), "': point ", i / 3, " has ",
             "xyz"[i % 3], " = ", xyz[i], ": coordinates must be finite");
      }
    }
  }
}

// The grid's cells as the mesh's tets: tetrahedra only, each referring to existing points.
void copy_tets(vtkUnstructuredGrid* grid, std::size_t point_count, std::size_t cell_count,
               TetMesh& mesh, const std::filesystem::path& path) {
  if (cell_count > 0) {
    vtkUnsignedCharArray* types = grid->GetCellTypesArray();
    for (std::size_t c = 0; c < cell_count; ++c) {
      const int type = types->GetValue(static_cast<vtkIdType>(c));
      if (type != VTK_TETRA) {
        fail(ErrorCategory::invalid_input, "'", path.string(), "': cell ", c, " has VTK cell type ",
             type, "; only tetrahedra (VTK_TETRA = ", VTK_TETRA, ") are accepted");
      }
    }
  }
  mesh.tets.resize(cell_count);
  vtkCellArray* cells = grid->GetCells();
  for (std::size_t c = 0; c < cell_count; ++c) {
    vtkIdType size = 0;
    const vtkIdType* points = nullptr;
    cells->GetCellAtId(static_cast<vtkIdType>(c), size, points);
    if (size != 4) {
      fail(ErrorCategory::invalid_input, "'", path.string(), "': tetrahedron ", c, " has ", size,
           " points");
    }
    for (std::size_t k = 0; k < 4; ++k) {
      if (points[k] < 0 || static_cast<std::size_t>(points[k]) >= point_count) {
        fail(ErrorCategory::invalid_input, "'", path.string(), "': tetrahedron ", c,
             " refers to point ", points[k], " but the file has ", point_count, " points");
      }
      mesh.tets[c][k] = static_cast<std::int32_t>(points[k]);
    }
  }
}

}  // namespace

TetMesh read_vtu(const std::filesystem::path& path) {
  require_vtk_xml(path);
  require_closing_tag(path);

  vtk_detail::VtkMessageCapture capture;
  require_known_array_types(path);
  vtkNew<vtkXMLUnstructuredGridReader> reader;
  reader->SetFileName(path.c_str());
  try {
    reader->UpdateInformation();  // the XML structure and counts (and FieldData time values)
    reader->SetupUpdateExtent(0, 1, 0);
    require_counts_fit_file(path, reader->GetNumberOfPoints(), reader->GetNumberOfCells());
    reader->Update();
  } catch (const std::bad_alloc&) {
    // VTK sizes its decompression buffers (and the block table, std::length_error beyond its
    // maximum) from the sizes in a compressed array's header, unchecked: a corrupt one asked for
    // 2^64 bytes (found by fuzzing), and neither exception is VTK's to catch.
    fail_allocation(path);
  } catch (const std::length_error&) {
    fail_allocation(path);
  }
  const unsigned long code = reader->GetErrorCode();
  if (code != vtkErrorCode::NoError || !capture.empty()) {
    fail(ErrorCategory::invalid_input, "VTK could not read '", path.string(), "' as a .vtu file",
         code != vtkErrorCode::NoError
             ? std::string(" (") + vtkErrorCode::GetStringFromErrorCode(code) + ")"
             : std::string(),
         capture.empty() ? std::string() : ": " + capture.messages());
  }
  vtkUnstructuredGrid* grid = reader->GetOutput();
  if (grid == nullptr)
    fail(ErrorCategory::invalid_input, "VTK read nothing from '", path.string(), "'");

  TetMesh mesh;
  const auto point_count = static_cast<std::size_t>(grid->GetNumberOfPoints());
  const auto cell_count = static_cast<std::size_t>(grid->GetNumberOfCells());
  if (point_count > static_cast<std::size_t>(std::numeric_limits<std::int32_t>::max()) ||
      cell_count > static_cast<std::size_t>(std::numeric_limits<std::int32_t>::max())) {
    fail(ErrorCategory::invalid_input, "'", path.string(), "' has more points or cells than ",
         "32-bit indices allow");
  }
  copy_points(grid, point_count, mesh, path);
  copy_tets(grid, point_count, cell_count, mesh, path);
  read_fields(grid->GetPointData(), point_count, mesh.node_fields, nullptr, path);
  read_fields(grid->GetCellData(), cell_count, mesh.tet_fields, &mesh.tet_tags, path);
  read_boundary(grid->GetFieldData(), mesh, path);
  return mesh;
}

}  // namespace foehn
