// resolve_node_ownership: two rounds of the home-rank exchange (owners register, ghosts ask),
// then the ranks agree on the first defect any of them found.

#include "node_directory.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <optional>
#include <string>

#include "foehn/petsc/mpi_collective.hpp"
#include "foehn/runtime/error.hpp"
#include "rendezvous.hpp"

namespace foehn::petsc::detail {

namespace {

struct Registration {  // owner -> home
  std::int64_t id;
  std::int64_t global;
  double xyz[3];
  std::int32_t used;
  std::int32_t unused_padding;
};

struct Query {  // ghost holder -> home
  std::int64_t id;
  std::int32_t used;
  std::int32_t unused_padding;
};

struct Answer {         // home -> ghost holder, in the order of the queries
  std::int64_t global;  // -1: nobody owns the id
  double xyz[3];
  std::int32_t owner;
  std::int32_t unused_padding;
};

// What the home rank knows of one id.
struct Claim {
  std::int64_t id;
  std::int64_t global;
  double xyz[3];
  std::int32_t owner;
  bool used;
};

constexpr const char* who = "distributed_mesh_from_partition: ";

bool same_point(const double a[3], const double b[3]) {
  for (int d = 0; d < 3; ++d) {
    // Copies of one value agree exactly; the tolerance only forgives a recomputed halo.
    const double scale = std::max({1.0, std::abs(a[d]), std::abs(b[d])});
    if (!(std::abs(a[d] - b[d]) <= 1e-10 * scale)) return false;
  }
  return true;
}

// Home side of the registration: every claim, sorted by id; duplicates reported.
std::vector<Claim> collect_claims(const std::vector<std::vector<Registration>>& incoming,
                                  FirstDefect& defects) {
  std::vector<Claim> claims;
  for (std::size_t rank = 0; rank < incoming.size(); ++rank) {
    for (const Registration& r : incoming[rank]) {
      claims.push_back({r.id,
                        r.global,
                        {r.xyz[0], r.xyz[1], r.xyz[2]},
                        static_cast<std::int32_t>(rank),
                        r.used != 0});
    }
  }
  // Stable, with claims in rank order: the message names the lower rank first.
  std::stable_sort(claims.begin(), claims.end(),
                   [](const Claim& a, const Claim& b) { return a.id < b.id; });
  std::size_t duplicates = 0;
  std::size_t first = claims.size();
  for (std::size_t i = 1; i < claims.size(); ++i) {
    if (claims[i].id != claims[i - 1].id) continue;
    if (duplicates++ == 0) first = i;
  }
  if (duplicates > 0) {
    defects.note(duplicates, who, "node id ", claims[first].id, " is owned by rank ",
                 claims[first - 1].owner, " and by rank ", claims[first].owner,
                 " (every id must be owned by exactly one rank)");
  }
  return claims;
}

// Home side of the queries: answers in query order; unknown ids reported.
std::vector<std::vector<Answer>> answer_queries(const std::vector<std::vector<Query>>& incoming,
                                                std::vector<Claim>& claims, FirstDefect& defects) {
  std::vector<std::vector<Answer>> answers(incoming.size());
  std::size_t unowned = 0;
  std::int64_t first_id = 0;
  std::size_t first_rank = 0;
  for (std::size_t rank = 0; rank < incoming.size(); ++rank) {
    for (const Query& q : incoming[rank]) {
      const auto at = std::lower_bound(claims.begin(), claims.end(), q.id,
                                       [](const Claim& c, std::int64_t id) { return c.id < id; });
      Answer answer{-1, {0.0, 0.0, 0.0}, -1, 0};
      if (at == claims.end() || at->id != q.id) {
        if (unowned++ == 0) {
          first_id = q.id;
          first_rank = rank;
        }
      } else {
        answer = {at->global, {at->xyz[0], at->xyz[1], at->xyz[2]}, at->owner, 0};
        at->used = at->used || q.used != 0;
      }
      answers[rank].push_back(answer);
    }
  }
  defects.note(unowned, who, "node id ", first_id, ", a ghost (not owned) on rank ", first_rank,
               ", is owned by no rank");
  return answers;
}

}  // namespace

int home_rank_of_id(std::int64_t id, int ranks) {
  // splitmix64's finaliser: ids that are strided or clustered still spread evenly over ranks.
  auto x = static_cast<std::uint64_t>(id);
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  x ^= x >> 31;
  return static_cast<int>(x % static_cast<std::uint64_t>(ranks));
}

namespace {

// A node that no tet of any rank uses is a defect unless the caller allows it.
void note_unused_nodes(const std::vector<Claim>& claims, FirstDefect& defects) {
  std::size_t unused = 0;
  const Claim* first = nullptr;
  for (const Claim& c : claims) {
    if (c.used) continue;
    if (unused++ == 0) first = &c;
  }
  if (first != nullptr)
    defects.note(unused, who, "node id ", first->id, ", owned by rank ", first->owner,
                 ", is used by no tet of any rank (set allow_unused_nodes to keep such nodes)");
}

// The homes' answers give each ghost its owner and global number; a ghost whose coordinates
// differ from its owner's is a defect.
void adopt_answers(const std::vector<std::vector<Answer>>& answers,
                   const std::vector<std::vector<std::int32_t>>& asked_for,
                   const CallerNodes& nodes, int rank, NodeOwnership& result,
                   FirstDefect& defects) {
  std::size_t moved = 0;
  std::string first_moved;
  for (std::size_t home = 0; home < answers.size(); ++home) {
    for (std::size_t q = 0; q < answers[home].size(); ++q) {
      const Answer& a = answers[home][q];
      const auto n = static_cast<std::size_t>(asked_for[home][q]);
      if (a.global < 0) continue;  // the home reports it
      result.global_of_node[n] = a.global;
      result.owner_of_node[n] = a.owner;
      const Point3& p = nodes.coordinates[n];
      const double mine[3] = {p[0], p[1], p[2]};
      if (!same_point(mine, a.xyz) && moved++ == 0) {
        first_moved =
            foehn::detail::concat(who, "node id ", nodes.ids[n], " is at (", p[0], ", ", p[1], ", ",
                                  p[2], ") as a ghost on rank ", rank, " but at (", a.xyz[0], ", ",
                                  a.xyz[1], ", ", a.xyz[2], ") on its owner, rank ", a.owner);
      }
    }
  }
  defects.note(moved, first_moved);
}

}  // namespace

NodeOwnership resolve_node_ownership(MPI_Comm comm, const CallerNodes& nodes,
                                     bool allow_unused_nodes) {
  const CommShape shape = comm_shape(comm, "distributed_mesh_from_partition");
  const auto ranks = static_cast<std::size_t>(shape.size);
  const std::size_t count = nodes.ids.size();

  // This rank's owned nodes in increasing id take the next contiguous global numbers.
  std::vector<std::int32_t> owned;
  for (std::size_t n = 0; n < count; ++n)
    if (nodes.owned[n] != 0) owned.push_back(static_cast<std::int32_t>(n));
  std::sort(owned.begin(), owned.end(), [&](std::int32_t a, std::int32_t b) {
    return nodes.ids[static_cast<std::size_t>(a)] < nodes.ids[static_cast<std::size_t>(b)];
  });
  const std::vector<std::int64_t> owned_counts =
      gather_from_all(comm, static_cast<std::int64_t>(owned.size()));
  NodeOwnership result;
  result.ownership_ranges.assign(ranks + 1, 0);
  for (std::size_t r = 0; r < ranks; ++r)
    result.ownership_ranges[r + 1] = result.ownership_ranges[r] + owned_counts[r];
  result.global_of_node.assign(count, -1);
  result.owner_of_node.assign(count, -1);
  const std::int64_t first_global = result.ownership_ranges[static_cast<std::size_t>(shape.rank)];
  for (std::size_t k = 0; k < owned.size(); ++k) {
    const auto n = static_cast<std::size_t>(owned[k]);
    result.global_of_node[n] = first_global + static_cast<std::int64_t>(k);
    result.owner_of_node[n] = shape.rank;
  }

  // Round 1: owners register their ids at the ids' homes.
  std::vector<std::vector<Registration>> registrations(ranks);
  for (std::int32_t n : owned) {
    const auto i = static_cast<std::size_t>(n);
    const Point3& p = nodes.coordinates[i];
    registrations[static_cast<std::size_t>(home_rank_of_id(nodes.ids[i], shape.size))].push_back(
        {nodes.ids[i], result.global_of_node[i], {p[0], p[1], p[2]}, nodes.used[i], 0});
  }
  FirstDefect defects;
  std::vector<Claim> claims = collect_claims(exchange_lists(comm, registrations), defects);

  // Round 2: ghost holders ask the homes for owner, number and coordinates.
  std::vector<std::vector<Query>> queries(ranks);
  std::vector<std::vector<std::int32_t>> asked_for(ranks);  // local node of each query
  for (std::size_t n = 0; n < count; ++n) {
    if (nodes.owned[n] != 0) continue;
    const auto home = static_cast<std::size_t>(home_rank_of_id(nodes.ids[n], shape.size));
    queries[home].push_back({nodes.ids[n], nodes.used[n], 0});
    asked_for[home].push_back(static_cast<std::int32_t>(n));
  }
  const std::vector<std::vector<Answer>> answers =
      exchange_lists(comm, answer_queries(exchange_lists(comm, queries), claims, defects));

  if (!allow_unused_nodes) note_unused_nodes(claims, defects);
  adopt_answers(answers, asked_for, nodes, shape.rank, result, defects);
  agree_on_failure(comm, defects.failure());
  return result;
}

}  // namespace foehn::petsc::detail
