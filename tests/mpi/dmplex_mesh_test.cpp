// DMPlex <-> DistributedMesh at 1, 2 and 3 ranks: a tagged box written as a Gmsh file, read by
// PETSc's Gmsh reader and spread by DMPlexDistribute (interpolated or not, with and without
// overlap) becomes a DistributedMesh with PETSc's own vertex and cell counts, the box's volume
// (also through the assembled mass matrix), surface and tags; a mesh from distribute_mesh goes
// to DMPlex (positive volumes by DMPlex's own geometry, labels from the tags) and back
// unchanged; DMs Foehn cannot take are refused on every rank.

#include <petscdmplex.h>
#include <petscdmshell.h>
#include <petscsf.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <ostream>
#include <set>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "foehn/mesh/gmsh.hpp"
#include "foehn/petsc/dmplex_mesh.hpp"
#include "mpi/support/caller_partition.hpp"
#include "mpi/support/mpi_test_support.hpp"

namespace foehn::petsc {
namespace {

using namespace foehn::testing;

// Destroys the DM it holds.
struct DmOwner {
  DM dm = nullptr;
  DmOwner() = default;
  explicit DmOwner(DM adopted) : dm(adopted) {}
  ~DmOwner() { DMDestroy(&dm); }
  DmOwner(const DmOwner&) = delete;
  DmOwner& operator=(const DmOwner&) = delete;
};

// DMPlexCreateBoxMesh gained arguments (localizationHeight, sparseLocalize) after 3.18; the
// overload matching the linked PETSc's signature is the one that compiles. Only boxes of
// quadrilaterals and hexahedra are made with it: simplex boxes need a mesh generator (TetGen),
// which neither PETSc build here has.
using BoxMesh9 = PetscErrorCode (*)(MPI_Comm, PetscInt, PetscBool, const PetscInt[],
                                    const PetscReal[], const PetscReal[], const DMBoundaryType[],
                                    PetscBool, DM*);
using BoxMesh10 = PetscErrorCode (*)(MPI_Comm, PetscInt, PetscBool, const PetscInt[],
                                     const PetscReal[], const PetscReal[], const DMBoundaryType[],
                                     PetscBool, PetscBool, DM*);
using BoxMesh11 = PetscErrorCode (*)(MPI_Comm, PetscInt, PetscBool, const PetscInt[],
                                     const PetscReal[], const PetscReal[], const DMBoundaryType[],
                                     PetscBool, PetscInt, PetscBool, DM*);

constexpr PetscInt tensor_faces[3] = {3, 3, 3};  // cells enough for every rank

[[maybe_unused]] PetscErrorCode tensor_box(BoxMesh9 create, PetscInt dim, DM* dm) {
  return create(world(), dim, PETSC_FALSE, tensor_faces, nullptr, nullptr, nullptr, PETSC_TRUE, dm);
}
[[maybe_unused]] PetscErrorCode tensor_box(BoxMesh10 create, PetscInt dim, DM* dm) {
  return create(world(), dim, PETSC_FALSE, tensor_faces, nullptr, nullptr, nullptr, PETSC_TRUE,
                PETSC_FALSE, dm);
}
[[maybe_unused]] PetscErrorCode tensor_box(BoxMesh11 create, PetscInt dim, DM* dm) {
  return create(world(), dim, PETSC_FALSE, tensor_faces, nullptr, nullptr, nullptr, PETSC_TRUE, 0,
                PETSC_FALSE, dm);
}

// `serial` spread over the ranks by DMPlexDistribute (on one rank it stays as it is).
DM distributed(DM serial, PetscInt overlap) {
  DM parallel = nullptr;
  EXPECT_EQ(DMPlexDistribute(serial, overlap, nullptr, &parallel), 0);
  if (parallel == nullptr) return serial;
  DMDestroy(&serial);
  return parallel;
}

const BoxSize box_size{4, 3, 2, 3.0, 2.0, 1.0};

// The tagged box written by rank 0 as a Gmsh file, read by PETSc's Gmsh reader (on rank 0),
// and distributed: the way a core gets a DMPlex from a mesh file.
DM gmsh_box(const SharedTempDir& folder, bool interpolate, PetscInt overlap, GmshVersion version) {
  const std::string path = (folder / "box.msh").string();
  if (world_rank() == 0) {
    TetMesh whole = make_box_mesh(box_size);
    add_test_fields(whole);
    write_gmsh(whole, path, {version});
  }
  MPI_Barrier(world());
  DM serial = nullptr;
  EXPECT_EQ(DMPlexCreateGmshFromFile(world(), path.c_str(), interpolate ? PETSC_TRUE : PETSC_FALSE,
                                     &serial),
            0);
  return distributed(serial, overlap);
}

// PETSc's own counts of the points of one stratum that this rank owns (roots of the point SF).
std::int64_t owned_points(DM dm, PetscInt begin, PetscInt end) {
  PetscSF sf = nullptr;
  PetscInt roots = 0, leaves = 0;
  const PetscInt* leaf_points = nullptr;
  const PetscSFNode* remote = nullptr;
  EXPECT_EQ(DMGetPointSF(dm, &sf), 0);
  EXPECT_EQ(PetscSFGetGraph(sf, &roots, &leaves, &leaf_points, &remote), 0);
  std::set<PetscInt> leaf;
  for (PetscInt i = 0; i < std::max<PetscInt>(leaves, 0); ++i)
    leaf.insert(leaf_points ? leaf_points[i] : i);
  std::int64_t owned = 0;
  for (PetscInt p = begin; p < end; ++p) owned += leaf.count(p) ? 0 : 1;
  return reduce_all(owned, MPI_SUM);
}

struct PlexCounts {
  std::int64_t vertices = 0, cells = 0;
};

PlexCounts plex_counts(DM dm) {
  PetscInt c0 = 0, c1 = 0, v0 = 0, v1 = 0;
  EXPECT_EQ(DMPlexGetHeightStratum(dm, 0, &c0, &c1), 0);
  EXPECT_EQ(DMPlexGetDepthStratum(dm, 0, &v0, &v1), 0);
  return {owned_points(dm, v0, v1), owned_points(dm, c0, c1)};
}

// The tag add_box_boundary gives a face with this centroid, add_test_fields a tet.
std::int32_t side_tag(const Point3& c) {
  const double eps = 1e-9;
  if (c[2] < eps) return boundary_terrain;
  if (c[2] > box_size.lz - eps) return boundary_top;
  if (c[0] < eps) return boundary_inflow;
  if (c[0] > box_size.lx - eps) return boundary_outflow;
  return boundary_lateral;
}
std::int32_t region_tag(const Point3& c) {
  return c[2] < 0.5 * box_size.lz ? 1 : 2;
}

Point3 face_centroid(const TetMesh& mesh, const Triangle& face) {
  Point3 c{};
  for (std::int32_t n : face)
    for (std::size_t d = 0; d < 3; ++d) c[d] += mesh.nodes[static_cast<std::size_t>(n)][d] / 3;
  return c;
}

// Tags as the box has them: tets from "Cell Sets", boundary faces from "Face Sets" (only
// interpolated DMs have faces to carry it; 0 otherwise).
void expect_box_tags(const DistributedMesh& mesh, bool faces_tagged) {
  ASSERT_EQ(mesh.local.tet_tags.size(), mesh.local.tets.size());
  for (std::size_t t = 0; t < mesh.local.tets.size(); ++t)
    EXPECT_EQ(mesh.local.tet_tags[t], region_tag(centroid(mesh.local, mesh.local.tets[t])));
  for (std::size_t f = 0; f < mesh.local.boundary_faces.size(); ++f)
    EXPECT_EQ(mesh.local.boundary_tags[f],
              faces_tagged ? side_tag(face_centroid(mesh.local, mesh.local.boundary_faces[f])) : 0);
}

struct PlexCase {
  bool interpolate;
  PetscInt overlap;
  GmshVersion version;
};

void PrintTo(const PlexCase& c, std::ostream* out) {
  *out << (c.interpolate ? "interpolated" : "cells and vertices") << ", overlap " << c.overlap
       << (c.version == GmshVersion::msh41 ? ", MSH 4.1" : ", MSH 2.2");
}

class FromDmPlex : public ::testing::TestWithParam<PlexCase> {};

TEST_P(FromDmPlex, HasPetscsCountsTheBoxsVolumeSurfaceAndTags) {
  const PlexCase plex = GetParam();
  const SharedTempDir folder;
  const DmOwner box(gmsh_box(folder, plex.interpolate, plex.overlap, plex.version));
  const DistributedMesh mesh = distributed_mesh_from_dmplex(world(), box.dm);
  expect_distributed_layout(mesh);
  const PlexCounts counts = plex_counts(box.dm);
  EXPECT_EQ(mesh.global_nodes, counts.vertices);
  EXPECT_EQ(mesh.global_tets, counts.cells);
  EXPECT_EQ(mesh.global_nodes, 5 * 4 * 3);
  EXPECT_EQ(mesh.global_tets, 4 * 3 * 2 * 6);
  // Global numbers are DMPlex's vertex numbers, which are also the input numbers; every cell
  // number once.
  EXPECT_EQ(mesh.input_node_of_local, mesh.global_of_local);
  std::vector<std::int64_t> cell_seen(static_cast<std::size_t>(mesh.global_tets), 0);
  for (std::int64_t c : mesh.input_tet_of_local) ++cell_seen[static_cast<std::size_t>(c)];
  cell_seen = reduce_all(cell_seen, MPI_SUM);
  for (std::int64_t times : cell_seen) EXPECT_EQ(times, 1);

  EXPECT_EQ(mesh.global_boundary_faces, 2 * 2 * (4 * 3 + 4 * 2 + 3 * 2));
  EXPECT_NEAR(reduce_all(local_volume(mesh.local), MPI_SUM), 6.0, 1e-12);
  EXPECT_NEAR(reduce_all(boundary_area(mesh.local), MPI_SUM), 22.0, 1e-12);
  EXPECT_NEAR(mass_matrix_sum(mesh), 6.0, 1e-12 * 6.0);
  expect_box_tags(mesh, plex.interpolate);
}

INSTANTIATE_TEST_SUITE_P(GmshBoxes, FromDmPlex,
                         ::testing::Values(PlexCase{true, 0, GmshVersion::msh41},
                                           PlexCase{false, 0, GmshVersion::msh41},
                                           PlexCase{true, 1, GmshVersion::msh22},
                                           PlexCase{false, 1, GmshVersion::msh22}));

TEST(DmPlexRoundTrip, DistributedMeshToDmPlexAndBack) {
  TetMesh whole = make_box_mesh(box_size);
  add_test_fields(whole);
  const DistributedMesh original = distribute_mesh(world(), world_rank() == 0 ? &whole : nullptr);
  for (bool interpolate : {true, false}) {
    DmPlexExportOptions options;
    options.interpolate = interpolate;
    const DmOwner plex(dmplex_from_distributed_mesh(original, options));

    // DMPlex's own geometry: every cell positively oriented.
    PetscInt c0 = 0, c1 = 0;
    ASSERT_EQ(DMPlexGetHeightStratum(plex.dm, 0, &c0, &c1), 0);
    ASSERT_EQ(c1 - c0, original.local_tets());
    for (PetscInt c = c0; c < c1; ++c) {
      PetscReal v0[3], jacobian[9], inverse[9], determinant = 0;
      ASSERT_EQ(
          DMPlexComputeCellGeometryFEM(plex.dm, c, nullptr, v0, jacobian, inverse, &determinant),
          0);
      EXPECT_GT(determinant, 0.0) << "cell " << c;
    }
    const PlexCounts counts = plex_counts(plex.dm);
    EXPECT_EQ(counts.vertices, original.global_nodes);
    EXPECT_EQ(counts.cells, original.global_tets);

    const DistributedMesh back = distributed_mesh_from_dmplex(world(), plex.dm);
    expect_distributed_layout(back);
    EXPECT_EQ(back.global_nodes, original.global_nodes);
    EXPECT_EQ(back.global_tets, original.global_tets);
    EXPECT_EQ(back.global_boundary_faces, original.global_boundary_faces);
    EXPECT_NEAR(reduce_all(local_volume(back.local), MPI_SUM), 6.0, 1e-12);
    EXPECT_NEAR(mass_matrix_sum(back), mass_matrix_sum(original), 1e-12 * 6.0);
    // Cells stay on their rank in order: tet t here is the original's tet t.
    ASSERT_EQ(back.local_tets(), original.local_tets());
    for (std::size_t t = 0; t < back.local.tets.size(); ++t) {
      std::multiset<Point3> expected, got;
      for (std::size_t k = 0; k < 4; ++k) {
        expected.insert(original.local.nodes[static_cast<std::size_t>(original.local.tets[t][k])]);
        got.insert(back.local.nodes[static_cast<std::size_t>(back.local.tets[t][k])]);
      }
      EXPECT_EQ(got, expected) << "tet " << t;
    }
    expect_box_tags(back, interpolate);  // tags travel through "Cell Sets" and "Face Sets"
  }
}

TEST(DmPlexErrors, RefusedOnEveryRank) {
  const auto expect_refused = [](DM dm, const char* part) {
    const ThrownError error = error_of([&] { distributed_mesh_from_dmplex(world(), dm); });
    EXPECT_EQ(reduce_all<std::int32_t>(error.thrown ? 1 : 0, MPI_MIN), 1) << part;
    EXPECT_EQ(error.category, ErrorCategory::invalid_input);
    EXPECT_NE(error.message.find(part), std::string::npos) << error.message;
  };
  expect_refused(nullptr, "the DM is null");
  {
    DmOwner shell;
    ASSERT_EQ(DMShellCreate(world(), &shell.dm), 0);
    expect_refused(shell.dm, "not DMPLEX");
  }
  {
    DM square = nullptr;
    ASSERT_EQ(tensor_box(&DMPlexCreateBoxMesh, 2, &square), 0);
    const DmOwner flat(distributed(square, 0));
    expect_refused(flat.dm, "dimension 2");
  }
  {
    DM cube = nullptr;
    ASSERT_EQ(tensor_box(&DMPlexCreateBoxMesh, 3, &cube), 0);
    const DmOwner hexahedra(distributed(cube, 0));
    expect_refused(hexahedra.dm, "not a tetrahedron");
  }
  const SharedTempDir folder;
  if (world_size() > 1) {  // read on rank 0 and never distributed
    DmOwner serial;
    const std::string path = (folder / "box.msh").string();
    if (world_rank() == 0) write_gmsh(make_box_mesh(box_size), path);
    MPI_Barrier(world());
    ASSERT_EQ(DMPlexCreateGmshFromFile(world(), path.c_str(), PETSC_TRUE, &serial.dm), 0);
    expect_refused(serial.dm, "owns no cell of the DM (distribute it first");
  }
  if (world_size() > 1) {  // on one rank PETSC_COMM_SELF is congruent with the world
    const DmOwner box(gmsh_box(folder, true, 0, GmshVersion::msh41));
    const ThrownError error =
        error_of([&] { distributed_mesh_from_dmplex(PETSC_COMM_SELF, box.dm); });
    EXPECT_TRUE(error.thrown);
    EXPECT_NE(error.message.find("neither the DM's communicator"), std::string::npos)
        << error.message;
  }
}

}  // namespace
}  // namespace foehn::petsc
