#pragma once
// One benchmark run of the GPU -> PETSc hand-off on this rank's part of a distributed mesh:
// per operator, the median times of the assembly, the device -> host copy, the PETSc update,
// and of a two-system pipeline run sequentially and with the copies overlapped.
#include <string>
#include <vector>

#include "foehn/fe/cuda_assembler.hpp"
#include "foehn/petsc/distributed_mesh.hpp"
#include "foehn/petsc/matrix_handoff.hpp"

namespace foehn::bench {

struct HandoffTimes {
  std::string operator_name;  // "diffusion" (CSR + RHS) or "momentum" (3x3 blocks + RHS)
  double assemble_ms = 0;     // assembly kernels (host wall, stream synchronised)
  double copy_ms = 0;         // device -> host copy of matrix and RHS values (0 on the GPU)
  double update_ms = 0;       // PETSc update (array release or MatSetValuesCOO, VecSetValuesCOO;
                              // on the GPU: the device permutation or MatSetValuesCOO)
  double value_bytes = 0;     // matrix + RHS bytes copied per hand-off (this rank)
  std::string path, format;   // hand-off path and PETSc format used
  bool registered = false;    // copies straight into PETSc's page-locked array
  double check_relative_error = 0;  // sum of all entries: PETSc vs Foehn's local values
};

struct PipelineTimes {
  double sequential_ms = 0;  // assemble A, hand off A, assemble B, hand off B
  double overlapped_ms = 0;  // copies on a second stream, PETSc updates while the GPU works
};

struct HandoffRun {
  std::vector<HandoffTimes> operators;
  PipelineTimes pipeline;
};

// on_device: matrices and vectors on the GPU (a PETSc built with CUDA): the assembly writes
// into PETSc's device arrays and the hand-off is what end_device_write does; no pipeline.
HandoffRun run_handoff_cases(const petsc::DistributedMesh& mesh, fe::AssemblyStrategy strategy,
                             int warmups, int repeats, bool on_device);

}  // namespace foehn::bench
