// dmplex_from_distributed_mesh: every rank hands PETSc its tets in global vertex numbers and
// the coordinates of the nodes it owns; the created DM is then checked against the mesh (each
// cell's vertices) before the labels are set, so a change in how PETSc numbers points cannot
// silently put tags on the wrong cells.

#include <petscdmplex.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <limits>
#include <utility>
#include <vector>

#include "foehn/petsc/dmplex_mesh.hpp"
#include "foehn/petsc/mpi_collective.hpp"
#include "foehn/petsc/petsc_check.hpp"
#include "foehn/runtime/error.hpp"

namespace foehn::petsc {

namespace {

constexpr const char* who = "dmplex_from_distributed_mesh: ";
constexpr const char* cell_label = "Cell Sets";
constexpr const char* face_label = "Face Sets";

PetscInt to_petsc_int(std::int64_t value, const char* what) {
  if (value < 0 || value > static_cast<std::int64_t>(std::numeric_limits<PetscInt>::max()))
    fail(ErrorCategory::invalid_input, who, what, " = ", value, " does not fit PETSc's ",
         sizeof(PetscInt) * 8, "-bit PetscInt");
  return static_cast<PetscInt>(value);
}

void check_mesh_layout(const DistributedMesh& mesh, const detail::CommShape& shape) {
  if (mesh.rank != shape.rank || mesh.size != shape.size)
    fail(ErrorCategory::invalid_input, who, "the mesh is rank ", mesh.rank, " of ", mesh.size,
         ", its communicator has this process as rank ", shape.rank, " of ", shape.size);
  const std::size_t nodes = mesh.local.nodes.size();
  if (mesh.global_of_local.size() != nodes || mesh.owned_nodes < 0 ||
      static_cast<std::size_t>(mesh.owned_nodes) > nodes)
    fail(ErrorCategory::invalid_input, who, "the mesh has ", nodes, " local nodes, ",
         mesh.global_of_local.size(), " global numbers and ", mesh.owned_nodes, " owned nodes");
  if (!mesh.local.tet_tags.empty() && mesh.local.tet_tags.size() != mesh.local.tets.size())
    fail(ErrorCategory::invalid_input, who, "the mesh has ", mesh.local.tet_tags.size(),
         " tet tags for ", mesh.local.tets.size(), " tets");
  if (mesh.local.boundary_tags.size() != mesh.local.boundary_faces.size())
    fail(ErrorCategory::invalid_input, who, "the mesh has ", mesh.local.boundary_tags.size(),
         " boundary tags for ", mesh.local.boundary_faces.size(), " boundary faces");
}

// Cells in global vertex numbers, in DMPlex's cone order: DMPlexInvertCell swaps the first two
// vertices of a tetrahedron, which turns Foehn's (and Gmsh's) positive order into DMPlex's.
std::vector<PetscInt> cells_of(const DistributedMesh& mesh) {
  std::vector<PetscInt> cells;
  cells.reserve(mesh.local.tets.size() * 4);
  const std::size_t nodes = mesh.global_of_local.size();
  for (const Tet& tet : mesh.local.tets) {
    for (int k : {1, 0, 2, 3}) {
      const std::int32_t local = tet[static_cast<std::size_t>(k)];
      const auto n = static_cast<std::size_t>(local);
      if (local < 0 || n >= nodes)
        fail(ErrorCategory::invalid_input, who, "a tet names local node ", local);
      const std::int64_t global = mesh.global_of_local[n];
      if (global >= mesh.global_nodes)
        fail(ErrorCategory::invalid_input, who, "local node ", n, " has global number ", global,
             " of ", mesh.global_nodes);
      cells.push_back(to_petsc_int(global, "a global node number"));
    }
  }
  return cells;
}

// Owns a DM until released (destroys it when an error unwinds).
class DmHolder {
 public:
  DmHolder() = default;
  ~DmHolder() {
    if (dm_ != nullptr) (void)DMDestroy(&dm_);
  }
  DmHolder(const DmHolder&) = delete;
  DmHolder& operator=(const DmHolder&) = delete;
  DM* out() noexcept { return &dm_; }
  DM get() const noexcept { return dm_; }
  DM release() noexcept { return std::exchange(dm_, nullptr); }

