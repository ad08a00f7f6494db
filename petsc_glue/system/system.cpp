#include "foehn/petsc/system.hpp"

#include "foehn/petsc/device_petsc.hpp"
#include "foehn/runtime/error.hpp"

namespace foehn::petsc {

System::System(SystemAssembler& assembler, const NodeNumbering& numbering, SystemSpec spec,
               const System* same_layout)
    : assembler_(assembler), spec_(std::move(spec)), owned_nodes_(numbering.owned_nodes) {
  MatrixHandoffOptions placement = spec_.handoff.value_or(MatrixHandoffOptions{});
  placement.device_matrix = assembler.fields().on_device();
  const MatrixHandoffOptions options =
      spec_.handoff || spec_.prefix.empty()
          ? placement
          : matrix_handoff_options_from_database(numbering.comm, spec_.prefix, placement);
  const auto& pattern = assembler.pattern();
  if (same_layout)
    matrix_ = std::make_unique<PetscMatrix>(*same_layout->matrix_, numbering, pattern,
                                            spec_.block_rows, spec_.block_cols, options);
  else
    matrix_ = std::make_unique<PetscMatrix>(numbering, pattern, spec_.block_rows, spec_.block_cols,
                                            options);
  if (spec_.with_rhs)
    rhs_ = std::make_unique<PetscVector>(numbering, spec_.block_rows, placement.device_matrix);
  if (spec_.solver)
    solver_ = std::make_unique<LinearSolver>(numbering.comm, spec_.prefix, *spec_.solver);
}

System::~System() = default;

LinearSolver& System::solver() {
  if (!solver_)
    fail(ErrorCategory::invalid_input, "petsc::System '", spec_.name,
         "': no solver (an operator that is only applied)");
  return *solver_;
}

void System::constrain(std::span<const std::uint8_t> constrained, fe::ConstraintSymmetry symmetry,
                       double diagonal) {
  if (spec_.block_rows != spec_.block_cols)
    fail(ErrorCategory::invalid_input, "petsc::System '", spec_.name, "': Dirichlet rows need ",
         "square blocks, not ", spec_.block_rows, " x ", spec_.block_cols);
  if (!constraints_)
    constraints_ = std::make_unique<fe::Constraints>(assembler_.pattern(), spec_.block_rows,
                                                     owned_nodes_, assembler_.values());
  constraints_->constrain(constrained, symmetry, diagonal);
}

fe::Constraints& System::constraints() {
  if (!constraints_)
    fail(ErrorCategory::invalid_input, "petsc::System '", spec_.name,
         "': no constraints (call constrain first)");
  return *constraints_;
}

void System::constrain_rhs(Vec b, Vec g) const {
  if (!constraints_)
    fail(ErrorCategory::invalid_input, "petsc::System '", spec_.name,
         "': no constraints (call constrain first)");
  const Stream* stream = assembler_.fields().stream_or_null();
  const VecArray rhs(b, VecAccess::read_write, stream);
  const VecArray prescribed(g, VecAccess::read, stream);
  constraints_->constrain_rhs(rhs.placement(), rhs.data(), prescribed.data());
}

SolveResult System::solve(Vec b, Vec x, double loosest_relative_tolerance) {
  LinearSolver& ksp = solver();
  ksp.set_operator(matrix_->mat());
  return record_solve([&] { return ksp.solve_loosely(b, x, loosest_relative_tolerance); });
}

SolveResult System::record_solve(const std::function<SolveResult()>& run) {
  const CudaCallCounts calls_before = cuda_call_counts();
  const CommunicationCounts communication_before = communication_counts();
  const SolveResult result = run();
  times_.cuda_calls += cuda_call_counts() - calls_before;
  times_.communication += communication_counts() - communication_before;
  times_.setup += result.setup_seconds;
  times_.solve += result.solve_seconds;
  times_.iterations += result.iterations;
  ++times_.solves;
  return result;
}

}  // namespace foehn::petsc
