#pragma once
// VTK XML output (and input) of tetrahedral meshes, for ParaView and for converting meshes.
//
// Everything goes through the VTK library itself (vtkXMLUnstructuredGridWriter/Reader), so
// the files are exactly what ParaView expects. Every file is written through
// AtomicOutputFile: an interrupted or failed write never leaves a half-written file behind.
// VTK's own warning and error messages are captured and turned into foehn::Error instead of
// being printed (or popping up a window on Windows).

#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include "foehn/mesh/tet_mesh.hpp"

namespace foehn {

enum class VtuEncoding {
  binary_appended,  // raw binary in an appended section; compact and fast (default)
  ascii             // human-readable; doubles printed with round-trip precision
};

struct VtuOptions {
  VtuEncoding encoding = VtuEncoding::binary_appended;
  bool compress = true;  // zlib, only for binary_appended
  // 1 (fastest) .. 9 (smallest), zlib's scale. 1 because it is 2-3x faster than VTK's default
  // 5 for files only 5-7% larger (555k tets: 0.45 s / 6.5 MB against 1.3 s / 6.1 MB).
  int compression_level = 1;
};

// Writes `mesh` as an XML UnstructuredGrid (.vtu) of VTK_TETRA cells.
//  - point data: node_fields (1 component -> scalars, 3 -> vectors, 9 -> tensors; the first
//    field of each kind becomes the active attribute of that kind),
//  - cell data: tet_fields, plus "tet_tag" (Int32) when tet_tags is non-empty,
//  - field data: the boundary triangles and their tags ("foehn_boundary_faces",
//    "foehn_boundary_tags"), so that read_vtu returns the complete mesh.
// Throws foehn::Error: invalid_input for an inconsistent mesh (node index out of range,
// field of the wrong size, duplicate or reserved field name), io when the folder is missing
// or unwritable or VTK fails to write.
void write_vtu(const TetMesh& mesh, const std::filesystem::path& path,
               const VtuOptions& options = {});

// Writes the boundary triangles (VTK_TRIANGLE) with the cell array "boundary_tag" and the
// node_fields restricted to the boundary nodes, so that terrain, top, inflow, ... can be
// coloured in ParaView. Throws like write_vtu; invalid_input when the mesh has no boundary
// faces or boundary_tags does not have one tag per face.
void write_boundary_vtu(const TetMesh& mesh, const std::filesystem::path& path,
                        const VtuOptions& options = {});

// Reads a .vtu written by write_vtu or any VTK tool, provided all its cells are VTK_TETRA.
// Points become nodes (as double), "tet_tag" becomes tet_tags, the other numeric point and
// cell arrays become node_fields and tet_fields (as double); non-numeric arrays are ignored.
// Boundary faces come back only from files written by write_vtu.
// Throws foehn::Error naming the file: io for a missing/unreadable file or one VTK cannot
// parse, invalid_input for a file that is not VTK XML (e.g. a Gmsh .msh), not an
// UnstructuredGrid, or that has non-tetrahedral cells or inconsistent data.
TetMesh read_vtu(const std::filesystem::path& path);

// Writes a ParaView collection (.pvd) listing one dataset file per time, for time series.
// File names are written as given; ParaView resolves relative names against the folder of
// the .pvd file. Throws invalid_input for a non-finite time or an empty file name, io on
// write failure.
void write_pvd(const std::filesystem::path& path,
               const std::vector<std::pair<double, std::string>>& time_and_file);

}  // namespace foehn
