// Checkpoints: fields gathered to rank 0 in input numbering, one serial HDF5 file written by
// rank 0; on reading, rank 0 checks the file and sends each rank the values of its local nodes.
//
// Why serial HDF5 from rank 0 rather than parallel HDF5 (MPI-IO)? The state is small (11
// doubles a node: 9 MB at the published 98k nodes, under 0.5 GB at 20M tets) and checkpoints
// are rare, so one writer costs little; in exchange the file is independent of the rank count
// (input numbering needs a gather or a permutation either way), written and read bit for bit
// with no collective-I/O tuning, atomically (temporary + fsync + rename, which MPI-IO files on
// shared file systems do not make easy), and a failure has one place to be detected and then
// agreed on by every rank.
//
// Layout (docs/mountain_wave_io.md):
//   /  attributes format, format_version, case_fingerprint, global_nodes, global_tets, time,
//      step, node_numbering = "input"; an adaptive run's checkpoint after its first adaptation
//      adds adapted_at_step, adapt_interior_nodes_per_complexity, adapt_nodes and adapt_dt;
//      one written while an overlapped adaptation's remesh had not taken over adds
//      pending_adaptation_step, pending_adaptation_complexity, pending_adaptation_boundary_nodes
//   /nodes/coordinates [N][3], /nodes/velocity [N][3], /nodes/pressure, /nodes/theta,
//   /nodes/qv, /nodes/qc, /nodes/qr [N]      (N = global nodes, input node order, float64)
//   /extra/<name> [N][components]            (optional extra node fields)
#include "io/checkpoint.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <optional>
#include <string_view>
#include <utility>

#include "foehn/petsc/node_exchange.hpp"
#include "foehn/runtime/atomic_file.hpp"
#include "foehn/runtime/hdf5_superblock.hpp"
#include "io/checkpoint_adaptation.hpp"
#include "io/collective.hpp"
#include "io/field_meaning.hpp"
#include "io/hdf5_support.hpp"

