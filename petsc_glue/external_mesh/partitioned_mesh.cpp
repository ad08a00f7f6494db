// distributed_mesh_from_partition: local checks (the caller's arrays through mesh_from_arrays),
// node ownership through the home-rank directory, the owned-first local numbering, the domain
// surface; each phase ends with the ranks agreeing on success or failure.

#include "foehn/petsc/partitioned_mesh.hpp"

#include <algorithm>
#include <array>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "domain_surface.hpp"
#include "foehn/petsc/mpi_collective.hpp"
#include "foehn/runtime/error.hpp"
#include "node_directory.hpp"
#include "rendezvous.hpp"

namespace foehn::petsc {

namespace {

constexpr const char* who = "distributed_mesh_from_partition: ";

// The choices that shape the collective steps must be the same on every rank.
void check_same_choices(MPI_Comm comm, const PartitionedMeshArrays& arrays) {
  const int mine =
      static_cast<int>(arrays.boundary) * 2 + (arrays.local.allow_unused_nodes ? 1 : 0);
  std::array<int, 2> low_high{mine, -mine};
  FOEHN_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, low_high.data(), 2, MPI_INT, MPI_MIN, comm));
  if (low_high[0] != -low_high[1])
    fail(ErrorCategory::invalid_input, who,
         "the ranks pass different `boundary` or `local.allow_unused_nodes` settings");
}

// Which caller nodes this rank owns, after checking the ids and the ownership arguments.
std::vector<std::uint8_t> owned_flags_of(const PartitionedMeshArrays& a) {
  const std::int64_t nodes = a.local.node_count;
  const std::int64_t base = a.local.index_base;
  if (a.node_ids.data() == nullptr && !a.node_ids.empty())
    fail(ErrorCategory::invalid_input, who, "node_ids is a null pointer");
  if (static_cast<std::int64_t>(a.node_ids.size()) != nodes)
    fail(ErrorCategory::invalid_input, who, "node_ids has ", a.node_ids.size(), " ids for ", nodes,
         " local nodes (give one per node)");
  const bool by_count = a.owned_node_count >= 0;
  const bool by_flags = !a.owned_flags.empty();
  if (by_count == by_flags)
    fail(ErrorCategory::invalid_input, who,
         by_count ? "both owned_node_count and owned_flags are given; give one"
                  : "neither owned_node_count nor owned_flags is given; give one");
  std::vector<std::uint8_t> owned(static_cast<std::size_t>(nodes), 0);
  if (by_count) {
    if (a.owned_node_count > nodes)
      fail(ErrorCategory::invalid_input, who, "owned_node_count is ", a.owned_node_count,
           " but the rank has only ", nodes, " local nodes");
    std::fill_n(owned.begin(), static_cast<std::size_t>(a.owned_node_count), std::uint8_t{1});
  } else {
    if (static_cast<std::int64_t>(a.owned_flags.size()) != nodes)
      fail(ErrorCategory::invalid_input, who, "owned_flags has ", a.owned_flags.size(),
           " flags for ", nodes, " local nodes (give one per node)");
    for (std::size_t n = 0; n < owned.size(); ++n) owned[n] = a.owned_flags[n] != 0 ? 1 : 0;
  }
  // One id twice on a rank would make two local nodes one global node.
  std::vector<std::pair<std::int64_t, std::int64_t>> by_id;
  by_id.reserve(owned.size());
  for (std::size_t n = 0; n < owned.size(); ++n)
    by_id.emplace_back(a.node_ids[n], static_cast<std::int64_t>(n));
  std::sort(by_id.begin(), by_id.end());
  for (std::size_t i = 1; i < by_id.size(); ++i) {
    if (by_id[i].first == by_id[i - 1].first)
      fail(ErrorCategory::invalid_input, who, "node_ids: local nodes ", by_id[i - 1].second + base,
           " and ", by_id[i].second + base, " both have id ", by_id[i].first);
  }
  return owned;
}

// mesh_from_arrays on this rank's piece, its messages put in this function's terms.
TetMesh local_piece(const PartitionedMeshArrays& a, MeshImportReport& report) {
  if (a.boundary != BoundaryFaceSource::arrays &&
      (!a.local.boundary_faces.empty() || !a.local.boundary_tags.empty()))
    fail(ErrorCategory::invalid_input, who,
         "local.boundary_faces are given but `boundary` is not BoundaryFaceSource::arrays");
  MeshArrays piece = a.local;
  piece.allow_unused_nodes = true;  // halo nodes: checked over all ranks instead
  piece.allow_non_manifold_surface = true;
  try {
    return mesh_from_arrays(piece, &report);
  } catch (const Error& error) {
    std::string_view message = error.what();
    constexpr std::string_view serial_prefix = "mesh_from_arrays: ";
    if (message.starts_with(serial_prefix)) message.remove_prefix(serial_prefix.size());
    fail(error.category(), who, "local.", message);
  }
}

struct LocalOrder {
  std::vector<std::int32_t> caller_of_local;
  std::vector<std::int32_t> local_of_caller;
  std::int32_t owned = 0;
};

