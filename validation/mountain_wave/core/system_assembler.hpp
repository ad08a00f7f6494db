#pragma once
// Assembles an operator on this rank's elements with the chosen backend and hands matrix and
// right-hand side to PETSc. Fields live in host memory (the model's state, next to PETSc);
// the CUDA backend uploads each field before the assembly (once only for fields declared
// constant), assembles on the device and hands the values over from the device. Buffers are
// created on first use per operator shape and reused: nothing is allocated in a timestep
// after the first.
#include <map>
#include <memory>
#include <set>
#include <span>
#include <vector>

#include "foehn/fe/cpu_assembler.hpp"
#include "foehn/fe/cuda_assembler.hpp"
#include "foehn/petsc/distributed_mesh.hpp"
#include "foehn/petsc/matrix_handoff.hpp"
#include "foehn/petsc/vector_handoff.hpp"
#include "foehn/runtime/backend.hpp"

namespace foehn::mountainwave {

class SystemAssembler {
 public:
  SystemAssembler(const petsc::DistributedMesh& mesh, Backend backend,
                  fe::AssemblyStrategy strategy);
  ~SystemAssembler();
  SystemAssembler(const SystemAssembler&) = delete;
  SystemAssembler& operator=(const SystemAssembler&) = delete;

  Backend backend() const noexcept { return backend_; }
  const std::shared_ptr<const fe::CsrPattern>& pattern() const noexcept { return cpu_.pattern(); }

  // The contents of this host array never change: the CUDA backend uploads it once.
  void declare_constant(std::span<const double> field);

  // Assembles `op` (fields: host arrays on the rank's local nodes) into `matrix` and, when
  // given, `rhs`. Synchronous: when it returns, matrix and rhs hold the new values.
  // `same_values`, when given, receives the same value array read with another block shape:
  // the divergence's 1 x 3 blocks D_{i,(j,a)} = int N_i dN_j/dx_a are, value for value, the
  // gradient's 3 x 1 blocks G_{(i,a),j}.
  template <class Op>
  void assemble(const Op& op, petsc::PetscMatrix& matrix, petsc::PetscVector* rhs,
                petsc::PetscMatrix* same_values = nullptr);

 private:
  struct Device;
  const double* device_copy_of(const fe::FieldRef& field);

  Backend backend_;
  fe::AssemblyStrategy strategy_;
  fe::CpuAssembler cpu_;
  std::map<int, fe::BlockCsrMatrix> host_matrices_;  // by block shape (rows * 4 + cols)
  std::map<int, std::vector<double>> host_rhs_;      // by components
  std::set<const double*> constant_fields_;
  std::unique_ptr<Device> device_;
};

}  // namespace foehn::mountainwave
