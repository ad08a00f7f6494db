#pragma once
// The operators the GPU assembly benchmark times (issue: "the diffusion operator with a 3x3
// tensor and the vector momentum-like operator"), their nodal fields and their byte models.

#include <string>
#include <vector>

#include "foehn/fe/cuda_assembler.hpp"

namespace foehn::bench {

// Nodal fields of the benchmark on the device: a smooth SPD tensor (stronger mixing aloft, the
// anisotropy of an atmospheric mesh) and the mountain-wave inflow as advecting velocity.
struct AssemblyFields {
  std::vector<double> tensor_host, velocity_host, source_host;
  DeviceArray<double> tensor, velocity, source;
};
AssemblyFields make_assembly_fields(const TetMesh& mesh, const Stream& stream);

fe::DiffusionOperator diffusion_case(const AssemblyFields& f);
fe::MomentumOperator momentum_case(const AssemblyFields& f);
fe::DiffusionOperator diffusion_case_host(const AssemblyFields& f);
fe::MomentumOperator momentum_case_host(const AssemblyFields& f);

// The floor: the fewest bytes one assembly must move through device memory, every input read
// once and every output written once, independent of the strategy:
//   connectivity 16 E; coordinates 24 N; nodal fields (components x 8) N; the pattern's column
//   indices 4 nnz (the slots must be found) and row offsets 4 (N + 1); matrix values
//   8 R C nnz written; RHS 8 R N written.
// E = tets, N = nodes, nnz = block nonzeros of the node pattern.
double floor_bytes(std::int64_t tets, std::int64_t nodes, std::int64_t nnz, int field_components,
                   int block_rows, int block_cols, bool with_rhs);
// What row_gather reads on top of the floor: the node -> element adjacency, one 4-byte entry
// per (element, vertex) and 4-byte offsets per node.
double adjacency_bytes(std::int64_t tets, std::int64_t nodes);

}  // namespace foehn::bench
