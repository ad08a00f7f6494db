#pragma once
// Private to mesh/vtk: what the .vtu and .vtp writers share (vtk_write.cpp defines it).

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <set>
#include <string>
#include <vector>

#include <vtkDataSetAttributes.h>
#include <vtkPoints.h>
#include <vtkSmartPointer.h>
#include <vtkXMLWriter.h>

#include "foehn/mesh/tet_mesh.hpp"
#include "foehn/mesh/vtk_io.hpp"

namespace foehn::vtk_detail {

// invalid_input "too many <what> for VTK" when count exceeds vtkIdType.
vtkIdType to_vtk_id(std::size_t count, const char* what);
// The coordinates as a vtkPoints of doubles; selection empty: all, else the listed ones in order.
vtkSmartPointer<vtkPoints> make_points(const std::vector<Point3>& nodes,
                                       const std::vector<std::int32_t>& selection);
// invalid_input for a field without a name, a repeated name (names collects them), fewer than one
// component or values.size() != count * components. `kind` names it ("node", "tet", "point").
void check_field(const MeshField& field, std::size_t count, const char* kind,
                 std::set<std::string>& names);
// The fields as double arrays; the first with 1, 3 and 9 components become the active scalars,
// vectors and tensors. selection as make_points'.
void add_fields(vtkDataSetAttributes* data, const std::vector<MeshField>& fields, std::size_t count,
                const std::vector<std::int32_t>& selection);
// Writes `data` with `writer` (its id type already chosen) through AtomicOutputFile, with the
// encoding and compression of `options`; VTK's messages become foehn::Error (io).
void write_xml(vtkXMLWriter& writer, vtkDataObject* data, const std::filesystem::path& path,
               const VtuOptions& options);

}  // namespace foehn::vtk_detail
