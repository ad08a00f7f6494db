// partition_elements (METIS_PartMeshDual) and partition_stats.

#include "foehn/mesh/partition.hpp"

#include <metis.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <limits>
#include <string>

#include "foehn/mesh/topology.hpp"
#include "foehn/runtime/error.hpp"

namespace foehn {

namespace {

// METIS may be built with 32- or 64-bit idx_t; every count handed to it is checked.
idx_t to_idx(std::size_t value, const char* what) {
  if (value > static_cast<std::size_t>(std::numeric_limits<idx_t>::max())) {
    fail(ErrorCategory::invalid_input, "mesh too large for METIS (", sizeof(idx_t) * 8,
         "-bit indices): ", what, " = ", value);
  }
  return static_cast<idx_t>(value);
}

const char* metis_status_name(int status) {
  switch (status) {
    case METIS_OK:
      return "METIS_OK";
    case METIS_ERROR_INPUT:
      return "METIS_ERROR_INPUT";
    case METIS_ERROR_MEMORY:
      return "METIS_ERROR_MEMORY";
    case METIS_ERROR:
      return "METIS_ERROR";
    default:
      return "unknown METIS status";
  }
}

void check_tets(const TetMesh& mesh) {
  const std::size_t nodes = mesh.node_count();
  for (std::size_t t = 0; t < mesh.tet_count(); ++t) {
    for (std::int32_t n : mesh.tets[t]) {
      if (n < 0 || static_cast<std::size_t>(n) >= nodes) {
        fail(ErrorCategory::invalid_input, "tet ", t, " refers to node ", n, " but the mesh has ",
             nodes, " nodes");
      }
    }
  }
}

// What both partitioners refuse before calling METIS.
void check_partition_request(const TetMesh& mesh, int parts, const PartitionOptions& options) {
  const std::size_t tets = mesh.tet_count();
  if (parts < 1 || static_cast<std::size_t>(parts) > tets) {
    fail(ErrorCategory::invalid_input, "cannot split ", tets, " tets into ", parts, " parts");
  }
  if (!(options.imbalance_tolerance >= 1.0) || options.imbalance_tolerance > 10.0) {
    fail(ErrorCategory::invalid_input, "partition imbalance tolerance must be in [1, 10], got ",
         options.imbalance_tolerance);
  }
  if (!options.element_weights.empty()) {
    if (options.element_weights.size() != tets)
      fail(ErrorCategory::invalid_input, "partition: ", options.element_weights.size(),
           " element weights for ", tets, " tets");
    std::int64_t total = 0;
    for (std::size_t t = 0; t < tets; ++t) {
      if (options.element_weights[t] < 1)
        fail(ErrorCategory::invalid_input, "partition: element weight ", options.element_weights[t],
             " of tet ", t, " is below 1");
      total += options.element_weights[t];
    }
    to_idx(static_cast<std::size_t>(total), "the element weights' sum");
  }
  check_tets(mesh);
}

// METIS's vertex weights: the options' element weights, or null (every tet 1).
idx_t* element_weights(const PartitionOptions& options, std::vector<idx_t>& storage) {
  if (options.element_weights.empty()) return nullptr;
  storage.assign(options.element_weights.begin(), options.element_weights.end());
  return storage.data();
}

void set_metis_options(idx_t (&metis_options)[METIS_NOPTIONS], const PartitionOptions& options) {
  METIS_SetDefaultOptions(metis_options);
  metis_options[METIS_OPTION_NUMBERING] = 0;
  metis_options[METIS_OPTION_SEED] = static_cast<idx_t>(options.seed);
  // ufactor is the allowed imbalance in thousandths: 1.03 -> 30.
  metis_options[METIS_OPTION_UFACTOR] =
      static_cast<idx_t>(std::lround((options.imbalance_tolerance - 1.0) * 1000.0));
}

// METIS's answer as one part per tet, or its failure as an error naming `call`.
std::vector<std::int32_t> parts_from_metis(int status, const char* call,
                                           const std::vector<idx_t>& part, int parts) {
  if (status != METIS_OK) {
    const ErrorCategory category = status == METIS_ERROR_MEMORY  ? ErrorCategory::out_of_memory
                                   : status == METIS_ERROR_INPUT ? ErrorCategory::invalid_input
                                                                 : ErrorCategory::internal;
    fail(category, call, " failed for ", part.size(), " tets into ", parts,
         " parts: ", metis_status_name(status), " (", status, ")");
  }
  std::vector<std::int32_t> result(part.size());
  for (std::size_t t = 0; t < part.size(); ++t) {
    if (part[t] < 0 || part[t] >= parts) {
      fail(ErrorCategory::internal, "METIS returned part ", part[t], " for tet ", t);
    }
    result[t] = static_cast<std::int32_t>(part[t]);
  }
  return result;
}

// METIS's CSR graph of the tets' face adjacency (tet_face_neighbours), each face
// costing avoid_cost where one of its nodes is flagged in `avoid`, 1 elsewhere.
struct FaceGraph {
  std::vector<idx_t> xadj, adjncy, adjwgt;
};

FaceGraph face_graph(const TetMesh& mesh, const std::vector<char>& avoid, int avoid_cost) {
  const std::size_t tets = mesh.tet_count();
  const std::vector<std::int32_t> across = tet_face_neighbours(mesh, "partition_elements_avoiding");
  FaceGraph graph;
  graph.xadj.assign(tets + 1, 0);
  for (std::size_t t = 0; t < tets; ++t)
    graph.xadj[t + 1] = graph.xadj[t] + static_cast<idx_t>(std::count_if(
                                            across.begin() + static_cast<std::ptrdiff_t>(4 * t),
                                            across.begin() + static_cast<std::ptrdiff_t>(4 * t + 4),
                                            [](std::int32_t other) { return other >= 0; }));
  to_idx(static_cast<std::size_t>(graph.xadj[tets]), "graph edges");
  graph.adjncy.reserve(static_cast<std::size_t>(graph.xadj[tets]));
  graph.adjwgt.reserve(graph.adjncy.capacity());
  for (std::size_t t = 0; t < tets; ++t)
    for (std::size_t f = 0; f < 4; ++f) {
      const std::int32_t other = across[4 * t + f];
      if (other < 0) continue;
      bool avoided = false;
      for (const int k : tet_local_faces[f])
        avoided = avoided || avoid[static_cast<std::size_t>(mesh.tets[t][k])];
      graph.adjncy.push_back(other);
      graph.adjwgt.push_back(avoided ? avoid_cost : 1);
    }
  return graph;
}

}  // namespace

std::vector<std::int32_t> partition_elements(const TetMesh& mesh, int parts,
                                             const PartitionOptions& options) {
  const std::size_t tets = mesh.tet_count();
  check_partition_request(mesh, parts, options);
  // METIS_PartMeshDual misbehaves for one part, and the answer is trivial anyway.
  if (parts == 1) return std::vector<std::int32_t>(tets, 0);

  idx_t element_count = to_idx(tets, "tets");
  idx_t node_count = to_idx(mesh.node_count(), "nodes");
  to_idx(4 * tets + 1, "connectivity entries");
  std::vector<idx_t> eptr(tets + 1);
  std::vector<idx_t> eind(4 * tets);
  for (std::size_t t = 0; t < tets; ++t) {
    eptr[t] = static_cast<idx_t>(4 * t);
    for (std::size_t k = 0; k < 4; ++k) eind[4 * t + k] = static_cast<idx_t>(mesh.tets[t][k]);
  }
  eptr[tets] = static_cast<idx_t>(4 * tets);

  idx_t metis_options[METIS_NOPTIONS];
  set_metis_options(metis_options, options);
  idx_t ncommon = 3;  // tets are neighbours when they share a face (three nodes)
  idx_t nparts = static_cast<idx_t>(parts);
  idx_t objval = 0;
  std::vector<idx_t> epart(tets);
  std::vector<idx_t> npart(mesh.node_count());
  std::vector<idx_t> weights;
  const int status = METIS_PartMeshDual(
      &element_count, &node_count, eptr.data(), eind.data(), element_weights(options, weights),
      nullptr, &ncommon, &nparts, nullptr, metis_options, &objval, epart.data(), npart.data());
  return parts_from_metis(status, "METIS_PartMeshDual", epart, parts);
}

std::vector<std::int32_t> partition_elements_avoiding(const TetMesh& mesh, int parts,
                                                      const std::vector<char>& avoid,
                                                      int avoid_cost,
                                                      const PartitionOptions& options) {
  const std::size_t tets = mesh.tet_count();
  check_partition_request(mesh, parts, options);
  if (avoid.size() != mesh.node_count())
    fail(ErrorCategory::invalid_input, "partition_elements_avoiding: ", avoid.size(),
         " node flags for ", mesh.node_count(), " nodes");
  if (avoid_cost < 1 || avoid_cost > 10000)
    fail(ErrorCategory::invalid_input, "partition_elements_avoiding: avoid_cost ", avoid_cost,
         " is not in [1, 10000]");
  if (parts == 1) return std::vector<std::int32_t>(tets, 0);
  FaceGraph graph = face_graph(mesh, avoid, avoid_cost);
  idx_t metis_options[METIS_NOPTIONS];
  set_metis_options(metis_options, options);
  idx_t vertices = to_idx(tets, "tets"), constraints = 1, nparts = parts, objval = 0;
  std::vector<idx_t> part(tets);
  std::vector<idx_t> weights;
  const int status =
      METIS_PartGraphKway(&vertices, &constraints, graph.xadj.data(), graph.adjncy.data(),
                          element_weights(options, weights), nullptr, graph.adjwgt.data(), &nparts,
                          nullptr, nullptr, metis_options, &objval, part.data());
  return parts_from_metis(status, "METIS_PartGraphKway", part, parts);
}

PartitionStats partition_stats(const TetMesh& mesh, const std::vector<std::int32_t>& part) {
  const std::size_t tets = mesh.tet_count();
  if (part.size() != tets) {
    fail(ErrorCategory::invalid_input, "partition has ", part.size(), " entries for ", tets,
         " tets");
  }
  check_tets(mesh);
  PartitionStats stats;
  std::int32_t max_part = -1;
  for (std::size_t t = 0; t < tets; ++t) {
    if (part[t] < 0) fail(ErrorCategory::invalid_input, "tet ", t, " has part ", part[t]);
    max_part = std::max(max_part, part[t]);
  }
  stats.parts = max_part + 1;
  stats.elements_per_part.assign(static_cast<std::size_t>(stats.parts), 0);
  for (std::int32_t p : part) ++stats.elements_per_part[static_cast<std::size_t>(p)];
  if (stats.parts > 0) {
    const std::int64_t largest =
        *std::max_element(stats.elements_per_part.begin(), stats.elements_per_part.end());
    const double average = static_cast<double>(tets) / stats.parts;
    stats.imbalance = static_cast<double>(largest) / average;
  }

  // Faces as sorted node triples with their tet; sorting brings the two tets of an interior
  // face next to each other (a conforming mesh has at most two tets per face).
  struct Face {
    std::array<std::int32_t, 3> nodes;
    std::int32_t tet;
  };
  std::vector<Face> faces;
  faces.reserve(4 * tets);
  for (std::size_t t = 0; t < tets; ++t) {
    const Tet& tet = mesh.tets[t];
    for (std::size_t skip = 0; skip < 4; ++skip) {
      Face face{{}, static_cast<std::int32_t>(t)};
      std::size_t k = 0;
      for (std::size_t i = 0; i < 4; ++i) {
        if (i != skip) face.nodes[k++] = tet[i];
      }
      std::sort(face.nodes.begin(), face.nodes.end());
      faces.push_back(face);
    }
  }
  std::sort(faces.begin(), faces.end(),
            [](const Face& a, const Face& b) { return a.nodes < b.nodes; });
  for (std::size_t i = 0; i + 1 < faces.size(); ++i) {
    if (faces[i].nodes != faces[i + 1].nodes) continue;
    ++stats.interior_faces;
    if (part[static_cast<std::size_t>(faces[i].tet)] !=
        part[static_cast<std::size_t>(faces[i + 1].tet)]) {
      ++stats.cut_faces;
    }
    ++i;  // both tets of this face are handled
  }
  return stats;
}

}  // namespace foehn
