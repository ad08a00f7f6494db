// write_vtu and write_boundary_vtu: TetMesh -> vtkUnstructuredGrid -> XML file, through
// AtomicOutputFile so that a failed write leaves nothing behind.

#include <cstdint>
#include <cstring>
#include <limits>
#include <set>
#include <string>
#include <vector>

#include <vtkCellArray.h>
#include <vtkCellData.h>
#include <vtkCellType.h>
#include <vtkDoubleArray.h>
#include <vtkErrorCode.h>
#include <vtkFieldData.h>
#include <vtkNew.h>
#include <vtkPointData.h>
#include <vtkPoints.h>
#include <vtkSmartPointer.h>
#include <vtkTypeInt32Array.h>
#include <vtkUnstructuredGrid.h>
#include <vtkXMLUnstructuredGridWriter.h>

#include "foehn/mesh/vtk_io.hpp"
#include "foehn/runtime/atomic_file.hpp"
#include "foehn/runtime/error.hpp"
#include "vtk_messages.hpp"
#include "vtk_names.hpp"
#include "vtk_write_support.hpp"

namespace foehn {

namespace vtk_detail {

// The coordinate and face arrays are copied to VTK as flat arrays.
static_assert(sizeof(Point3) == 3 * sizeof(double), "Point3 must be three packed doubles");
static_assert(sizeof(Triangle) == 3 * sizeof(std::int32_t), "Triangle must be packed");

vtkIdType to_vtk_id(std::size_t count, const char* what) {
  if (count > static_cast<std::size_t>(std::numeric_limits<vtkIdType>::max())) {
    fail(ErrorCategory::invalid_input, "too many ", what, " for VTK: ", count);
  }
  return static_cast<vtkIdType>(count);
}

vtkSmartPointer<vtkPoints> make_points(const std::vector<Point3>& nodes,
                                       const std::vector<std::int32_t>& selection) {
  // selection empty: all nodes; otherwise the listed nodes in the listed order.
  const std::size_t count = selection.empty() ? nodes.size() : selection.size();
  auto coordinates = vtkSmartPointer<vtkDoubleArray>::New();
  coordinates->SetNumberOfComponents(3);
  coordinates->SetNumberOfTuples(to_vtk_id(count, "nodes"));
  double* out = coordinates->GetPointer(0);
  if (selection.empty()) {
    if (count > 0) std::memcpy(out, nodes.data(), count * sizeof(Point3));
  } else {
    for (std::size_t i = 0; i < count; ++i) {
      const Point3& p = nodes[static_cast<std::size_t>(selection[i])];
      out[3 * i] = p[0];
      out[3 * i + 1] = p[1];
      out[3 * i + 2] = p[2];
    }
  }
  auto points = vtkSmartPointer<vtkPoints>::New();
  points->SetData(coordinates);
  return points;
}

void check_field(const MeshField& field, std::size_t count, const char* kind,
                 std::set<std::string>& names) {
  if (field.name.empty()) fail(ErrorCategory::invalid_input, kind, " field without a name");
  // VTK writes names into XML attributes unescaped: one of "<>& or a control character made a
  // file that neither ParaView nor read_vtu could parse (and a NUL cut the name short).
  for (const char c : field.name) {
    if (c == '"' || c == '<' || c == '>' || c == '&' || c == '\'' ||
        static_cast<unsigned char>(c) < 0x20 || c == 0x7f) {
      fail(ErrorCategory::invalid_input, kind, " field name '", field.name,
           "' holds a character VTK cannot write (\" < > & ' or a control character)");
    }
  }
  if (!names.insert(field.name).second) {
    fail(ErrorCategory::invalid_input, "duplicate or reserved ", kind, " field name '", field.name,
         "'");
  }
  if (field.components < 1) {
    fail(ErrorCategory::invalid_input, kind, " field '", field.name, "' has ", field.components,
         " components");
  }
  if (field.values.size() != count * static_cast<std::size_t>(field.components)) {
    fail(ErrorCategory::invalid_input, kind, " field '", field.name, "' has ", field.values.size(),
         " values, expected ", count, " x ", field.components);
  }
}

// Adds the fields as double arrays; the first field with 1, 3 and 9 components becomes the
// active scalars, vectors and tensors, which is what ParaView colours and glyphs by default.
void add_fields(vtkDataSetAttributes* data, const std::vector<MeshField>& fields, std::size_t count,
                const std::vector<std::int32_t>& selection) {
  bool have_scalars = false, have_vectors = false, have_tensors = false;
  for (const MeshField& field : fields) {
    const auto components = static_cast<std::size_t>(field.components);
    const std::size_t tuples = selection.empty() ? count : selection.size();
    vtkNew<vtkDoubleArray> array;
    array->SetName(field.name.c_str());
    array->SetNumberOfComponents(field.components);
    array->SetNumberOfTuples(to_vtk_id(tuples, "field values"));
    double* out = array->GetPointer(0);
    if (selection.empty()) {
      if (!field.values.empty())
        std::memcpy(out, field.values.data(), field.values.size() * sizeof(double));
    } else {
      for (std::size_t i = 0; i < tuples; ++i) {
        const std::size_t from = static_cast<std::size_t>(selection[i]) * components;
        std::memcpy(out + i * components, field.values.data() + from, components * sizeof(double));
      }
    }
    data->AddArray(array);
    if (field.components == 1 && !have_scalars) {
      data->SetActiveScalars(field.name.c_str());
      have_scalars = true;
    } else if (field.components == 3 && !have_vectors) {
      data->SetActiveVectors(field.name.c_str());
      have_vectors = true;
    } else if (field.components == 9 && !have_tensors) {
      data->SetActiveTensors(field.name.c_str());
      have_tensors = true;
    }
  }
}

void write_xml(vtkXMLWriter& writer, vtkDataObject* data, const std::filesystem::path& path,
               const VtuOptions& options) {
  if (options.compression_level < 1 || options.compression_level > 9) {
    fail(ErrorCategory::invalid_input, "VTU compression level must be 1..9, got ",
         options.compression_level);
  }
  AtomicOutputFile file(path);  // io error naming the path when the folder is unusable
  vtk_detail::VtkMessageCapture capture;
  writer.SetFileName(file.temporary_path().c_str());
  writer.SetInputDataObject(data);
  // 64-bit block headers: an uncompressed array over 4 GiB must not overflow its size field.
  writer.SetHeaderTypeToUInt64();
  if (options.encoding == VtuEncoding::ascii) {
    writer.SetDataModeToAscii();
    writer.SetCompressorTypeToNone();
  } else {
    writer.SetDataModeToAppended();
    writer.EncodeAppendedDataOff();  // raw bytes, not base64: a third smaller and faster
    if (options.compress) {
      writer.SetCompressorTypeToZLib();
      writer.SetCompressionLevel(options.compression_level);
    } else {
      writer.SetCompressorTypeToNone();
    }
  }
  const int written = writer.Write();
  const unsigned long code = writer.GetErrorCode();
  if (written != 1 || code != vtkErrorCode::NoError || !capture.empty()) {
    // VTK names a full disk by its own code; say it as the system would.
    const char* reason = code == vtkErrorCode::OutOfDiskSpaceError
                             ? "No space left on device"
                             : vtkErrorCode::GetStringFromErrorCode(code);
    fail(ErrorCategory::io, "VTK could not write '", path.string(), "'",
         code != vtkErrorCode::NoError ? std::string(" (") + reason + ")" : std::string(),
         capture.empty() ? std::string() : ": " + capture.messages());
  }
  file.commit();
}

}  // namespace vtk_detail

namespace {

using vtk_detail::add_fields;
using vtk_detail::check_field;
using vtk_detail::make_points;
using vtk_detail::to_vtk_id;

void write_grid(vtkUnstructuredGrid* grid, const std::filesystem::path& path,
                const VtuOptions& options) {
  vtkNew<vtkXMLUnstructuredGridWriter> writer;
  writer->SetIdTypeToInt32();  // TetMesh indices are int32; halves the connectivity size
  vtk_detail::write_xml(*writer, grid, path, options);
}

// Cells of one fixed size; the node indices must already be validated.
template <std::size_t N>
void set_cells(vtkUnstructuredGrid* grid, int vtk_type,
               const std::vector<std::array<std::int32_t, N>>& cells,
               const std::vector<std::int32_t>& node_renumbering) {
  const std::size_t count = cells.size();
  if (count * N > static_cast<std::size_t>(std::numeric_limits<std::int32_t>::max())) {
    fail(ErrorCategory::invalid_input, "too many cells for 32-bit VTK connectivity: ", count);
  }
  vtkNew<vtkTypeInt32Array> offsets;
  vtkNew<vtkTypeInt32Array> connectivity;
  offsets->SetNumberOfTuples(static_cast<vtkIdType>(count + 1));
  connectivity->SetNumberOfTuples(static_cast<vtkIdType>(count * N));
  std::int32_t* offset = offsets->GetPointer(0);
  std::int32_t* node = connectivity->GetPointer(0);
  for (std::size_t c = 0; c < count; ++c) {
    offset[c] = static_cast<std::int32_t>(c * N);
    for (std::size_t k = 0; k < N; ++k) {
      const std::int32_t n = cells[c][k];
      node[c * N + k] =
          node_renumbering.empty() ? n : node_renumbering[static_cast<std::size_t>(n)];
    }
  }
  offset[count] = static_cast<std::int32_t>(count * N);
  vtkNew<vtkCellArray> array;
  array->SetData(offsets, connectivity);
  grid->SetCells(vtk_type, array);
}

template <std::size_t N>
void check_node_indices(const std::vector<std::array<std::int32_t, N>>& cells,
                        std::size_t node_count, const char* what) {
  for (std::size_t c = 0; c < cells.size(); ++c) {
    for (std::int32_t n : cells[c]) {
      if (n < 0 || static_cast<std::size_t>(n) >= node_count) {
        fail(ErrorCategory::invalid_input, what, " ", c, " refers to node ", n,
             " but the mesh has ", node_count, " nodes");
      }
    }
  }
}

vtkSmartPointer<vtkTypeInt32Array> make_int_array(const char* name, int components,
                                                  const std::int32_t* values, std::size_t tuples) {
  auto array = vtkSmartPointer<vtkTypeInt32Array>::New();
  array->SetName(name);
  array->SetNumberOfComponents(components);
  array->SetNumberOfTuples(to_vtk_id(tuples, "values"));
  if (tuples > 0) {
    std::memcpy(array->GetPointer(0), values,
                tuples * static_cast<std::size_t>(components) * sizeof(std::int32_t));
  }
  return array;
}

void check_boundary(const TetMesh& mesh) {
  if (mesh.boundary_tags.size() != mesh.boundary_faces.size()) {
    fail(ErrorCategory::invalid_input, "the mesh has ", mesh.boundary_faces.size(),
         " boundary faces but ", mesh.boundary_tags.size(), " boundary tags");
  }
  check_node_indices(mesh.boundary_faces, mesh.node_count(), "boundary face");
}

}  // namespace

void write_vtu(const TetMesh& mesh, const std::filesystem::path& path, const VtuOptions& options) {
  check_node_indices(mesh.tets, mesh.node_count(), "tet");
  check_boundary(mesh);
  if (!mesh.tet_tags.empty() && mesh.tet_tags.size() != mesh.tet_count()) {
    fail(ErrorCategory::invalid_input, "the mesh has ", mesh.tet_count(), " tets but ",
         mesh.tet_tags.size(), " tet tags");
  }
  std::set<std::string> point_names;
  for (const MeshField& f : mesh.node_fields)
    check_field(f, mesh.node_count(), "node", point_names);
  std::set<std::string> cell_names{vtk_detail::tet_tag_name};
  for (const MeshField& f : mesh.tet_fields) check_field(f, mesh.tet_count(), "tet", cell_names);

  vtkNew<vtkUnstructuredGrid> grid;
  grid->SetPoints(make_points(mesh.nodes, {}));
  set_cells(grid, VTK_TETRA, mesh.tets, {});
  add_fields(grid->GetPointData(), mesh.node_fields, mesh.node_count(), {});
  add_fields(grid->GetCellData(), mesh.tet_fields, mesh.tet_count(), {});
  if (!mesh.tet_tags.empty()) {
    grid->GetCellData()->AddArray(
        make_int_array(vtk_detail::tet_tag_name, 1, mesh.tet_tags.data(), mesh.tet_count()));
  }
  if (!mesh.boundary_faces.empty()) {
    // Field data is ignored by ParaView's rendering but lets read_vtu restore the boundary
    // conditions, so a .vtu is a complete mesh file.
    grid->GetFieldData()->AddArray(make_int_array(vtk_detail::boundary_faces_name, 3,
                                                  mesh.boundary_faces.front().data(),
                                                  mesh.boundary_face_count()));
    grid->GetFieldData()->AddArray(make_int_array(
        vtk_detail::boundary_tags_name, 1, mesh.boundary_tags.data(), mesh.boundary_face_count()));
  }
  write_grid(grid, path, options);
}

void write_boundary_vtu(const TetMesh& mesh, const std::filesystem::path& path,
                        const VtuOptions& options) {
  check_boundary(mesh);
  if (mesh.boundary_faces.empty()) {
    fail(ErrorCategory::invalid_input, "cannot write '", path.string(),
         "': the mesh has no boundary faces");
  }
  std::set<std::string> point_names;
  for (const MeshField& f : mesh.node_fields)
    check_field(f, mesh.node_count(), "node", point_names);

  // Only the nodes on the boundary, in their original order, so the file stays small.
  std::vector<std::int32_t> compact(mesh.node_count(), -1);
  for (const Triangle& face : mesh.boundary_faces) {
    for (std::int32_t n : face) compact[static_cast<std::size_t>(n)] = 0;
  }
  std::vector<std::int32_t> selection;
  for (std::size_t n = 0; n < compact.size(); ++n) {
    if (compact[n] < 0) continue;
    compact[n] = static_cast<std::int32_t>(selection.size());
    selection.push_back(static_cast<std::int32_t>(n));
  }

  vtkNew<vtkUnstructuredGrid> grid;
  grid->SetPoints(make_points(mesh.nodes, selection));
  set_cells(grid, VTK_TRIANGLE, mesh.boundary_faces, compact);
  add_fields(grid->GetPointData(), mesh.node_fields, mesh.node_count(), selection);
  grid->GetCellData()->AddArray(make_int_array(
      vtk_detail::boundary_tag_name, 1, mesh.boundary_tags.data(), mesh.boundary_face_count()));
  grid->GetCellData()->SetActiveScalars(vtk_detail::boundary_tag_name);
  write_grid(grid, path, options);
}

}  // namespace foehn
