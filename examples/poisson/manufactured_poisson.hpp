#pragma once
// A Poisson problem with a known solution, solved through the whole Foehn + PETSc path:
//   -div(K grad u) = f  on a (distributed) tetrahedral mesh,  u = g on the boundary,
// with u = sin(kx x + px) cos(ky y) sin(kz z + pz) and a constant, full, anisotropic SPD K,
// so f and g are known in closed form. Each rank assembles its own elements with fe::Assembler
// (CPU reference or CUDA, -foehn_backend), hands matrix and RHS to PETSc, applies the symmetric
// Dirichlet elimination and solves with a LinearSolver. The discrete L2 error then measures the
// whole chain: P1 elements converge at second order in L2, so anything wrong anywhere shows as a
// lost order.
#include <array>
#include <memory>
#include <string>
#include <vector>

#include "foehn/mesh/tet_mesh.hpp"
#include "foehn/petsc/distributed_mesh.hpp"
#include "foehn/petsc/linear_solver.hpp"
#include "foehn/petsc/matrix_handoff.hpp"
#include "foehn/petsc/node_exchange.hpp"
#include "foehn/petsc/system.hpp"
#include "foehn/petsc/vector_handoff.hpp"
#include "foehn/runtime/backend.hpp"

namespace foehn::examples {

struct ManufacturedSolution {
  std::array<double, 9> conductivity{};  // K, row-major, symmetric positive definite
  double kx = 0, ky = 0, kz = 0, px = 0, pz = 0;

  double value(const Point3& x) const;
  double source(const Point3& x) const;  // -div(K grad u)

  // About half a wavelength across each direction of a box of the given size, phases chosen so
  // that no boundary is a nodal line, and a K with off-diagonal terms and a 10:1 anisotropy
  // (horizontal vs vertical, as in atmospheric diffusion).
  static ManufacturedSolution for_box(double length_x, double length_y, double height);
};

// Node field name that marks Dirichlet nodes (1) of the input mesh before distribution.
inline constexpr const char* dirichlet_field_name = "dirichlet";
// Adds the field: every node of a boundary face is a Dirichlet node.
void mark_boundary_nodes(TetMesh& mesh);

class PoissonProblem {
 public:
  // `mesh` must carry the dirichlet node field (mark_boundary_nodes before distribution) and
  // outlive the problem. `assembly` chooses the backend (cpu, cuda or auto) and CUDA strategy,
  // e.g. petsc::assembler_options_from_database; with cuda, the rank's device must already be
  // selected (petsc::select_device_for_rank). Collective.
  PoissonProblem(const petsc::DistributedMesh& mesh, ManufacturedSolution solution,
                 const fe::AssemblerOptions& assembly,
                 const petsc::MatrixHandoffOptions& handoff = {});
  ~PoissonProblem();
  PoissonProblem(const PoissonProblem&) = delete;
  PoissonProblem& operator=(const PoissonProblem&) = delete;

  // Assembles K and the load vector, hands them to PETSc, applies u = g. Collective.
  void assemble();
  // Solves into the solution vector (which holds g on the boundary after assemble). Collective.
  petsc::SolveResult solve(petsc::LinearSolver& solver);

  Mat matrix() const { return system_->mat(); }
  Vec rhs() const { return system_->rhs(); }
  Vec solution() const { return solution_.get(); }
  const petsc::DistributedMesh& mesh() const { return mesh_; }
  Backend backend() const { return assembler_.backend(); }

  // The solution on this rank's local nodes (owned and ghosts). Collective.
  std::vector<double> local_solution() const;
  // ||u_h - u||_L2 over the whole domain (each tet counted once, degree-4 quadrature) and
  // ||u||_L2 for scale. Collective.
  double l2_error() const;
  double l2_norm_of_exact() const;

 private:
  double integrate_squared(bool error) const;

  const petsc::DistributedMesh& mesh_;
  ManufacturedSolution exact_;
  std::vector<double> tensor_, source_;
  std::vector<std::int32_t> dirichlet_nodes_;
  petsc::NodeExchange exchange_;
  // Operator -> PETSc on the chosen backend, and K with its load vector: the library's
  // placement-driven path (petsc::System), the fields on the host (solves on the host).
  petsc::SystemAssembler assembler_;  // before system_, which is created on its pattern
  std::unique_ptr<petsc::System> system_;
  petsc::UniqueVec solution_, boundary_values_;
  std::vector<PetscInt> dirichlet_rows_;
};

}  // namespace foehn::examples