// Owned nodes by global number, then ghosts by global number.
LocalOrder owned_first_order(const std::vector<std::uint8_t>& owned,
                             const detail::NodeOwnership& ownership) {
  LocalOrder order;
  std::vector<std::int32_t> ghosts;
  for (std::size_t n = 0; n < owned.size(); ++n)
    (owned[n] != 0 ? order.caller_of_local : ghosts).push_back(static_cast<std::int32_t>(n));
  const auto by_global = [&](std::int32_t a, std::int32_t b) {
    return ownership.global_of_node[static_cast<std::size_t>(a)] <
           ownership.global_of_node[static_cast<std::size_t>(b)];
  };
  std::sort(order.caller_of_local.begin(), order.caller_of_local.end(), by_global);
  std::sort(ghosts.begin(), ghosts.end(), by_global);
  order.owned = static_cast<std::int32_t>(order.caller_of_local.size());
  order.caller_of_local.insert(order.caller_of_local.end(), ghosts.begin(), ghosts.end());
  order.local_of_caller.assign(owned.size(), -1);
  for (std::size_t l = 0; l < order.caller_of_local.size(); ++l)
    order.local_of_caller[static_cast<std::size_t>(order.caller_of_local[l])] =
        static_cast<std::int32_t>(l);
  return order;
}

// The caller's piece renumbered: nodes permuted, tets and boundary faces renamed.
void fill_local_mesh(DistributedMesh& mesh, const TetMesh& piece, const LocalOrder& order,
                     const detail::NodeOwnership& ownership, std::span<const std::int64_t> ids) {
  const std::size_t nodes = order.caller_of_local.size();
  mesh.owned_nodes = order.owned;
  mesh.global_of_local.resize(nodes);
  mesh.input_node_of_local.resize(nodes);
  mesh.owner_of_local.resize(nodes);
  mesh.local.nodes.resize(nodes);
  for (std::size_t l = 0; l < nodes; ++l) {
    const auto n = static_cast<std::size_t>(order.caller_of_local[l]);
    mesh.global_of_local[l] = ownership.global_of_node[n];
    mesh.input_node_of_local[l] = ids[n];
    mesh.owner_of_local[l] = ownership.owner_of_node[n];
    mesh.local.nodes[l] = piece.nodes[n];
  }
  const auto rename = [&](auto item) {
    for (auto& n : item) n = order.local_of_caller[static_cast<std::size_t>(n)];
    return item;
  };
  for (const Tet& tet : piece.tets) mesh.local.tets.push_back(rename(tet));
  mesh.local.tet_tags = piece.tet_tags;
  for (const Triangle& face : piece.boundary_faces)
    mesh.local.boundary_faces.push_back(rename(face));
  mesh.local.boundary_tags = piece.boundary_tags;
}

// BoundaryFaceSource::arrays: every given triangle must lie on the domain's surface.
std::optional<detail::Failure> check_given_faces(const DistributedMesh& mesh,
                                                 const detail::DomainSurface& surface,
                                                 int index_base) {
  detail::FirstDefect defects;
  std::size_t between = 0, elsewhere = 0;
  std::size_t first_between = 0, first_elsewhere = 0;
  for (std::size_t f = 0; f < mesh.local.boundary_faces.size(); ++f) {
    const detail::FacePlace place =
        surface.place_of(mesh.local.boundary_faces[f], mesh.input_node_of_local);
    if (place == detail::FacePlace::between_ranks && between++ == 0) first_between = f;
    if (place == detail::FacePlace::not_a_single_face && elsewhere++ == 0) first_elsewhere = f;
  }
  const auto ids_of = [&](std::size_t f) {
    const detail::FaceKey key =
        detail::face_key(mesh.local.boundary_faces[f], mesh.input_node_of_local);
    return foehn::detail::concat("(node ids ", key[0], ", ", key[1], ", ", key[2], ")");
  };
  const auto base = static_cast<std::size_t>(index_base);
  if (between > 0)
    defects.note(between, who, "local.boundary_faces: triangle ", first_between + base, " ",
                 ids_of(first_between), " lies between rank ", mesh.rank,
                 " and another rank, not on the domain boundary");
  if (elsewhere > 0)
    defects.note(elsewhere, who, "local.boundary_faces: triangle ", first_elsewhere + base, " ",
                 ids_of(first_elsewhere), " is not a face of exactly one tet of rank ", mesh.rank);
  return defects.failure();
}

}  // namespace

