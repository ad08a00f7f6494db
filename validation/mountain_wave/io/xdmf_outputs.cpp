// write_checkpoint_xdmf and write_sections_xdmf: the XDMF beside each HDF5 file of the core,
// built from the data sets the file actually holds.
#include <string>

#include "foehn/runtime/error.hpp"
#include "io/checkpoint.hpp"
#include "io/hdf5_support.hpp"
#include "io/xdmf.hpp"

namespace foehn::mountainwave {

namespace {

std::filesystem::path xdmf_path_of(const std::filesystem::path& h5) {
  std::filesystem::path xmf = h5;
  xmf.replace_extension(".xmf");
  return xmf;
}

std::vector<std::uint64_t> to_dims(const std::vector<hsize_t>& dims) {
  return {dims.begin(), dims.end()};
}

// A float64 data set of `group` as an item of `file_name`.
XdmfDataItem item_of(hid_t group, const std::string& group_path, const std::string& name,
                     const std::string& file_name, const std::filesystem::path& file) {
  return {file_name, group_path + "/" + name,
          to_dims(detail::float64_dataset_dims(group, name.c_str(), file)), false};
}

}  // namespace

std::filesystem::path write_checkpoint_xdmf(const std::filesystem::path& checkpoint,
                                            const std::filesystem::path& topology_file) {
  const CheckpointInfo info = read_checkpoint_info(checkpoint);
  const detail::QuietHdf5Errors quiet;
  const detail::Hid h5 = detail::open_file_for_reading(checkpoint);
  const std::string name = checkpoint.filename().string();
  XdmfGrid grid;
  grid.name = "mountainwave";
  grid.topology = XdmfTopology::tetrahedra;
  grid.connectivity = {topology_file.filename().string(),
                       "/tets",
                       {static_cast<std::uint64_t>(info.global_tets), 4},
                       true};
  {
    const detail::Hid nodes = detail::open_group(h5.get(), "nodes", checkpoint);
    for (const std::string& field : detail::link_names(nodes.get(), checkpoint)) {
      XdmfDataItem item = item_of(nodes.get(), "/nodes", field, name, checkpoint);
      if (field == "coordinates")
        grid.geometry.push_back(std::move(item));
      else
        grid.attributes.push_back({field, std::move(item)});
    }
  }
  if (detail::has_link(h5.get(), "extra", checkpoint)) {
    const detail::Hid extra = detail::open_group(h5.get(), "extra", checkpoint);
    for (const std::string& field : detail::link_names(extra.get(), checkpoint))
      grid.attributes.push_back(
          {"extra_" + field, item_of(extra.get(), "/extra", field, name, checkpoint)});
  }
  const std::filesystem::path xmf = xdmf_path_of(checkpoint);
  write_xdmf(xmf, info.time, {grid});
  return xmf;
}

std::filesystem::path write_sections_xdmf(const std::filesystem::path& sections) {
  const detail::QuietHdf5Errors quiet;
  const detail::Hid h5 = detail::open_file_for_reading(sections);
  const std::string name = sections.filename().string();
  const double time = detail::read_double_attribute(h5.get(), "time", sections);
  std::vector<XdmfGrid> grids;
  const auto add_fields = [&](XdmfGrid& grid, hid_t group, const std::string& group_path,
                              std::initializer_list<const char*> axes) {
    for (const std::string& field : detail::link_names(group, sections)) {
      bool is_axis = false;
      for (const char* axis : axes) is_axis = is_axis || field == axis;
      if (!is_axis)
        grid.attributes.push_back({field, item_of(group, group_path, field, name, sections)});
    }
  };
  if (detail::has_link(h5.get(), "horizontal", sections)) {
    const detail::Hid group = detail::open_group(h5.get(), "horizontal", sections);
    XdmfGrid grid;
    grid.name = "horizontal";
    grid.topology = XdmfTopology::rectilinear_3d;
    grid.geometry = {item_of(h5.get(), "", "x", name, sections),
                     item_of(h5.get(), "", "y", name, sections),
                     item_of(group.get(), "/horizontal", "z", name, sections)};
    add_fields(grid, group.get(), "/horizontal", {"z"});
    grids.push_back(std::move(grid));
  }
  if (detail::has_link(h5.get(), "section_y0", sections)) {
    const detail::Hid group = detail::open_group(h5.get(), "section_y0", sections);
    XdmfGrid grid;
    grid.name = "section_y0";
    grid.topology = XdmfTopology::rectilinear_2d;
    grid.geometry = {item_of(group.get(), "/section_y0", "x", name, sections),
                     item_of(group.get(), "/section_y0", "z", name, sections)};
    add_fields(grid, group.get(), "/section_y0", {"x", "z"});
    grids.push_back(std::move(grid));
  }
  const std::filesystem::path xmf = xdmf_path_of(sections);
  write_xdmf(xmf, time, grids);
  return xmf;
}

}  // namespace foehn::mountainwave
