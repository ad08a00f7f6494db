// distributed_mesh_from_dmplex: the DM's owned cells and their vertices become a caller's
// partition (ids = DMPlex's global vertex numbers, owned = point-SF roots), which
// distributed_mesh_from_partition turns into a DistributedMesh; labels are read afterwards.

#include <petscdmplex.h>

#include <algorithm>
#include <cstdint>
#include <vector>

#include "foehn/petsc/dmplex_mesh.hpp"
#include "foehn/petsc/mpi_collective.hpp"
#include "foehn/petsc/partitioned_mesh.hpp"
#include "foehn/petsc/petsc_check.hpp"
#include "foehn/runtime/error.hpp"

namespace foehn::petsc {

namespace {

constexpr const char* who = "distributed_mesh_from_dmplex: ";
constexpr const char* cell_label = "Cell Sets";  // the names PETSc's Gmsh and Exodus readers use
constexpr const char* face_label = "Face Sets";

std::vector<PetscInt> values_of(IS is) {
  PetscInt count = 0;
  const PetscInt* values = nullptr;
  FOEHN_PETSC_CHECK(ISGetLocalSize(is, &count));
  FOEHN_PETSC_CHECK(ISGetIndices(is, &values));
  std::vector<PetscInt> copy(values, values + count);
  FOEHN_PETSC_CHECK(ISRestoreIndices(is, &values));
  return copy;
}

// Local checks only (no rank may enter a collective PETSc call the others skip).
void check_dm(MPI_Comm comm, DM dm) {
  if (dm == nullptr) fail(ErrorCategory::invalid_input, who, "the DM is null");
  PetscBool plex = PETSC_FALSE;
  FOEHN_PETSC_CHECK(PetscObjectTypeCompare(reinterpret_cast<PetscObject>(dm), DMPLEX, &plex));
  if (!plex) {
    DMType type = nullptr;
    FOEHN_PETSC_CHECK(DMGetType(dm, &type));
    fail(ErrorCategory::invalid_input, who, "the DM is of type ", type ? type : "(none)",
         ", not DMPLEX");
  }
  int relation = MPI_UNEQUAL;
  FOEHN_MPI_CHECK(
      MPI_Comm_compare(comm, PetscObjectComm(reinterpret_cast<PetscObject>(dm)), &relation));
  if (relation != MPI_IDENT && relation != MPI_CONGRUENT)
    fail(ErrorCategory::invalid_input, who,
         "comm is neither the DM's communicator nor congruent with it");
  PetscInt dim = 0, coordinate_dim = 0;
  FOEHN_PETSC_CHECK(DMGetDimension(dm, &dim));
  FOEHN_PETSC_CHECK(DMGetCoordinateDim(dm, &coordinate_dim));
  if (dim != 3 || coordinate_dim != 3)
    fail(ErrorCategory::invalid_input, who, "the DM has dimension ", dim,
         " and coordinate dimension ", coordinate_dim, "; Foehn needs tetrahedra in 3-D");
}

// What the collective PETSc calls return; the IS and Vec belong to the DM.
struct PlexNumbers {
  Vec coordinates = nullptr;
  PetscSection coordinate_section = nullptr;
  std::vector<PetscInt> vertex_numbers, cell_numbers;
};

PlexNumbers collective_queries(DM dm) {
  PlexNumbers numbers;
  PetscBool localized = PETSC_FALSE;
  FOEHN_PETSC_CHECK(DMGetCoordinatesLocalized(dm, &localized));
  FOEHN_PETSC_CHECK(DMGetCoordinatesLocal(dm, &numbers.coordinates));
  FOEHN_PETSC_CHECK(DMGetCoordinateSection(dm, &numbers.coordinate_section));
  IS vertices = nullptr, cells = nullptr;
  FOEHN_PETSC_CHECK(DMPlexGetVertexNumbering(dm, &vertices));
  FOEHN_PETSC_CHECK(DMPlexGetCellNumbering(dm, &cells));
  numbers.vertex_numbers = values_of(vertices);
  numbers.cell_numbers = values_of(cells);
  if (localized)
    fail(ErrorCategory::invalid_input, who,
         "the DM has localized (periodic) coordinates; Foehn meshes are not periodic");
  return numbers;
}

// This rank's part of the DM as the arrays of a caller's partition.
struct PlexPart {
  std::vector<double> xyz;
  std::vector<std::int64_t> ids;
  std::vector<std::int32_t> owned;
  std::vector<std::int64_t> tets;
  std::vector<std::int32_t> tet_tags;
  std::vector<std::int64_t> cell_number_of_tet;
  std::vector<PetscInt> vertex_of_node;  // DM point of each node, for the face labels
};

std::vector<PetscInt> closure_vertices(DM dm, PetscInt cell, PetscInt first_vertex,
                                       PetscInt end_vertex) {
  PetscInt size = 0;
  PetscInt* closure = nullptr;
  FOEHN_PETSC_CHECK(DMPlexGetTransitiveClosure(dm, cell, PETSC_TRUE, &size, &closure));
  std::vector<PetscInt> vertices;
  for (PetscInt i = 0; i < size; ++i) {  // (point, orientation) pairs
    const PetscInt point = closure[2 * i];
    if (point >= first_vertex && point < end_vertex) vertices.push_back(point);
  }
  FOEHN_PETSC_CHECK(DMPlexRestoreTransitiveClosure(dm, cell, PETSC_TRUE, &size, &closure));
  return vertices;
}

PlexPart read_part(DM dm, const PlexNumbers& numbers, int rank) {
  PetscInt cell_begin = 0, cell_end = 0, vertex_begin = 0, vertex_end = 0;
  FOEHN_PETSC_CHECK(DMPlexGetHeightStratum(dm, 0, &cell_begin, &cell_end));
  FOEHN_PETSC_CHECK(DMPlexGetDepthStratum(dm, 0, &vertex_begin, &vertex_end));
  if (static_cast<PetscInt>(numbers.cell_numbers.size()) != cell_end - cell_begin)
    fail(ErrorCategory::invalid_input, who, "the DM has ", cell_end - cell_begin, " cells on rank ",
         rank, " but numbers only ", numbers.cell_numbers.size(),
         " of them (ghost or hybrid cells are not tetrahedra)");
  if (static_cast<PetscInt>(numbers.vertex_numbers.size()) != vertex_end - vertex_begin)
    fail(ErrorCategory::internal, who, "the DM numbers ", numbers.vertex_numbers.size(), " of ",
         vertex_end - vertex_begin, " vertices");
  PetscBool has_cell_label = PETSC_FALSE;
  FOEHN_PETSC_CHECK(DMHasLabel(dm, cell_label, &has_cell_label));

  PlexPart part;
  std::vector<std::int32_t> node_of_vertex(static_cast<std::size_t>(vertex_end - vertex_begin), -1);
  const auto add_node = [&](PetscInt vertex, bool owned, std::int64_t id) {
    node_of_vertex[static_cast<std::size_t>(vertex - vertex_begin)] =
        static_cast<std::int32_t>(part.ids.size());
    part.ids.push_back(id);
    part.owned.push_back(owned ? 1 : 0);
    part.vertex_of_node.push_back(vertex);
  };
  // Every owned vertex (so the DM's numbering carries over), then ghosts as the tets meet them.
  for (PetscInt v = vertex_begin; v < vertex_end; ++v) {
    const PetscInt number = numbers.vertex_numbers[static_cast<std::size_t>(v - vertex_begin)];
    if (number >= 0) add_node(v, true, number);
  }
  for (PetscInt c = cell_begin; c < cell_end; ++c) {
    const PetscInt number = numbers.cell_numbers[static_cast<std::size_t>(c - cell_begin)];
    if (number < 0) continue;  // an overlap cell: another rank's
    DMPolytopeType type = DM_POLYTOPE_UNKNOWN;
    FOEHN_PETSC_CHECK(DMPlexGetCellType(dm, c, &type));
    if (type != DM_POLYTOPE_TETRAHEDRON)
      fail(ErrorCategory::invalid_input, who, "cell ", c, " on rank ", rank, " is a ",
           DMPolytopeTypes[type], ", not a tetrahedron");
    const std::vector<PetscInt> vertices = closure_vertices(dm, c, vertex_begin, vertex_end);
    if (vertices.size() != 4)
      fail(ErrorCategory::invalid_input, who, "cell ", c, " on rank ", rank, " has ",
           vertices.size(), " vertices in its closure, not 4");
    for (PetscInt v : vertices) {
      std::int32_t& node = node_of_vertex[static_cast<std::size_t>(v - vertex_begin)];
      if (node < 0) {
        const PetscInt ghost = numbers.vertex_numbers[static_cast<std::size_t>(v - vertex_begin)];
        add_node(v, false, -(static_cast<std::int64_t>(ghost) + 1));
      }
      part.tets.push_back(node);
    }
    part.cell_number_of_tet.push_back(number);
    PetscInt tag = -1;
    if (has_cell_label) FOEHN_PETSC_CHECK(DMGetLabelValue(dm, cell_label, c, &tag));
    part.tet_tags.push_back(tag >= 0 ? static_cast<std::int32_t>(tag) : 0);
  }
  if (part.tets.empty())
    fail(ErrorCategory::invalid_input, who, "rank ", rank,
         " owns no cell of the DM (distribute it first: DMPlexDistribute)");
  if (!has_cell_label) part.tet_tags.clear();

  const PetscScalar* coordinates = nullptr;
  FOEHN_PETSC_CHECK(VecGetArrayRead(numbers.coordinates, &coordinates));
  for (PetscInt v : part.vertex_of_node) {
    PetscInt dof = 0, offset = 0;
    FOEHN_PETSC_CHECK(PetscSectionGetDof(numbers.coordinate_section, v, &dof));
    FOEHN_PETSC_CHECK(PetscSectionGetOffset(numbers.coordinate_section, v, &offset));
    if (dof != 3) {
      FOEHN_PETSC_CHECK(VecRestoreArrayRead(numbers.coordinates, &coordinates));
      fail(ErrorCategory::invalid_input, who, "vertex ", v, " has ", dof, " coordinates, not 3");
    }
    for (PetscInt d = 0; d < 3; ++d) part.xyz.push_back(PetscRealPart(coordinates[offset + d]));
  }
  FOEHN_PETSC_CHECK(VecRestoreArrayRead(numbers.coordinates, &coordinates));
  return part;
}

// "Face Sets" value of each boundary face (0 where the face has none).
void read_face_tags(DM dm, const PlexPart& part, const MeshFromPartition& built,
                    std::vector<std::int32_t>& tags) {
  PetscBool has_face_label = PETSC_FALSE;
  DMPlexInterpolatedFlag interpolated = DMPLEX_INTERPOLATED_NONE;
  FOEHN_PETSC_CHECK(DMHasLabel(dm, face_label, &has_face_label));
  FOEHN_PETSC_CHECK(DMPlexIsInterpolated(dm, &interpolated));
  if (!has_face_label || interpolated != DMPLEX_INTERPOLATED_FULL) return;
  const std::vector<Triangle>& faces = built.mesh.local.boundary_faces;
  for (std::size_t f = 0; f < faces.size(); ++f) {
    PetscInt vertices[3];
    for (std::size_t k = 0; k < 3; ++k) {
      const auto caller = static_cast<std::size_t>(
          built.caller_local_of_local[static_cast<std::size_t>(faces[f][k])]);
      vertices[k] = part.vertex_of_node[caller];
    }
    PetscInt count = 0;
    const PetscInt* join = nullptr;
    FOEHN_PETSC_CHECK(DMPlexGetFullJoin(dm, 3, vertices, &count, &join));
    const PetscInt face = count == 1 ? join[0] : -1;
    FOEHN_PETSC_CHECK(DMPlexRestoreJoin(dm, 3, vertices, &count, &join));
    PetscInt tag = -1;
    if (face >= 0) FOEHN_PETSC_CHECK(DMGetLabelValue(dm, face_label, face, &tag));
    tags[f] = tag >= 0 ? static_cast<std::int32_t>(tag) : 0;
  }
}

}  // namespace

DistributedMesh distributed_mesh_from_dmplex(MPI_Comm comm, DM dm) {
  const detail::CommShape shape = detail::comm_shape(comm, "distributed_mesh_from_dmplex");
  detail::run_collectively(comm, [&] { check_dm(comm, dm); });
  // Collective PETSc calls, made by every rank in the same order. On a valid DM they do not
  // fail; should one fail on some ranks only, PETSc's own collectives could not be kept apart.
  PlexNumbers numbers;
  detail::run_collectively(comm, [&] { numbers = collective_queries(dm); });
  PlexPart part;
  detail::run_collectively(comm, [&] { part = read_part(dm, numbers, shape.rank); });

  PartitionedMeshArrays arrays;
  arrays.local.coordinates = part.xyz.data();
  arrays.local.node_count = static_cast<std::int64_t>(part.ids.size());
  arrays.local.tets = part.tets;
  arrays.local.tet_tags = part.tet_tags;
  arrays.local.index_base = 0;
  arrays.local.orientation = OrientationPolicy::fix;  // DMPlex's cone order is not Foehn's
  arrays.local.allow_unused_nodes = true;  // keep every owned vertex: the numbering is the DM's
  arrays.node_ids = part.ids;
  arrays.owned_flags = part.owned;
  arrays.boundary = BoundaryFaceSource::derive;
  MeshFromPartition built = distributed_mesh_from_partition(comm, arrays);

  detail::run_collectively(comm, [&] {
    built.mesh.input_tet_of_local = part.cell_number_of_tet;
    read_face_tags(dm, part, built, built.mesh.local.boundary_tags);
  });
  return std::move(built.mesh);
}

}  // namespace foehn::petsc
