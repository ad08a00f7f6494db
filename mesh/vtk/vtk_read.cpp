// read_vtu: VTK XML UnstructuredGrid of tetrahedra -> TetMesh.

#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <limits>
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
  if (!in) fail(ErrorCategory::io, "cannot open '", path.string(), "' (", std::strerror(errno), ")");
  char buffer[256] = {};
  in.read(buffer, sizeof buffer);
  std::string_view head(buffer, static_cast<std::size_t>(in.gcount()));
  if (head.starts_with("\xEF\xBB\xBF")) head.remove_prefix(3);  // UTF-8 byte order mark
  while (!head.empty() && (head.front() == ' ' || head.front() == '\t' || head.front() == '\n' ||
                           head.front() == '\r')) {
    head.remove_prefix(1);
  }
  if (head.starts_with("<?xml") || head.starts_with("<VTKFile")) return;
  std::string looks_like;
  if (head.starts_with("$MeshFormat")) looks_like = " (it looks like a Gmsh .msh file)";
  if (head.starts_with("# vtk DataFile")) looks_like = " (it looks like a legacy .vtk file)";
  if (head.empty()) looks_like = " (it is empty)";
  fail(ErrorCategory::invalid_input, "'", path.string(),
       "' is not a VTK XML file: it does not start with '<?xml' or '<VTKFile'", looks_like);
}

std::string array_name(vtkAbstractArray* array, int index) {
  const char* name = array->GetName();
  return (name != nullptr && *name != '\0') ? std::string(name)
                                            : "array_" + std::to_string(index);
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
      fail(ErrorCategory::invalid_input, "'", path.string(), "': ", what, " value ", v,
           " at ", i, " is not a 32-bit integer");
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
    if (tags != nullptr && name == vtk_detail::tet_tag_name && array->GetNumberOfComponents() == 1) {
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

}  // namespace

TetMesh read_vtu(const std::filesystem::path& path) {
  require_vtk_xml(path);

  vtk_detail::VtkMessageCapture capture;
  vtkNew<vtkXMLUnstructuredGridReader> reader;
  reader->SetFileName(path.c_str());
  reader->Update();
  const unsigned long code = reader->GetErrorCode();
  if (code != vtkErrorCode::NoError || !capture.empty()) {
    fail(ErrorCategory::invalid_input, "VTK could not read '", path.string(), "' as a .vtu file",
         code != vtkErrorCode::NoError
             ? std::string(" (") + vtkErrorCode::GetStringFromErrorCode(code) + ")"
             : std::string(),
         capture.empty() ? std::string() : ": " + capture.messages());
  }
  vtkUnstructuredGrid* grid = reader->GetOutput();
  if (grid == nullptr) fail(ErrorCategory::invalid_input, "VTK read nothing from '", path.string(), "'");

  TetMesh mesh;
  const auto point_count = static_cast<std::size_t>(grid->GetNumberOfPoints());
  const auto cell_count = static_cast<std::size_t>(grid->GetNumberOfCells());
  if (point_count > static_cast<std::size_t>(std::numeric_limits<std::int32_t>::max()) ||
      cell_count > static_cast<std::size_t>(std::numeric_limits<std::int32_t>::max())) {
    fail(ErrorCategory::invalid_input, "'", path.string(), "' has more points or cells than ",
         "32-bit indices allow");
  }
  mesh.nodes.resize(point_count);
  if (point_count > 0) {
    const std::vector<double> xyz = to_doubles(grid->GetPoints()->GetData());
    std::memcpy(mesh.nodes.data(), xyz.data(), xyz.size() * sizeof(double));
  }

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

  read_fields(grid->GetPointData(), point_count, mesh.node_fields, nullptr, path);
  read_fields(grid->GetCellData(), cell_count, mesh.tet_fields, &mesh.tet_tags, path);
  read_boundary(grid->GetFieldData(), mesh, path);
  return mesh;
}

}  // namespace foehn