namespace foehn::mountainwave {

namespace {

using detail::Hid;

constexpr const char* nodes_group = "nodes";
constexpr const char* extra_group = "extra";
constexpr const char* coordinates_name = "coordinates";
// Coordinates must match within this distance, m: they identify the mesh and its numbering,
// they are not compared bit for bit (a mesh converted between formats is still the same mesh).
constexpr double coordinate_tolerance = 1e-6;

// The state's fields in file order.
struct StateField {
  std::string name;
  int components = 1;
};

std::vector<StateField> state_fields() {
  std::vector<StateField> fields{{"velocity", 3}, {"pressure", 1}, {"theta", 1}};
  for (const char* tracer : tracer_names) fields.push_back({tracer, 1});
  return fields;
}

const std::vector<double>& field_of(const ModelState& state, std::size_t index) {
  switch (index) {
    case 0:
      return state.velocity;
    case 1:
      return state.pressure;
    case 2:
      return state.theta;
    default:
      return state.tracers[index - 3];
  }
}

std::vector<double>& field_of(ModelState& state, std::size_t index) {
  return const_cast<std::vector<double>&>(field_of(std::as_const(state), index));
}

std::string quoted(const std::filesystem::path& path) {
  std::string text = "'";  // not "'" + string: GCC 12 warns falsely (-Wrestrict)
  return text.append(path.string()).append("'");
}

void check_mesh(const petsc::DistributedMesh& mesh, const detail::CommShape& shape,
                const char* who) {
  if (mesh.size != shape.size || mesh.rank != shape.rank)
    fail(ErrorCategory::invalid_input, who, ": the mesh was distributed as rank ", mesh.rank,
         " of ", mesh.size, " but the communicator has ", shape.rank, " of ", shape.size);
  if (mesh.local.nodes.size() != static_cast<std::size_t>(mesh.local_nodes()) ||
      mesh.input_node_of_local.size() != static_cast<std::size_t>(mesh.local_nodes()))
    fail(ErrorCategory::invalid_input, who, ": the distributed mesh is inconsistent (",
         mesh.local.nodes.size(), " coordinates, ", mesh.local_nodes(), " local nodes)");
}

std::vector<double> local_coordinates(const petsc::DistributedMesh& mesh) {
  std::vector<double> coordinates;
  coordinates.reserve(3 * mesh.local.nodes.size());
  for (const Point3& p : mesh.local.nodes)
    coordinates.insert(coordinates.end(), p.begin(), p.end());
  return coordinates;
}

void check_finite(std::span<const double> values, int components, const std::string& field,
                  const std::string& where, const std::vector<std::int64_t>* node_numbers) {
  for (std::size_t i = 0; i < values.size(); ++i) {
    if (std::isfinite(values[i])) continue;
    const std::size_t node = i / static_cast<std::size_t>(components);
    const std::int64_t number =
        node_numbers != nullptr ? (*node_numbers)[node] : static_cast<std::int64_t>(node);
    fail(ErrorCategory::invalid_input, where, ": field '", field, "' is ", values[i],
         " at input node ", number,
         components > 1 ? " component " + std::to_string(i % components) : std::string());
  }
}

// Flushes a finished temporary file to disk before it is renamed into place.
void sync_to_disk(const std::filesystem::path& file) {
  const int descriptor = ::open(file.c_str(), O_RDONLY);
  if (descriptor < 0)
    fail(ErrorCategory::io, quoted(file), ": cannot reopen to sync (", std::strerror(errno), ")");
  const int synced = ::fsync(descriptor);
  const int error = errno;
  if (::close(descriptor) != 0 || synced != 0)
    fail(ErrorCategory::io, quoted(file), ": fsync failed (",
         std::strerror(synced != 0 ? error : errno), ")");
}

struct GatheredField {
  std::string name;
  int components = 1;
  std::vector<double> values;  // rank 0: [global nodes][components] in input numbering
};

// Units and meaning of the node datasets, written as attributes: a reader of the file alone
// must not take the kinematic pressure for pascals, and the .pvtu snapshots name two of the
// fields differently (the dataset names stay: they are the format's).
constexpr std::array<FieldMeaning, 7> field_meanings{{
    {"coordinates", "m", "node coordinates x, y, z in the input numbering"},
    {"velocity", "m s-1", "total velocity (u, v, w); 'u' in the .pvtu snapshots"},
    {"pressure", "m2 s-2",
     "kinematic pressure perturbation p'/rho0 (not Pa); 'p' in the .pvtu snapshots"},
    {"theta", "K", "potential-temperature perturbation theta'"},
    {"qv", "kg kg-1", "water vapour mixing ratio"},
    {"qc", "kg kg-1", "cloud water mixing ratio"},
    {"qr", "kg kg-1", "rain water mixing ratio"},
}};

detail::DatasetOptions node_dataset_options(const std::string& name) {
  detail::DatasetOptions options{.checksum = true};
  if (const FieldMeaning* meaning = find_field_meaning(field_meanings, name)) {
    options.units = meaning->units;
    options.description = meaning->description;
  }
  return options;
}

void write_file(const std::filesystem::path& path, const CheckpointInfo& header,
                const std::vector<GatheredField>& node_fields,
                const std::vector<GatheredField>& extra_fields) {
  const detail::QuietHdf5Errors quiet;
  AtomicOutputFile output(path);  // checks the folder; removes the temporary on failure
  const std::filesystem::path& file = output.temporary_path();
  {
    Hid h5 = detail::create_file(file);
    detail::write_attribute(h5.get(), "format", std::string_view(checkpoint_format), file);
    detail::write_attribute(h5.get(), "format_version", header.format_version, file);
    detail::write_attribute(h5.get(), "case_fingerprint", header.case_fingerprint, file);
    detail::write_attribute(h5.get(), "global_nodes", header.global_nodes, file);
    detail::write_attribute(h5.get(), "global_tets", header.global_tets, file);
    detail::write_attribute(h5.get(), "time", header.time, file);
    detail::write_attribute(h5.get(), "step", header.step, file);
    detail::write_attribute(h5.get(), "node_numbering", std::string_view("input"), file);
    write_adaptation_record(h5.get(), header, file);
    const auto nodes = static_cast<hsize_t>(header.global_nodes);
    const detail::DatasetOptions checksummed{.checksum = true};
    {
      const Hid group = detail::create_group(h5.get(), nodes_group, file);
      for (const GatheredField& f : node_fields) {
        const std::vector<hsize_t> dims = f.components == 1
                                              ? std::vector<hsize_t>{nodes}
                                              : std::vector<hsize_t>{nodes, hsize_t(f.components)};
        detail::write_dataset(group.get(), f.name.c_str(), f.values, dims, file,
                              node_dataset_options(f.name));
      }
    }
    if (!extra_fields.empty()) {
      const Hid group = detail::create_group(h5.get(), extra_group, file);
      for (const GatheredField& f : extra_fields)
        detail::write_dataset(group.get(), f.name.c_str(), f.values, {nodes, hsize_t(f.components)},
                              file, checksummed);
    }
    detail::close_file(h5, file);
  }
  sync_to_disk(file);
  output.commit();
}

// Rank 0 side of reading: the file checked against the mesh and the expected fingerprint.
struct CheckpointContents {
  CheckpointInfo info;
  std::vector<GatheredField> node_fields;  // coordinates first, then the state's fields
  std::vector<GatheredField> extra_fields;
};

Hid open_checkpoint(const std::filesystem::path& path, CheckpointInfo& info) {
  // Also refuses what is not a regular file (a FIFO would block every check below).
  detail::require_complete_hdf5_file(path);  // a cut signature would read as "not HDF5"
  const htri_t is_hdf5 = H5Fis_hdf5(path.c_str());
  if (is_hdf5 < 0) detail::fail_hdf5(ErrorCategory::io, path, "reading the file");
  if (is_hdf5 == 0)
    fail(ErrorCategory::invalid_input, quoted(path),
         ": not an HDF5 file, so not a Foehn checkpoint");
  // Refused before HDF5 decodes anything: metadata without checksums (superblock versions 0
  // and 1, as checkpoint format 1 and most other HDF5 files have) is where HDF5 1.10 crashes
  // or loops on a corrupt file.
  const std::optional<int> superblock = hdf5_superblock_version(path);
  if (!superblock)  // H5Fis_hdf5 also finds a superblock after a user block
    fail(ErrorCategory::invalid_input, quoted(path),
         ": an HDF5 file with a user block, not a Foehn checkpoint");
  if (*superblock < 2)
    fail(ErrorCategory::invalid_input, quoted(path), ": HDF5 superblock version ", *superblock,
         ", not a Foehn checkpoint of format version ", checkpoint_format_version,
         " (HDF5 1.10 file format, superblock version 2 or 3); a checkpoint of format 1 cannot be "
         "restarted from by this build");
  Hid h5 = detail::open_file_for_reading(path);
  if (!detail::has_attribute(h5.get(), "format", path))
    fail(ErrorCategory::invalid_input, quoted(path),
         ": an HDF5 file without a 'format' attribute, not a Foehn mountain-wave checkpoint");
  const std::string format = detail::read_string_attribute(h5.get(), "format", path);
  if (format != checkpoint_format)
    fail(ErrorCategory::invalid_input, quoted(path), ": format '", format, "', not a '",
         checkpoint_format, "' file");
  info.format_version = detail::read_integer_attribute(h5.get(), "format_version", path);
  if (info.format_version != checkpoint_format_version)
    fail(ErrorCategory::invalid_input, quoted(path), ": checkpoint format version ",
         info.format_version, ", this build reads version ", checkpoint_format_version);
  info.case_fingerprint = detail::read_string_attribute(h5.get(), "case_fingerprint", path);
  info.global_nodes = detail::read_integer_attribute(h5.get(), "global_nodes", path);
  info.global_tets = detail::read_integer_attribute(h5.get(), "global_tets", path);
  info.time = detail::read_double_attribute(h5.get(), "time", path);
  info.step = detail::read_integer_attribute(h5.get(), "step", path);
  // A step beyond what any run takes or a negative time is no clock a run left behind.
  if (info.global_nodes <= 0 || info.global_tets <= 0 || info.step < 0 ||
      info.step > max_run_steps || !std::isfinite(info.time) || info.time < 0)
    fail(ErrorCategory::invalid_input, quoted(path), ": corrupt header (", info.global_nodes,
         " nodes, ", info.global_tets, " tets, step ", info.step, ", time ", info.time, ")");
  read_adaptation_record(h5.get(), path, info);
  if (detail::has_link(h5.get(), extra_group, path)) {
    const Hid group = detail::open_group(h5.get(), extra_group, path);
    info.extra_fields = detail::link_names(group.get(), path);
  }
  return h5;
}

GatheredField read_node_field(hid_t group, const std::string& name, int components,
                              const CheckpointInfo& info, const std::filesystem::path& path,
                              const std::string& group_name) {
  const std::vector<hsize_t> dims = detail::float64_dataset_dims(group, name.c_str(), path);
  const auto nodes = static_cast<hsize_t>(info.global_nodes);
  const bool shape_ok = components == 1 && dims.size() == 1
                            ? dims[0] == nodes
                            : dims.size() == 2 && dims[0] == nodes &&
                                  (components < 1 || dims[1] == hsize_t(components));
  if (!shape_ok || dims.empty() || (dims.size() == 2 && dims[1] == 0))
    fail(ErrorCategory::invalid_input, quoted(path), ": dataset '/", group_name, "/", name,
         "' has the wrong shape for ", info.global_nodes, " nodes",
         components > 0 ? " x " + std::to_string(components) : std::string(" x components"));
  GatheredField field{name, dims.size() == 2 ? static_cast<int>(dims[1]) : 1, {}};
  field.values = detail::read_dataset(group, name.c_str(), path);
  check_finite(field.values, field.components, "/" + group_name + "/" + name, quoted(path),
               nullptr);
  return field;
}

CheckpointContents read_contents(const petsc::DistributedMesh& mesh,
                                 const std::filesystem::path& path,
                                 const CheckpointMetadata& expected) {
  const detail::QuietHdf5Errors quiet;
  CheckpointContents contents;
  const Hid h5 = open_checkpoint(path, contents.info);
  const CheckpointInfo& info = contents.info;
  if (info.case_fingerprint != expected.case_fingerprint)
    fail(ErrorCategory::invalid_input, quoted(path), ": written for another case (",
         describe_fingerprint_difference(info.case_fingerprint, expected.case_fingerprint), ")");
  // The time is a sum of `step` additions of dt: exact to far below a step for any run.
  const double clock = static_cast<double>(info.step) * expected.dt;
  if (expected.dt > 0 && std::abs(info.time - clock) > 1e-6 * expected.dt + 1e-12 * clock)
    fail(ErrorCategory::invalid_input, quoted(path), ": its time ", info.time,
         " s is not its step ", info.step, " times dt ", expected.dt, " s (", clock, " s)");
  if (info.global_nodes != mesh.global_nodes || info.global_tets != mesh.global_tets)
    fail(ErrorCategory::invalid_input, quoted(path), ": written for a mesh of ", info.global_nodes,
         " nodes and ", info.global_tets, " tets, this mesh has ", mesh.global_nodes, " and ",
         mesh.global_tets);
  {
    const Hid group = detail::open_group(h5.get(), nodes_group, path);
    contents.node_fields.push_back(
        read_node_field(group.get(), coordinates_name, 3, info, path, nodes_group));
    for (const StateField& f : state_fields())
      contents.node_fields.push_back(
          read_node_field(group.get(), f.name, f.components, info, path, nodes_group));
  }
  if (!info.extra_fields.empty()) {
    const Hid group = detail::open_group(h5.get(), extra_group, path);
    for (const std::string& name : info.extra_fields)
      contents.extra_fields.push_back(
          read_node_field(group.get(), name, 0, info, path, extra_group));
  }
  return contents;
}

// Rank 0's value of `text`, on every rank.
std::string rank0_text(std::string text, MPI_Comm comm) {
  int length = static_cast<int>(text.size());
  FOEHN_MPI_CHECK(MPI_Bcast(&length, 1, MPI_INT, 0, comm));
  text.resize(static_cast<std::size_t>(length));
  FOEHN_MPI_CHECK(MPI_Bcast(text.data(), length, MPI_CHAR, 0, comm));
  return text;
}

// This rank's state and extra fields before anything is gathered: sizes for its local nodes,
// finite values, extra field names that are HDF5 names of their own.
void check_fields_to_write(const petsc::DistributedMesh& mesh, const ModelState& state,
                           std::span<const MeshField> extra_node_fields, const std::string& where) {
  const auto nodes = static_cast<std::size_t>(mesh.local_nodes());
  const std::vector<StateField> fields = state_fields();
  for (std::size_t i = 0; i < fields.size(); ++i) {
    const std::vector<double>& values = field_of(state, i);
    const std::size_t expected = nodes * static_cast<std::size_t>(fields[i].components);
    if (values.size() != expected)
      fail(ErrorCategory::invalid_input, where, ": state field '", fields[i].name, "' has ",
           values.size(), " values, expected ", expected, " (", nodes, " local nodes x ",
           fields[i].components, ")");
    check_finite(values, fields[i].components, fields[i].name, where, &mesh.input_node_of_local);
  }
  for (std::size_t i = 0; i < extra_node_fields.size(); ++i) {
    const MeshField& f = extra_node_fields[i];
    const bool clashes = f.name == coordinates_name ||
                         std::any_of(fields.begin(), fields.end(),
                                     [&](const StateField& s) { return s.name == f.name; });
    if (f.name.empty() || f.name.find('/') != std::string::npos || f.name.find('.') == 0 || clashes)
      fail(ErrorCategory::invalid_input, where, ": extra field name '", f.name,
           "' is empty, holds '/', starts with '.' or is a state field's");
    for (std::size_t j = 0; j < i; ++j)
      if (extra_node_fields[j].name == f.name)
        fail(ErrorCategory::invalid_input, where, ": extra field '", f.name, "' given twice");
    if (f.components < 1 || f.values.size() != nodes * static_cast<std::size_t>(f.components))
      fail(ErrorCategory::invalid_input, where, ": extra field '", f.name, "' has ",
           f.values.size(), " values for ", nodes, " local nodes x ", f.components, " components");
    check_finite(f.values, f.components, f.name, where, &mesh.input_node_of_local);
  }
}

// What every rank needs to know of a checkpoint before its values arrive: rank 0's time, step
// and extra fields (their components, their names each followed by '\0', which HDF5 names
// cannot hold).
struct CheckpointShape {
  double time = 0;
  std::int64_t step = 0;
  std::vector<int> extra_components;
  std::string extra_names;
};

CheckpointShape broadcast_shape(const CheckpointContents& contents, MPI_Comm comm) {
  CheckpointShape shape{contents.info.time, contents.info.step, {}, {}};
  FOEHN_MPI_CHECK(MPI_Bcast(&shape.time, 1, MPI_DOUBLE, 0, comm));
  FOEHN_MPI_CHECK(MPI_Bcast(&shape.step, 1, MPI_INT64_T, 0, comm));
  for (const GatheredField& f : contents.extra_fields) {
    shape.extra_components.push_back(f.components);
    shape.extra_names += f.name + '\0';
  }
  int sizes[2] = {static_cast<int>(shape.extra_components.size()),
                  static_cast<int>(shape.extra_names.size())};
  FOEHN_MPI_CHECK(MPI_Bcast(sizes, 2, MPI_INT, 0, comm));
  shape.extra_components.resize(static_cast<std::size_t>(sizes[0]));
  shape.extra_names.resize(static_cast<std::size_t>(sizes[1]));
  FOEHN_MPI_CHECK(MPI_Bcast(shape.extra_components.data(), sizes[0], MPI_INT, 0, comm));
  FOEHN_MPI_CHECK(MPI_Bcast(shape.extra_names.data(), sizes[1], MPI_CHAR, 0, comm));
  return shape;
}

// Rank 0 learns which input nodes each rank holds (ghosts included) and sends each rank its
// nodes' values, `per_node` a node in file order, taken from the input-numbered arrays.
std::vector<double> scatter_node_values(const petsc::DistributedMesh& mesh,
                                        const detail::CommShape& shape,
                                        const CheckpointContents& contents, int per_node) {
  const int local_count = mesh.local_nodes();
  std::vector<int> node_counts(static_cast<std::size_t>(shape.size), 0);
  FOEHN_MPI_CHECK(
      MPI_Gather(&local_count, 1, MPI_INT, node_counts.data(), 1, MPI_INT, 0, mesh.comm));
  std::vector<int> node_displacements;
  std::vector<std::int64_t> input_nodes;
  std::vector<int> value_counts, value_displacements;
  std::vector<double> packed;
  detail::run_collectively(mesh.comm, [&] {
    if (shape.rank != 0) return;
    node_displacements = detail::displacements_of(node_counts, "checkpoint nodes");
    std::vector<int> counts;
    for (int n : node_counts)
      counts.push_back(detail::to_mpi_count(std::int64_t{n} * per_node, "checkpoint values"));
    value_displacements = detail::displacements_of(counts, "checkpoint values");
    value_counts = std::move(counts);
    input_nodes.resize(static_cast<std::size_t>(node_displacements.back() + node_counts.back()));
  });
  FOEHN_MPI_CHECK(MPI_Gatherv(mesh.input_node_of_local.data(), local_count, MPI_INT64_T,
                              input_nodes.data(), node_counts.data(), node_displacements.data(),
                              MPI_INT64_T, 0, mesh.comm));
  detail::run_collectively(mesh.comm, [&] {
    if (shape.rank != 0) return;
    packed.reserve(input_nodes.size() * static_cast<std::size_t>(per_node));
    for (const std::int64_t node : input_nodes) {
      if (node < 0 || node >= contents.info.global_nodes)
        fail(ErrorCategory::internal, "read_checkpoint: input node ", node, " out of range");
      const auto n = static_cast<std::size_t>(node);
      const auto pack = [&](const GatheredField& f) {
        const auto c = static_cast<std::size_t>(f.components);
        packed.insert(packed.end(), f.values.begin() + n * c, f.values.begin() + (n + 1) * c);
      };
      for (const GatheredField& f : contents.node_fields) pack(f);
      for (const GatheredField& f : contents.extra_fields) pack(f);
    }
  });
  std::vector<double> received(static_cast<std::size_t>(local_count) *
                               static_cast<std::size_t>(per_node));
  FOEHN_MPI_CHECK(MPI_Scatterv(packed.data(), value_counts.data(), value_displacements.data(),
                               MPI_DOUBLE, received.data(), static_cast<int>(received.size()),
                               MPI_DOUBLE, 0, mesh.comm));
  return received;
}

// This rank's state and extra fields from its received values (`components`: per field, in
// file order, coordinates first), the coordinates checked against the mesh's.
void unpack_node_values(const petsc::DistributedMesh& mesh, const std::filesystem::path& path,
                        const std::vector<int>& components, const std::vector<double>& received,
                        ModelState& state, std::vector<MeshField>& extras) {
  const std::size_t state_field_count = components.size() - 1 - extras.size();
  const double* value = received.data();
  for (std::size_t node = 0; node < static_cast<std::size_t>(mesh.local_nodes()); ++node) {
    const Point3& here = mesh.local.nodes[node];
    for (std::size_t d = 0; d < 3; ++d, ++value)
      if (!(std::abs(*value - here[d]) <= coordinate_tolerance))
        fail(ErrorCategory::invalid_input, quoted(path), ": written for another mesh or ",
             "numbering (input node ", mesh.input_node_of_local[node], " is at ", here[0], ", ",
             here[1], ", ", here[2], " m here, coordinate ", d, " = ", *value,
             " in the checkpoint)");
    for (std::size_t f = 0; f < components.size() - 1; ++f) {
      const auto c = static_cast<std::size_t>(components[f + 1]);
      std::vector<double>& target =
          f < state_field_count ? field_of(state, f) : extras[f - state_field_count].values;
      std::copy(value, value + c, target.begin() + static_cast<std::ptrdiff_t>(node * c));
      value += c;
    }
  }
}

}  // namespace

void write_checkpoint(const petsc::DistributedMesh& mesh, const ModelState& state,
                      const std::filesystem::path& path, const CheckpointMetadata& metadata,
                      std::span<const MeshField> extra_node_fields) {
  const detail::CommShape shape = detail::comm_shape(mesh.comm, "write_checkpoint");
  const std::string where = "write_checkpoint " + quoted(path);

  // Rank 0's time and step go into the file; every rank must hold the same.
  double time = state.time;
  std::int64_t step = state.step;
  FOEHN_MPI_CHECK(MPI_Bcast(&time, 1, MPI_DOUBLE, 0, mesh.comm));
  FOEHN_MPI_CHECK(MPI_Bcast(&step, 1, MPI_INT64_T, 0, mesh.comm));
  // The extra fields (names, components) must be the same on every rank: each is gathered.
  std::string extras_here;
  for (const MeshField& f : extra_node_fields)
    extras_here += f.name + " x" + std::to_string(f.components) + "; ";
  const std::string extras_on_rank0 = rank0_text(extras_here, mesh.comm);

  detail::run_collectively(mesh.comm, [&] {
    check_mesh(mesh, shape, "write_checkpoint");
    if (extras_here != extras_on_rank0)
      fail(ErrorCategory::invalid_input, where, ": this rank's extra fields (", extras_here,
           ") differ from rank 0's (", extras_on_rank0, ")");
    if (std::memcmp(&time, &state.time, sizeof time) != 0 || step != state.step)
      fail(ErrorCategory::invalid_input, where, ": this rank's state is at step ", state.step,
           " time ", state.time, ", rank 0's at step ", step, " time ", time);
    check_fields_to_write(mesh, state, extra_node_fields, where);
  });

  // Gathers (collective; they agree on their own failures).
  std::vector<GatheredField> node_fields;
  node_fields.push_back(
      {coordinates_name, 3, petsc::gather_to_input_numbering(mesh, local_coordinates(mesh), 3)});
  const std::vector<StateField> fields = state_fields();
  for (std::size_t i = 0; i < fields.size(); ++i)
    node_fields.push_back(
        {fields[i].name, fields[i].components,
         petsc::gather_to_input_numbering(mesh, field_of(state, i), fields[i].components)});
  std::vector<GatheredField> extra_fields;
  for (const MeshField& f : extra_node_fields)
    extra_fields.push_back(
        {f.name, f.components, petsc::gather_to_input_numbering(mesh, f.values, f.components)});

  detail::run_collectively(mesh.comm, [&] {
    if (shape.rank != 0) return;
    CheckpointInfo header;
    header.format_version = checkpoint_format_version;
    header.case_fingerprint = metadata.case_fingerprint;
    header.global_nodes = mesh.global_nodes;
    header.global_tets = mesh.global_tets;
    header.time = time;
    header.step = step;
    header.adapted_at_step = metadata.adapted_at_step;
    header.adapt_interior_nodes_per_complexity = metadata.adapt_interior_nodes_per_complexity;
    header.adapt_nodes = metadata.adapt_nodes;
    header.adapt_dt = metadata.adapt_dt;
    header.pending_adaptation_step = metadata.pending_adaptation_step;
    header.pending_adaptation_complexity = metadata.pending_adaptation_complexity;
    header.pending_adaptation_boundary_nodes = metadata.pending_adaptation_boundary_nodes;
    write_file(path, header, node_fields, extra_fields);
  });
}

ModelState read_checkpoint(const petsc::DistributedMesh& mesh, const std::filesystem::path& path,
                           const CheckpointMetadata& expected,
                           std::vector<MeshField>* extra_node_fields) {
  const detail::CommShape shape = detail::comm_shape(mesh.comm, "read_checkpoint");
  CheckpointContents contents;
  detail::run_collectively(mesh.comm, [&] {
    check_mesh(mesh, shape, "read_checkpoint");
    if (shape.rank == 0) contents = read_contents(mesh, path, expected);
  });
  const CheckpointShape file = broadcast_shape(contents, mesh.comm);

  // Values a node: coordinates, the state's fields, the extra fields.
  std::vector<int> components{3};
  for (const StateField& f : state_fields()) components.push_back(f.components);
  components.insert(components.end(), file.extra_components.begin(), file.extra_components.end());
  int per_node = 0;
  for (int c : components) per_node += c;
  const std::vector<double> received = scatter_node_values(mesh, shape, contents, per_node);

  ModelState state;
  std::vector<MeshField> extras;
  detail::run_collectively(mesh.comm, [&] {
    const auto local_count = static_cast<std::size_t>(mesh.local_nodes());
    state.resize(local_count);
    state.time = file.time;
    state.step = file.step;
    std::size_t name_start = 0;
    for (int c : file.extra_components) {
      const std::size_t name_end = file.extra_names.find('\0', name_start);
      extras.push_back({file.extra_names.substr(name_start, name_end - name_start), c, {}});
      extras.back().values.resize(local_count * static_cast<std::size_t>(c));
      name_start = name_end + 1;
    }
    unpack_node_values(mesh, path, components, received, state, extras);
  });
  if (extra_node_fields != nullptr) *extra_node_fields = std::move(extras);
  return state;
}

CheckpointInfo read_checkpoint_info(const std::filesystem::path& path) {
  const detail::QuietHdf5Errors quiet;
  CheckpointInfo info;
  (void)open_checkpoint(path, info);
  return info;
}

void skip_hdf5_clean_up_at_exit() noexcept {
  // Both must come before MPI_Init: a parallel HDF5 initialised after it also ends itself from
  // MPI_Finalize (an attribute on MPI_COMM_SELF), which H5dont_atexit does not stop.
  (void)H5dont_atexit();  // fails only once HDF5 is initialised; then it changes nothing
  (void)H5open();
}

}  // namespace foehn::mountainwave
