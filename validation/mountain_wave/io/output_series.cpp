#include "io/output_series.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <limits>
#include <optional>
#include <sstream>
#include <string_view>

#include "foehn/petsc/pvtu.hpp"
#include "foehn/runtime/atomic_file.hpp"
#include "foehn/runtime/error.hpp"
#include "io/collective.hpp"

namespace foehn::mountainwave {

namespace {

std::string xml_unescaped(std::string_view text) {
  std::string out;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '&') {
      static constexpr std::pair<std::string_view, char> entities[] = {
          {"&amp;", '&'}, {"&lt;", '<'}, {"&gt;", '>'}, {"&quot;", '"'}, {"&apos;", '\''}};
      bool replaced = false;
      for (const auto& [entity, character] : entities)
        if (text.substr(i, entity.size()) == entity) {
          out += character;
          i += entity.size() - 1;
          replaced = true;
          break;
        }
      if (replaced) continue;
    }
    out += text[i];
  }
  return out;
}

// The value of attribute `name` in one XML element's text; nullopt when absent.
std::optional<std::string> attribute_of(std::string_view element, std::string_view name) {
  std::string key = " ";  // not " " + string: GCC 12 warns falsely (-Wrestrict)
  key.append(name).append("=\"");
  const std::size_t start = element.find(key);
  if (start == std::string_view::npos) return std::nullopt;
  const std::size_t value_start = start + key.size();
  const std::size_t end = element.find('"', value_start);
  if (end == std::string_view::npos) return std::nullopt;
  return xml_unescaped(element.substr(value_start, end - value_start));
}

}  // namespace

std::vector<std::pair<double, std::string>> read_pvd_entries(const std::filesystem::path& pvd) {
  std::ifstream in(pvd, std::ios::binary);
  if (!in) fail(ErrorCategory::io, "'", pvd.string(), "': cannot open to resume the series");
  std::stringstream buffer;
  buffer << in.rdbuf();
  const std::string text = buffer.str();
  std::vector<std::pair<double, std::string>> entries;
  for (std::size_t at = text.find("<DataSet"); at != std::string::npos;
       at = text.find("<DataSet", at + 1)) {
    const std::size_t end = text.find('>', at);
    if (end == std::string::npos) break;
    const std::string_view element(text.data() + at, end - at);
    const auto time = attribute_of(element, "timestep");
    const auto file = attribute_of(element, "file");
    double value = std::numeric_limits<double>::quiet_NaN();
    if (time) {
      std::istringstream number(*time);
      number.imbue(std::locale::classic());
      number >> value;
      if (number.fail()) value = std::numeric_limits<double>::quiet_NaN();
    }
    if (!file || file->empty() || !std::isfinite(value))
      fail(ErrorCategory::invalid_input, "'", pvd.string(),
           "': a DataSet without a finite timestep and a file: ", std::string(element));
    entries.emplace_back(value, *file);
  }
  return entries;
}

namespace {

// NNNN of "<name>_<NNNN>.pvtu"; -1 when `file` is not named so.
int index_in(const std::string& file, const std::string& name) {
  const std::string prefix = name + "_", suffix = ".pvtu";
  if (file.size() <= prefix.size() + suffix.size() || file.rfind(prefix, 0) != 0 ||
      file.compare(file.size() - suffix.size(), suffix.size(), suffix) != 0)
    return -1;
  const std::string digits =
      file.substr(prefix.size(), file.size() - prefix.size() - suffix.size());
  if (digits.size() > 9 || digits.find_first_not_of("0123456789") != std::string::npos) return -1;
  return std::stoi(digits);
}

}  // namespace

OutputSeries::OutputSeries(const petsc::DistributedMesh& mesh, std::filesystem::path directory,
                           std::string name, VtuOptions options)
    : mesh_(&mesh), directory_(std::move(directory)), name_(std::move(name)), options_(options) {
  const detail::CommShape shape = detail::comm_shape(mesh.comm, "OutputSeries");
  detail::run_collectively(mesh.comm, [&] {
    if (name_.empty() || name_.find('/') != std::string::npos)
      fail(ErrorCategory::invalid_input, "OutputSeries: name '", name_,
           "' must be non-empty and free of '/'");
    if (shape.rank != 0) return;
    std::error_code ec;
    if (!directory_.empty() && !std::filesystem::is_directory(directory_, ec)) {
      std::filesystem::create_directories(directory_, ec);
      if (ec)
        fail(ErrorCategory::io, "OutputSeries: cannot create folder '", directory_.string(),
             "': ", ec.message());
    }
  });
}

std::filesystem::path OutputSeries::pvd_path() const {
  return directory_ / (name_ + ".pvd");
}

std::filesystem::path OutputSeries::snapshot_path(int index) const {
  char digits[16];
  std::snprintf(digits, sizeof digits, "%04d", index);
  return directory_ / (name_ + "_" + digits + ".pvtu");
}

std::filesystem::path OutputSeries::write(const ModelState& state,
                                          std::span<const MeshField> extra_node_fields) {
  const auto nodes = static_cast<std::size_t>(mesh_->local_nodes());
  std::vector<MeshField> fields;
  detail::run_collectively(mesh_->comm, [&] {
    fields.push_back({"u", 3, state.velocity});
    fields.push_back({"p", 1, state.pressure});
    fields.push_back({"theta", 1, state.theta});
    for (std::size_t t = 0; t < tracer_names.size(); ++t)
      fields.push_back({tracer_names[t], 1, state.tracers[t]});
    for (const MeshField& f : fields)
      if (f.values.size() != nodes * static_cast<std::size_t>(f.components))
        fail(ErrorCategory::invalid_input, "OutputSeries: state field '", f.name, "' has ",
             f.values.size(), " values, expected ", nodes, " local nodes x ", f.components);
    fields.insert(fields.end(), extra_node_fields.begin(), extra_node_fields.end());
  });
  const std::filesystem::path path = snapshot_path(next_index_);
  petsc::write_pvtu(*mesh_, path, fields, {}, options_);
  double time = state.time;  // rank 0's time names the snapshot
  FOEHN_MPI_CHECK(MPI_Bcast(&time, 1, MPI_DOUBLE, 0, mesh_->comm));
  detail::run_collectively(mesh_->comm, [&] {
    if (mesh_->rank != 0) return;
    entries_.emplace_back(time, path.filename().string());
    write_pvd(pvd_path(), entries_);
  });
  ++next_index_;
  return path;
}

void OutputSeries::resume(double restart_time) {
  int next = 0;
  detail::run_collectively(mesh_->comm, [&] {
    if (!std::isfinite(restart_time))
      fail(ErrorCategory::invalid_input, "OutputSeries::resume: time ", restart_time);
    if (mesh_->rank != 0) return;
    // A run killed while writing a snapshot, checkpoint or sections file left its temporary.
    remove_abandoned_temporaries(directory_);
    entries_.clear();
    std::error_code ec;
    if (!std::filesystem::exists(pvd_path(), ec)) return;
    for (auto& entry : read_pvd_entries(pvd_path())) {
      if (entry.first > restart_time) continue;
      const int index = index_in(entry.second, name_);
      next = std::max(next, index >= 0 ? index + 1 : static_cast<int>(entries_.size()) + 1);
      entries_.push_back(std::move(entry));
    }
    write_pvd(pvd_path(), entries_);  // ParaView no longer shows the dropped snapshots
  });
  FOEHN_MPI_CHECK(MPI_Bcast(&next, 1, MPI_INT, 0, mesh_->comm));
  next_index_ = next;
}

}  // namespace foehn::mountainwave
