#pragma once
// XDMF descriptions of the core's HDF5 files, so ParaView (and VisIt) open them directly: an
// XDMF file is a small XML text that says which HDF5 data sets hold a grid's topology,
// geometry and node fields (XDMF 3 model; docs/mountain_wave_io.md, "Opening the HDF5 files").
//
//   write_mesh_topology_file("out/mountainwave_mesh.h5", input_mesh);     // once per run
//   write_xdmf("out/checkpoint_000100.xmf", time, {checkpoint_grid(...)});
//
// Data items name their HDF5 file relative to the .xmf's folder, so a folder of outputs can be
// moved as a whole. Files are written atomically (AtomicOutputFile).
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "foehn/mesh/tet_mesh.hpp"
#include "foehn/petsc/distributed_mesh.hpp"

namespace foehn::mountainwave {

// One HDF5 data set as an XDMF data item: "<file>:<path>" of shape `dims`.
struct XdmfDataItem {
  std::string file;     // relative to the .xmf
  std::string dataset;  // "/nodes/velocity"
  std::vector<std::uint64_t> dims;
  bool integer = false;  // Int (32-bit) rather than Float (64-bit)
};

struct XdmfAttribute {
  std::string name;
  XdmfDataItem data;  // node-centred; Vector when the grid is unstructured and its last dim is 3
};

enum class XdmfTopology { tetrahedra, rectilinear_2d, rectilinear_3d };

struct XdmfGrid {
  std::string name;
  XdmfTopology topology = XdmfTopology::tetrahedra;
  XdmfDataItem connectivity;  // tetrahedra: tets x 4 node indices (0-based)
  // tetrahedra: one item, nodes x 3 (XYZ); rectilinear: the axes x, y (, z), each 1-D.
  std::vector<XdmfDataItem> geometry;
  std::vector<XdmfAttribute> attributes;
};

// Writes `grids` (one: a uniform grid; several: a spatial collection) at time `time`.
// invalid_input for a grid whose items do not fit its topology (connectivity not T x 4, an
// attribute with another node count than the geometry, rectilinear axes not 1-D); io when the
// file cannot be written.
void write_xdmf(const std::filesystem::path& path, double time, const std::vector<XdmfGrid>& grids);

// The mesh's nodes (/coordinates, nodes x 3 float64, m) and tets (/tets, tets x 4 int32, 0-based)
// in the input numbering, the topology that checkpoint XDMF files point to. io when the file
// cannot be written.
void write_mesh_topology_file(const std::filesystem::path& path, const TetMesh& mesh);

// The same file from a mesh that no rank holds whole (distribute_generated_mountain_mesh): rank
// 0 writes its piece and then each other rank's, one at a time, so it never holds more than one
// rank's part. Needs global numbers equal to input numbers and each rank's tets a contiguous run
// of input tets (internal error otherwise). Collective; an error on any rank is raised on all.
void write_mesh_topology_file(const std::filesystem::path& path,
                              const petsc::DistributedMesh& mesh);

}  // namespace foehn::mountainwave

namespace foehn::mountainwave {

// Rank 0 / not collective: writes "<h5 without .h5>.xmf" beside a file the core wrote, after
// reading which data sets it holds (so the description always matches the file):
//  - a checkpoint (write_checkpoint): tets from `topology_file` (write_mesh_topology_file, in
//    the same input numbering), nodes from /nodes/coordinates, every /nodes and /extra field;
//  - a sections file (SectionSampler::write_sections): the horizontal sections as a 3-D
//    rectilinear grid (x, y, heights) and the vertical section y = y0 as a 2-D grid (x, z).
// Returns the .xmf's path. invalid_input / io as the HDF5 readers and write_xdmf throw.
std::filesystem::path write_checkpoint_xdmf(const std::filesystem::path& checkpoint,
                                            const std::filesystem::path& topology_file);
std::filesystem::path write_sections_xdmf(const std::filesystem::path& sections);

}  // namespace foehn::mountainwave
