#pragma once
// The case the checkpoint fuzz target reads against and its seed files were written for: a
// tiny mountain mesh (18 nodes, 24 tets) on one rank, so that a valid checkpoint is a few KB
// and the fuzzer spends its time in the reader rather than in HDF5's data path. The seeds
// (make_seeds_checkpoint.cpp) and the target (fuzz_checkpoint_reader.cpp) must agree on it.

#include "foehn/mesh/mountain.hpp"
#include "io/case_fingerprint.hpp"
#include "io/checkpoint.hpp"

namespace foehn::fuzz {

inline TetMesh checkpoint_fuzz_mesh() {
  MountainMeshOptions options;
  options.cells_x = 2;
  options.cells_y = 2;
  options.cells_z = 1;
  return generate_mountain_mesh(options);
}

inline mountainwave::CheckpointMetadata checkpoint_fuzz_metadata() {
  return {mountainwave::CaseFingerprint().add("case", "fuzz").add("dt", 0.5).str()};
}

}  // namespace foehn::fuzz
