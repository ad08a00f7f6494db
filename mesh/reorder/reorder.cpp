// Node and tet renumbering: permutations, seeded shuffle, reverse Cuthill-McKee, metrics.

#include "foehn/mesh/reorder.hpp"

#include <algorithm>
#include <array>
#include <cstddef>
#include <limits>
#include <numeric>
#include <random>
#include <utility>
#include <vector>

#include <boost/graph/adjacency_list.hpp>
#include <boost/graph/cuthill_mckee_ordering.hpp>
#include <boost/graph/properties.hpp>

#include "foehn/runtime/error.hpp"

namespace foehn {

namespace {

// Checks that new_of_old is a permutation of 0 .. count-1 before anything is moved, so a
// bad permutation leaves the mesh as it was.
void check_permutation(std::span<const std::int32_t> new_of_old, std::size_t count,
                       const char* what) {
  if (new_of_old.size() != count) {
    fail(ErrorCategory::invalid_input, what, " permutation has ", new_of_old.size(),
         " entries for ", count, " ", what, "s");
  }
  std::vector<char> taken(count, 0);
  for (std::size_t i = 0; i < count; ++i) {
    const std::int32_t n = new_of_old[i];
    if (n < 0 || static_cast<std::size_t>(n) >= count) {
      fail(ErrorCategory::invalid_input, what, " permutation maps ", i, " to ", n,
           ", outside 0..", count - 1);
    }
    if (taken[static_cast<std::size_t>(n)] != 0) {
      fail(ErrorCategory::invalid_input, what, " permutation maps two ", what, "s to ", n);
    }
    taken[static_cast<std::size_t>(n)] = 1;
  }
}

// Moves entity i (of `components` interleaved values) to position new_of_old[i].
template <typename T>
void scatter(std::vector<T>& values, std::span<const std::int32_t> new_of_old,
             std::size_t components) {
  std::vector<T> moved(values.size());
  for (std::size_t i = 0; i < new_of_old.size(); ++i) {
    const auto to = static_cast<std::size_t>(new_of_old[i]) * components;
    std::copy_n(values.begin() + static_cast<std::ptrdiff_t>(i * components), components,
                moved.begin() + static_cast<std::ptrdiff_t>(to));
  }
  values = std::move(moved);
}

void scatter_fields(std::vector<MeshField>& fields, std::span<const std::int32_t> new_of_old,
                    const char* what) {
  for (MeshField& field : fields) {
    if (field.components < 1 ||
        field.values.size() != new_of_old.size() * static_cast<std::size_t>(field.components)) {
      fail(ErrorCategory::invalid_input, what, " field '", field.name, "' has ",
           field.values.size(), " values for ", new_of_old.size(), " ", what, "s x ",
           field.components, " components");
    }
  }
  for (MeshField& field : fields) {
    scatter(field.values, new_of_old, static_cast<std::size_t>(field.components));
  }
}

// Unbiased draw in [0, bound) by rejection; unlike std::uniform_int_distribution its result
// is fixed by the generator's output alone, so a seed means the same on every platform.
std::uint64_t draw_below(std::mt19937_64& random, std::uint64_t bound) {
  const std::uint64_t threshold = (0 - bound) % bound;  // 2^64 mod bound
  for (;;) {
    const std::uint64_t r = random();
    if (r >= threshold) return r % bound;
  }
}

std::vector<std::int32_t> random_permutation(std::size_t count, std::mt19937_64& random) {
  std::vector<std::int32_t> permutation(count);
  std::iota(permutation.begin(), permutation.end(), 0);
  for (std::size_t i = count; i > 1; --i) {
    const auto j = static_cast<std::size_t>(draw_below(random, i));
    std::swap(permutation[i - 1], permutation[j]);
  }
  return permutation;
}

void check_tets(const TetMesh& mesh) {
  for (std::size_t t = 0; t < mesh.tet_count(); ++t) {
    for (std::int32_t n : mesh.tets[t]) {
      if (n < 0 || static_cast<std::size_t>(n) >= mesh.node_count()) {
        fail(ErrorCategory::invalid_input, "tet ", t, " refers to node ", n, " but the mesh has ",
             mesh.node_count(), " nodes");
      }
    }
  }
}

std::vector<std::int32_t> reverse_cuthill_mckee(const TetMesh& mesh) {
  // Each tet contributes its six edges; duplicates are removed before Boost sees them.
  std::vector<std::pair<std::int32_t, std::int32_t>> edges;
  edges.reserve(6 * mesh.tet_count());
  for (const Tet& tet : mesh.tets) {
    for (std::size_t a = 0; a < 4; ++a) {
      for (std::size_t b = a + 1; b < 4; ++b) {
        edges.emplace_back(std::min(tet[a], tet[b]), std::max(tet[a], tet[b]));
      }
    }
  }
  std::sort(edges.begin(), edges.end());
  edges.erase(std::unique(edges.begin(), edges.end()), edges.end());

  using Graph = boost::adjacency_list<
      boost::vecS, boost::vecS, boost::undirectedS,
      boost::property<boost::vertex_color_t, boost::default_color_type>>;
  using Vertex = boost::graph_traits<Graph>::vertex_descriptor;
  Graph graph(edges.begin(), edges.end(), mesh.node_count());
  edges = {};

  // Without a start vertex Boost handles every connected component (and unused nodes),
  // starting each from a pseudo-peripheral node; writing through a reverse iterator gives
  // the reverse ordering, which has the same bandwidth and less fill.
  std::vector<Vertex> old_of_new(mesh.node_count());
  boost::cuthill_mckee_ordering(graph, old_of_new.rbegin(), boost::get(boost::vertex_color, graph),
                                boost::make_degree_map(graph));
  std::vector<std::int32_t> new_of_old(mesh.node_count());
  for (std::size_t k = 0; k < old_of_new.size(); ++k) {
    new_of_old[old_of_new[k]] = static_cast<std::int32_t>(k);
  }
  return new_of_old;
}

}  // namespace

void permute_nodes(TetMesh& mesh, std::span<const std::int32_t> new_of_old) {
  check_permutation(new_of_old, mesh.node_count(), "node");
  check_tets(mesh);
  for (const Triangle& face : mesh.boundary_faces) {
    for (std::int32_t n : face) {
      if (n < 0 || static_cast<std::size_t>(n) >= mesh.node_count()) {
        fail(ErrorCategory::invalid_input, "boundary face refers to node ", n,
             " but the mesh has ", mesh.node_count(), " nodes");
      }
    }
  }
  // Fields are checked (inside scatter_fields) before the first one is moved, and before the
  // connectivity is touched, so a failure leaves the mesh unchanged.
  scatter_fields(mesh.node_fields, new_of_old, "node");
  scatter(mesh.nodes, new_of_old, 1);
  for (Tet& tet : mesh.tets) {
    for (std::int32_t& n : tet) n = new_of_old[static_cast<std::size_t>(n)];
  }
  for (Triangle& face : mesh.boundary_faces) {
    for (std::int32_t& n : face) n = new_of_old[static_cast<std::size_t>(n)];
  }
}

void permute_tets(TetMesh& mesh, std::span<const std::int32_t> new_of_old) {
  check_permutation(new_of_old, mesh.tet_count(), "tet");
  if (!mesh.tet_tags.empty() && mesh.tet_tags.size() != mesh.tet_count()) {
    fail(ErrorCategory::invalid_input, "the mesh has ", mesh.tet_count(), " tets but ",
         mesh.tet_tags.size(), " tet tags");
  }
  scatter_fields(mesh.tet_fields, new_of_old, "tet");
  scatter(mesh.tets, new_of_old, 1);
  if (!mesh.tet_tags.empty()) scatter(mesh.tet_tags, new_of_old, 1);
}

void shuffle_numbering(TetMesh& mesh, std::uint64_t seed) {
  std::mt19937_64 random(seed);
  const std::vector<std::int32_t> nodes = random_permutation(mesh.node_count(), random);
  const std::vector<std::int32_t> tets = random_permutation(mesh.tet_count(), random);
  permute_nodes(mesh, nodes);
  permute_tets(mesh, tets);
}

void reorder_for_locality(TetMesh& mesh) {
  check_tets(mesh);
  if (mesh.node_count() > static_cast<std::size_t>(std::numeric_limits<std::int32_t>::max())) {
    fail(ErrorCategory::invalid_input, "too many nodes: ", mesh.node_count());
  }
  permute_nodes(mesh, reverse_cuthill_mckee(mesh));

  // Tets in the order of their sorted node indices, so consecutive tets gather nodes that
  // are close in memory (and nodes are visited roughly in order).
  std::vector<std::array<std::int32_t, 4>> keys(mesh.tet_count());
  for (std::size_t t = 0; t < keys.size(); ++t) {
    keys[t] = mesh.tets[t];
    std::sort(keys[t].begin(), keys[t].end());
  }
  std::vector<std::int32_t> old_of_new(mesh.tet_count());
  std::iota(old_of_new.begin(), old_of_new.end(), 0);
  std::stable_sort(old_of_new.begin(), old_of_new.end(), [&](std::int32_t a, std::int32_t b) {
    return keys[static_cast<std::size_t>(a)] < keys[static_cast<std::size_t>(b)];
  });
  std::vector<std::int32_t> new_of_old(mesh.tet_count());
  for (std::size_t k = 0; k < old_of_new.size(); ++k) {
    new_of_old[static_cast<std::size_t>(old_of_new[k])] = static_cast<std::int32_t>(k);
  }
  permute_tets(mesh, new_of_old);
}

std::int64_t node_graph_bandwidth(const TetMesh& mesh) {
  // Within one tet the largest |i - j| over its six edges is max - min of its nodes.
  std::int64_t bandwidth = 0;
  for (const Tet& tet : mesh.tets) {
    const auto [lo, hi] = std::minmax_element(tet.begin(), tet.end());
    bandwidth = std::max(bandwidth, static_cast<std::int64_t>(*hi) - *lo);
  }
  return bandwidth;
}

double mean_tet_node_span(const TetMesh& mesh) {
  if (mesh.tets.empty()) return 0.0;
  double sum = 0.0;
  for (const Tet& tet : mesh.tets) {
    const auto [lo, hi] = std::minmax_element(tet.begin(), tet.end());
    sum += static_cast<double>(static_cast<std::int64_t>(*hi) - *lo);
  }
  return sum / static_cast<double>(mesh.tets.size());
}

}  // namespace foehn
