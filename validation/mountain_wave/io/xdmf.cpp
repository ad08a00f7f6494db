#include "io/xdmf.hpp"

#include <cmath>
#include <cstdio>
#include <sstream>

#include "foehn/runtime/atomic_file.hpp"
#include "foehn/runtime/error.hpp"
#include "foehn/runtime/xml_text.hpp"
#include "io/hdf5_support.hpp"

namespace foehn::mountainwave {

namespace {

std::string dimensions_text(const std::vector<std::uint64_t>& dims) {
  std::string text;
  for (const std::uint64_t d : dims) {
    if (!text.empty()) text += ' ';
    text += std::to_string(d);
  }
  return text;
}

std::uint64_t product(const std::vector<std::uint64_t>& dims) {
  std::uint64_t n = 1;
  for (const std::uint64_t d : dims) n *= d;
  return n;
}

void put_item(std::ostringstream& out, const XdmfDataItem& item, const char* indent) {
  out << indent << "<DataItem Dimensions=\"" << dimensions_text(item.dims) << "\" NumberType=\""
      << (item.integer ? "Int\" Precision=\"4\"" : "Float\" Precision=\"8\"") << " Format=\"HDF\">"
      << xml_escaped(item.file) << ':' << xml_escaped(item.dataset) << "</DataItem>\n";
}

// The node count of the grid, checking that its items fit its topology.
std::uint64_t check_grid(const XdmfGrid& grid, const std::filesystem::path& path) {
  const auto bad = [&](const auto&... what) {
    fail(ErrorCategory::invalid_input, "XDMF '", path.string(), "', grid '", grid.name,
         "': ", what...);
  };
  std::vector<std::uint64_t> node_dims;
  if (grid.topology == XdmfTopology::tetrahedra) {
    if (grid.connectivity.dims.size() != 2 || grid.connectivity.dims[1] != 4 ||
        !grid.connectivity.integer)
      bad("the connectivity must be integer, tets x 4");
    if (grid.geometry.size() != 1 || grid.geometry[0].dims.size() != 2 ||
        grid.geometry[0].dims[1] != 3)
      bad("the geometry must be one item of nodes x 3");
    node_dims = {grid.geometry[0].dims[0]};
  } else {
    const std::size_t axes = grid.topology == XdmfTopology::rectilinear_3d ? 3 : 2;
    if (grid.geometry.size() != axes) bad("needs ", axes, " axes");
    // Data are stored slowest axis first: (z,) y, x for axes given as x, y (, z).
    for (std::size_t a = axes; a-- > 0;) {
      if (grid.geometry[a].dims.size() != 1) bad("axis ", a, " is not 1-D");
      node_dims.push_back(grid.geometry[a].dims[0]);
    }
  }
  const std::uint64_t nodes = product(node_dims);
  if (nodes == 0) bad("the grid has no nodes");
  for (const XdmfAttribute& a : grid.attributes) {
    const std::uint64_t values = product(a.data.dims);
    if (a.name.empty() || values % nodes != 0 || values / nodes == 0)
      bad("attribute '", a.name, "' has ", values, " values for ", nodes, " nodes");
  }
  return nodes;
}

void put_grid(std::ostringstream& out, const XdmfGrid& grid, double time,
              const std::filesystem::path& path, const char* indent) {
  const std::uint64_t nodes = check_grid(grid, path);
  const std::string in(indent), in2 = in + "  ", in3 = in + "    ";
  char time_text[40];
  std::snprintf(time_text, sizeof time_text, "%.17g", time);
  out << in << "<Grid Name=\"" << xml_escaped(grid.name) << "\" GridType=\"Uniform\">\n";
  out << in2 << "<Time Value=\"" << time_text << "\"/>\n";
  if (grid.topology == XdmfTopology::tetrahedra) {
    out << in2 << "<Topology TopologyType=\"Tetrahedron\" NumberOfElements=\""
        << grid.connectivity.dims[0] << "\">\n";
    put_item(out, grid.connectivity, in3.c_str());
    out << in2 << "</Topology>\n" << in2 << "<Geometry GeometryType=\"XYZ\">\n";
    put_item(out, grid.geometry[0], in3.c_str());
  } else {
    const bool three = grid.topology == XdmfTopology::rectilinear_3d;
    std::vector<std::uint64_t> dims;
    for (std::size_t a = grid.geometry.size(); a-- > 0;) dims.push_back(grid.geometry[a].dims[0]);
    out << in2 << "<Topology TopologyType=\"" << (three ? "3DRectMesh" : "2DRectMesh")
        << "\" Dimensions=\"" << dimensions_text(dims) << "\"/>\n"
        << in2 << "<Geometry GeometryType=\"" << (three ? "VXVYVZ" : "VXVY") << "\">\n";
    for (const XdmfDataItem& axis : grid.geometry) put_item(out, axis, in3.c_str());
  }
  out << in2 << "</Geometry>\n";
  for (const XdmfAttribute& a : grid.attributes) {
    const bool vector = product(a.data.dims) == 3 * nodes;
    const char* type = product(a.data.dims) == nodes ? "Scalar" : vector ? "Vector" : "Matrix";
    out << in2 << "<Attribute Name=\"" << xml_escaped(a.name) << "\" AttributeType=\"" << type
        << "\" Center=\"Node\">\n";
    put_item(out, a.data, in3.c_str());
    out << in2 << "</Attribute>\n";
  }
  out << in << "</Grid>\n";
}

}  // namespace

void write_xdmf(const std::filesystem::path& path, double time,
                const std::vector<XdmfGrid>& grids) {
  if (grids.empty()) fail(ErrorCategory::invalid_input, "XDMF '", path.string(), "': no grid");
  if (!std::isfinite(time))
    fail(ErrorCategory::invalid_input, "XDMF '", path.string(), "': time ", time);
  std::ostringstream out;
  out << "<?xml version=\"1.0\" ?>\n<Xdmf Version=\"3.0\">\n  <Domain>\n";
  if (grids.size() == 1) {
    put_grid(out, grids[0], time, path, "    ");
  } else {
    out << "    <Grid Name=\"sections\" GridType=\"Collection\" CollectionType=\"Spatial\">\n";
    for (const XdmfGrid& grid : grids) put_grid(out, grid, time, path, "      ");
    out << "    </Grid>\n";
  }
  out << "  </Domain>\n</Xdmf>\n";
  AtomicOutputFile file(path);
  file.stream() << out.str();
  file.commit();
}

void write_mesh_topology_file(const std::filesystem::path& path, const TetMesh& mesh) {
  const detail::QuietHdf5Errors quiet;
  AtomicOutputFile output(path);
  const std::filesystem::path& file = output.temporary_path();
  detail::Hid h5 = detail::create_file(file);
  const auto nodes = static_cast<hsize_t>(mesh.node_count());
  const auto tets = static_cast<hsize_t>(mesh.tet_count());
  detail::write_dataset(h5.get(), "coordinates",
                        std::span<const double>(mesh.nodes.empty() ? nullptr : mesh.nodes[0].data(),
                                                3 * mesh.node_count()),
                        {nodes, 3}, file, {.checksum = false, .units = "m"});
  detail::write_int32_dataset(
      h5.get(), "tets",
      std::span<const std::int32_t>(mesh.tets.empty() ? nullptr : mesh.tets[0].data(),
                                    4 * mesh.tet_count()),
      {tets, 4}, file);
  detail::close_file(h5, file);
  output.commit();
}

}  // namespace foehn::mountainwave
