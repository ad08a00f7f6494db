// Rank 0's side of distribute_mesh: partition, ownership, global numbering, cutting parts.

#include "distribution_plan.hpp"

#include <algorithm>
#include <cstddef>
#include <limits>

#include "foehn/runtime/error.hpp"

namespace foehn::petsc::detail {

namespace {

// CSR lists of the items of each part, items in increasing number (a counting sort is stable).
void group_by_part(const std::vector<std::int32_t>& part_of_item, int parts,
                   std::vector<std::int64_t>& offsets, std::vector<std::int64_t>& items) {
  offsets.assign(static_cast<std::size_t>(parts) + 1, 0);
  for (std::int32_t p : part_of_item) ++offsets[static_cast<std::size_t>(p) + 1];
  for (std::size_t p = 0; p < static_cast<std::size_t>(parts); ++p) offsets[p + 1] += offsets[p];
  items.resize(part_of_item.size());
  std::vector<std::int64_t> next(offsets.begin(), offsets.end() - 1);
  for (std::size_t i = 0; i < part_of_item.size(); ++i) {
    items[static_cast<std::size_t>(next[static_cast<std::size_t>(part_of_item[i])]++)] =
        static_cast<std::int64_t>(i);
  }
}

// The tet each boundary face is a face of, through the tets around the face's first node.
std::vector<std::int64_t> tet_of_boundary_faces(const TetMesh& input) {
  const std::size_t nodes = input.node_count();
  std::vector<std::int64_t> first(nodes + 1, 0);
  for (const Tet& tet : input.tets)
    for (std::int32_t n : tet) ++first[static_cast<std::size_t>(n) + 1];
  for (std::size_t n = 0; n < nodes; ++n) first[n + 1] += first[n];
  std::vector<std::int64_t> tets_around(static_cast<std::size_t>(first[nodes]));
  std::vector<std::int64_t> next(first.begin(), first.end() - 1);
  for (std::size_t t = 0; t < input.tet_count(); ++t)
    for (std::int32_t n : input.tets[t])
      tets_around[static_cast<std::size_t>(next[static_cast<std::size_t>(n)]++)] =
          static_cast<std::int64_t>(t);

  std::vector<std::int64_t> tet_of_face(input.boundary_face_count(), -1);
  for (std::size_t f = 0; f < input.boundary_face_count(); ++f) {
    const Triangle& face = input.boundary_faces[f];
    for (std::int32_t n : face) {
      if (n < 0 || static_cast<std::size_t>(n) >= nodes)
        fail(ErrorCategory::invalid_input, "boundary face ", f, " refers to node ", n,
             " but the mesh has ", nodes, " nodes");
    }
    const auto a = static_cast<std::size_t>(face[0]);
    for (std::int64_t i = first[a]; i < first[a + 1]; ++i) {
      const Tet& tet =
          input.tets[static_cast<std::size_t>(tets_around[static_cast<std::size_t>(i)])];
      const auto has = [&](std::int32_t n) {
        return std::find(tet.begin(), tet.end(), n) != tet.end();
      };
      if (has(face[1]) && has(face[2])) {
        tet_of_face[f] = tets_around[static_cast<std::size_t>(i)];
        break;
      }
    }
    if (tet_of_face[f] < 0)
      fail(ErrorCategory::invalid_input, "boundary face ", f, " (", face[0], ", ", face[1], ", ",
           face[2], ") is not a face of any tet");
  }
  return tet_of_face;
}

template <typename T>
std::vector<T> select(const std::vector<T>& values, const std::vector<std::int64_t>& items) {
  std::vector<T> out;
  out.reserve(items.size());
  for (std::int64_t i : items) out.push_back(values[static_cast<std::size_t>(i)]);
  return out;
}

// The `components` values of each listed entity, in list order.
std::vector<MeshField> restrict_fields(const std::vector<MeshField>& fields,
                                       const std::vector<std::int64_t>& entities) {
  std::vector<MeshField> out;
  out.reserve(fields.size());
  for (const MeshField& field : fields) {
    MeshField part{field.name, field.components, {}};
    const auto components = static_cast<std::size_t>(field.components);
    part.values.reserve(entities.size() * components);
    for (std::int64_t e : entities) {
      const auto from = field.values.begin() +
                        static_cast<std::ptrdiff_t>(static_cast<std::size_t>(e) * components);
      part.values.insert(part.values.end(), from, from + static_cast<std::ptrdiff_t>(components));
    }
    out.push_back(std::move(part));
  }
  return out;
}

// The distribution indexes these arrays by entity, so their sizes are checked even when the
// caller switched validation off.
void check_sizes(const TetMesh& input) {
  if (!input.tet_tags.empty() && input.tet_tags.size() != input.tet_count())
    fail(ErrorCategory::invalid_input, "the mesh has ", input.tet_count(), " tets but ",
         input.tet_tags.size(), " tet tags");
  if (input.boundary_tags.size() != input.boundary_face_count())
    fail(ErrorCategory::invalid_input, "the mesh has ", input.boundary_face_count(),
         " boundary faces but ", input.boundary_tags.size(), " boundary tags");
  const auto check = [](const std::vector<MeshField>& fields, std::size_t count, const char* kind) {
    for (const MeshField& field : fields) {
      if (field.components < 1 ||
          field.values.size() != count * static_cast<std::size_t>(field.components))
        fail(ErrorCategory::invalid_input, kind, " field '", field.name, "' has ",
             field.values.size(), " values for ", count, " entities x ", field.components,
             " components");
    }
  };
  check(input.node_fields, input.node_count(), "node");
  check(input.tet_fields, input.tet_count(), "tet");
}

}  // namespace

DistributionPlan plan_distribution(const TetMesh& input, int parts,
                                   const PartitionOptions& options) {
  check_sizes(input);
  DistributionPlan plan;
  plan.parts = parts;
  // One part: all zeros, no METIS call (partition_elements does that itself).
  plan.part_of_tet = partition_elements(input, parts, options);

  const std::size_t nodes = input.node_count();
  plan.owner_of_node.assign(nodes, parts);  // parts = "no tet seen yet"
  for (std::size_t t = 0; t < input.tet_count(); ++t) {
    for (std::int32_t n : input.tets[t]) {
      std::int32_t& owner = plan.owner_of_node[static_cast<std::size_t>(n)];
      owner = std::min(owner, plan.part_of_tet[t]);
    }
  }
  std::vector<std::int64_t> owned_count(static_cast<std::size_t>(parts), 0);
  for (std::size_t n = 0; n < nodes; ++n) {
    const std::int32_t owner = plan.owner_of_node[n];
    if (owner == parts)
      fail(ErrorCategory::invalid_input, "node ", n, " is used by no tet, so no rank can own it");
    ++owned_count[static_cast<std::size_t>(owner)];
  }
  plan.ownership_ranges.assign(static_cast<std::size_t>(parts) + 1, 0);
  for (std::size_t p = 0; p < static_cast<std::size_t>(parts); ++p)
    plan.ownership_ranges[p + 1] = plan.ownership_ranges[p] + owned_count[p];
  // Within a rank, increasing input number.
  plan.global_of_node.resize(nodes);
  std::vector<std::int64_t> next(plan.ownership_ranges.begin(), plan.ownership_ranges.end() - 1);
  for (std::size_t n = 0; n < nodes; ++n)
    plan.global_of_node[n] = next[static_cast<std::size_t>(plan.owner_of_node[n])]++;

  group_by_part(plan.part_of_tet, parts, plan.tet_offsets, plan.tets_by_part);
  const std::vector<std::int64_t> tet_of_face = tet_of_boundary_faces(input);
  std::vector<std::int32_t> part_of_face(tet_of_face.size());
  for (std::size_t f = 0; f < tet_of_face.size(); ++f)
    part_of_face[f] = plan.part_of_tet[static_cast<std::size_t>(tet_of_face[f])];
  group_by_part(part_of_face, parts, plan.face_offsets, plan.faces_by_part);
  return plan;
}

DistributedMesh cut_part(const TetMesh& input, const DistributionPlan& plan, int part,
                         std::vector<std::int32_t>& scratch) {
  const auto p = static_cast<std::size_t>(part);
  DistributedMesh out;
  out.global_nodes = static_cast<std::int64_t>(input.node_count());
  out.global_tets = static_cast<std::int64_t>(input.tet_count());
  out.global_boundary_faces = static_cast<std::int64_t>(input.boundary_face_count());
  out.ownership_ranges = plan.ownership_ranges;
  out.first_owned_global = plan.ownership_ranges[p];
  out.input_tet_of_local.assign(plan.tets_by_part.begin() + plan.tet_offsets[p],
                                plan.tets_by_part.begin() + plan.tet_offsets[p + 1]);
  out.input_boundary_face_of_local.assign(plan.faces_by_part.begin() + plan.face_offsets[p],
                                          plan.faces_by_part.begin() + plan.face_offsets[p + 1]);

  // The nodes the part's tets touch: owned ones first, then ghosts, each by global number.
  constexpr std::int32_t seen = -2;
  std::vector<std::int64_t> owned, ghosts;
  for (std::int64_t t : out.input_tet_of_local) {
    for (std::int32_t n : input.tets[static_cast<std::size_t>(t)]) {
      std::int32_t& mark = scratch[static_cast<std::size_t>(n)];
      if (mark != -1) continue;
      mark = seen;
      (plan.owner_of_node[static_cast<std::size_t>(n)] == part ? owned : ghosts).push_back(n);
    }
  }
  const auto by_global = [&](std::int64_t a, std::int64_t b) {
    return plan.global_of_node[static_cast<std::size_t>(a)] <
           plan.global_of_node[static_cast<std::size_t>(b)];
  };
  std::sort(owned.begin(), owned.end(), by_global);
  std::sort(ghosts.begin(), ghosts.end(), by_global);
  if (owned.size() + ghosts.size() >
      static_cast<std::size_t>(std::numeric_limits<std::int32_t>::max()))
    fail(ErrorCategory::invalid_input, "part ", part, " has too many nodes for 32-bit indices");
  out.owned_nodes = static_cast<std::int32_t>(owned.size());
  out.input_node_of_local = std::move(owned);
  out.input_node_of_local.insert(out.input_node_of_local.end(), ghosts.begin(), ghosts.end());
  const std::size_t local_nodes = out.input_node_of_local.size();
  out.global_of_local.resize(local_nodes);
  out.owner_of_local.resize(local_nodes);
  for (std::size_t l = 0; l < local_nodes; ++l) {
    const auto n = static_cast<std::size_t>(out.input_node_of_local[l]);
    scratch[n] = static_cast<std::int32_t>(l);
    out.global_of_local[l] = plan.global_of_node[n];
    out.owner_of_local[l] = plan.owner_of_node[n];
  }
  FOEHN_CHECK(out.owned_nodes == plan.ownership_ranges[p + 1] - plan.ownership_ranges[p], "part ",
              part, " touches ", out.owned_nodes, " of its owned nodes but owns ",
              plan.ownership_ranges[p + 1] - plan.ownership_ranges[p]);

  TetMesh& local = out.local;
  local.nodes = select(input.nodes, out.input_node_of_local);
  local.tets.reserve(out.input_tet_of_local.size());
  for (std::int64_t t : out.input_tet_of_local) {
    Tet tet = input.tets[static_cast<std::size_t>(t)];
    for (std::int32_t& n : tet) n = scratch[static_cast<std::size_t>(n)];
    local.tets.push_back(tet);
  }
  if (!input.tet_tags.empty()) local.tet_tags = select(input.tet_tags, out.input_tet_of_local);
  local.boundary_faces.reserve(out.input_boundary_face_of_local.size());
  for (std::int64_t f : out.input_boundary_face_of_local) {
    Triangle face = input.boundary_faces[static_cast<std::size_t>(f)];
    for (std::int32_t& n : face) n = scratch[static_cast<std::size_t>(n)];
    local.boundary_faces.push_back(face);
  }
  local.boundary_tags = select(input.boundary_tags, out.input_boundary_face_of_local);
  local.node_fields = restrict_fields(input.node_fields, out.input_node_of_local);
  local.tet_fields = restrict_fields(input.tet_fields, out.input_tet_of_local);

  for (std::int64_t n : out.input_node_of_local) scratch[static_cast<std::size_t>(n)] = -1;
  return out;
}

std::vector<std::int64_t> input_node_of_global(const DistributionPlan& plan) {
  std::vector<std::int64_t> input(plan.global_of_node.size());
  for (std::size_t n = 0; n < plan.global_of_node.size(); ++n)
    input[static_cast<std::size_t>(plan.global_of_node[n])] = static_cast<std::int64_t>(n);
  return input;
}

}  // namespace foehn::petsc::detail
