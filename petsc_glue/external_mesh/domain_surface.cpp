// find_domain_surface: faces counted locally, the survivors counted again at their home rank.

#include "domain_surface.hpp"

#include <algorithm>
#include <cstddef>

#include "foehn/mesh/topology.hpp"
#include "foehn/petsc/mpi_collective.hpp"
#include "foehn/runtime/error.hpp"
#include "node_directory.hpp"
#include "rendezvous.hpp"

namespace foehn::petsc::detail {

namespace {

constexpr const char* who = "distributed_mesh_from_partition: ";

using TetKey = std::array<std::int64_t, 4>;  // node ids, sorted

struct LocalFace {
  FaceKey key;
  std::int32_t tet;
  std::int32_t face;  // local face of the tet (tet_local_faces)
};

// Home side: records of one kind from every rank, sorted by key (ties in rank order).
template <typename Key>
struct Copy {
  Key key;
  std::int32_t rank;
  std::int32_t position;  // in the list that rank sent
};

template <typename Key>
std::vector<Copy<Key>> copies_by_key(const std::vector<std::vector<Key>>& incoming) {
  std::vector<Copy<Key>> copies;
  for (std::size_t rank = 0; rank < incoming.size(); ++rank)
    for (std::size_t i = 0; i < incoming[rank].size(); ++i)
      copies.push_back(
          {incoming[rank][i], static_cast<std::int32_t>(rank), static_cast<std::int32_t>(i)});
  std::stable_sort(copies.begin(), copies.end(),
                   [](const Copy<Key>& a, const Copy<Key>& b) { return a.key < b.key; });
  return copies;
}

template <std::size_t N>
std::string ids_text(const std::array<std::int64_t, N>& key) {
  std::string text = "(";
  for (std::size_t i = 0; i < N; ++i) text += (i ? ", " : "") + std::to_string(key[i]);
  return text + ")";
}

// A tet on two ranks would be assembled twice: the homes of the tets' smallest ids check.
void check_tets_on_one_rank(MPI_Comm comm, const TetMesh& local,
                            std::span<const std::int64_t> id_of_node, FirstDefect& defects) {
  const CommShape shape = comm_shape(comm, "find_domain_surface");
  std::vector<std::vector<TetKey>> outgoing(static_cast<std::size_t>(shape.size));
  for (const Tet& tet : local.tets) {
    TetKey key{};
    for (std::size_t k = 0; k < 4; ++k) key[k] = id_of_node[static_cast<std::size_t>(tet[k])];
    std::sort(key.begin(), key.end());
    outgoing[static_cast<std::size_t>(home_rank_of_id(key[0], shape.size))].push_back(key);
  }
  const std::vector<Copy<TetKey>> copies = copies_by_key(exchange_lists(comm, outgoing));
  std::size_t repeated = 0, first = 0;
  for (std::size_t i = 1; i < copies.size(); ++i) {
    if (copies[i].key == copies[i - 1].key && repeated++ == 0) first = i;
  }
  if (repeated > 0) {
    defects.note(repeated, who, "the tet with node ids ", ids_text(copies[first].key),
                 " is on rank ", copies[first - 1].rank, " and on rank ", copies[first].rank,
                 " (each tet belongs to exactly one rank; halo tets must not be passed)");
  }
}

// Every face of every tet, sorted by key; faces used by one local tet are the candidates.
std::vector<LocalFace> faces_used_once(const TetMesh& local,
                                       std::span<const std::int64_t> id_of_node, int rank,
                                       FirstDefect& defects) {
  std::vector<LocalFace> faces;
  faces.reserve(local.tets.size() * 4);
  for (std::size_t t = 0; t < local.tets.size(); ++t) {
    for (std::size_t f = 0; f < 4; ++f) {
      Triangle tri{};
      for (std::size_t k = 0; k < 3; ++k)
        tri[k] = local.tets[t][static_cast<std::size_t>(tet_local_faces[f][k])];
      faces.push_back(
          {face_key(tri, id_of_node), static_cast<std::int32_t>(t), static_cast<std::int32_t>(f)});
    }
  }
  std::sort(faces.begin(), faces.end(), [](const LocalFace& a, const LocalFace& b) {
    return a.key < b.key ||
           (a.key == b.key && (a.tet < b.tet || (a.tet == b.tet && a.face < b.face)));
  });
  std::vector<LocalFace> once;
  for (std::size_t begin = 0; begin < faces.size();) {
    std::size_t end = begin + 1;
    while (end < faces.size() && faces[end].key == faces[begin].key) ++end;
    if (end - begin == 1) once.push_back(faces[begin]);
    if (end - begin > 2)
      defects.note(1, who, "the face with node ids ", ids_text(faces[begin].key), " is shared by ",
                   end - begin, " tets of rank ", rank);
    begin = end;
  }
  return once;
}

}  // namespace

FaceKey face_key(const Triangle& face, std::span<const std::int64_t> id_of_node) {
  FaceKey key{};
  for (std::size_t k = 0; k < 3; ++k) key[k] = id_of_node[static_cast<std::size_t>(face[k])];
  std::sort(key.begin(), key.end());
  return key;
}

FacePlace DomainSurface::place_of(const Triangle& face,
                                  std::span<const std::int64_t> id_of_node) const {
  const FaceKey key = face_key(face, id_of_node);
  if (std::binary_search(boundary_keys.begin(), boundary_keys.end(), key))
    return FacePlace::domain_boundary;
  if (std::binary_search(between_rank_keys.begin(), between_rank_keys.end(), key))
    return FacePlace::between_ranks;
  return FacePlace::not_a_single_face;
}

DomainSurface find_domain_surface(MPI_Comm comm, const TetMesh& local,
                                  std::span<const std::int64_t> id_of_node) {
  const CommShape shape = comm_shape(comm, "find_domain_surface");
  FirstDefect defects;
  check_tets_on_one_rank(comm, local, id_of_node, defects);
  const std::vector<LocalFace> candidates = faces_used_once(local, id_of_node, shape.rank, defects);

  // Each candidate goes to the home of its smallest id, which counts the copies of all ranks:
  // one copy = domain boundary, two = the interface between two ranks.
  std::vector<std::vector<FaceKey>> outgoing(static_cast<std::size_t>(shape.size));
  std::vector<std::vector<std::int32_t>> sent(static_cast<std::size_t>(shape.size));
  for (std::size_t c = 0; c < candidates.size(); ++c) {
    const auto home = static_cast<std::size_t>(home_rank_of_id(candidates[c].key[0], shape.size));
    outgoing[home].push_back(candidates[c].key);
    sent[home].push_back(static_cast<std::int32_t>(c));
  }
  const std::vector<std::vector<FaceKey>> incoming = exchange_lists(comm, outgoing);
  std::vector<std::vector<std::uint8_t>> verdicts(incoming.size());
  for (std::size_t r = 0; r < incoming.size(); ++r) verdicts[r].assign(incoming[r].size(), 0);
  const std::vector<Copy<FaceKey>> copies = copies_by_key(incoming);
  for (std::size_t begin = 0; begin < copies.size();) {
    std::size_t end = begin + 1;
    while (end < copies.size() && copies[end].key == copies[begin].key) ++end;
    if (end - begin == 1)
      verdicts[static_cast<std::size_t>(copies[begin].rank)]
              [static_cast<std::size_t>(copies[begin].position)] = 1;
    if (end - begin > 2)
      defects.note(1, who, "the face with node ids ", ids_text(copies[begin].key),
                   " is shared by tets on ranks ", copies[begin].rank, ", ", copies[begin + 1].rank,
                   " and ", copies[begin + 2].rank);
    begin = end;
  }
  const std::vector<std::vector<std::uint8_t>> answers = exchange_lists(comm, verdicts);
  agree_on_failure(comm, defects.failure());

  std::vector<std::uint8_t> on_boundary(candidates.size(), 0);
  for (std::size_t home = 0; home < answers.size(); ++home)
    for (std::size_t i = 0; i < answers[home].size(); ++i)
      on_boundary[static_cast<std::size_t>(sent[home][i])] = answers[home][i];

  DomainSurface surface;
  std::vector<const LocalFace*> boundary;
  for (std::size_t c = 0; c < candidates.size(); ++c) {
    if (on_boundary[c] != 0) {
      boundary.push_back(&candidates[c]);
      surface.boundary_keys.push_back(candidates[c].key);
    } else {
      surface.between_rank_keys.push_back(candidates[c].key);
    }
  }
  // candidates are sorted by key already, so both key lists are too.
  std::sort(boundary.begin(), boundary.end(), [](const LocalFace* a, const LocalFace* b) {
    return a->tet < b->tet || (a->tet == b->tet && a->face < b->face);
  });
  for (const LocalFace* face : boundary) {
    const Tet& tet = local.tets[static_cast<std::size_t>(face->tet)];
    Triangle tri{};
    for (std::size_t k = 0; k < 3; ++k)
      tri[k] =
          tet[static_cast<std::size_t>(tet_local_faces[static_cast<std::size_t>(face->face)][k])];
    surface.boundary_faces.push_back(tri);
    surface.tet_of_boundary_face.push_back(face->tet);
  }
  return surface;
}

}  // namespace foehn::petsc::detail
