#pragma once
// One linear system from operator to solve, whatever the placement:
//
//   operator and fields --assemble--> values --edits--> constraints --hand-off--> Mat (and Vec)
//   --> KSP with the system's options prefix
//
// The placement comes from the SystemAssembler (host or device fields, CPU or CUDA backend):
// a System makes no placement decision of its own. It counts its own times (assembly, hand-off,
// preconditioner set-up, Krylov solve) and Krylov iterations, for per-system reports.
//
//   petsc::SystemAssembler assembler(mesh, backend, strategy, device_solves);
//   petsc::System momentum(assembler, numbering,
//                          {"momentum", "momentum_", 3, 3, true, SolverSettings::for_kind(
//                              SolverKind::momentum, device_solves)});
//   momentum.constrain(flags, fe::ConstraintSymmetry::rows_only, mean_mass / dt);
//   momentum.assemble(op, damping.data());        // values, + damping, Dirichlet rows, Mat, b
//   momentum.constrain_rhs(momentum.rhs(), g);    // b = diagonal * g at the constrained rows
//   momentum.solve(momentum.rhs(), x);
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>

#include "foehn/fe/constraints.hpp"
#include "foehn/petsc/communication_counts.hpp"
#include "foehn/petsc/linear_solver.hpp"
#include "foehn/petsc/matrix_handoff.hpp"
#include "foehn/petsc/node_numbering.hpp"
#include "foehn/petsc/system_assembler.hpp"
#include "foehn/petsc/vector_handoff.hpp"
#include "foehn/runtime/cuda_call_counts.hpp"

namespace foehn::petsc {

struct SystemSpec {
  std::string name;    // in logs and reports
  std::string prefix;  // options prefix of the matrix (-<prefix>mat_format ...) and of the KSP;
                       // "" for an operator whose matrix takes no options
  int block_rows = 1, block_cols = 1;
  bool with_rhs = false;                 // the operator assembles a right-hand side too
  std::optional<SolverSettings> solver;  // none: an operator only applied (MatMult)
  // The matrix's format and hand-off path; none: from the options database under `prefix`.
  // Its device_matrix is the assembler's placement either way.
  std::optional<MatrixHandoffOptions> handoff;
};

// Sums since construction or reset_times().
struct SystemTimes {
  double assembly = 0;  // the assemblies themselves (device kernels waited for)
  double handoff = 0;   // edits, constraints and the PETSc update
  double setup = 0;     // preconditioner set-up inside solves
  double solve = 0;     // Krylov iterations
  std::int64_t assemblies = 0, solves = 0, iterations = 0;
  // The CUDA calls of its assemblies and solves, by every library (cuda_call_counts.hpp); zero
  // unless counting was started.
  CudaCallCounts cuda_calls;
  // The MPI communication of its assemblies and solves (communication_counts.hpp).
  CommunicationCounts communication;
};

class System {
 public:
  // Collective on numbering.comm. The Mat and the right-hand side live where
  // assembler.fields() says (MATAIJCUSPARSE and VECCUDA with device solves). `same_layout`, a
  // system with the same block shape on the same numbering and pattern, shares its PETSc COO
  // maps (PetscMatrix's same_layout constructor). The assembler must outlive the system.
  System(SystemAssembler& assembler, const NodeNumbering& numbering, SystemSpec spec,
         const System* same_layout = nullptr);
  ~System();
  System(const System&) = delete;
  System& operator=(const System&) = delete;

  const std::string& name() const noexcept { return spec_.name; }
  const std::string& prefix() const noexcept { return spec_.prefix; }
  PetscMatrix& matrix() noexcept { return *matrix_; }
  Mat mat() const noexcept { return matrix_->mat(); }
  // The assembled right-hand side (with_rhs), null otherwise.
  Vec rhs() const noexcept { return rhs_ ? rhs_->vec() : nullptr; }
  bool has_solver() const noexcept { return solver_ != nullptr; }
  // invalid_input naming the system when it has none.
  LinearSolver& solver();

  // Dirichlet rows: one flag per local point (node * block_rows + r, owned and ghost nodes),
  // the value the constrained rows get on the diagonal. Square systems only. Replaces an
  // earlier set.
  void constrain(std::span<const std::uint8_t> constrained, fe::ConstraintSymmetry symmetry,
                 double diagonal);
  bool constrained() const noexcept { return constraints_ != nullptr; }
  // invalid_input naming the system when it has none.
  fe::Constraints& constraints();

  // Assembles `op` into the matrix (and the right-hand side), in this order: the values, the
  // caller's `edit` (values and rhs where the backend assembled them), the lumped terms added
  // to the diagonal (`lumped`: owned points' values in the values' memory, or null), the
  // Dirichlet rows, the hand-off. `same_values`: as SystemAssembler::assemble. Collective.
  template <class Op>
  void assemble(const Op& op, const double* lumped = nullptr,
                const SystemAssembler::Edit& edit = {}, PetscMatrix* same_values = nullptr);
  // b = diagonal * g at the owned constrained rows (b and g: Vecs of this system's rows).
  void constrain_rhs(Vec b, Vec g) const;
  // Solves mat() x = b (x's content is the initial guess when the settings say so).
  // `loosest_relative_tolerance` > 0: LinearSolver::solve_loosely, for solves whose result only
  // seeds a later, tighter one. Collective.
  SolveResult solve(Vec b, Vec x, double loosest_relative_tolerance = 0);
  // Counts a solve the caller runs itself on this system's operator (several right-hand sides
  // at once with BlockChebyshev, say): the result's iterations and seconds, and the CUDA calls
  // and communication of `run`, as solve() counts its own.
  SolveResult record_solve(const std::function<SolveResult()>& run);

  const SystemTimes& times() const noexcept { return times_; }
  void reset_times() noexcept { times_ = {}; }

 private:
  SystemAssembler& assembler_;
  SystemSpec spec_;
  std::unique_ptr<PetscMatrix> matrix_;
  std::unique_ptr<PetscVector> rhs_;
  std::unique_ptr<LinearSolver> solver_;
  std::unique_ptr<fe::Constraints> constraints_;
  std::int32_t owned_nodes_ = 0;
  SystemTimes times_;
};

template <class Op>
void System::assemble(const Op& op, const double* lumped, const SystemAssembler::Edit& edit,
                      PetscMatrix* same_values) {
  const AssemblyTimes before = assembler_.times();
  const CudaCallCounts calls_before = cuda_call_counts();
  const CommunicationCounts communication_before = communication_counts();
  assembler_.assemble(
      op, *matrix_, rhs_.get(),
      [&](double* values, double* rhs) {
        if (edit) edit(values, rhs);
        if (lumped) constraints().add_diagonal(values, lumped);
        if (constraints_) constraints_->apply(values);
      },
      same_values);
  times_.assembly += assembler_.times().assembly - before.assembly;
  times_.handoff += assembler_.times().handoff - before.handoff;
  times_.cuda_calls += cuda_call_counts() - calls_before;
  times_.communication += communication_counts() - communication_before;
  ++times_.assemblies;
}

}  // namespace foehn::petsc
