#pragma once
// The momentum operator (3 x 3 blocks) assembled on the CPU over `mesh`, with the coefficients
// the value-edit tests share: a non-symmetric block matrix with every kind of entry.
#include "foehn/fe/cpu_assembler.hpp"
#include "foehn/fe/operators.hpp"

namespace foehn::testing {

inline fe::BlockCsrMatrix assembled_momentum(const TetMesh& mesh) {
  fe::CpuAssembler cpu(mesh);
  fe::BlockCsrMatrix momentum = cpu.create_matrix<fe::MomentumOperator>();
  fe::MomentumOperator op;
  op.density_over_dt = 0.05;
  op.viscosity = 10;
  cpu.assemble(op, momentum);
  return momentum;
}

}  // namespace foehn::testing
