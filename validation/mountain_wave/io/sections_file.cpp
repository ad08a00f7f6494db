// The "mountain-wave sections" HDF5 file, exactly as validation/linear_theory/sections_io.py
// (write_sections / read_sections) writes and reads it: float64 data sets, string attributes
// as variable-length UTF-8 (what h5py writes), integer layout_version.
#include <algorithm>
#include <array>
#include <cmath>
#include <string_view>

#include "foehn/runtime/atomic_file.hpp"
#include "foehn/runtime/error.hpp"
#include "io/collective.hpp"
#include "io/field_meaning.hpp"
#include "io/hdf5_support.hpp"
#include "io/section_sampler.hpp"

namespace foehn::mountainwave {

namespace {

using detail::Hid;

constexpr const char* sections_layout = "foehn.mountain_wave_sections";
constexpr std::int64_t sections_layout_version = 1;

// sections_io.py's KNOWN_FIELDS with its units and descriptions.
constexpr std::array<FieldMeaning, 5> known_fields{{
    {"w", "m s-1", "vertical velocity"},
    {"theta", "K",
     "potential-temperature perturbation theta - theta_bar(z), theta_bar = theta0 (1 + N^2 z / g)"},
    {"u", "m s-1", "perturbation of the x velocity (total u = U + u)"},
    {"v", "m s-1", "y velocity"},
    {"p", "m2 s-2", "kinematic pressure perturbation p'/rho0"},
}};

const FieldMeaning* known_field(const std::string& name) {
  return find_field_meaning(known_fields, name);
}

void check_fields(const SectionGrid& grid, const std::vector<NamedSectionValues>& fields,
                  const std::filesystem::path& path) {
  const std::string where = "write_sections '" + path.string() + "'";
  bool has_w = false;
  for (std::size_t i = 0; i < fields.size(); ++i) {
    const NamedSectionValues& f = fields[i];
    if (known_field(f.name) == nullptr)
      fail(ErrorCategory::invalid_input, where, ": field '", f.name,
           "' is not one of w, theta, u, v, p");
    for (std::size_t j = 0; j < i; ++j)
      if (fields[j].name == f.name)
        fail(ErrorCategory::invalid_input, where, ": field '", f.name, "' given twice");
    if (f.values.horizontal.size() != grid.horizontal_points() ||
        f.values.section.size() != grid.section_points())
      fail(ErrorCategory::invalid_input, where, ": field '", f.name, "' has ",
           f.values.horizontal.size(), " horizontal and ", f.values.section.size(),
           " section values, the grid ", grid.horizontal_points(), " and ", grid.section_points(),
           " (values from rank 0's sample())");
    has_w = has_w || f.name == "w";
  }
  if (!has_w) fail(ErrorCategory::invalid_input, where, ": no w field (the layout requires it)");
}

void write_axis(hid_t parent, const char* name, const std::vector<double>& axis,
                const char* description, const std::filesystem::path& file) {
  detail::write_dataset(parent, name, axis, {axis.size()}, file,
                        {.checksum = false, .units = "m", .description = description});
}

void write_file(const std::filesystem::path& path, const SectionGrid& grid, double time,
                const MountainWaveCase& c, const std::vector<NamedSectionValues>& fields) {
  const detail::QuietHdf5Errors quiet;
  AtomicOutputFile output(path);
  const std::filesystem::path& file = output.temporary_path();
  Hid h5 = detail::create_file(file);
  detail::write_attribute(h5.get(), "layout", std::string_view(sections_layout), file);
  detail::write_attribute(h5.get(), "layout_version", sections_layout_version, file);
  detail::write_attribute(h5.get(), "source", std::string_view("foehn mountain-wave core"), file);
  const std::array<std::pair<const char*, double>, 6> case_values{
      {{"h0", c.h0}, {"a", c.a}, {"U", c.U}, {"N", c.N}, {"theta0", c.theta0}, {"g", c.g}}};
  for (const auto& [name, value] : case_values)
    detail::write_attribute(h5.get(), name, value, file);
  // The reader takes a missing length as "the extent of the axis", so 0 (unknown) is left out.
  if (c.length_x > 0.0) detail::write_attribute(h5.get(), "length_x", c.length_x, file);
  if (c.length_y > 0.0) detail::write_attribute(h5.get(), "length_y", c.length_y, file);
  detail::write_attribute(h5.get(), "time", time, file);

  const auto write_fields = [&](hid_t group, bool horizontal) {
    const std::vector<hsize_t> dims =
        horizontal ? std::vector<hsize_t>{grid.heights.size(), grid.y.size(), grid.x.size()}
                   : std::vector<hsize_t>{grid.section_z.size(), grid.section_x.size()};
    for (const NamedSectionValues& f : fields) {
      const FieldMeaning* known = known_field(f.name);
      detail::write_dataset(
          group, f.name.c_str(), horizontal ? f.values.horizontal : f.values.section, dims, file,
          {.checksum = false, .units = known->units, .description = known->description});
    }
  };
  if (grid.has_horizontal()) {
    write_axis(h5.get(), "x", grid.x, "x of the horizontal sections", file);
    write_axis(h5.get(), "y", grid.y, "y of the horizontal sections", file);
    const Hid group = detail::create_group(h5.get(), "horizontal", file);
    write_axis(group.get(), "z", grid.heights, "heights of the sections", file);
    write_fields(group.get(), true);
  }
  if (grid.has_section()) {
    const Hid group = detail::create_group(h5.get(), "section_y0", file);
    detail::write_attribute(group.get(), "y", grid.section_y, file);
    write_axis(group.get(), "x", grid.section_x, "x of the section", file);
    write_axis(group.get(), "z", grid.section_z, "heights of the section", file);
    write_fields(group.get(), false);
  }
  detail::close_file(h5, file);
  output.commit();
}

}  // namespace

void SectionSampler::write_sections(const std::filesystem::path& path, double time,
                                    const MountainWaveCase& attributes,
                                    const std::vector<NamedSectionValues>& fields) const {
  detail::run_collectively(comm_, [&] {
    if (rank_ != 0) return;
    check_fields(grid_, fields, path);
    if (!std::isfinite(time))
      fail(ErrorCategory::invalid_input, "write_sections '", path.string(), "': time ", time);
    write_file(path, grid_, time, attributes, fields);
  });
}

void SectionSampler::write_state_sections(const std::filesystem::path& path,
                                          const ModelState& state,
                                          const MountainWaveCase& attributes) const {
  std::vector<NamedSectionValues> fields;
  fields.push_back({"w", sample(state.velocity, 3, 2)});
  fields.push_back({"u", sample(state.velocity, 3, 0)});
  for (double& value : fields.back().values.horizontal) value -= attributes.U;
  for (double& value : fields.back().values.section) value -= attributes.U;
  fields.push_back({"v", sample(state.velocity, 3, 1)});
  fields.push_back({"theta", sample(state.theta, 1, 0)});
  fields.push_back({"p", sample(state.pressure, 1, 0)});
  write_sections(path, state.time, attributes, fields);
}

}  // namespace foehn::mountainwave
