// Compiles a mechanism: Jacobian sparsity, fill-reducing species order, symbolic LU and the flat
// index lists of compiled_mechanism.hpp.

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <set>
#include <utility>

#include "foehn/chemistry/compiled_mechanism.hpp"
#include "foehn/runtime/error.hpp"

namespace foehn::chemistry {
namespace {

// row -> columns (mechanism species indices), each row sorted and without repeats.
using Pattern = std::vector<std::vector<int>>;

// A reaction's net change of each species (reactants count negative), by species index: a sorted
// small vector rather than a std::map per reaction (2e6 reactions allocate 2e6 maps).
std::vector<std::pair<int, double>> net_changes(const Reaction& r) {
  std::vector<std::pair<int, double>> net;
  for (const SpeciesAmount& a : r.reactants) net.emplace_back(a.species, -a.amount);
  for (const SpeciesAmount& a : r.products) net.emplace_back(a.species, a.amount);
  std::stable_sort(net.begin(), net.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<std::pair<int, double>> summed;
  for (const auto& [species, amount] : net) {
    if (!summed.empty() && summed.back().first == species)
      summed.back().second += amount;
    else
      summed.emplace_back(species, amount);
  }
  return summed;
}

void sort_rows(Pattern& pattern) {
  for (std::vector<int>& row : pattern) {
    std::sort(row.begin(), row.end());
    row.erase(std::unique(row.begin(), row.end()), row.end());
  }
}

// Structural nonzeros of d f / d y: J[i][j] != 0 when species j is a reactant of a reaction that
// changes species i. The diagonal is always present (the iteration matrix has 1/(gamma h) there).
Pattern jacobian_pattern(const Mechanism& m) {
  Pattern pattern(m.species.size());
  for (std::size_t i = 0; i < pattern.size(); ++i) pattern[i].push_back(static_cast<int>(i));
  for (const Reaction& r : m.reactions) {
    for (const auto& [species, change] : net_changes(r)) {
      if (change == 0.0 || m.species[static_cast<std::size_t>(species)].constant) continue;
      for (const SpeciesAmount& a : r.reactants)
        pattern[static_cast<std::size_t>(species)].push_back(a.species);
    }
  }
  sort_rows(pattern);
  return pattern;
}

// A set of (row, column) pairs with O(1) insert and lookup (open addressing, linear probing):
// the Markowitz ordering asks "is (r, c) already a nonzero?" once per fill candidate, and a hub
// species' row or column holds a large share of all nonzeros, which made per-row std::sets the
// cost (1e6 species: 68 s).
class EntrySet {
 public:
  explicit EntrySet(std::size_t expected) {
    std::size_t capacity = 16;
    while (capacity < 2 * expected) capacity *= 2;
    slots_.assign(capacity, empty);
  }
  // Whether (row, column) was new.
  bool insert(int row, int column) {
    if (2 * (count_ + 1) > slots_.size()) grow();
    return place(key(row, column));
  }

 private:
  static constexpr std::uint64_t empty = ~std::uint64_t{0};
  static std::uint64_t key(int row, int column) {
    return (static_cast<std::uint64_t>(static_cast<std::uint32_t>(row)) << 32) |
           static_cast<std::uint32_t>(column);
  }
  bool place(std::uint64_t k) {
    const std::size_t mask = slots_.size() - 1;
    std::size_t at = static_cast<std::size_t>((k * 0x9E3779B97F4A7C15ull) >> 20) & mask;
    while (slots_[at] != empty) {
      if (slots_[at] == k) return false;
      at = (at + 1) & mask;
    }
    slots_[at] = k;
    ++count_;
    return true;
  }
  void grow() {
    std::vector<std::uint64_t> old(slots_.size() * 2, empty);
    old.swap(slots_);
    count_ = 0;
    for (const std::uint64_t k : old)
      if (k != empty) place(k);
  }
  std::vector<std::uint64_t> slots_;
  std::size_t count_ = 0;
};

// The node of least key, lowest index on ties, among those not yet taken: a binary heap of
// (key, node) with lazy deletion (a node's outdated entries are skipped when they surface), so
// that choosing a pivot costs log n instead of a scan of every node (which made the orderings
// quadratic: 100,000 species took 21 s, 1e6 never ended), and updating a key costs one push.
class PivotQueue {
 public:
  explicit PivotQueue(std::size_t n) : key_(n, 0), taken_(n, 0) {}
  void set(int node, std::size_t key) {
    key_[static_cast<std::size_t>(node)] = key;
    heap_.emplace_back(key, node);
    std::push_heap(heap_.begin(), heap_.end(), std::greater<>());
  }
  int pop() {
    for (;;) {
      std::pop_heap(heap_.begin(), heap_.end(), std::greater<>());
      const auto [key, node] = heap_.back();
      heap_.pop_back();
      const auto k = static_cast<std::size_t>(node);
      if (taken_[k] || key != key_[k]) continue;  // outdated or already taken
      taken_[k] = 1;
      return node;
    }
  }

 private:
  std::vector<std::size_t> key_;
  std::vector<char> taken_;
  std::vector<std::pair<std::size_t, int>> heap_;
};

// Greedy minimum degree on the symmetrised graph with an explicit elimination graph: pick the
// node of least current degree (lowest index on ties), connect its neighbours into a clique.
std::vector<int> minimum_degree_order(const Pattern& pattern) {
  const std::size_t n = pattern.size();
  std::vector<std::set<int>> graph(n);
  for (std::size_t i = 0; i < n; ++i) {
    for (int j : pattern[i]) {
      if (static_cast<std::size_t>(j) == i) continue;
      graph[i].insert(j);
      graph[static_cast<std::size_t>(j)].insert(static_cast<int>(i));
    }
  }
  PivotQueue queue(n);
  for (std::size_t i = 0; i < n; ++i) queue.set(static_cast<int>(i), graph[i].size());
  std::vector<int> order;
  for (std::size_t step = 0; step < n; ++step) {
    const int best = queue.pop();
    order.push_back(best);
    const std::set<int> neighbours = graph[static_cast<std::size_t>(best)];
    for (int a : neighbours) {
      graph[static_cast<std::size_t>(a)].erase(best);
      for (int b : neighbours) {
        if (a != b) graph[static_cast<std::size_t>(a)].insert(b);
      }
    }
    for (int a : neighbours) queue.set(a, graph[static_cast<std::size_t>(a)].size());
  }
  return order;
}

// Markowitz ordering with diagonal pivots on the true (nonsymmetric) pattern, as KPP does: pick
// the species whose elimination costs least, (row count - 1) * (column count - 1) in the active
// submatrix (lowest index on ties), then add the fill it creates. Unlike minimum degree on the
// symmetrised graph it sees that cascades (A -> B -> C) are triangular and cost nothing.
std::vector<int> markowitz_order(const Pattern& pattern) {
  const std::size_t n = pattern.size();
  // Rows and columns as lists that only grow: an eliminated pivot stays in them and is skipped
  // (`done`), and the active counts are kept beside them, so removing it costs nothing.
  std::vector<std::vector<int>> rows(n), columns(n);
  std::vector<std::size_t> row_count(n, 0), column_count(n, 0);
  std::size_t entries = 0;
  for (const std::vector<int>& row : pattern) entries += row.size();
  EntrySet present(entries + entries / 4);
  for (std::size_t i = 0; i < n; ++i) {
    for (int j : pattern[i]) {
      present.insert(static_cast<int>(i), j);
      rows[i].push_back(j);
      columns[static_cast<std::size_t>(j)].push_back(static_cast<int>(i));
      ++row_count[i];
      ++column_count[static_cast<std::size_t>(j)];
    }
  }
  std::vector<char> done(n, 0);
  // Every active row and column holds its diagonal, so neither count is 0.
  const auto cost = [&](int i) {
    const auto k = static_cast<std::size_t>(i);
    return (row_count[k] - 1) * (column_count[k] - 1);
  };
  PivotQueue queue(n);
  for (std::size_t i = 0; i < n; ++i) queue.set(static_cast<int>(i), cost(static_cast<int>(i)));
  std::vector<int> order, pivot_rows, pivot_columns;
  for (std::size_t step = 0; step < n; ++step) {
    const int best = queue.pop();
    const auto pivot = static_cast<std::size_t>(best);
    order.push_back(best);
    done[pivot] = 1;
    // The active submatrix's rows with an entry in the pivot column, and columns in its row.
    pivot_rows.clear();
    pivot_columns.clear();
    for (int r : columns[pivot])
      if (!done[static_cast<std::size_t>(r)]) pivot_rows.push_back(r);
    for (int c : rows[pivot])
      if (!done[static_cast<std::size_t>(c)]) pivot_columns.push_back(c);
    for (int r : pivot_rows) {
      for (int c : pivot_columns) {
        if (!present.insert(r, c)) continue;
        rows[static_cast<std::size_t>(r)].push_back(c);
        columns[static_cast<std::size_t>(c)].push_back(r);
        ++row_count[static_cast<std::size_t>(r)];
        ++column_count[static_cast<std::size_t>(c)];
      }
    }
    for (int r : pivot_rows) --row_count[static_cast<std::size_t>(r)];
    for (int c : pivot_columns) --column_count[static_cast<std::size_t>(c)];
    // Only the rows and columns the pivot touched change their cost.
    for (int r : pivot_rows) queue.set(r, cost(r));
    for (int c : pivot_columns) queue.set(c, cost(c));
  }
  return order;
}

// Symbolic LU (no pivoting, IKJ) of `pattern` already in compiled order: row i gains row k's
// upper part for every lower entry (i, k), visited in increasing k, fill entries included. Each
// row is gathered with a marker array and a min-heap of its lower entries still to visit, so the
// cost is the fill's, with no per-row ordered set.
Pattern symbolic_lu(Pattern lu) {
  const std::size_t n = lu.size();
  std::vector<std::size_t> marker(n, n);  // marker[j] == i: j is in row i
  std::vector<int> lower;                 // min-heap of row i's lower columns to visit
  for (std::size_t i = 0; i < n; ++i) {
    std::vector<int>& row = lu[i];
    lower.clear();
    for (int j : row) {
      marker[static_cast<std::size_t>(j)] = i;
      if (static_cast<std::size_t>(j) < i) lower.push_back(j);
    }
    std::make_heap(lower.begin(), lower.end(), std::greater<>());
    while (!lower.empty()) {
      std::pop_heap(lower.begin(), lower.end(), std::greater<>());
      const auto k = static_cast<std::size_t>(lower.back());
      lower.pop_back();
      const std::vector<int>& upper = lu[k];  // final and sorted: k < i
      for (auto j = std::upper_bound(upper.begin(), upper.end(), static_cast<int>(k));
           j != upper.end(); ++j) {
        const auto column = static_cast<std::size_t>(*j);
        if (marker[column] == i) continue;
        marker[column] = i;
        row.push_back(*j);
        if (column < i) {
          lower.push_back(*j);
          std::push_heap(lower.begin(), lower.end(), std::greater<>());
        }
      }
    }
    std::sort(row.begin(), row.end());
  }
  return lu;
}

}  // namespace

CompiledMechanismView CompiledMechanism::view() const {
  CompiledMechanismView v;
  v.species_count = species_count();
  v.reaction_count = reaction_count();
  v.external_rate_count = external_rate_count;
  v.air_density_scale = air_density_scale;
  v.rate_type = rate_type.data();
  v.rate_parameters = rate_parameters.data();
  v.external_index = external_index.data();
  v.reactant_start = reactant_start.data();
  v.reactant_species = reactant_species.data();
  v.change_start = change_start.data();
  v.change_species = change_species.data();
  v.change_amount = change_amount.data();
  v.jacobian_slot = jacobian_slot.data();
  v.nonzero_count = static_cast<int>(column.size());
  v.row_start = row_start.data();
  v.column = column.data();
  v.diagonal = diagonal.data();
  v.lu_lower_count = static_cast<int>(lu_lower_slot.size());
  v.lu_lower_slot = lu_lower_slot.data();
  v.lu_lower_pivot = lu_lower_pivot.data();
  v.lu_update_count = lu_update_count.data();
  v.lu_update_target = lu_update_target.data();
  v.lu_update_source = lu_update_source.data();
  return v;
}

namespace {

// Position of entry (row, col) in the LU pattern; an internal error where it has none.
int lu_slot(const CompiledMechanism& c, int row, int col) {
  const auto first = c.column.begin() + c.row_start[static_cast<std::size_t>(row)];
  const auto last = c.column.begin() + c.row_start[static_cast<std::size_t>(row) + 1];
  const auto it = std::lower_bound(first, last, col);
  FOEHN_CHECK(it != last && *it == col, "chemistry: (", row, ",", col, ") not in LU pattern");
  return static_cast<int>(it - c.column.begin());
}

int compiled(const CompiledMechanism& c, int species) {
  return c.compiled_index[static_cast<std::size_t>(species)];
}

// Symbolic LU of the Jacobian's pattern in compiled species order: rows, columns, diagonals.
void build_lu_pattern(CompiledMechanism& c, const Pattern& original, int n) {
  auto at = [&](int species) { return compiled(c, species); };
  // Symbolic LU in compiled order: row i gains row k's upper part for every lower entry (i,k),
  // visited in increasing k (including entries that were themselves filled in).
  Pattern permuted(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) {
    for (int j : original[static_cast<std::size_t>(i)])
      permuted[static_cast<std::size_t>(at(i))].push_back(at(j));
  }
  sort_rows(permuted);
  for (const auto& row : permuted) c.jacobian_nonzeros += static_cast<std::int64_t>(row.size());
  const Pattern lu = symbolic_lu(std::move(permuted));
  c.row_start.push_back(0);
  for (int i = 0; i < n; ++i) {
    for (int j : lu[static_cast<std::size_t>(i)]) {
      if (j == i) c.diagonal.push_back(static_cast<int>(c.column.size()));
      c.column.push_back(j);
    }
    c.row_start.push_back(static_cast<int>(c.column.size()));
  }
  c.fill_in = static_cast<std::int64_t>(c.column.size()) - c.jacobian_nonzeros;
}

// The numeric LU as a schedule of slots, in the symbolic pass's order.
void build_lu_schedule(CompiledMechanism& c, int n) {
  auto slot = [&](int row, int col) { return lu_slot(c, row, col); };
  // Numeric LU schedule (IKJ Doolittle, same visiting order as the symbolic pass).
  for (int i = 0; i < n; ++i) {
    for (int s = c.row_start[static_cast<std::size_t>(i)];
         s < c.diagonal[static_cast<std::size_t>(i)]; ++s) {
      const int k = c.column[static_cast<std::size_t>(s)];
      c.lu_lower_slot.push_back(s);
      c.lu_lower_pivot.push_back(c.diagonal[static_cast<std::size_t>(k)]);
      int updates = 0;
      for (int t = c.diagonal[static_cast<std::size_t>(k)] + 1;
           t < c.row_start[static_cast<std::size_t>(k) + 1]; ++t) {
        c.lu_update_target.push_back(slot(i, c.column[static_cast<std::size_t>(t)]));
        c.lu_update_source.push_back(t);
        ++updates;
      }
      c.lu_update_count.push_back(updates);
    }
  }
}

// Every reaction's rate, reactants, net changes and Jacobian slots, in compiled indices.
void compile_reactions(CompiledMechanism& c, const Mechanism& mechanism) {
  auto at = [&](int species) { return compiled(c, species); };
  auto slot = [&](int row, int col) { return lu_slot(c, row, col); };
  // Rates, reactants, net changes and Jacobian slots, all in compiled species indices.
  c.external_rate_count = static_cast<int>(mechanism.external_rate_names.size());
  c.air_density_scale = air_density_scale_of(static_cast<int>(mechanism.concentration_unit));
  c.reactant_start.push_back(0);
  c.change_start.push_back(0);
  for (const Reaction& r : mechanism.reactions) {
    c.rate_type.push_back(static_cast<int>(r.type));
    const std::size_t first_parameter = c.rate_parameters.size();
    c.rate_parameters.insert(c.rate_parameters.end(), r.parameters.begin(), r.parameters.end());
    if (r.external_rate >= 0) c.rate_parameters[first_parameter] = r.scaling_factor;
    c.external_index.push_back(r.external_rate);
    for (const SpeciesAmount& a : r.reactants) {
      // A mechanism built in code skips the reader's checks: the same limit here, before the
      // coefficient sizes anything.
      if (!(a.amount >= 1.0 && a.amount <= max_reactant_coefficient) ||
          a.amount != std::floor(a.amount))
        fail(ErrorCategory::invalid_input, "chemistry: reaction ", mechanism.equation(r),
             ": reactant coefficient ", a.amount, " is not an integer from 1 to ",
             max_reactant_coefficient);
      for (int repeat = 0; repeat < static_cast<int>(a.amount); ++repeat)
        c.reactant_species.push_back(at(a.species));
    }
    c.reactant_start.push_back(static_cast<int>(c.reactant_species.size()));
    for (const SpeciesAmount& a : r.products)
      if (!(std::abs(a.amount) <= max_product_yield))  // NaN fails too
        fail(ErrorCategory::invalid_input, "chemistry: reaction ", mechanism.equation(r),
             ": product yield ", a.amount, " of ",
             mechanism.species[static_cast<std::size_t>(a.species)].name,
             " is not a finite number of magnitude at most ", max_product_yield);
    for (const auto& [species, change] : net_changes(r)) {
      if (change == 0.0 || mechanism.species[static_cast<std::size_t>(species)].constant) continue;
      c.change_species.push_back(at(species));
      c.change_amount.push_back(change);
    }
    c.change_start.push_back(static_cast<int>(c.change_species.size()));
    const std::size_t r_index = c.rate_type.size() - 1;
    for (int l = c.reactant_start[r_index]; l < c.reactant_start[r_index + 1]; ++l) {
      for (int ch = c.change_start[r_index]; ch < c.change_start[r_index + 1]; ++ch) {
        c.jacobian_slot.push_back(slot(c.change_species[static_cast<std::size_t>(ch)],
                                       c.reactant_species[static_cast<std::size_t>(l)]));
      }
    }
  }
}

}  // namespace

CompiledMechanism compile(const Mechanism& mechanism, SpeciesOrdering ordering) {
  const int n = static_cast<int>(mechanism.species.size());
  if (n == 0)
    fail(ErrorCategory::invalid_input, "chemistry: mechanism '", mechanism.name,
         "' has no species");
  CompiledMechanism c;
  const Pattern original = jacobian_pattern(mechanism);
  if (ordering == SpeciesOrdering::minimum_degree) {
    c.species_order = minimum_degree_order(original);
  } else if (ordering == SpeciesOrdering::markowitz) {
    c.species_order = markowitz_order(original);
  } else {
    for (int i = 0; i < n; ++i) c.species_order.push_back(i);
  }
  c.compiled_index.assign(static_cast<std::size_t>(n), 0);
  for (int p = 0; p < n; ++p)
    c.compiled_index[static_cast<std::size_t>(c.species_order[static_cast<std::size_t>(p)])] = p;
  build_lu_pattern(c, original, n);
  build_lu_schedule(c, n);
  compile_reactions(c, mechanism);
  return c;
}

}  // namespace foehn::chemistry
