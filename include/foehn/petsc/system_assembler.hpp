#pragma once
// The placement-driven hand-off: assembles an operator on this rank's elements with the chosen
// backend (fe::Assembler), lets the caller edit the values (lumped diagonal terms, Dirichlet
// rows: fe::Constraints) where they were assembled, and hands matrix and right-hand side to
// PETSc. One path per placement, chosen here and nowhere else:
//  - CPU backend: host fields, host values, host PETSc objects;
//  - CUDA backend, host solves (a PETSc without CUDA): host fields, uploaded before the assembly
//    (once for fields declared constant); device values, copied to the host PETSc objects;
//  - CUDA backend, device solves: device fields; the values are assembled straight into PETSc's
//    device arrays (or once permuted into them) and never leave the GPU.
// Buffers are created on first use per operator shape and reused: nothing is allocated in a
// timestep after the first.
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <span>
#include <vector>

#include "foehn/fe/assembler.hpp"
#include "foehn/petsc/distributed_mesh.hpp"
#include "foehn/petsc/matrix_handoff.hpp"
#include "foehn/petsc/vector_handoff.hpp"
#include "foehn/runtime/backend.hpp"
#include "foehn/runtime/placement.hpp"

namespace foehn::petsc {

// Wall seconds spent by the assembler, summed since the last reset: the assembly itself (the
// device kernels waited for) and what follows it (edits, copies, the PETSc update).
struct AssemblyTimes {
  double assembly = 0;
  double handoff = 0;
};

class SystemAssembler {
 public:
  // device_solves: the PETSc matrices and vectors given to assemble() are on the GPU, and so are
  // the operators' fields (CUDA backend only).
  SystemAssembler(const DistributedMesh& mesh, Backend backend, fe::AssemblyStrategy strategy,
                  bool device_solves);
  // The same with every option of fe::Assembler (backend cpu|cuda|auto, strategy, threads, the
  // caller's stream, ...): petsc::assembler_options_from_database gives them from the options.
  SystemAssembler(const DistributedMesh& mesh, const fe::AssemblerOptions& options,
                  bool device_solves);
  ~SystemAssembler();
  SystemAssembler(const SystemAssembler&) = delete;
  SystemAssembler& operator=(const SystemAssembler&) = delete;

  Backend backend() const noexcept { return backend_; }
  // Where assembled values (and the arrays their edits read) live: device memory for the CUDA
  // backend, host memory for the CPU backend.
  Placement values() const;
  // Where the operators' fields and PETSc's vectors live: device memory with device solves;
  // host memory otherwise (staged through the stream for the CUDA backend).
  Placement fields() const;
  const std::shared_ptr<const fe::CsrPattern>& pattern() const noexcept {
    return assembler_.pattern();
  }
  // The device stream of the CUDA backend (null for the CPU backend).
  const Stream* stream() const noexcept;
  // Connectivity on the device, 4 nodes per tet (CUDA backend).
  const std::int32_t* device_tets() const;

  // The contents of this host array never change: the CUDA backend uploads it once.
  void declare_constant(std::span<const double> field);

  // Called between the assembly and the hand-off with the values (Foehn's order) and, when the
  // operator has one, the right-hand side: in host memory for the CPU backend, in device memory
  // (ordered on stream()) for the CUDA backend.
  using Edit = std::function<void(double* values, double* rhs)>;

  // Assembles `op` into `matrix` and, when given, `rhs`. Synchronous: when it returns, matrix and
  // rhs hold the new (edited) values. `same_values`, when given, receives the same value array
  // read with another block shape: the divergence's 1 x 3 blocks D_{i,(j,a)} = int N_i dN_j/dx_a
  // are, value for value, the gradient's 3 x 1 blocks G_{(i,a),j}.
  template <class Op>
  void assemble(const Op& op, PetscMatrix& matrix, PetscVector* rhs, const Edit& edit = {},
                PetscMatrix* same_values = nullptr);

  const AssemblyTimes& times() const noexcept { return times_; }
  void reset_times() noexcept { times_ = {}; }

 private:
  struct Device;
  const double* device_copy_of(const fe::FieldRef& field);
  template <class Op>
  void assemble_on_host(const Op& op, PetscMatrix& matrix, PetscVector* rhs, const Edit& edit,
                        PetscMatrix* same_values);
  template <class Op>
  void assemble_into_petsc(const Op& op, PetscMatrix& matrix, PetscVector* rhs, const Edit& edit,
                           PetscMatrix* same_values);
  template <class Op>
  void assemble_then_copy(const Op& op, PetscMatrix& matrix, PetscVector* rhs, const Edit& edit,
                          PetscMatrix* same_values);

  Backend backend_ = Backend::cpu;
  fe::AssemblyStrategy strategy_ = fe::default_assembly_strategy;
  bool device_solves_;
  fe::Assembler assembler_;
  std::map<int, fe::BlockCsrMatrix> host_matrices_;  // by block shape (rows * 4 + cols)
  std::map<int, std::vector<double>> host_rhs_;      // by components
  std::set<const double*> constant_fields_;
  std::unique_ptr<Device> device_;
  AssemblyTimes times_;
};

}  // namespace foehn::petsc
