// write_vtp: a point cloud -> vtkPolyData of vertices -> XML file (vtk_write.cpp's writer path).

#include <cstdint>
#include <cstring>
#include <limits>
#include <set>
#include <string>

#include <vtkCellArray.h>
#include <vtkNew.h>
#include <vtkPointData.h>
#include <vtkPolyData.h>
#include <vtkTypeInt64Array.h>
#include <vtkTypeUInt8Array.h>
#include <vtkXMLPolyDataWriter.h>

#include "foehn/mesh/vtk_points.hpp"
#include "foehn/runtime/error.hpp"
#include "vtk_write_support.hpp"

namespace foehn {

namespace {

void check_integer_field(const IntegerPointField& field, std::size_t count,
                         std::set<std::string>& names) {
  if (field.name.empty()) fail(ErrorCategory::invalid_input, "integer point field without a name");
  if (!names.insert(field.name).second)
    fail(ErrorCategory::invalid_input, "duplicate point field name '", field.name, "'");
  if (field.values.size() != count)
    fail(ErrorCategory::invalid_input, "integer point field '", field.name, "' has ",
         field.values.size(), " values, expected ", count);
  if (!field.unsigned_byte) return;
  for (std::size_t i = 0; i < count; ++i) {
    if (field.values[i] < 0 || field.values[i] > 255)
      fail(ErrorCategory::invalid_input, "integer point field '", field.name, "' holds ",
           field.values[i], " at point ", i, "; a UInt8 field holds 0..255");
  }
}

template <class Array, class Value>
void add_integer_array(vtkPointData* data, const IntegerPointField& field) {
  vtkNew<Array> array;
  array->SetName(field.name.c_str());
  array->SetNumberOfTuples(vtk_detail::to_vtk_id(field.values.size(), "points"));
  for (std::size_t i = 0; i < field.values.size(); ++i)
    array->SetValue(static_cast<vtkIdType>(i), static_cast<Value>(field.values[i]));
  data->AddArray(array);
}

}  // namespace

void write_vtp(const PointCloud& cloud, const std::filesystem::path& path,
               const VtuOptions& options) {
  const std::size_t count = cloud.points.size();
  std::set<std::string> names;
  for (const MeshField& f : cloud.fields) vtk_detail::check_field(f, count, "point", names);
  for (const IntegerPointField& f : cloud.integer_fields) check_integer_field(f, count, names);

  vtkNew<vtkPolyData> polydata;
  polydata->SetPoints(vtk_detail::make_points(cloud.points, {}));
  // One vertex per point: connectivity 0, 1, ..., offsets 0, 1, ..., n.
  const vtkIdType n = vtk_detail::to_vtk_id(count, "points");
  vtkNew<vtkCellArray> vertices;
  vtkNew<vtkIdTypeArray> offsets, connectivity;
  offsets->SetNumberOfTuples(n + 1);
  connectivity->SetNumberOfTuples(n);
  for (vtkIdType i = 0; i < n; ++i) {
    offsets->SetValue(i, i);
    connectivity->SetValue(i, i);
  }
  offsets->SetValue(n, n);
  vertices->SetData(offsets, connectivity);
  polydata->SetVerts(vertices);
  vtk_detail::add_fields(polydata->GetPointData(), cloud.fields, count, {});
  for (const IntegerPointField& f : cloud.integer_fields) {
    if (f.unsigned_byte)
      add_integer_array<vtkTypeUInt8Array, std::uint8_t>(polydata->GetPointData(), f);
    else
      add_integer_array<vtkTypeInt64Array, std::int64_t>(polydata->GetPointData(), f);
  }
  vtkNew<vtkXMLPolyDataWriter> writer;
  // Int32 ids halve the vertex arrays; a cloud beyond their range needs Int64.
  if (count < static_cast<std::size_t>(std::numeric_limits<std::int32_t>::max()))
    writer->SetIdTypeToInt32();
  else
    writer->SetIdTypeToInt64();
  vtk_detail::write_xml(*writer, polydata, path, options);
}

}  // namespace foehn
