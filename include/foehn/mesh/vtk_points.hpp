#pragma once
// Point clouds as VTK XML PolyData (.vtp), for air parcels and tracer parcels in ParaView.
//
// Each point is one VTK_VERTEX cell, so ParaView draws the points as they are (no Glyph filter
// needed); its data are double arrays (the first scalar is the active one) and integer arrays
// such as a parcel id (Int64) or a status (UInt8). Written through VTK's own writer and
// AtomicOutputFile, like write_vtu (vtk_io.hpp): a failed write leaves no file behind.
//
//   PointCloud cloud;
//   cloud.points = {{x, y, z}, ...};
//   cloud.fields.push_back({"pressure", 1, pressures});
//   cloud.integer_fields.push_back({"id", ids});
//   write_vtp(cloud, "out/parcels_0000.vtp");
//   write_pvd("out/parcels.pvd", {{0.0, "parcels_0000.vtp"}, ...});   // the time series

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "foehn/mesh/tet_mesh.hpp"
#include "foehn/mesh/vtk_io.hpp"

namespace foehn {

struct IntegerPointField {
  std::string name;
  std::vector<std::int64_t> values;  // one per point
  bool unsigned_byte = false;        // stored as UInt8 (flags, statuses; values 0..255)
};

struct PointCloud {
  std::vector<Point3> points;                     // coordinates, in the units the user views
  std::vector<MeshField> fields;                  // points.size() x components doubles each
  std::vector<IntegerPointField> integer_fields;  // points.size() values each
};

// Throws foehn::Error: invalid_input for a field of the wrong size, a repeated or empty name,
// or a UInt8 field with a value outside 0..255; io when the folder is missing or unwritable or
// VTK fails to write.
void write_vtp(const PointCloud& cloud, const std::filesystem::path& path,
               const VtuOptions& options = {});

}  // namespace foehn
