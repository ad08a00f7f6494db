#pragma once
// Element partitioning with METIS (dual graph: tets sharing a face are neighbours) and
// statistics that say how good a partition is.

#include <cstdint>
#include <vector>

#include "foehn/mesh/tet_mesh.hpp"

namespace foehn {

struct PartitionOptions {
  // Largest allowed (elements in a part) / (average elements per part); METIS's ufactor is
  // derived from it. 1.03 is METIS's own default for k-way partitioning.
  double imbalance_tolerance = 1.03;
  // METIS random seed; the same seed gives the same partition on the same METIS build.
  int seed = 0;
  // The work of each tet (METIS's vertex weights, each >= 1): the parts balance their sums, not
  // their tets. Empty: every tet weighs 1.
  std::vector<std::int32_t> element_weights;
};

// Part index (0 .. parts-1) of every tet, from METIS_PartMeshDual with ncommon = 3 (face
// adjacency). parts == 1 returns all zeros without calling METIS.
// Throws foehn::Error: invalid_input for parts < 1, parts > tet count, a tolerance below 1,
// element_weights neither empty nor one >= 1 per tet (or summing past METIS's index type),
// a node index out of range or a mesh too large for METIS's index type; out_of_memory when
// METIS runs out of memory; internal for any other METIS failure.
std::vector<std::int32_t> partition_elements(const TetMesh& mesh, int parts,
                                             const PartitionOptions& options = {});

// As partition_elements, but METIS (METIS_PartGraphKway on the face-adjacency graph) is told
// that cutting a face with a node flagged in `avoid` (one flag per node) costs `avoid_cost`
// faces: the parts' interfaces keep off those nodes wherever the balance allows. The parallel
// remesh uses it to move its interfaces off the nodes that were frozen before.
// Throws as partition_elements; invalid_input also for `avoid` of the wrong size or avoid_cost
// outside [1, 10000].
std::vector<std::int32_t> partition_elements_avoiding(const TetMesh& mesh, int parts,
                                                      const std::vector<char>& avoid,
                                                      int avoid_cost = 100,
                                                      const PartitionOptions& options = {});

struct PartitionStats {
  int parts = 0;                                // max part index + 1
  std::vector<std::int64_t> elements_per_part;  // tets in each part
  double imbalance = 0.0;                       // largest part / average part (1 = perfect)
  std::int64_t cut_faces = 0;                   // interior faces between tets of different parts
  std::int64_t interior_faces = 0;              // all faces shared by two tets
};

// Statistics of a partition given as one part index per tet (as partition_elements returns).
// Throws invalid_input when part has the wrong size or a negative entry.
PartitionStats partition_stats(const TetMesh& mesh, const std::vector<std::int32_t>& part);

}  // namespace foehn
