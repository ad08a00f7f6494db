#pragma once
// MeshQuality as a JSON object, keys the member names. Header-only and apart from quality.hpp
// because libfoehn keeps nlohmann/json out of its public interface (src/chemistry/CMakeLists.txt):
// include it only where the target links nlohmann_json::nlohmann_json. A non-finite number
// (the infinite aspect ratio of a flat tet) becomes null, as nlohmann/json writes it.

#include <nlohmann/json.hpp>

#include "foehn/mesh/quality.hpp"

namespace foehn {

inline nlohmann::json to_json(const MeshQuality& quality) {
  return {{"tets", quality.tets},
          {"edges", quality.edges},
          {"min_dihedral_degrees", quality.min_dihedral_degrees},
          {"dihedral_percentile_1_degrees", quality.dihedral_percentile_1_degrees},
          {"max_dihedral_degrees", quality.max_dihedral_degrees},
          {"worst_aspect_ratio", quality.worst_aspect_ratio},
          {"aspect_ratio_percentile_99", quality.aspect_ratio_percentile_99},
          {"shortest_edge", quality.shortest_edge},
          {"longest_edge", quality.longest_edge},
          {"edges_below", quality.edges_below},
          {"edges_above", quality.edges_above}};
}

}  // namespace foehn
