#pragma once
// Inputs for the Python peer (peer_pytorch.py) and the published A100 figures.

#include <filesystem>

#include "bench_results.hpp"
#include "foehn/mesh/tet_mesh.hpp"
#include "foehn/runtime/stream.hpp"

namespace foehn::bench {

// Writes <dir>/<tets>/{meta.txt, coords.f64, tets.i32, tensor.f64, row_offsets.i32,
// columns.i32, values.f64}: the mesh, the diffusion tensor of the benchmark and Foehn's
// deterministic diffusion matrix (no RHS), the reference the peer is checked against.
void export_peer_inputs(const TetMesh& mesh, const Stream& stream, const std::filesystem::path& dir);

// The seed paper's A100 times for the published mesh (554,394 tets; Tables 3, 4 and 6),
// quoted beside ours, marked "published" and never used in ratios.
void add_published_a100_cases(BenchReport& report);

}  // namespace foehn::bench
