// Meshes: a C ABI mesh handle owned by a Python object, made from the caller's arrays (serial, or
// this rank's part of the caller's partition), from a file or from the Mountainwave3D
// generator; its arrays read back in the caller's node order.
#include <nanobind/stl/pair.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/unique_ptr.h>
#include <nanobind/stl/vector.h>

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "bindings.hpp"
#include "c_api_support.hpp"
#include "foehn/foehn_petsc.h"
#include "foehn/mesh/mesh_files.hpp"
#include "foehn/mesh/mountain.hpp"
#include "foehn/mesh/topology.hpp"
#include "foehn/runtime/error.hpp"
#include "mesh_handle.hpp"

namespace foehn::python {

MeshHandle::~MeshHandle() {
  foehn_mesh_destroy(&handle);
}

const foehn_mesh_s& MeshHandle::get() const {
  if (!handle) fail(ErrorCategory::invalid_input, "the mesh was closed");
  return *handle;
}

namespace {

using HostIndices = nb::ndarray<nb::ro, nb::c_contig, nb::device::cpu>;

// The tets as the C ABI takes them: 4- or 8-byte integers (the Python layer converts others).
int index_bytes_of(const HostIndices& tets) {
  const nb::dlpack::dtype type = tets.dtype();
  if (type == nb::dtype<std::int32_t>()) return 4;
  if (type == nb::dtype<std::int64_t>()) return 8;
  fail(ErrorCategory::invalid_input, "tets: 32- or 64-bit signed integers expected");
}

foehn_orientation orientation_of(bool fix_orientation) {
  return fix_orientation ? FOEHN_ORIENTATION_FIX : FOEHN_ORIENTATION_CHECK;
}

// Meshes from arrays and files without boundary triangles get their surface as boundary
// (topology.hpp), so boundary_nodes() finds the nodes a Dirichlet condition needs.
std::unique_ptr<MeshHandle> serial_handle(TetMesh mesh) {
  add_surface_as_boundary(mesh);
  auto made = std::make_unique<foehn_mesh_s>();
  made->serial = std::move(mesh);
  auto handle = std::make_unique<MeshHandle>();
  handle->handle = c_api::hand_out(std::move(made), c_api::HandleKind::mesh);
  return handle;
}

// The caller's local node of Foehn's local node l.
std::size_t caller_node(const foehn_mesh_s& mesh, std::size_t l) {
  return mesh.caller_local_of_local.empty()
             ? l
             : static_cast<std::size_t>(mesh.caller_local_of_local[l]);
}

nb::ndarray<nb::numpy, double> points_of(const MeshHandle& self) {
  const foehn_mesh_s& mesh = self.get();
  const TetMesh& local = mesh.local();
  std::vector<double> points(local.node_count() * 3);
  for (std::size_t l = 0; l < local.node_count(); ++l)
    for (int d = 0; d < 3; ++d) points[caller_node(mesh, l) * 3 + d] = local.nodes[l][d];
  return to_numpy(std::move(points), {local.node_count(), 3});
}

// Triangles or tets (K nodes each) in the caller's node numbers.
template <std::size_t K>
nb::ndarray<nb::numpy, std::int32_t> cells_of(
    const foehn_mesh_s& mesh, const std::vector<std::array<std::int32_t, K>>& cells) {
  std::vector<std::int32_t> numbers(cells.size() * K);
  for (std::size_t c = 0; c < cells.size(); ++c)
    for (std::size_t k = 0; k < K; ++k)
      numbers[c * K + k] =
          static_cast<std::int32_t>(caller_node(mesh, static_cast<std::size_t>(cells[c][k])));
  return to_numpy(std::move(numbers), {cells.size(), K});
}

}  // namespace

void register_mesh(nb::module_& module) {
  nb::class_<MeshHandle>(module, "Mesh")
      .def_static(
          "from_arrays",
          [](HostDoubles points, HostIndices tets, int index_base, bool fix_orientation) {
            if (points.ndim() != 2 || points.shape(1) != 3)
              fail(ErrorCategory::invalid_input, "points: an array of shape (nodes, 3) expected");
            if (tets.ndim() != 2 || tets.shape(1) != 4)
              fail(ErrorCategory::invalid_input, "tets: an array of shape (tets, 4) expected");
            auto mesh = std::make_unique<MeshHandle>();
            check(foehn_mesh_create(static_cast<int64_t>(points.shape(0)), points.data(),
                                    static_cast<int64_t>(tets.shape(0)), tets.data(),
                                    index_bytes_of(tets), index_base,
                                    orientation_of(fix_orientation), &mesh->handle));
            add_surface_as_boundary(mesh->handle->serial);
            return mesh;
          },
          nb::arg("points"), nb::arg("tets"), nb::arg("index_base"), nb::arg("fix_orientation"))
      .def_static(
          "from_partition",
          [](std::int64_t fortran_comm, HostDoubles points, std::int64_t owned_nodes,
             nb::ndarray<const std::int64_t, nb::c_contig, nb::device::cpu> node_ids,
             HostIndices tets, int index_base, bool fix_orientation) {
            // Shapes are checked collectively by the C ABI (counts), so a rank with a wrong
            // shape reports on every rank: sizes are passed as they are.
            auto mesh = std::make_unique<MeshHandle>();
            const int64_t nodes = points.ndim() == 2 && points.shape(1) == 3
                                      ? static_cast<int64_t>(points.shape(0))
                                      : -1;
            const int64_t tet_count =
                tets.ndim() == 2 && tets.shape(1) == 4 ? static_cast<int64_t>(tets.shape(0)) : -1;
            const int bytes = tets.dtype() == nb::dtype<std::int64_t>() ? 8 : 4;
            const std::int64_t* ids = node_ids.data();
            const std::size_t negative = static_cast<std::size_t>(
                std::find_if(ids, ids + node_ids.size(), [](std::int64_t id) { return id < 0; }) -
                ids);
            if (static_cast<int64_t>(node_ids.size()) != nodes && nodes >= 0)
              check(foehn_report_error_collective_f(static_cast<MPI_Fint>(fortran_comm),
                                                    FOEHN_ERROR_INVALID_INPUT,
                                                    "node_ids: one id per local node expected"));
            else if (negative < node_ids.size())
              // Global ids are node numbers: a negative one is a caller's bug (an unset -1, a
              // wrapped index), not an id to keep.
              check(foehn_report_error_collective_f(
                  static_cast<MPI_Fint>(fortran_comm), FOEHN_ERROR_INVALID_INPUT,
                  ("node_ids: id " + std::to_string(ids[negative]) + " of local node " +
                   std::to_string(negative) + " is negative (ids are global node numbers >= 0)")
                      .c_str()));
            else
              check(foehn_report_error_collective_f(static_cast<MPI_Fint>(fortran_comm),
                                                    FOEHN_SUCCESS, ""));
            nb::gil_scoped_release unlocked;
            check(foehn_mesh_create_partitioned_f(static_cast<MPI_Fint>(fortran_comm), nodes,
                                                  owned_nodes, points.data(), node_ids.data(),
                                                  tet_count, tets.data(), bytes, index_base,
                                                  orientation_of(fix_orientation), &mesh->handle));
            // No boundary here: a rank's surface holds its partition interfaces (mesh.py's
            // boundary_nodes refuses instead).
            return mesh;
          },
          nb::arg("fortran_comm"), nb::arg("points"), nb::arg("owned_nodes"), nb::arg("node_ids"),
          nb::arg("tets"), nb::arg("index_base"), nb::arg("fix_orientation"))
      .def_static(
          "read",
          [](const std::string& path) {
            nb::gil_scoped_release unlocked;
            return serial_handle(read_mesh_file(path));
          },
          nb::arg("path"))
      .def_static(
          "mountain",
          [](int cells_x, int cells_y, int cells_z, double length_x, double length_y, double height,
             double mountain_height, double mountain_half_width, double mountain_spacing,
             double mountain_core, double horizontal_growth, double vertical_grading) {
            MountainMeshOptions options;
            options.cells_x = cells_x;
            options.cells_y = cells_y;
            options.cells_z = cells_z;
            options.length_x = length_x;
            options.length_y = length_y;
            options.height = height;
            options.mountain_height = mountain_height;
            options.mountain_half_width = mountain_half_width;
            options.mountain_spacing = mountain_spacing;
            options.mountain_core = mountain_core;
            options.horizontal_growth = horizontal_growth;
            options.vertical_grading = vertical_grading;
            check_mountain_options(options);
            nb::gil_scoped_release unlocked;
            return serial_handle(generate_mountain_mesh(options));
          },
          nb::arg("cells_x"), nb::arg("cells_y"), nb::arg("cells_z"), nb::arg("length_x"),
          nb::arg("length_y"), nb::arg("height"), nb::arg("mountain_height"),
          nb::arg("mountain_half_width"), nb::arg("mountain_spacing"), nb::arg("mountain_core"),
          nb::arg("horizontal_growth"), nb::arg("vertical_grading"))
      .def(
          "write",
          [](const MeshHandle& self, const std::string& path,
             const std::vector<std::pair<std::string, HostDoubles>>& point_data) {
            const foehn_mesh_s& mesh = self.get();
            if (mesh.distributed)
              fail(ErrorCategory::invalid_input, "write ", path,
                   ": a mesh made from a partition is written by each rank's own tools");
            TetMesh copy = mesh.serial;
            const std::size_t nodes = copy.node_count();
            for (const auto& [name, values] : point_data) {
              // Scalars, vectors and 3 x 3 tensors, as docs/python.md says (and ParaView shows).
              const std::size_t components = nodes ? values.size() / nodes : 0;
              if (values.size() != components * nodes ||
                  (components != 1 && components != 3 && components != 9))
                fail(ErrorCategory::invalid_input, "write ", path, ": point_data '", name, "' has ",
                     values.size(), " values for ", nodes,
                     " nodes; 1, 3 or 9 values per node expected");
              copy.node_fields.push_back(
                  MeshField{name, static_cast<int>(components),
                            std::vector<double>(values.data(), values.data() + values.size())});
            }
            nb::gil_scoped_release unlocked;
            write_mesh_file(copy, path);
          },
          nb::arg("path"), nb::arg("point_data"))
      .def_prop_ro("node_count",
                   [](const MeshHandle& self) {
                     return static_cast<std::int64_t>(self.get().local().node_count());
                   })
      .def_prop_ro("owned_node_count",
                   [](const MeshHandle& self) {
                     int64_t local = 0, owned = 0, tets = 0;
                     check(foehn_mesh_sizes(self.handle, &local, &owned, &tets));
                     return owned;
                   })
      .def_prop_ro("tet_count",
                   [](const MeshHandle& self) {
                     return static_cast<std::int64_t>(self.get().local().tet_count());
                   })
      .def_prop_ro(
          "flipped_tets",
          [](const MeshHandle& self) { return static_cast<std::int64_t>(self.get().flipped_tets); })
      .def_prop_ro("distributed",
                   [](const MeshHandle& self) { return self.get().distributed.has_value(); })
      .def_prop_ro("points", &points_of, nb::rv_policy::move)
      .def_prop_ro(
          "tets",
          [](const MeshHandle& self) {
            const foehn_mesh_s& mesh = self.get();
            return cells_of(mesh, mesh.local().tets);
          },
          nb::rv_policy::move)
      .def_prop_ro(
          "boundary_faces",
          [](const MeshHandle& self) {
            const foehn_mesh_s& mesh = self.get();
            return cells_of(mesh, mesh.local().boundary_faces);
          },
          nb::rv_policy::move)
      .def_prop_ro(
          "boundary_tags",
          [](const MeshHandle& self) {
            std::vector<std::int32_t> tags = self.get().local().boundary_tags;
            const std::size_t n = tags.size();
            return to_numpy(std::move(tags), {n});
          },
          nb::rv_policy::move)
      .def("petsc_numbers",
           [](const MeshHandle& self) {
             std::vector<std::int64_t> numbers(self.get().local().node_count());
             check(foehn_mesh_petsc_numbers(self.handle, numbers.data()));
             const std::size_t n = numbers.size();
             return to_numpy(std::move(numbers), {n});
           })
      .def("close", [](MeshHandle& self) { check(foehn_mesh_destroy(&self.handle)); });
}

}  // namespace foehn::python