 private:
  DM dm_ = nullptr;
};

// Where the created DM keeps the mesh's tets and nodes: cells in tet order, vertices in
// increasing global number (as DMPlexBuildFromCellListParallel numbers them), which
// check_points confirms cell by cell before any label relies on it.
struct PlexPoints {
  PetscInt cell_begin = 0, vertex_begin = 0, vertex_end = 0;
  std::vector<PetscInt> global_of_vertex;  // of each vertex point, in point order (sorted)
};

PlexPoints check_points(DM dm, const DistributedMesh& mesh, std::vector<PetscInt> global_of_vertex,
                        const std::vector<PetscInt>& cells) {
  PlexPoints points;
  PetscInt cell_end = 0;
  FOEHN_PETSC_CHECK(DMPlexGetHeightStratum(dm, 0, &points.cell_begin, &cell_end));
  FOEHN_PETSC_CHECK(DMPlexGetDepthStratum(dm, 0, &points.vertex_begin, &points.vertex_end));
  if (cell_end - points.cell_begin != static_cast<PetscInt>(mesh.local.tets.size()) ||
      points.vertex_end - points.vertex_begin != static_cast<PetscInt>(global_of_vertex.size()))
    fail(ErrorCategory::internal, who, "DMPlex made ", cell_end - points.cell_begin, " cells and ",
         points.vertex_end - points.vertex_begin, " vertices of ", mesh.local.tets.size(),
         " tets and ", global_of_vertex.size(), " nodes");
  points.global_of_vertex = std::move(global_of_vertex);
  for (std::size_t t = 0; t < mesh.local.tets.size(); ++t) {
    const auto cell = points.cell_begin + static_cast<PetscInt>(t);
    PetscInt size = 0;
    PetscInt* closure = nullptr;
    FOEHN_PETSC_CHECK(DMPlexGetTransitiveClosure(dm, cell, PETSC_TRUE, &size, &closure));
    std::vector<PetscInt> found;
    for (PetscInt i = 0; i < size; ++i) {
      const PetscInt p = closure[2 * i];
      if (p >= points.vertex_begin && p < points.vertex_end)
        found.push_back(points.global_of_vertex[static_cast<std::size_t>(p - points.vertex_begin)]);
    }
    FOEHN_PETSC_CHECK(DMPlexRestoreTransitiveClosure(dm, cell, PETSC_TRUE, &size, &closure));
    std::vector<PetscInt> expected(cells.begin() + static_cast<std::ptrdiff_t>(4 * t),
                                   cells.begin() + static_cast<std::ptrdiff_t>(4 * t + 4));
    std::sort(found.begin(), found.end());
    std::sort(expected.begin(), expected.end());
    if (found != expected)
      fail(ErrorCategory::internal, who, "DMPlex cell ", cell,
           " does not have the vertices of tet ", t,
           " (PETSc numbered the points differently than expected)");
  }
  return points;
}

void set_labels(DM dm, const DistributedMesh& mesh, const PlexPoints& points, bool cell_sets,
                bool face_sets) {
  if (cell_sets) {
    FOEHN_PETSC_CHECK(DMCreateLabel(dm, cell_label));
    for (std::size_t t = 0; t < mesh.local.tet_tags.size(); ++t)
      FOEHN_PETSC_CHECK(DMSetLabelValue(
          dm, cell_label, points.cell_begin + static_cast<PetscInt>(t), mesh.local.tet_tags[t]));
  }
  if (!face_sets) return;
  FOEHN_PETSC_CHECK(DMCreateLabel(dm, face_label));
  const std::vector<PetscInt>& sorted = points.global_of_vertex;
  for (std::size_t f = 0; f < mesh.local.boundary_faces.size(); ++f) {
    std::array<PetscInt, 3> vertices{};
    for (std::size_t k = 0; k < 3; ++k) {
      const auto global = static_cast<PetscInt>(
          mesh.global_of_local[static_cast<std::size_t>(mesh.local.boundary_faces[f][k])]);
      const auto at = std::lower_bound(sorted.begin(), sorted.end(), global);
      if (at == sorted.end() || *at != global)
        fail(ErrorCategory::invalid_input, who, "boundary face ", f,
             " uses a node no tet of this rank uses");
      vertices[k] = points.vertex_begin + static_cast<PetscInt>(at - sorted.begin());
    }
    PetscInt count = 0;
    const PetscInt* join = nullptr;
    FOEHN_PETSC_CHECK(DMPlexGetFullJoin(dm, 3, vertices.data(), &count, &join));
    const PetscInt face = count == 1 ? join[0] : -1;
    FOEHN_PETSC_CHECK(DMPlexRestoreJoin(dm, 3, vertices.data(), &count, &join));
    if (face < 0)
      fail(ErrorCategory::invalid_input, who, "boundary face ", f, " is not a face of the DM");
    FOEHN_PETSC_CHECK(DMSetLabelValue(dm, face_label, face, mesh.local.boundary_tags[f]));
  }
}

}  // namespace

DM dmplex_from_distributed_mesh(const DistributedMesh& mesh, const DmPlexExportOptions& options) {
  const detail::CommShape shape = detail::comm_shape(mesh.comm, "dmplex_from_distributed_mesh");
  std::vector<PetscInt> cells;
  std::vector<PetscReal> owned_coordinates;
  PetscInt tets = 0, owned = 0, global_nodes = 0;
  detail::run_collectively(mesh.comm, [&] {
    check_mesh_layout(mesh, shape);
    cells = cells_of(mesh);
    tets = to_petsc_int(static_cast<std::int64_t>(mesh.local.tets.size()), "local tets");
    owned = to_petsc_int(mesh.owned_nodes, "owned nodes");
    global_nodes = to_petsc_int(mesh.global_nodes, "global nodes");
    to_petsc_int(static_cast<std::int64_t>(cells.size()), "local tets x 4");
    // Owned nodes are local nodes 0 .. owned-1 in global order: PETSc's vertex layout.
    for (std::int32_t n = 0; n < mesh.owned_nodes; ++n)
      for (double x : mesh.local.nodes[static_cast<std::size_t>(n)]) owned_coordinates.push_back(x);
  });
  // Labels are created on every rank or on none.
  std::array<int, 2> any_tags{mesh.local.tet_tags.empty() ? 0 : 1,
                              mesh.local.boundary_faces.empty() ? 0 : 1};
  FOEHN_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, any_tags.data(), 2, MPI_INT, MPI_MAX, mesh.comm));

  // PETSc could return the rank's vertex list (verticesAdj), but 3.18 crashes when asked for it;
  // it is the sorted set of the cells' vertex numbers, and check_points confirms that.
  DmHolder dm;
  FOEHN_PETSC_CHECK(DMPlexCreateFromCellListParallelPetsc(
      mesh.comm, 3, tets, owned, global_nodes, 4, options.interpolate ? PETSC_TRUE : PETSC_FALSE,
      cells.data(), 3, owned_coordinates.data(), nullptr, nullptr, dm.out()));
  detail::run_collectively(mesh.comm, [&] {
    std::vector<PetscInt> global_of_vertex = cells;
    std::sort(global_of_vertex.begin(), global_of_vertex.end());
    global_of_vertex.erase(std::unique(global_of_vertex.begin(), global_of_vertex.end()),
                           global_of_vertex.end());
    const PlexPoints points = check_points(dm.get(), mesh, std::move(global_of_vertex), cells);
    set_labels(dm.get(), mesh, points, options.labels && any_tags[0] != 0,
               options.labels && options.interpolate && any_tags[1] != 0);
  });
  return dm.release();
}

}  // namespace foehn::petsc
