#include "io/xdmf.hpp"

#include <cmath>
#include <cstdio>
#include <optional>
#include <sstream>

#include "foehn/petsc/mpi_collective.hpp"
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
    // The time on the collection too: readers of a series of files (ParaView's XDMF3 reader)
    // take each file's time from its top grid, and numbered the files 0, 1, 2, ... without it.
    char time_text[40];
    std::snprintf(time_text, sizeof time_text, "%.17g", time);
    out << "    <Grid Name=\"sections\" GridType=\"Collection\" CollectionType=\"Spatial\">\n"
        << "      <Time Value=\"" << time_text << "\"/>\n";
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

namespace {

// One rank's piece of the topology file: its owned nodes' coordinates (rows from
// first_node) and its tets in input node numbers (rows from first_tet).
struct TopologyPiece {
  std::int64_t first_node = 0, first_tet = 0;
  std::vector<double> coordinates;
  std::vector<std::int32_t> tets;
};

TopologyPiece topology_piece(const petsc::DistributedMesh& mesh) {
  TopologyPiece piece;
  piece.first_node = mesh.first_owned_global;
  piece.first_tet = mesh.input_tet_of_local.empty() ? 0 : mesh.input_tet_of_local.front();
  for (std::int32_t l = 0; l < mesh.owned_nodes; ++l) {
    if (mesh.input_node_of_local[static_cast<std::size_t>(l)] != mesh.first_owned_global + l)
      fail(ErrorCategory::internal, "write_mesh_topology_file: rank ", mesh.rank,
           "'s owned nodes are not the input nodes of its global numbers");
    for (const double x : mesh.local.nodes[static_cast<std::size_t>(l)])
      piece.coordinates.push_back(x);
  }
  piece.tets.reserve(4 * mesh.local.tets.size());
  for (std::size_t t = 0; t < mesh.local.tets.size(); ++t) {
    if (mesh.input_tet_of_local[t] != piece.first_tet + static_cast<std::int64_t>(t))
      fail(ErrorCategory::internal, "write_mesh_topology_file: rank ", mesh.rank,
           "'s tets are not a contiguous run of input tets");
    for (const std::int32_t n : mesh.local.tets[t])
      piece.tets.push_back(
          static_cast<std::int32_t>(mesh.input_node_of_local[static_cast<std::size_t>(n)]));
  }
  return piece;
}

}  // namespace

void write_mesh_topology_file(const std::filesystem::path& path,
                              const petsc::DistributedMesh& mesh) {
  namespace collective = petsc::detail;
  TopologyPiece piece;
  collective::run_collectively(mesh.comm, [&] { piece = topology_piece(mesh); });
  constexpr int header_tag = 701, coordinates_tag = 702, tets_tag = 703;
  if (mesh.rank != 0) {
    const std::int64_t header[2] = {piece.first_tet,
                                    static_cast<std::int64_t>(piece.tets.size() / 4)};
    const int coordinate_count = collective::to_mpi_count(
        static_cast<std::int64_t>(piece.coordinates.size()), "topology file coordinates");
    const int tet_count = collective::to_mpi_count(static_cast<std::int64_t>(piece.tets.size()),
                                                   "topology file tets");
    FOEHN_MPI_CHECK(MPI_Send(header, 2, MPI_INT64_T, 0, header_tag, mesh.comm));
    FOEHN_MPI_CHECK(MPI_Send(piece.coordinates.data(), coordinate_count, MPI_DOUBLE, 0,
                             coordinates_tag, mesh.comm));
    FOEHN_MPI_CHECK(MPI_Send(piece.tets.data(), tet_count, MPI_INT32_T, 0, tets_tag, mesh.comm));
    collective::agree_on_failure(mesh.comm, std::nullopt);
    return;
  }
  // Rank 0 receives every piece even after a failure, so that no rank waits in a send.
  const detail::QuietHdf5Errors quiet;
  std::optional<AtomicOutputFile> output;
  std::optional<detail::Hid> h5;
  std::optional<detail::RowBlockDataset> coordinates, tets;
  auto failure = collective::capture_failure([&] {
    output.emplace(path);
    const std::filesystem::path& file = output->temporary_path();
    h5.emplace(detail::create_file(file));
    coordinates.emplace(h5->get(), "coordinates", detail::RowBlockDataset::Type::float64,
                        static_cast<hsize_t>(mesh.global_nodes), 3, file, "m");
    tets.emplace(h5->get(), "tets", detail::RowBlockDataset::Type::int32,
                 static_cast<hsize_t>(mesh.global_tets), 4, file);
  });
  auto write_piece = [&](const TopologyPiece& p) {
    if (failure) return;
    failure = collective::capture_failure([&] {
      coordinates->write_rows(static_cast<hsize_t>(p.first_node), p.coordinates.size() / 3,
                              p.coordinates.data());
      tets->write_rows(static_cast<hsize_t>(p.first_tet), p.tets.size() / 4, p.tets.data());
    });
  };
  write_piece(piece);
  for (int rank = 1; rank < mesh.size; ++rank) {
    TopologyPiece other;
    std::int64_t header[2] = {0, 0};
    FOEHN_MPI_CHECK(
        MPI_Recv(header, 2, MPI_INT64_T, rank, header_tag, mesh.comm, MPI_STATUS_IGNORE));
    other.first_node = mesh.ownership_ranges[static_cast<std::size_t>(rank)];
    other.first_tet = header[0];
    other.coordinates.resize(static_cast<std::size_t>(
        3 * (mesh.ownership_ranges[static_cast<std::size_t>(rank) + 1] - other.first_node)));
    other.tets.resize(static_cast<std::size_t>(4 * header[1]));
    FOEHN_MPI_CHECK(MPI_Recv(other.coordinates.data(), static_cast<int>(other.coordinates.size()),
                             MPI_DOUBLE, rank, coordinates_tag, mesh.comm, MPI_STATUS_IGNORE));
    FOEHN_MPI_CHECK(MPI_Recv(other.tets.data(), static_cast<int>(other.tets.size()), MPI_INT32_T,
                             rank, tets_tag, mesh.comm, MPI_STATUS_IGNORE));
    write_piece(other);
  }
  if (!failure)
    failure = collective::capture_failure([&] {
      coordinates.reset();
      tets.reset();
      detail::close_file(*h5, output->temporary_path());
      output->commit();
    });
  collective::agree_on_failure(mesh.comm, failure);
}

}  // namespace foehn::mountainwave
