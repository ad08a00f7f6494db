#pragma once
// Private to petsc_glue/external_mesh: the surface of a mesh whose tets are spread over ranks,
// found without gathering it. A tet face that appears once on its rank is either on the domain
// boundary or on the interface with another rank; the face's home rank (by its smallest node
// id) sees every rank's copy and tells them apart. The same exchange finds a tet given on two
// ranks (a halo tet passed as a local one) and a face shared by three tets.
#include <mpi.h>

#include <array>
#include <cstdint>
#include <span>
#include <vector>

#include "foehn/mesh/tet_mesh.hpp"

namespace foehn::petsc::detail {

using FaceKey = std::array<std::int64_t, 3>;  // node ids, sorted

enum class FacePlace { domain_boundary, between_ranks, not_a_single_face };

struct DomainSurface {
  // This rank's faces on the domain boundary, in (tet, local face) order, oriented outward
  // (for positively oriented tets), and the local tet each is a face of.
  std::vector<Triangle> boundary_faces;
  std::vector<std::int32_t> tet_of_boundary_face;

  // Where a triangle of this rank's nodes lies.
  FacePlace place_of(const Triangle& face, std::span<const std::int64_t> id_of_node) const;

  std::vector<FaceKey> boundary_keys;      // sorted
  std::vector<FaceKey> between_rank_keys;  // sorted
};

// Collective. `id_of_node` is the (globally unique) id of each node of `local`, whose tets are
// positively oriented. Throws foehn::Error (invalid_input) on every rank, naming node ids and
// ranks, when a tet is on two ranks or a face is shared by more than two tets.
DomainSurface find_domain_surface(MPI_Comm comm, const TetMesh& local,
                                  std::span<const std::int64_t> id_of_node);

FaceKey face_key(const Triangle& face, std::span<const std::int64_t> id_of_node);

}  // namespace foehn::petsc::detail