MeshFromPartition distributed_mesh_from_partition(MPI_Comm comm,
                                                  const PartitionedMeshArrays& arrays) {
  const detail::CommShape shape = detail::comm_shape(comm, "distributed_mesh_from_partition");
  detail::run_collectively(comm, [&] { check_same_choices(comm, arrays); });

  // 1. This rank's arrays on their own: ids, ownership flags, the piece as a mesh.
  std::vector<std::uint8_t> owned, used;
  TetMesh piece;
  MeshImportReport report;
  detail::run_collectively(comm, [&] {
    owned = owned_flags_of(arrays);
    piece = local_piece(arrays, report);
    used.assign(piece.nodes.size(), 0);
    for (const Tet& tet : piece.tets)
      for (std::int32_t n : tet) used[static_cast<std::size_t>(n)] = 1;
  });

  // 2. Who owns each id, and the global numbers.
  const detail::NodeOwnership ownership = detail::resolve_node_ownership(
      comm, {arrays.node_ids, owned, used, piece.nodes}, arrays.local.allow_unused_nodes);

  // 3. The owned-first local numbering and the renumbered piece.
  MeshFromPartition result;
  DistributedMesh& mesh = result.mesh;
  mesh.comm = comm;
  mesh.rank = shape.rank;
  mesh.size = shape.size;
  detail::run_collectively(comm, [&] {
    LocalOrder order = owned_first_order(owned, ownership);
    fill_local_mesh(mesh, piece, order, ownership, arrays.node_ids);
    result.caller_local_of_local = std::move(order.caller_of_local);
  });
  mesh.ownership_ranges = ownership.ownership_ranges;
  mesh.global_nodes = ownership.ownership_ranges.back();
  mesh.first_owned_global = ownership.ownership_ranges[static_cast<std::size_t>(shape.rank)];

  // 4. The domain's surface: derived faces, or the caller's checked against it.
  const detail::DomainSurface surface =
      detail::find_domain_surface(comm, mesh.local, mesh.input_node_of_local);
  if (arrays.boundary == BoundaryFaceSource::derive) {
    mesh.local.boundary_faces = surface.boundary_faces;
    mesh.local.boundary_tags.assign(surface.boundary_faces.size(), arrays.derived_boundary_tag);
  } else if (arrays.boundary == BoundaryFaceSource::arrays) {
    detail::agree_on_failure(comm, check_given_faces(mesh, surface, arrays.local.index_base));
  } else {
    mesh.local.boundary_faces.clear();
    mesh.local.boundary_tags.clear();
  }

  // 5. Counts over all ranks and the rank-offset numbers of tets and boundary faces.
  const detail::RankSums tets = detail::sum_over_ranks(comm, mesh.local_tets());
  const detail::RankSums faces =
      detail::sum_over_ranks(comm, static_cast<std::int64_t>(mesh.local.boundary_faces.size()));
  mesh.global_tets = tets.total;
  mesh.global_boundary_faces = faces.total;
  mesh.input_tet_of_local.resize(mesh.local.tets.size());
  for (std::size_t t = 0; t < mesh.input_tet_of_local.size(); ++t)
    mesh.input_tet_of_local[t] = tets.below + static_cast<std::int64_t>(t);
  mesh.input_boundary_face_of_local.resize(mesh.local.boundary_faces.size());
  for (std::size_t f = 0; f < mesh.input_boundary_face_of_local.size(); ++f)
    mesh.input_boundary_face_of_local[f] = faces.below + static_cast<std::int64_t>(f);
  result.flipped_tets =
      detail::sum_over_ranks(comm, static_cast<std::int64_t>(report.flipped_tets)).total;
  result.flipped_boundary_faces =
      detail::sum_over_ranks(comm, static_cast<std::int64_t>(report.flipped_boundary_faces)).total;
  return result;
}

namespace {

void check_field(std::span<const std::int32_t> permutation, std::size_t from, std::size_t to,
                 int components, const char* what) {
  if (components < 1)
    fail(ErrorCategory::invalid_input, what, ": ", components, " components per node");
  const std::size_t expected = permutation.size() * static_cast<std::size_t>(components);
  if (from != expected || to != expected)
    fail(ErrorCategory::invalid_input, what, ": ", from, " values in and room for ", to,
         ", expected ", permutation.size(), " nodes x ", components, " components = ", expected);
}

}  // namespace

void to_local_order(std::span<const std::int32_t> caller_local_of_local,
                    std::span<const double> caller_values, std::span<double> local_values,
                    int components) {
  check_field(caller_local_of_local, caller_values.size(), local_values.size(), components,
              "to_local_order");
  const auto c = static_cast<std::size_t>(components);
  for (std::size_t l = 0; l < caller_local_of_local.size(); ++l) {
    const auto n = static_cast<std::size_t>(caller_local_of_local[l]);
    for (std::size_t k = 0; k < c; ++k) local_values[l * c + k] = caller_values[n * c + k];
  }
}

void to_caller_order(std::span<const std::int32_t> caller_local_of_local,
                     std::span<const double> local_values, std::span<double> caller_values,
                     int components) {
  check_field(caller_local_of_local, local_values.size(), caller_values.size(), components,
              "to_caller_order");
  const auto c = static_cast<std::size_t>(components);
  for (std::size_t l = 0; l < caller_local_of_local.size(); ++l) {
    const auto n = static_cast<std::size_t>(caller_local_of_local[l]);
    for (std::size_t k = 0; k < c; ++k) caller_values[n * c + k] = local_values[l * c + k];
  }
}

}  // namespace foehn::petsc
